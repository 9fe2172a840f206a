// The analysis on synthetic profiles: the rule-of-thumb pattern of each, the cost-optimal
// strategy with catalog prices, and the demand profile that tco reads.
#include "usage/usage.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "report/usage_render.h"
#include "tco/tco.h"
#include "test_support.h"
#include "usage/synth.h"
#include "usage/synth_hours.h"

namespace gpuplan::usage {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::fact_in;
using gpuplan::testing::temp_dir;
using gpuplan::testing::synth_hours;
using gpuplan::testing::write_file;

TEST(SynthTest, PatternsAreWhatTheyClaim) {
  SynthOptions o;
  o.pattern = SynthPattern::kNightlyPeak;
  EXPECT_GE(synth_utilization(o, 0, 3 * 3600), 85);   // first half: busy all day
  EXPECT_EQ(synth_utilization(o, 7, 3 * 3600), 0);    // second half: free at 03:00, as an idle A100 reads
  EXPECT_EQ(synth_memory_used_mib(o, 7, 3 * 3600), 0);
  EXPECT_FALSE(synth_held(o, 7, 3 * 3600));
  EXPECT_GE(synth_utilization(o, 7, 21 * 3600), 85);  // … and busy at 21:00
  o.pattern = SynthPattern::kWeeklyBurst;
  EXPECT_GE(synth_utilization(o, 3, 86400 + 5), 90);      // Tuesday
  EXPECT_LE(synth_utilization(o, 3, 2 * 86400 + 5), 3);   // Wednesday
}

TEST(SynthTest, EveryFormatReadsBackToTheSameHours) {
  auto csv = synth_hours(SynthPattern::kNightlyPeak, 2, 2, 60, SynthFormat::kSmiCsv);
  auto dmon = synth_hours(SynthPattern::kNightlyPeak, 2, 2, 60, SynthFormat::kDmon);
  auto prom = synth_hours(SynthPattern::kNightlyPeak, 2, 2, 60, SynthFormat::kProm);
  ASSERT_EQ(csv.hours.size(), 48u);
  ASSERT_EQ(dmon.hours.size(), 48u);
  ASSERT_EQ(prom.hours.size(), 48u);
  for (const auto& [hour, accs] : csv.hours)
    for (size_t g = 0; g < 2; ++g) {
      EXPECT_DOUBLE_EQ(*accs[g].mean_util(), *dmon.hours.at(hour)[g].mean_util());
      EXPECT_DOUBLE_EQ(*accs[g].mean_util(), *prom.hours.at(hour)[g].mean_util());
      EXPECT_EQ(accs[g].count, 60u);  // one sample a minute
    }
  EXPECT_EQ(csv.stats.skipped_count + dmon.stats.skipped_count + prom.stats.skipped_count, 0);
}

TEST(UsageTest, IdleProfileRents) {
  UsageResult r = analyse(synth_hours(SynthPattern::kIdle, 7), {}, default_catalog());
  EXPECT_EQ(r.pattern.verdict, "rent");  // every GPU-hour below 20% (rule: > 80% → rent)
  EXPECT_EQ(r.hours, 168);
  EXPECT_EQ(r.gpus, 8);
  EXPECT_NEAR(r.bins[0].second, 1.0, 1e-12);  // all in 0–20
  ASSERT_TRUE(r.costs.has_value());
  EXPECT_NE(r.recommendation, "buy");
  EXPECT_EQ(r.owned_gpus, 0);
  // Every GPU-hour is below 20% (usage.idle_below_pct), more than the 80% (usage.idle_share) that says rent.
  ASSERT_EQ(r.pattern.why.size(), 1u);
  EXPECT_EQ(r.pattern.why[0], Phrase("usage.why.idle").fact("idle", "100%").fact("below", "20").fact("limit", "80%"));
}

TEST(UsageTest, NoDataRentsAndSaysSo) {
  UsageResult r = analyse(telemetry::HourlyData{}, {}, default_catalog());
  EXPECT_EQ(r.pattern.verdict, "rent");
  ASSERT_EQ(r.pattern.why.size(), 1u);
  EXPECT_EQ(r.pattern.why[0], Phrase("usage.why.no_data"));
}

// Against renting by the hour, a fleet held around the clock is cheaper owned.
TEST(UsageTest, SteadyProfileBuysRatherThanRentByTheHour) {
  Options hourly;
  hourly.rent = RentBasis::kHourly;
  UsageResult r = analyse(synth_hours(SynthPattern::kSteady, 7), hourly, default_catalog());
  EXPECT_EQ(r.pattern.verdict, "buy");  // hourly means ≈ 80%, all in 60–95%
  EXPECT_NEAR(r.bins[3].second, 1.0, 1e-12);
  EXPECT_EQ(r.recommendation, "buy");
  EXPECT_EQ(r.owned_gpus, 8);
  for (double d : r.demand) EXPECT_EQ(d, 8);  // every GPU held every hour
  // All GPU-hours in the 60–95% band (usage.buy_band_pct).
  ASSERT_EQ(r.pattern.why.size(), 1u);
  EXPECT_EQ(r.pattern.why[0], Phrase("usage.why.band").fact("share", "100%").fact("low", "60").fact("high", "95"));
  // The cost answer's why: the tco model's, whose first line names the cheapest strategy.
  ASSERT_FALSE(r.recommendation_why.empty());
  EXPECT_EQ(r.recommendation_why[0].key, "tco.why.cheapest");
  EXPECT_EQ(*r.recommendation_why[0].value("strategy"), "buy");
}

// Every basis side by side on the same steady fleet: the articles' whole-server monthly rent
// [S0 §2.1] is the cheapest. Worked by hand: 8 GPUs held every hour of the 36-month horizon;
// monthly: 8 GPUs × ¥1,687.5 (midpoint of ¥1,500–1,875 a GPU-month) × 36 whole months =
// ¥486,000; on demand: 8 × 26,280 h × ¥34.7 = ¥7,295,328.
TEST(UsageTest, SteadyProfileRentsMonthlyWhenEveryBasisIsCosted) {
  UsageResult r = analyse(synth_hours(SynthPattern::kSteady, 7), {}, default_catalog());
  ASSERT_TRUE(r.costs.has_value());
  EXPECT_EQ(r.recommendation, "rent_monthly");
  std::map<std::string, double> total;
  for (const auto& s : r.costs->strategies) total[s.id] = s.total;
  EXPECT_NEAR(total["rent_monthly"], 486000, 1e-6);
  EXPECT_NEAR(total["rent_hourly"], 7295328, 1e-6);
  EXPECT_EQ(total.count("buy"), 1u);
  EXPECT_EQ(total.count("hybrid"), 1u);
  EXPECT_EQ(total.count("spot"), 0u);  // no spot price in the China market
}

TEST(UsageTest, NightlyPeakLooksHybridAndOwnsHalfThePcieGpus) {
  // PCIe cards are bought one by one, so the hybrid may own any number of them.
  Options pcie;
  pcie.gpu = "a100-80gb-pcie";
  pcie.rent = RentBasis::kHourly;
  pcie.market = "global";  // RunPod's ¥9.8968 a GPU-hour: cheap enough that peak hours are rented
  UsageResult r = analyse(synth_hours(SynthPattern::kNightlyPeak, 14), pcie, default_catalog());
  EXPECT_EQ(r.pattern.verdict, "hybrid");
  // 4 GPUs busy all day, all 8 from 20:00 to 24:00: demand 4 or 8.
  ASSERT_EQ(r.demand.size(), 14u * 24);
  EXPECT_EQ(r.demand[3], 4);
  EXPECT_EQ(r.demand[21], 8);
  // Owning a peak GPU (busy 4 h in 24, 17% of hours) costs more than renting its hours at the
  // cheapest catalog offer; owning a baseline GPU costs less. So own 4, burst 4.
  EXPECT_EQ(r.recommendation, "hybrid");
  EXPECT_EQ(r.owned_gpus, 4);
  // The evening peak against the weekly mean, above usage.peak_to_mean (1.5×).
  ASSERT_EQ(r.pattern.why.size(), 1u);
  EXPECT_EQ(r.pattern.why[0].key, "usage.why.peaks");
  EXPECT_EQ(*r.pattern.why[0].value("limit"), "1.5");
  // A GPU beyond the 4 owned is busy 4 h in 24: 17% of hours.
  ASSERT_FALSE(r.recommendation_why.empty());
  EXPECT_EQ(r.recommendation_why.back(), Phrase("usage.why.beyond_owned").fact("owned", "4").fact("share", "17%"));
  // The cost answer's demand is the measured profile: 336 h of 8 GPUs over the catalog's 3 years.
  ASSERT_TRUE(r.costs.has_value());
  EXPECT_EQ(r.costs->demand_description,
            Phrase("usage.demand.measured").fact("hours", "336").fact("gpus", "8").fact("horizon", "26,280"));
}

TEST(UsageTest, NightlyPeakOnSxmOwnsTheWholeBoardOrNone) {
  // The same profile on SXM cards: an HGX board is only sold with all 8, so owning half is not a
  // choice. Owning the board beats renting the 4 baseline GPUs around the clock plus the peak.
  Options hourly;
  hourly.rent = RentBasis::kHourly;
  UsageResult r = analyse(synth_hours(SynthPattern::kNightlyPeak, 14), hourly, default_catalog());
  EXPECT_EQ(r.pattern.verdict, "hybrid");
  EXPECT_EQ(r.unit_gpus, 8);
  EXPECT_EQ(r.recommendation, "buy");
  EXPECT_EQ(r.owned_gpus, 8);
}

TEST(UsageTest, WithoutACloudOfferThereIsNoCostAnswerAndItSaysWhy) {
  Options o;
  o.gpu = "h100-80gb-sxm";  // the catalog has no cloud offer of its family
  UsageResult r = analyse(synth_hours(SynthPattern::kSteady, 1, 2), o, default_catalog());
  EXPECT_FALSE(r.costs.has_value());
  EXPECT_TRUE(r.recommendation.empty());
  ASSERT_EQ(r.recommendation_why.size(), 1u);
  EXPECT_EQ(r.recommendation_why[0].key, "usage.why.no_costs");
  const std::string* gpu = fact_in(r.recommendation_why[0], "gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(*gpu, "h100-80gb-sxm");
}

TEST(UsageTest, HeatmapsByDayAndWeekday) {
  Options hourly;
  hourly.rent = RentBasis::kHourly;
  hourly.market = "global";  // at RunPod's ¥9.8968 a GPU-hour two days a week are cheaper rented
  UsageResult r = analyse(synth_hours(SynthPattern::kWeeklyBurst, 14), hourly, default_catalog());
  ASSERT_EQ(r.by_day.rows.size(), 14u);
  EXPECT_EQ(r.by_day.rows[0], "2024-04-29");
  EXPECT_EQ(r.by_weekday.rows[0], "Mon");
  EXPECT_GE(*r.by_weekday.cells[0][10], 90);  // Monday 10:00
  EXPECT_LE(*r.by_weekday.cells[2][10], 3);   // Wednesday 10:00
  EXPECT_EQ(r.pattern.verdict, "hybrid");     // peaked by weekday
  EXPECT_NE(r.recommendation, "buy");         // two days a week do not pay for owning
  // When the cost answer is not the rule of thumb's, the last why line says what the rule said.
  ASSERT_EQ(r.recommendation, "rent_hourly");
  EXPECT_EQ(r.recommendation_why.back(),
            Phrase("usage.why.rule_differs").fact("verdict", {Phrase("usage.verdict.hybrid")}));
}

TEST(UsageTest, HourlyMeansPerHost) {
  // Two hosts' logs (the host is the file name): one steady (70–90%), one idle (0–10%).
  const std::string dir = temp_dir();
  for (auto [name, pattern] : {std::pair{"busy-node", SynthPattern::kSteady}, {"quiet-node", SynthPattern::kIdle}}) {
    SynthOptions o;
    o.pattern = pattern;
    o.gpus = 2;
    o.days = 1;
    o.interval_s = 60;
    std::ostringstream text;
    synthesize(o, text);
    write_file(dir, std::string(name) + ".csv", text.str());
  }
  auto data = telemetry::read_hourly({dir + "/busy-node.csv", dir + "/quiet-node.csv"}, telemetry::SourceFormat::kAuto);
  ASSERT_TRUE(data.ok());
  UsageResult r = analyse(*data, {}, default_catalog());
  ASSERT_EQ(r.hosts.size(), 2u);
  EXPECT_EQ(r.hosts[0].name, "busy-node");
  EXPECT_EQ(r.hosts[0].gpus, 2);
  EXPECT_EQ(r.hosts[0].hourly.size(), 24u);
  EXPECT_GE(r.hosts[0].mean_util, 70);
  EXPECT_LE(r.hosts[0].mean_util, 90);
  EXPECT_LE(r.hosts[1].mean_util, 10);
  // Each hour's host mean is the mean of its GPUs' hourly means.
  const auto& accs = data->hours.begin()->second;
  EXPECT_DOUBLE_EQ(*r.hosts[0].hourly[0], (*accs[0].mean_util() + *accs[1].mean_util()) / 2);
}

TEST(UsageTest, DemandProfileFeedsTcoWithTheSameFigures) {
  UsageResult r = analyse(synth_hours(SynthPattern::kNightlyPeak, 7), {}, default_catalog());
  std::string dir = temp_dir();
  write_file(dir, "demand.csv", demand_csv(r));
  write_file(dir, "s.yaml",
             "horizon: 36 months\nowned: {gpus: 8, price: 1600000, residual: 0, power_kw: 0}\n"
             "rent: {on_demand_gpu_hour: 20}\ndemand: {file: demand.csv}\n");
  auto sc = tco::read_scenario(dir + "/s.yaml", default_catalog());
  ASSERT_TRUE(sc.ok()) << sc.error().str();
  // The same prices through usage --scenario: identical totals.
  Options o;
  o.scenario = *sc;
  UsageResult again = analyse(synth_hours(SynthPattern::kNightlyPeak, 7), o, default_catalog());
  tco::TcoResult direct = tco::analyse(*sc, default_catalog());
  ASSERT_TRUE(again.costs.has_value());
  ASSERT_EQ(again.costs->strategies.size(), direct.strategies.size());
  for (size_t i = 0; i < direct.strategies.size(); ++i)
    EXPECT_NEAR(again.costs->strategies[i].total, direct.strategies[i].total, 1e-6) << direct.strategies[i].id;
  // 4 GPUs × 20 h + 8 × 4 h = 112 busy GPU-hours a day; × 1,095 days.
  double used = 0;
  for (double d : sc->demand) used += d;
  EXPECT_NEAR(used, 112.0 * 1095, 1e-9);
  EXPECT_EQ(again.owned_gpus, 4);  // 1,600,000 / 8 = 200,000 a GPU: as in TcoTest's nightly case
}

// usage --scenario names the basis of the scenario's prices as tco does: each with its line.
TEST(UsageTest, AScenarioNamesTheBasisOfEachPrice) {
  std::string dir = temp_dir();
  write_file(dir, "s.yaml",
             "horizon: 36 months\nowned: {gpus: 8, price: 1600000, residual: 0, power_kw: 0}\n"
             "rent: {on_demand_gpu_hour: 20}\ndemand: {utilization: 0%}\n");
  auto sc = tco::read_scenario(dir + "/s.yaml", default_catalog());
  ASSERT_TRUE(sc.ok()) << sc.error().str();
  Options o;
  o.scenario = *sc;
  const UsageResult r = analyse(synth_hours(SynthPattern::kNightlyPeak, 7), o, default_catalog());
  const std::string text = report::render_usage(r, report::Format::kTable, {});
  EXPECT_NE(text.find("purchase price: ¥1,600,000 — stated at " + dir + "/s.yaml:2"), std::string::npos) << text;
  EXPECT_NE(text.find("rent on demand: ¥20.00 a GPU-hour — stated at " + dir + "/s.yaml:3"), std::string::npos);
  EXPECT_NE(text.find("electricity: ¥0.80 a kWh — catalog threshold electricity.price_kwh"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::usage
