// The TCO model on scenarios built by hand; every figure worked out in the comments.
#include "tco/tco.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::tco {
namespace {

using gpuplan::testing::default_catalog;

const StrategyResult& strategy(const TcoResult& r, const std::string& id) {
  for (const auto& s : r.strategies)
    if (s.id == id) return s;
  throw std::runtime_error("no strategy " + id);
}

double line(const StrategyResult& s, const std::string& id) {
  for (const auto& l : s.lines)
    if (l.id == id) return l.amount;
  return 0;
}

// The article's pair [S1 §4]: ¥780,000 all-in for 3 years against 2 GPUs on demand, 50% busy.
Scenario dual_a100(double on_demand) {
  Scenario s;
  s.name = "dual";
  s.horizon_hours = 3 * 8760;  // 26,280 h
  s.owned.gpus = 2;
  s.owned.purchase = Range::point(780000);
  s.owned.residual = Range::point(0);
  s.rent.on_demand_gpu_hour = Range::point(on_demand);
  s.demand.assign(26280, 1.0);  // 2 GPUs × 50%
  s.mc_draws = 100;
  return s;
}

TEST(TcoTest, DualA100RentingIs57PercentCheaper) {
  TcoResult r = analyse(dual_a100(12.8), default_catalog());
  // 2 × 0.5 × 26,280 h × ¥12.8 = ¥336,384 (the article's ¥112,640 a year used 4,400 h, SPEC §J).
  EXPECT_NEAR(strategy(r, "rent_hourly").total, 336384, 1e-6);
  EXPECT_NEAR(strategy(r, "buy").total, 780000, 1e-6);
  EXPECT_EQ(r.recommendation, "rent_hourly");
  // 1 − 336,384 / 780,000 = 56.87%: 57% cheaper, not 43%.
  EXPECT_NEAR(1 - strategy(r, "rent_hourly").total / strategy(r, "buy").total, 0.5687, 1e-4);
  EXPECT_NEAR(strategy(r, "rent_hourly").per_used_gpu_hour, 12.8, 1e-9);
  EXPECT_NEAR(r.average_utilization, 0.5, 1e-12);
  ASSERT_EQ(r.break_even.size(), 1u);
  EXPECT_FALSE(r.break_even[0].month.has_value());        // buy never catches up in 36 months
  EXPECT_FALSE(r.break_even[0].utilization.has_value());  // at ¥12.8 renting wins even at 100%
}

TEST(TcoTest, WhyGivesTheFiguresThatMakeTheCheapest) {
  TcoResult r = analyse(dual_a100(12.8), default_catalog());
  // buy, rent_hourly and hybrid; rent_hourly cheapest at ¥336,384 = ¥12.80 a used GPU-hour; buying
  // costs ¥780,000, 56.9% more (¥443,616); 26,280 GPU-hours are 50% of 2 GPUs.
  // Then the rule of thumb's reason: 50% sits between the 30% rent and 60% buy thresholds, steady
  // (peak 1 = mean 1).
  ASSERT_EQ(r.why.size(), 4u);
  EXPECT_EQ(r.why[0], Phrase("tco.why.cheapest")
                          .fact("strategy", "rent_hourly")
                          .fact("total", "¥336,384")
                          .fact("months", "36.0")
                          .fact("per_hour", "¥12.80")
                          .fact("count", "3"));
  EXPECT_EQ(r.why[1], Phrase("tco.why.against_buy")
                          .fact("buy_total", "¥780,000")
                          .fact("strategy", "rent_hourly")
                          .fact("share", "56.9%")
                          .fact("saving", "¥443,616"));
  EXPECT_EQ(r.why[2],
            Phrase("tco.why.demand").fact("gpu_hours", "26,280").fact("utilization", "50.0%").fact("gpus", "2"));
  EXPECT_EQ(r.why[3], Phrase("tco.rule.middle").fact("utilization", "50.0%").fact("ratio", "1.0"));
  for (const Phrase& p : r.why) EXPECT_TRUE(report::has_message(p.key)) << p.key;
}

TEST(TcoTest, WhenBuyingIsCheapestTheOthersSayWhatTheyWouldCost) {
  // Owning 2 GPUs for ¥780,000 against ¥40/GPU-h: renting costs 26,280 × 40 = ¥1,051,200.
  Scenario s = dual_a100(40);
  s.demand.assign(26280, 2.0);  // both busy every hour: owning one GPU costs half, so hybrid = buy
  TcoResult r = analyse(s, default_catalog());
  ASSERT_EQ(r.recommendation, "buy");
  // 2 × 26,280 × 40 = ¥2,102,400, ¥1,322,400 more than buying.
  EXPECT_EQ(r.why[1], Phrase("tco.why.would_cost")
                          .fact("strategy", "rent_hourly")
                          .fact("total", "¥2,102,400")
                          .fact("more", "¥1,322,400"));
}

TEST(TcoTest, HybridWhySaysHowManyToOwn) {
  TcoResult r = analyse(dual_a100(34.74), default_catalog());
  ASSERT_EQ(r.recommendation, "hybrid");
  bool said = false;
  for (const Phrase& p : r.why) said |= p == Phrase("tco.why.hybrid").fact("gpus", "1");
  EXPECT_TRUE(said);
}

TEST(TcoTest, EveryIdTheModelWordsHasWordsInBothLanguages) {
  // Every cost line of every strategy, on a scenario that has them all.
  Scenario s = dual_a100(12.8);
  s.owned.residual.reset();
  s.owned.life_months = 72;  // half the book value is left after 36 months
  s.owned.power_kw = Range::point(1.5);
  s.owned.electricity_kwh = Range::point(0.8);
  s.owned.rack_monthly = Range::point(800);
  s.owned.staff_monthly = Range::point(5000);
  s.owned.licences_yearly = Range::point(1000);
  s.owned.support_yearly = Range::point(1000);
  s.rent.monthly_gpu = Range::point(3000);
  s.rent.spot_gpu_hour = Range::point(5);
  s.rent.spot_overhead = Range::point(0.1);
  s.rent.reserved_gpu_hour = Range::point(9);
  s.transfer = {1000, 100, Range::point(0.8), Range::point(0.1), false, 500, Range::point(0.1)};
  for (size_t h = 0; h < s.demand.size(); ++h) s.demand[h] = h % 24 < 20 ? 1 : 3;  // above the 2 owned
  TcoResult r = analyse(s, default_catalog());
  std::set<std::string> ids;
  for (const auto& st : r.strategies)
    for (const auto& l : st.lines) ids.insert(l.id);
  for (const char* id : {"purchase", "residual", "electricity", "rack", "staff", "licences", "support", "overflow",
                         "monthly_rent", "on_demand", "spot", "reserved", "egress", "ingress", "storage"})
    EXPECT_TRUE(ids.count(id)) << id;
  for (const auto& id : ids) EXPECT_TRUE(report::has_message("tco.line." + id)) << id;
  EXPECT_TRUE(report::has_message("tco.line.burst"));
  EXPECT_TRUE(report::has_message("tco.line.purchase_share"));
  EXPECT_TRUE(report::has_message("tco.line.residual_share"));
  // The tornado's margin, and each factor's name and notes.
  EXPECT_EQ(r.sensitivity.margin, Phrase("tco.margin.buy_minus_best_rent"));
  EXPECT_TRUE(report::has_message(r.sensitivity.margin.key));
  ASSERT_EQ(r.non_financial.size(), 4u);
  for (const auto& f : r.non_financial) {
    EXPECT_TRUE(report::has_message("tco.factor." + f.factor)) << f.factor;
    for (const char* answer : {".yes", ".no", ".unknown"})
      EXPECT_TRUE(report::has_message("tco.factor." + f.factor + answer)) << f.factor << answer;
  }
}

TEST(TcoTest, NonFinancialNotesFollowWhatTheUserStated) {
  Scenario s = dual_a100(12.8);
  s.factors.data_sensitive = true;
  s.factors.team_runs_linux_cuda = false;
  TcoResult r = analyse(s, default_catalog());
  ASSERT_EQ(r.non_financial.size(), 4u);
  EXPECT_EQ(r.non_financial[0].factor, "data_sovereignty");
  EXPECT_EQ(r.non_financial[0].note, Phrase("tco.factor.data_sovereignty.yes"));
  EXPECT_EQ(r.non_financial[1].factor, "compliance");
  EXPECT_EQ(r.non_financial[1].note, Phrase("tco.factor.compliance.unknown"));
  EXPECT_EQ(r.non_financial[2].factor, "team_skills");
  EXPECT_EQ(r.non_financial[2].note, Phrase("tco.factor.team_skills.no"));
  EXPECT_EQ(r.non_financial[3].factor, "lock_in");
  EXPECT_EQ(r.non_financial[3].note, Phrase("tco.factor.lock_in.unknown"));
}

TEST(TcoTest, DualA100BreakEvenUtilizationAtTheRealPrice) {
  // ecs.gn7e-c16g1.4xlarge at ¥34.74/h (SPEC §J): 780,000 / (2 × 26,280 × 34.74) = 42.72%.
  TcoResult r = analyse(dual_a100(34.74), default_catalog());
  ASSERT_TRUE(r.break_even[0].utilization.has_value());
  EXPECT_NEAR(*r.break_even[0].utilization, 780000.0 / (2 * 26280 * 34.74), 1e-9);
  EXPECT_NEAR(*r.break_even[0].utilization, 0.4272, 1e-4);
  // At 50% the pair costs 26,280 × 34.74 = ¥912,967.20 to rent: owning beats renting.
  EXPECT_NEAR(strategy(r, "rent_hourly").total, 912967.2, 1e-6);
  EXPECT_LT(strategy(r, "buy").total, strategy(r, "rent_hourly").total);
  // A steady 50% of two GPUs is one GPU busy every hour: owning one (half of ¥780,000) serves it.
  EXPECT_EQ(r.hybrid.owned_gpus, 1);
  EXPECT_NEAR(r.hybrid.total, 390000, 1e-6);
  EXPECT_EQ(r.recommendation, "hybrid");
}

TEST(TcoTest, BurstWorkloadRentsOnDemand) {
  // 8 GPUs for 48 h a week (Monday and Tuesday) over 156 weeks, ¥12.8 per GPU-hour [S1 §4].
  Scenario s;
  s.horizon_hours = 156 * 168;  // 26,208 h
  s.owned.gpus = 8;
  s.owned.purchase = Range::point(3200000);
  s.owned.residual = Range::point(0);
  s.rent.on_demand_gpu_hour = Range::point(12.8);
  s.demand.resize(26208);
  for (size_t h = 0; h < s.demand.size(); ++h) s.demand[h] = (h / 24) % 7 < 2 ? 8 : 0;
  s.mc_draws = 10;
  TcoResult r = analyse(s, default_catalog());
  // A week: 8 × 48 × 12.8 = ¥4,915.20; 156 weeks: ¥766,771.20 against ¥3.2M owned.
  EXPECT_NEAR(strategy(r, "rent_hourly").total, 766771.2, 1e-6);
  EXPECT_NEAR(strategy(r, "rent_hourly").total / 156, 4915.2, 1e-6);
  EXPECT_EQ(r.recommendation, "rent_hourly");
  EXPECT_EQ(r.hybrid.owned_gpus, 0);  // each owned GPU (¥400,000) would serve ¥95,846 of rent
  EXPECT_EQ(r.rule_of_thumb, "rent");  // 48/168 = 28.6% < 30% [S1 §4]
}

TEST(TcoTest, NightlyPeakOwnsTheBaselineAndRentsThePeak) {
  // 4 GPUs all day, 8 from 20:00 to 24:00; owning costs ¥200,000 per GPU for the horizon;
  // on demand ¥20/GPU-h. An always-busy GPU would rent for 26,280 × 20 = ¥525,600 (own it);
  // a peak GPU busy 4 h a day for 1,095 × 4 × 20 = ¥87,600 (rent it). So B = 4.
  Scenario s;
  s.horizon_hours = 26280;
  s.owned.gpus = 8;
  s.owned.purchase = Range::point(1600000);
  s.owned.residual = Range::point(0);
  s.rent.on_demand_gpu_hour = Range::point(20);
  s.demand.resize(26280);
  for (size_t h = 0; h < s.demand.size(); ++h) s.demand[h] = h % 24 >= 20 ? 8 : 4;
  s.mc_draws = 10;
  TcoResult r = analyse(s, default_catalog());
  EXPECT_EQ(r.hybrid.owned_gpus, 4);
  // 4 × 200,000 + 4 GPUs × 4 h × 1,095 days × 20 = 800,000 + 350,400.
  EXPECT_NEAR(r.hybrid.total, 1150400, 1e-6);
  EXPECT_EQ(r.recommendation, "hybrid");
  ASSERT_EQ(r.hybrid.curve.size(), 9u);  // B = 0..8
  EXPECT_NEAR(r.hybrid.curve[0].total, strategy(r, "rent_hourly").total, 1e-6);  // B = 0 is pure on-demand
  EXPECT_NEAR(r.hybrid.curve[8].total, strategy(r, "buy").total, 1e-6);          // B = all is buying
}

TEST(TcoTest, HybridOptimumEqualsBruteForceOnRandomProfiles) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    Scenario s;
    s.horizon_hours = 24 * 7 * (1 + rng() % 8);
    s.owned.gpus = 1 + rng() % 16;
    s.owned.purchase = Range::point(10000.0 * (1 + rng() % 100) * s.owned.gpus);
    s.owned.power_kw = Range::point(0.5 * s.owned.gpus);
    s.owned.electricity_kwh = Range::point(0.8);
    s.owned.pue = Range::point(1.3);
    s.owned.staff_monthly = Range::point(1000.0 * (rng() % 5));
    s.rent.on_demand_gpu_hour = Range::point(5.0 + rng() % 40);
    s.demand.resize(static_cast<size_t>(s.horizon_hours));
    for (double& d : s.demand) d = (rng() % 3 == 0) ? 0 : static_cast<double>(rng() % (s.owned.gpus + 4)) + (rng() % 4) / 4.0;
    HybridResult fast = optimal_hybrid(s);
    double best = INFINITY;
    int peak = static_cast<int>(std::ceil(*std::max_element(s.demand.begin(), s.demand.end())));
    // The hybrid owns at most the purchase it is priced as a share of.
    for (int b = 0; b <= std::min(peak, s.owned.gpus); ++b) best = std::min(best, hybrid_total(s, b));
    EXPECT_NEAR(fast.total, best, 1e-6 * std::max(1.0, best)) << "trial " << trial;
    EXPECT_NEAR(hybrid_total(s, fast.owned_gpus), best, 1e-6 * std::max(1.0, best)) << "trial " << trial;
  }
}

TEST(TcoTest, ElectricityFollowsUtilizationAboveTheIdleFloor) {
  // 2 GPUs, 1.5 kW fleet, half busy for one month: 0.75 kW per GPU × (0.5 × 2 × 730 + 0.5 × 730)
  // = 821.25 kWh × PUE 1.45 × ¥0.8 = ¥952.65.
  Scenario s;
  s.horizon_hours = 730;
  s.owned.gpus = 2;
  s.owned.purchase = Range::point(100000);
  s.owned.residual = Range::point(0);
  s.owned.power_kw = Range::point(1.5);
  s.owned.idle_fraction = 0.5;
  s.owned.electricity_kwh = Range::point(0.8);
  s.owned.pue = Range::point(1.45);
  s.rent.on_demand_gpu_hour = Range::point(12.8);
  s.demand.assign(730, 1.0);
  s.mc_draws = 10;
  TcoResult r = analyse(s, default_catalog());
  EXPECT_NEAR(line(strategy(r, "buy"), "electricity"), 952.65, 1e-6);
}

TEST(TcoTest, ResidualDefaultsToStraightLineBookValue) {
  // ¥360,000 over a 36-month life, 12-month horizon: 2/3 of it is still on the books.
  Scenario s;
  s.horizon_hours = 8760;
  s.owned.gpus = 1;
  s.owned.purchase = Range::point(360000);
  s.owned.life_months = 36;
  s.rent.on_demand_gpu_hour = Range::point(10);
  s.demand.assign(8760, 1.0);
  s.mc_draws = 10;
  TcoResult r = analyse(s, default_catalog());
  EXPECT_NEAR(line(strategy(r, "buy"), "residual"), -240000, 1e-6);
  EXPECT_NEAR(strategy(r, "buy").total, 120000, 1e-6);
  EXPECT_NEAR(strategy(r, "buy").cumulative_by_month.front(), 360000, 1e-6);  // cash: paid up front
  EXPECT_NEAR(strategy(r, "buy").cumulative_by_month.back(), 120000, 1e-6);   // residual back at the end
}

TEST(TcoTest, EgressIsPricedPerGigabyteAsConfigured) {
  // 100 TB in a month at ¥0.8/GB: binary 102,400 GB → ¥81,920; decimal 100,000 GB → ¥80,000.
  for (auto [gb, expected] : {std::pair{102400.0, 81920.0}, {100000.0, 80000.0}}) {
    Scenario s;
    s.horizon_hours = 730;
    s.owned.gpus = 1;
    s.owned.purchase = Range::point(100000);
    s.rent.on_demand_gpu_hour = Range::point(10);
    s.transfer.gb_out_per_month = gb;
    s.transfer.price_out_gb = Range::point(0.8);
    s.demand.assign(730, 1.0);
    s.mc_draws = 10;
    TcoResult r = analyse(s, default_catalog());
    EXPECT_NEAR(line(strategy(r, "rent_hourly"), "egress"), expected, 1e-6);
    EXPECT_EQ(line(strategy(r, "buy"), "egress"), 0);  // owned servers pay no cloud egress
  }
}

TEST(TcoTest, MonthlyRentIsHeldAtEachMonthsPeakAndTheHourlyBoundary) {
  // Month 1 peaks at 3 GPUs, month 2 at 1: (3 + 1) × ¥3,000 = ¥12,000.
  Scenario s;
  s.horizon_hours = 1460;
  s.owned.gpus = 4;
  s.owned.purchase = Range::point(400000);
  s.rent.monthly_gpu = Range::point(3000);
  s.rent.on_demand_gpu_hour = Range::point(12.8);
  s.demand.assign(1460, 0.0);
  s.demand[5] = 3;
  s.demand[800] = 1;
  s.mc_draws = 10;
  TcoResult r = analyse(s, default_catalog());
  EXPECT_NEAR(strategy(r, "rent_monthly").total, 12000, 1e-6);
  // Monthly beats hourly above 3,000 / 12.8 = 234.375 busy hours a month.
  ASSERT_TRUE(r.hourly_vs_monthly_hours.has_value());
  EXPECT_NEAR(*r.hourly_vs_monthly_hours, 234.375, 1e-9);
}

TEST(TcoTest, SpotPaysItsInterruptionOverhead) {
  // 1,000 GPU-hours at ¥5 with 10% redone: 1,100 × 5 = ¥5,500.
  Scenario s;
  s.horizon_hours = 1000;
  s.owned.gpus = 1;
  s.owned.purchase = Range::point(100000);
  s.rent.spot_gpu_hour = Range::point(5);
  s.rent.spot_overhead = Range::point(0.1);
  s.demand.assign(1000, 1.0);
  s.mc_draws = 10;
  EXPECT_NEAR(strategy(analyse(s, default_catalog()), "spot").total, 5500, 1e-6);
}

TEST(TcoTest, InvestmentsPayBackOrSayTheyNeverDo) {
  Scenario s = dual_a100(12.8);
  // Liquid cooling on a 1.5 kW server, PUE 1.45 → 1.08, ¥0.8/kWh: 1.5 × 0.37 × 730 × 0.8 = ¥324.12 a
  // month, ¥11,668.32 over 36 months, against a ¥38,000 premium: never pays back.
  s.investments.push_back({"liquid_cooling", Range::point(38000), {}, Range::point(1.5 * 0.37 * 730 * 0.8), {}});
  // Premium support: (17.5 − 1.2) h × ¥12,000 = ¥195,600 a year against ¥55,000 a year.
  s.investments.push_back({"premium_support", {}, Range::point(55000.0 / 12), Range::point(16.3 * 12000 / 12), {}});
  // InfiniBand: (42 − 6.8) / 60 h × 100 epochs × ¥800 = ¥46,933.33 a month against ¥125,000.
  s.investments.push_back({"infiniband", Range::point(125000), {}, Range::point(35.2 / 60 * 100 * 800), {}});
  TcoResult r = analyse(s, default_catalog());
  ASSERT_EQ(r.investments.size(), 3u);
  EXPECT_NEAR(r.investments[0].net, 11668.32 - 38000, 1e-6);
  EXPECT_FALSE(r.investments[0].payback_month.has_value());
  EXPECT_NEAR(r.investments[1].net / 3, 140600, 1e-6);  // 16.3 × 12,000 − 55,000 a year
  EXPECT_EQ(r.investments[1].payback_month, 1);
  EXPECT_EQ(r.investments[2].payback_month, 3);  // 125,000 / 46,933.33 = 2.66 → month 3
}

TEST(TcoTest, TornadoRanksThePurchasePriceFirst) {
  TcoResult r = analyse(dual_a100(12.8), default_catalog());
  // Margin buy − rent = 780,000 − 336,384 = 443,616. Price ±20%: 287,616 … 599,616 (swing
  // 312,000); on-demand ±20%: 510,892.8 … 376,339.2 (swing 134,553.6).
  EXPECT_NEAR(r.sensitivity.base_margin, 443616, 1e-6);
  ASSERT_GE(r.sensitivity.tornado.size(), 2u);
  EXPECT_EQ(r.sensitivity.tornado[0].input, "owned.price");
  EXPECT_NEAR(r.sensitivity.tornado[0].low_margin, 287616, 1e-6);
  EXPECT_NEAR(r.sensitivity.tornado[0].high_margin, 599616, 1e-6);
  EXPECT_EQ(r.sensitivity.tornado[1].input, "rent.on_demand_gpu_hour");
  EXPECT_NEAR(r.sensitivity.tornado[1].low_margin, 510892.8, 1e-6);
}

TEST(TcoTest, MonteCarloDrawsOverTheRangesReproducibly) {
  Scenario s = dual_a100(12.8);
  s.owned.purchase = {700000, 860000};
  s.rent.on_demand_gpu_hour = Range{10, 15.6};
  s.mc_draws = 2000;
  s.mc_seed = 7;
  TcoResult a = analyse(s, default_catalog());
  TcoResult b = analyse(s, default_catalog());
  // Buying costs at least ¥700,000; renting at most 26,280 × 15.6 = ¥409,968: buy never wins.
  EXPECT_EQ(a.sensitivity.p_buy_beats_rent, 0);
  ASSERT_FALSE(a.sensitivity.percentiles.empty());
  for (const auto& p : a.sensitivity.percentiles) {
    EXPECT_LE(p.p10, p.p50);
    EXPECT_LE(p.p50, p.p90);
    if (p.id == "rent_hourly") {
      EXPECT_GE(p.p10, 26280 * 10.0);
      EXPECT_LE(p.p90, 26280 * 15.6);
      EXPECT_NEAR(p.p50, 336384, 0.05 * 336384);  // the midpoint, within sampling noise
    }
  }
  EXPECT_EQ(a.sensitivity.percentiles[0].p50, b.sensitivity.percentiles[0].p50);  // same seed, same answer
  // When buy and rent ranges overlap, the probability is strictly between 0 and 1.
  s.rent.on_demand_gpu_hour = Range{20, 40};  // 525,600 … 1,051,200 against 700,000 … 860,000
  double p = monte_carlo_probability(s, 5000, 3);
  EXPECT_GT(p, 0.2);
  EXPECT_LT(p, 0.8);
}

TEST(TcoTest, MonteCarloWithoutRangesReproducesTheDeterministicTotals) {
  TcoResult r = analyse(dual_a100(12.8), default_catalog());
  for (const auto& p : r.sensitivity.percentiles) {
    EXPECT_NEAR(p.p10, strategy(r, p.id).total, 1e-6) << p.id;
    EXPECT_NEAR(p.p90, strategy(r, p.id).total, 1e-6) << p.id;
  }
}

}  // namespace
}  // namespace gpuplan::tco
