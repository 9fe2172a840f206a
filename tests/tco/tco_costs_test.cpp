// TCO a buyer can defend (issue 14): the residual from the resale market, one-off and exit costs,
// the hybrid in whole purchasable units, the rule of thumb's factors and the genomics example.
// Every figure is worked by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "report/messages.h"
#include "tco/rule_of_thumb.h"
#include "tco/tco.h"
#include "test_support.h"

namespace gpuplan::tco {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::source_path;

const StrategyResult& strategy(const TcoResult& r, const std::string& id) {
  for (const auto& s : r.strategies)
    if (s.id == id) return s;
  throw std::runtime_error("no strategy " + id);
}

bool has_line(const StrategyResult& s, const std::string& id) {
  return std::any_of(s.lines.begin(), s.lines.end(), [&](const CostLine& l) { return l.id == id; });
}

double line(const StrategyResult& s, const std::string& id) {
  for (const auto& l : s.lines)
    if (l.id == id) return l.amount;
  return 0;
}

bool says(const TcoResult& r, const std::string& key) {
  return std::any_of(r.why.begin(), r.why.end(), [&](const Phrase& p) { return p.key == key; });
}

Scenario parse(const std::string& text) {
  auto s = parse_scenario(text, "scenario.yaml", default_catalog());
  if (!s) throw std::runtime_error(s.error().str());
  return *s;
}

// ¥1M for 8 GPUs held 2 weeks (336 h), busy every hour, against ¥12.8 a GPU-hour.
std::string two_weeks(const std::string& residual) {
  return "horizon: 2 weeks\n"
         "owned: {gpus: 8, price: 1000000, power_kw: 0" +
         residual +
         "}\n"
         "rent: {on_demand_gpu_hour: 12.8}\n"
         "demand: {utilization: 100%}\n"
         "monte_carlo: {draws: 10000, seed: 7}\n";
}

TEST(TcoCostsTest, TwoWeeksDoNotFavourBuyingWithTheResaleResidual) {
  const Scenario s = parse(two_weeks(""));
  // No gpu named: the used-card band 30–50% applies to the whole ¥1M: ¥300,000–500,000.
  ASSERT_TRUE(s.owned.residual && s.owned.resale);
  EXPECT_EQ(s.owned.resale->basis, "purchase");
  EXPECT_NEAR(s.owned.residual->low, 300000, 1e-6);
  EXPECT_NEAR(s.owned.residual->high, 500000, 1e-6);
  const TcoResult r = analyse(s, default_catalog());
  // Buy = 1,000,000 − 400,000 (midpoint) = ¥600,000; rent = 8 × 336 h × ¥12.8 = ¥34,406.40.
  EXPECT_NEAR(strategy(r, "buy").total, 600000, 1e-6);
  EXPECT_NEAR(strategy(r, "rent_hourly").total, 34406.4, 1e-6);
  EXPECT_EQ(r.recommendation, "rent_hourly");
  // 336 h = 0.46 months, under the 1-month short-job threshold [S0 §5].
  EXPECT_EQ(r.rule_of_thumb, "rent");
  EXPECT_TRUE(says(r, "tco.rule.short_horizon"));
  EXPECT_TRUE(says(r, "tco.why.residual_purchase"));
  // Monte Carlo draws the residual uniformly in ¥300k–500k, so buy = 1M − residual spreads over
  // ¥500k–700k: P10 ≈ 1M − 480k = ¥520,000, P90 ≈ 1M − 320k = ¥680,000.
  const auto buy = std::find_if(r.sensitivity.percentiles.begin(), r.sensitivity.percentiles.end(),
                                [](const Percentiles& p) { return p.id == "buy"; });
  ASSERT_NE(buy, r.sensitivity.percentiles.end());
  EXPECT_NEAR(buy->p10, 520000, 3000);
  EXPECT_NEAR(buy->p90, 680000, 3000);
}

TEST(TcoCostsTest, BookValueStaysAvailableAndStillTheRuleSaysRent) {
  const Scenario s = parse(two_weeks(", residual: book"));
  EXPECT_FALSE(s.owned.residual.has_value());
  const TcoResult r = analyse(s, default_catalog());
  // Book value over 36 months: 1,000,000 × (336 / 730) / 36 = ¥12,785.39 written off.
  EXPECT_NEAR(strategy(r, "buy").total, 1000000.0 * 336 / 730 / 36, 1e-6);
  EXPECT_NEAR(strategy(r, "buy").total, 12785.39, 0.01);
  EXPECT_EQ(r.rule_of_thumb, "rent");  // the horizon, not the book value, decides the rule
  EXPECT_TRUE(says(r, "tco.why.residual_book"));
}

TEST(TcoCostsTest, ResaleBandAppliesToTheCardsWhenTheGpuIsKnown) {
  const Scenario s = parse(
      "horizon: 36 months\n"
      "owned: {gpus: 2, price: 780000, gpu: a100-80gb-pcie}\n"
      "rent: {on_demand_gpu_hour: 12.8}\n"
      "demand: {utilization: 50%}\n");
  // Cards new: 2 × ¥85,000 (midpoint of the catalog's ¥70k–100k) = ¥170,000; × 30–50% =
  // ¥51,000–85,000, ¥68,000 at the midpoint.
  ASSERT_TRUE(s.owned.resale);
  EXPECT_EQ(s.owned.resale->basis, "cards");
  EXPECT_DOUBLE_EQ(s.owned.resale->base, 170000);
  EXPECT_NEAR(s.owned.residual->low, 51000, 1e-6);
  EXPECT_NEAR(s.owned.residual->high, 85000, 1e-6);
  // A number or a percentage keeps working.
  const Scenario given = parse(
      "horizon: 36 months\nowned: {gpus: 2, price: 780000, power_kw: 0, residual: 20%}\n"
      "rent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n");
  EXPECT_NEAR(given.owned.residual->mid(), 156000, 1e-6);
  EXPECT_FALSE(given.owned.resale.has_value());
}

// [S1 §4]: 100 TB into the cloud at the article's ¥0.8/GB, 10 TB back out at the default egress
// ¥0.8/GB, and 3 engineers × 6 weeks to leave at ¥20,000 an engineer-week.
const char* kMoving =
    "horizon: 12 months\n"
    "owned: {gpus: 2, price: 400000, power_kw: 0, residual: 0}\n"
    "rent: {on_demand_gpu_hour: 12.8}\n"
    "transfer: {units: decimal, one_off_in: 100 TB, ingress_price_gb: 0.8, one_off_out: 10 TB}\n"
    "exit: {engineer_weeks: 18, engineer_week_cost: 20000}\n"
    "demand: {utilization: 100%}\n"
    "monte_carlo: {draws: 100}\n";

TEST(TcoCostsTest, OneOffAndExitCostsAreLinesOfTheStrategiesThatUseTheCloud) {
  const Scenario s = parse(kMoving);
  EXPECT_DOUBLE_EQ(s.transfer.gb_one_off_in, 100000);  // 100 × 1,000 GB
  EXPECT_DOUBLE_EQ(s.transfer.gb_one_off_out, 10000);
  const TcoResult r = analyse(s, default_catalog());
  const StrategyResult& rent = strategy(r, "rent_hourly");
  EXPECT_NEAR(line(rent, "one_off_in"), 80000, 1e-6);  // 100,000 GB × ¥0.8
  EXPECT_NEAR(line(rent, "one_off_out"), 8000, 1e-6);  // 10,000 GB × ¥0.8
  EXPECT_NEAR(line(rent, "exit"), 360000, 1e-6);       // 18 × ¥20,000
  // 2 GPUs × 8,760 h × ¥12.8 = ¥224,256 + 448,000 one-off = ¥672,256.
  EXPECT_NEAR(rent.total, 672256, 1e-6);
  // Cash: the data moves in before month 1; the exit is paid in the last month.
  EXPECT_NEAR(rent.cumulative_by_month.front(), 80000 + 2 * 730 * 12.8, 1e-6);
  EXPECT_NEAR(rent.cumulative_by_month.back(), 672256, 1e-6);
  // Buying runs nothing in the cloud (demand never exceeds the 2 owned GPUs): none of it.
  const StrategyResult& buy = strategy(r, "buy");
  EXPECT_FALSE(has_line(buy, "one_off_in") || has_line(buy, "one_off_out") || has_line(buy, "exit"));
  EXPECT_NEAR(buy.total, 400000, 1e-6);
  EXPECT_EQ(r.recommendation, "buy");  // ¥400,000 < ¥672,256; without them renting would win
  for (const char* id : {"tco.line.one_off_in", "tco.line.one_off_out", "tco.line.exit"})
    EXPECT_TRUE(report::has_message(id)) << id;
}

TEST(TcoCostsTest, MoveExampleSaysWhichPriceItPays) {
  auto s = read_scenario(source_path("examples/tco-move-100tb.yaml"), default_catalog());
  ASSERT_TRUE(s) << s.error().str();
  const TcoResult r = analyse(*s, default_catalog());
  const StrategyResult& rent = strategy(r, "rent_hourly");
  EXPECT_NEAR(line(rent, "one_off_in"), 80000, 1e-6);  // 100 × 1,000 GB × ¥0.8
  EXPECT_NEAR(line(rent, "exit"), 360000, 1e-6);       // 18 × ¥20,000
  // 2 × 0.5 × 26,280 h × ¥12.8 = ¥336,384 + ¥440,000 = ¥776,384.
  EXPECT_NEAR(rent.total, 776384, 1e-6);
  EXPECT_NEAR(strategy(r, "buy").total, 780000, 1e-6);
}

TEST(TcoCostsTest, ExitNeedsBothFigures) {
  auto r = parse_scenario(
      "horizon: 12 months\nowned: {gpus: 2, price: 1, power_kw: 0}\nrent: {on_demand_gpu_hour: 1}\n"
      "demand: {utilization: 50%}\nexit: {engineer_weeks: 18}\n",
      "s.yaml", default_catalog());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "s.yaml");
  EXPECT_EQ(r.error().line, 5);
  EXPECT_EQ(r.error().field, "exit.engineer_week_cost");
  EXPECT_EQ(r.error().message.key, "error.scenario.exit_cost_missing");
}

std::string owned_with(const std::string& extra) {
  return "horizon: 12 months\nowned: {gpus: 8, price: 800000, power_kw: 0, residual: 0" + extra +
         "}\nrent: {on_demand_gpu_hour: 40}\ndemand: {utilization: 87.5%}\n";
}

TEST(TcoCostsTest, HgxPlatformOwnsWholeBoardsByDefault) {
  EXPECT_EQ(parse(owned_with(", platform: hgx-a100-8gpu")).owned.unit_gpus, 8);
  EXPECT_EQ(parse(owned_with(", platform: hgx-a100-8gpu")).owned.unit_basis, "platform");
  EXPECT_EQ(parse(owned_with(", platform: hgx-a100-8gpu, unit: gpu")).owned.unit_gpus, 1);
  EXPECT_EQ(parse(owned_with(", platform: server-8gpu-pcie")).owned.unit_gpus, 1);  // PCIe cards sell singly
  EXPECT_EQ(parse(owned_with("")).owned.unit_gpus, 1);                              // only gpus and price: per GPU
  auto bad = parse_scenario(owned_with(", unit: server"), "s.yaml", default_catalog());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "owned.unit");
  EXPECT_EQ(bad.error().message.key, "error.scenario.unit_server_unknown");
}

TEST(TcoCostsTest, HgxConfigOwnsItsEightGpuUnit) {
  // examples/a100-8gpu-training.yaml is built on hgx-a100-8gpu, whose board comes with 8 GPUs.
  const Scenario hgx = parse("horizon: 12 months\nowned: {config: " + source_path("examples/a100-8gpu-training.yaml") +
                             "}\nrent: {on_demand_gpu_hour: 40}\ndemand: {utilization: 50%}\n");
  EXPECT_EQ(hgx.owned.unit_gpus, 8);
}

// Demand 7 GPUs every hour; a GPU costs ¥100,000 to own for the year and ¥40 × 8,760 = ¥350,400
// to rent: per GPU the optimum owns 7 (the 8th would sit idle).
Scenario seven_busy(int unit) {
  Scenario s;
  s.horizon_hours = 8760;
  s.owned.gpus = 8;
  s.owned.unit_gpus = unit;
  s.owned.purchase = Range::point(800000);
  s.owned.residual = Range::point(0);
  s.rent.on_demand_gpu_hour = Range::point(40);
  s.demand.assign(8760, 7.0);
  s.mc_draws = 10;
  return s;
}

TEST(TcoCostsTest, HybridOwnsWholeUnitsNotSevenOfEight) {
  EXPECT_EQ(optimal_hybrid(seven_busy(1)).owned_gpus, 7);  // 7 × 100,000 = ¥700,000
  const HybridResult h = optimal_hybrid(seven_busy(8));
  // Own 0 (7 × ¥350,400 = ¥2,452,800) or 8 (¥800,000): 8.
  EXPECT_EQ(h.owned_gpus, 8);
  EXPECT_NEAR(h.total, 800000, 1e-6);
  ASSERT_EQ(h.curve.size(), 2u);
  EXPECT_EQ(h.curve[0].owned_gpus, 0);
  EXPECT_NEAR(h.curve[0].total, 2452800, 1e-6);
  Scenario s = seven_busy(8);
  s.owned.unit_basis = "platform";
  const TcoResult r = analyse(s, default_catalog());
  EXPECT_TRUE(says(r, "tco.why.unit_platform"));
}

TEST(TcoCostsTest, HybridInUnitsAgreesWithBruteForce) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    Scenario s;
    s.horizon_hours = 24 * 7 * 4;
    s.owned.gpus = 2 + static_cast<int>(rng() % 14);
    s.owned.unit_gpus = 1 + static_cast<int>(rng() % 4);
    s.owned.purchase = Range::point(20000.0 * s.owned.gpus + rng() % 50000);
    s.owned.residual = Range::point(0);
    s.owned.power_kw = Range::point(0.5 * s.owned.gpus);
    s.owned.electricity_kwh = Range::point(0.8);
    s.rent.on_demand_gpu_hour = Range::point(5.0 + rng() % 40);
    s.transfer.gb_one_off_in = rng() % 2 ? 5000 : 0;
    s.transfer.price_in_gb = Range::point(0.8);
    s.demand.resize(static_cast<size_t>(s.horizon_hours));
    for (double& d : s.demand) d = (rng() % 3 == 0) ? 0 : static_cast<double>(rng() % (s.owned.gpus + 4));
    const HybridResult fast = optimal_hybrid(s);
    EXPECT_EQ(fast.owned_gpus % s.owned.unit_gpus, 0) << "trial " << trial;
    const int peak = static_cast<int>(*std::max_element(s.demand.begin(), s.demand.end()));
    double best = INFINITY;
    for (int b = 0; b < peak + s.owned.unit_gpus; b += s.owned.unit_gpus) best = std::min(best, hybrid_total(s, b));
    EXPECT_NEAR(fast.total, best, 1e-6 * std::max(1.0, best)) << "trial " << trial;
  }
}

// The article's dual-A100 pair at 50% utilization: the numbers alone say hybrid (between 30% and 60%).
Scenario pair(Factors f) {
  Scenario s;
  s.horizon_hours = 26280;
  s.owned.gpus = 2;
  s.owned.purchase = Range::point(780000);
  s.owned.residual = Range::point(0);
  s.rent.on_demand_gpu_hour = Range::point(12.8);
  s.demand.assign(26280, 1.0);
  s.factors = f;
  return s;
}

// Factors with the named ones set: "sensitive", "compliance", "cloud_only", "no_team".
Factors stated(std::initializer_list<std::string> which) {
  Factors f;
  for (const std::string& w : which) {
    if (w == "sensitive") f.data_sensitive = true;
    if (w == "compliance") f.compliance_requires_onsite = true;
    if (w == "cloud_only") f.uses_cloud_only_services = true;
    if (w == "no_team") f.team_runs_linux_cuda = false;
  }
  return f;
}

std::string verdict(Factors f) {
  return rule_of_thumb(default_catalog(), pair(f), 0.5, 1, 1).verdict;
}

TEST(TcoCostsTest, RuleOfThumbMovesWithTheFactors) {
  EXPECT_EQ(verdict(Factors{}), "hybrid");
  EXPECT_EQ(verdict(stated({"sensitive"})), "buy");
  EXPECT_EQ(verdict(stated({"compliance"})), "buy");
  EXPECT_EQ(verdict(stated({"cloud_only"})), "rent");
  EXPECT_EQ(verdict(stated({"no_team"})), "rent");  // the team gates owning
  // Compliance leaves no choice: the verdict stays buy and says to find the skills.
  const RuleOfThumb both = rule_of_thumb(default_catalog(), pair(stated({"no_team", "compliance"})), 0.5, 1, 1);
  EXPECT_EQ(both.verdict, "buy");
  EXPECT_EQ(both.why.back().key, "tco.rule.skills_needed");
  // The phrase names the factor that moved it, from and to.
  const RuleOfThumb moved = rule_of_thumb(default_catalog(), pair(stated({"sensitive"})), 0.5, 1, 1);
  ASSERT_EQ(moved.why.size(), 2u);
  EXPECT_EQ(moved.why[0].key, "tco.rule.middle");
  EXPECT_EQ(moved.why[1], Phrase("tco.rule.moved")
                              .fact("factor", {Phrase("tco.factor.data_sovereignty")})
                              .fact("from", {Phrase("usage.verdict.hybrid")})
                              .fact("to", {Phrase("usage.verdict.buy")}));
  for (const Phrase& p : moved.why) EXPECT_TRUE(report::has_message(p.key)) << p.key;
}

TEST(TcoCostsTest, GenomicsExampleHeadlineFigures) {
  auto s = read_scenario(source_path("examples/tco-genomics-85pct.yaml"), default_catalog());
  ASSERT_TRUE(s) << s.error().str();
  const TcoResult r = analyse(*s, default_catalog());
  // Buy: 3,120,000 + 43,333.33 × 36 − 0.4 × 12 × 85,000 = 3,120,000 + 1,559,999.88 − 408,000.
  EXPECT_NEAR(strategy(r, "buy").total, 4271999.88, 0.01);
  // Rent: 12 × 0.85 × 26,280 h = 268,056 GPU-hours × ¥34.7 = ¥9,301,543.20.
  EXPECT_NEAR(strategy(r, "rent_hourly").total, 9301543.20, 0.01);
  // 54.1% below the cloud, against the article's 31%.
  EXPECT_NEAR(1 - strategy(r, "buy").total / strategy(r, "rent_hourly").total, 0.5407, 1e-4);
  // Hybrid: 10 GPUs owned, 0.2 GPU × 26,280 h on demand: 10/12 × 4,271,999.88 + 182,383.20.
  EXPECT_EQ(r.hybrid.owned_gpus, 10);
  EXPECT_NEAR(r.hybrid.total, 3742383.10, 0.01);
  EXPECT_EQ(r.recommendation, "hybrid");
  EXPECT_EQ(r.rule_of_thumb, "buy");  // 85% ≥ 60%, steady
}

}  // namespace
}  // namespace gpuplan::tco
