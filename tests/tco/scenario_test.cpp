#include "tco/scenario.h"

#include <gtest/gtest.h>

#include <numeric>

#include "plan/config.h"
#include "plan/quote.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::tco {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::fact_in;
using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

// A minimal valid scenario; tests append or swap sections.
const std::string kOwned = "owned: {gpus: 2, price: 780000, power_kw: 0}\n";
const std::string kRent = "rent: {on_demand_gpu_hour: 12.8}\n";
const std::string kDemand = "demand: {utilization: 50%}\n";

Scenario parse_ok(const std::string& yaml, const std::string& file = "s.yaml") {
  auto r = parse_scenario(yaml, file, default_catalog());
  if (!r) {
    ADD_FAILURE() << r.error().str() << "\nin:\n" << yaml;
    return {};
  }
  return *r;
}

Error parse_error(const std::string& yaml, const std::string& file = "s.yaml") {
  auto r = parse_scenario(yaml, file, default_catalog());
  if (r) {
    ADD_FAILURE() << "expected an error for:\n" << yaml;
    return {};
  }
  return r.error();
}

Scenario example(const std::string& name) {
  auto r = read_scenario(source_path("examples/" + name), default_catalog());
  if (!r) {
    ADD_FAILURE() << r.error().str();
    return {};
  }
  return *r;
}

double total(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// The value of fact `key` in `p` (or a phrase nested in it), "" when there is none.
std::string fact(const Phrase& p, const std::string& key) {
  const std::string* v = fact_in(p, key);
  return v ? *v : std::string();
}

// What an error says: its message key and the facts that fill it, in both languages.
void expect_message(const Error& e, const std::string& key, std::vector<std::pair<std::string, std::string>> facts) {
  EXPECT_EQ(e.message.key, key) << e.str();
  for (const auto& [k, v] : facts) EXPECT_EQ(fact(e.message, k), v) << k << " in " << e.str();
  EXPECT_TRUE(report::has_message(key)) << key;
}

const Investment& investment(const Scenario& s, const std::string& id) {
  for (const auto& i : s.investments)
    if (i.id == id) return i;
  ADD_FAILURE() << "no investment " << id;
  static const Investment none;
  return none;
}

// --- The shipped examples ---------------------------------------------------------------------

TEST(ScenarioTest, DualA100ExampleIsHalfOfTwoGpusEveryHourFor26280Hours) {
  Scenario s = example("tco-dual-a100.yaml");
  EXPECT_EQ(s.name, "Dual A100 80G — buy vs rent on demand");
  EXPECT_EQ(s.horizon_hours, 26280);  // 36 months × 730 h
  EXPECT_DOUBLE_EQ(s.horizon_months(), 36);
  ASSERT_EQ(s.demand.size(), 26280u);
  for (double busy : s.demand) ASSERT_EQ(busy, 1.0);  // 2 GPUs × 50%
  // Rent: 26,280 busy GPU-hours × ¥12.8 = ¥336,384 (SPEC §J).
  EXPECT_DOUBLE_EQ(total(s.demand) * s.rent.on_demand_gpu_hour->mid(), 336384);
  EXPECT_EQ(s.owned.gpus, 2);
  EXPECT_EQ(s.owned.purchase, Range::point(780000));
  ASSERT_TRUE(s.owned.residual);
  EXPECT_EQ(*s.owned.residual, Range::point(0));
  EXPECT_EQ(s.owned.power_kw, Range::point(0));
  EXPECT_EQ(*s.rent.on_demand_gpu_hour, Range::point(12.8));
  EXPECT_FALSE(s.rent.monthly_gpu);
  EXPECT_FALSE(s.rent.spot_gpu_hour);
  EXPECT_EQ(s.demand_description.key, "tco.demand.utilization");
  EXPECT_EQ(fact(s.demand_description, "share"), "50");
  EXPECT_EQ(fact(s.demand_description, "gpus"), "2");
  EXPECT_EQ(fact(s.demand_description, "busy"), "1");
}

TEST(ScenarioTest, BurstExampleIsEightGpusAllMondayAndTuesday) {
  Scenario s = example("tco-burst-8gpu.yaml");
  EXPECT_EQ(s.horizon_hours, 26208);  // 156 weeks × 168 h
  ASSERT_EQ(s.demand.size(), 26208u);
  EXPECT_DOUBLE_EQ(total(s.demand), 59904);  // 8 GPUs × 48 h × 156 weeks
  EXPECT_EQ(s.demand[0], 8);                 // Monday 00:00
  EXPECT_EQ(s.demand[47], 8);                // Tuesday 23:00
  EXPECT_EQ(s.demand[48], 0);                // Wednesday 00:00
  EXPECT_EQ(s.demand[167], 0);               // Sunday 23:00
  EXPECT_EQ(s.demand[168], 8);               // the next Monday
  // ¥4,915.20 a week (8 × 48 × 12.8) and ¥766,771.20 over 156 weeks.
  EXPECT_NEAR(total(s.demand) * s.rent.on_demand_gpu_hour->mid(), 766771.20, 1e-6);
  EXPECT_EQ(s.owned.gpus, 8);
  EXPECT_EQ(s.owned.purchase, Range::point(3200000));
}

TEST(ScenarioTest, NightlyExamplePricesTheQuoteAndRepeatsTheWeek) {
  Scenario s = example("tco-hybrid-nightly.yaml");
  EXPECT_EQ(s.horizon_hours, 26280);
  ASSERT_EQ(s.demand.size(), 26280u);
  EXPECT_EQ(s.demand[19], 4);  // Monday 19:00
  EXPECT_EQ(s.demand[20], 8);  // Monday 20:00: the evening peak
  EXPECT_EQ(s.demand[23], 8);
  EXPECT_EQ(s.demand[24], 4);        // Tuesday 00:00
  EXPECT_EQ(s.demand[168 + 20], 8);  // the week repeats
  EXPECT_EQ(s.demand[26279], 8);     // the last hour is 23:00 (26,280 = 1,095 whole days)
  // Each day 20 h × 4 + 4 h × 8 = 112 GPU-hours; 1,095 days → 122,640.
  EXPECT_DOUBLE_EQ(total(s.demand), 122640);
  // The week's 168 hours repeated over 26,280: 156.43 times.
  EXPECT_EQ(s.demand_description.key, "tco.demand.file_repeated");
  EXPECT_EQ(fact(s.demand_description, "file"), "demand-nightly-peak.csv");
  EXPECT_EQ(fact(s.demand_description, "rows"), "168");
  EXPECT_EQ(fact(s.demand_description, "hours"), "26,280");
  EXPECT_EQ(fact(s.demand_description, "times"), "156.43");

  // The owned side is exactly `gpuplan quote examples/a100-8gpu-training.yaml`.
  auto input = plan::read_config_file(source_path("examples/a100-8gpu-training.yaml"));
  ASSERT_TRUE(input) << input.error().str();
  auto config = plan::resolve_config(*input, default_catalog());
  ASSERT_TRUE(config) << config.error().str();
  const plan::Quote quote = plan::build_quote(*config, default_catalog());
  EXPECT_EQ(s.owned.purchase, quote.total_buy);
  EXPECT_EQ(s.owned.gpus, 8);
  EXPECT_DOUBLE_EQ(s.owned.power_kw.mid(), quote.power.peak_w() / 1000);
  ASSERT_TRUE(s.owned.residual);
  EXPECT_DOUBLE_EQ(s.owned.residual->mid(), 0.2 * quote.total_buy.mid());  // residual: 20%
  EXPECT_EQ(s.owned.staff_monthly, (Range{8000, 15000}));

  // On demand from the Aliyun offer (CNY, 1 GPU an instance); the rest as written.
  const catalog::Entry* offer = default_catalog().find("cloud_offer", "aliyun-ecs-gn7e-c16g1-4xlarge");
  ASSERT_NE(offer, nullptr);
  EXPECT_DOUBLE_EQ(s.rent.on_demand_gpu_hour->mid(), offer->number("on_demand_hour") / offer->number("gpus"));
  EXPECT_EQ(*s.rent.monthly_gpu, (Range{3000, 4500}));
  EXPECT_EQ(*s.rent.spot_gpu_hour, Range::point(12.6));
  EXPECT_EQ(s.rent.spot_overhead, Range::point(0.1));
  EXPECT_EQ(s.rent.source, offer->source);

  EXPECT_TRUE(s.transfer.binary_units);
  EXPECT_EQ(s.transfer.gb_out_per_month, 2048);  // 2 TB × 1,024
  EXPECT_EQ(s.transfer.storage_gb, 10240);       // 10 TB × 1,024
  ASSERT_EQ(s.investments.size(), 4u);
  EXPECT_EQ(s.investments[0].id, "infiniband");
  EXPECT_EQ(s.investments[3].id, "ai_enterprise");
  EXPECT_EQ(s.factors.data_sensitive, true);
  EXPECT_EQ(s.factors.uses_cloud_only_services, false);
  EXPECT_EQ(s.mc_draws, 10000);
  EXPECT_EQ(s.mc_seed, 1u);
}

// --- Units and defaults -----------------------------------------------------------------------

TEST(ScenarioTest, HorizonTakesHoursDaysWeeksMonthsAndYears) {
  auto hours = [](const std::string& h) {
    return parse_ok("horizon: " + h + "\n" + kOwned + kRent + kDemand).horizon_hours;
  };
  EXPECT_EQ(hours("26280 h"), 26280);
  EXPECT_EQ(hours("1095 d"), 26280);     // 1,095 × 24
  EXPECT_EQ(hours("3 years"), 26280);    // 3 × 8,760
  EXPECT_EQ(hours("36 months"), 26280);  // 36 × 730
  EXPECT_EQ(hours("1 month"), 730);
  EXPECT_EQ(hours("156 weeks"), 26208);  // 156 × 168
  EXPECT_EQ(hours("1 week"), 168);
}

TEST(ScenarioTest, DefaultsComeFromTheCatalog) {
  Scenario s =
      parse_ok("horizon: 36 months\nowned: {gpus: 2, price: [700000, 900000], gpu: a100-80gb-sxm, residual: 20%}\n" +
               kRent + kDemand);
  const auto& cat = default_catalog();
  EXPECT_DOUBLE_EQ(s.owned.power_kw.mid(), 1.44);     // 2 GPUs × 400 W × 1.8 / 1000
  EXPECT_DOUBLE_EQ(s.owned.residual->mid(), 160000);  // 20% of the ¥800,000 midpoint
  EXPECT_EQ(s.owned.idle_fraction, 0.5);              // power.idle_fraction
  EXPECT_EQ(s.owned.idle_fraction, cat.threshold("power.idle_fraction"));
  EXPECT_EQ(s.owned.electricity_kwh, Range::point(0.8));  // electricity.price_kwh
  EXPECT_EQ(s.owned.pue, (Range{1.25, 1.6}));             // pue
  EXPECT_EQ(s.owned.life_months, 36);                     // term.years × 12
  EXPECT_EQ(s.owned.rack_monthly, Range{});
  EXPECT_EQ(s.rent.spot_overhead, Range{});
  EXPECT_EQ(s.rent.source, "scenario");
  EXPECT_EQ(s.transfer.price_out_gb, Range::point(0.8));  // egress.price_gb
  EXPECT_EQ(s.transfer.price_in_gb, Range{});
  EXPECT_EQ(s.mc_draws, 10000);  // tco.mc_draws
  EXPECT_EQ(s.name, "s");        // the file name
  // No residual given: the used-card band used.card_fraction (30–50%) of the ¥780,000 purchase
  // (no gpu named, so the whole of it): ¥234,000–390,000.
  const auto residual = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand).owned.residual;
  ASSERT_TRUE(residual);
  EXPECT_NEAR(residual->low, 234000, 1e-6);
  EXPECT_NEAR(residual->high, 390000, 1e-6);
}

TEST(ScenarioTest, NewThresholdsAreInTheCatalog) {
  const auto& cat = default_catalog();
  EXPECT_EQ(cat.threshold("tco.rent_below_utilization"), 0.3);
  EXPECT_EQ(cat.threshold("tco.buy_above_utilization"), 0.6);
  EXPECT_EQ(cat.threshold("tco.sensitivity_step"), 0.2);
  EXPECT_EQ(cat.threshold("tco.mc_draws"), 10000);
}

TEST(ScenarioTest, EgressIsConvertedWithTheStatedUnits) {
  auto transfer = [](const std::string& units) {
    return parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand + "transfer: {units: " + units +
                    ", egress_per_month: 100 TB, ingress_per_month: 500 GB, storage: 1 PB}\n")
        .transfer;
  };
  Transfer binary = transfer("binary");
  EXPECT_EQ(binary.gb_out_per_month, 102400);  // 100 × 1,024
  EXPECT_EQ(binary.gb_in_per_month, 500);
  EXPECT_EQ(binary.storage_gb, 1048576);  // 1,024 × 1,024
  EXPECT_TRUE(binary.binary_units);
  // SPEC E2: 100 TB × ¥0.8/GB ≈ ¥81,920 (binary) or ¥80,000 (decimal).
  EXPECT_DOUBLE_EQ(binary.gb_out_per_month * binary.price_out_gb.mid(), 81920);
  Transfer decimal = transfer("decimal");
  EXPECT_EQ(decimal.gb_out_per_month, 100000);
  EXPECT_EQ(decimal.storage_gb, 1000000);
  EXPECT_FALSE(decimal.binary_units);
  EXPECT_DOUBLE_EQ(decimal.gb_out_per_month * decimal.price_out_gb.mid(), 80000);
}

TEST(ScenarioTest, TerabytesWithoutUnitsAreAnError) {
  Error e = parse_error("horizon: 36 months\n" + kOwned + kRent + kDemand + "transfer:\n  egress_per_month: 100 TB\n");
  EXPECT_EQ(e.file, "s.yaml");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.field, "transfer.egress_per_month");
  expect_message(e, "error.scenario.ambiguous_units", {{"text", "100 TB"}});
  // GB needs no units: it is the same either way.
  EXPECT_EQ(parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand + "transfer: {egress_per_month: 500 GB}\n")
                .transfer.gb_out_per_month,
            500);
}

TEST(ScenarioTest, ServerPricesAreDividedByGpusPerServer) {
  Scenario s = parse_ok("horizon: 36 months\n" + kOwned + kDemand +
                        "rent: {on_demand_server_hour: 102.4, monthly_server: [24000, 36000], gpus_per_server: 8}\n");
  EXPECT_DOUBLE_EQ(s.rent.on_demand_gpu_hour->mid(), 12.8);  // 102.4 / 8
  EXPECT_EQ(*s.rent.monthly_gpu, (Range{3000, 4500}));       // [24,000, 36,000] / 8
}

// --- Cloud offers -----------------------------------------------------------------------------

TEST(ScenarioTest, CloudOfferGivesPerGpuHourPricesInYuan) {
  const auto& cat = default_catalog();
  Scenario s = parse_ok("horizon: 36 months\n" + kOwned + kDemand +
                        "rent: {cloud_offer: aws-p4de-24xlarge-us-east-1-use1-az4}\n");
  ASSERT_EQ(cat.rate_to_cny("USD")->rate, 7.12);
  // By hand: US$27.44705 an instance-hour / 8 GPUs × 7.12 = ¥24.4278745 a GPU-hour;
  // spot US$9.9734 / 8 × 7.12 = ¥8.876326.
  EXPECT_NEAR(s.rent.on_demand_gpu_hour->mid(), 24.4278745, 1e-9);
  EXPECT_NEAR(s.rent.spot_gpu_hour->mid(), 8.876326, 1e-9);
  // And from the catalog entry itself.
  const catalog::Entry* offer = cat.find("cloud_offer", "aws-p4de-24xlarge-us-east-1-use1-az4");
  ASSERT_NE(offer, nullptr);
  EXPECT_DOUBLE_EQ(s.rent.on_demand_gpu_hour->mid(), offer->number("on_demand_hour") / 8 * 7.12);
  EXPECT_EQ(s.rent.source, offer->source);

  // Explicit prices win over the offer's; an offer without spot gives none.
  Scenario own = parse_ok("horizon: 36 months\n" + kOwned + kDemand +
                          "rent: {cloud_offer: aws-p4de-24xlarge-us-east-1-use1-az4, on_demand_gpu_hour: 20, "
                          "source: my quote}\n");
  EXPECT_EQ(*own.rent.on_demand_gpu_hour, Range::point(20));
  EXPECT_NEAR(own.rent.spot_gpu_hour->mid(), 8.876326, 1e-9);
  EXPECT_EQ(own.rent.source, "my quote");
  Scenario lambda = parse_ok("horizon: 36 months\n" + kOwned + kDemand +
                             "rent: {cloud_offer: lambda-gpu-8x-a100-80gb-sxm4-us-east-1}\n");
  EXPECT_FALSE(lambda.rent.spot_gpu_hour);
  EXPECT_NEAR(lambda.rent.on_demand_gpu_hour->mid(), 19.8648, 1e-9);  // 22.32 / 8 × 7.12
}

TEST(ScenarioTest, UnknownCloudOfferSuggestsTheNearest) {
  Error e =
      parse_error("horizon: 36 months\n" + kOwned + kDemand + "rent:\n  cloud_offer: aliyun-ecs-gn7e-c16g1-4xlarg\n");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "rent.cloud_offer");
  expect_message(
      e, "error.unknown_id",
      {{"kind", "cloud_offer"}, {"id", "aliyun-ecs-gn7e-c16g1-4xlarg"}, {"nearest", "aliyun-ecs-gn7e-c16g1-4xlarge"}});
}

// --- Investments (SPEC E5, §J) ----------------------------------------------------------------

TEST(ScenarioTest, LiquidCoolingSavesItsPueDifferenceOnTheItLoad) {
  Scenario s = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand +
                        "investments:\n  liquid_cooling: {it_load_kw: 1.5, pue_before: 1.45, pue_after: 1.08, "
                        "electricity_per_kwh: 0.8}\n");
  const Investment& i = investment(s, "liquid_cooling");
  // 1.5 kW × (1.45 − 1.08) × 730 h × ¥0.8 = ¥324.12 a month; × 36 = ¥11,668.32 (SPEC §J: ≈ ¥11,700).
  EXPECT_NEAR(i.benefit_monthly.mid(), 324.12, 1e-9);
  EXPECT_NEAR(i.benefit_monthly.mid() * 36, 11668.32, 1e-8);
  EXPECT_EQ(i.upfront, Range::point(38000));  // catalog cooling-air-to-liquid, no installation
  EXPECT_EQ(i.cost_monthly, Range{});
  bool has_pue = false;
  for (const auto& b : i.basis)
    if (b.id == "pue") has_pue = b.value == Phrase("tco.value.change").fact("before", "1.45").fact("after", "1.08");
  EXPECT_TRUE(has_pue);
  // Every basis figure has a label in the table; the catalog's cost names its entry.
  for (const auto& b : i.basis) EXPECT_TRUE(report::has_message("tco.basis." + b.id)) << b.id;
  ASSERT_FALSE(i.basis.empty());
  EXPECT_EQ(i.basis[0].id, "cost");
  EXPECT_EQ(i.basis[0].value,
            Phrase("tco.value.from_catalog").fact("value", "¥38,000").fact("id", "cooling-air-to-liquid"));
  // Defaults: PUE 1.45 → 1.08 (pue.air, pue.liquid) and ¥0.8/kWh (the owned electricity).
  Scenario d = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand +
                        "investments: {liquid_cooling: {it_load_kw: 1.5, install_cost: 18000}}\n");
  EXPECT_NEAR(investment(d, "liquid_cooling").benefit_monthly.mid(), 324.12, 1e-9);
  EXPECT_EQ(investment(d, "liquid_cooling").upfront, Range::point(56000));  // 38,000 + 18,000
}

TEST(ScenarioTest, PremiumSupportIsWorthTheDowntimeItSaves) {
  Scenario s = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand +
                        "investments:\n  premium_support: {downtime_cost_per_hour: 12000}\n");
  const Investment& i = investment(s, "premium_support");
  // (17.5 − 1.2) h a year × ¥12,000 / 12 = ¥16,300 a month (¥195,600 a year);
  // the ¥55,000 a year is ¥4,583.33 a month: net ¥140,600 a year (SPEC §J).
  EXPECT_NEAR(i.benefit_monthly.mid(), 16300, 1e-9);
  EXPECT_NEAR(i.cost_monthly.mid(), 55000.0 / 12, 1e-9);
  EXPECT_NEAR((i.benefit_monthly.mid() - i.cost_monthly.mid()) * 12, 140600, 1e-8);
  EXPECT_EQ(i.upfront, Range{});
}

TEST(ScenarioTest, InfinibandIsWorthTheClusterHoursItSaves) {
  Scenario s = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand +
                        "investments:\n  infiniband: {cost: 125000, epoch_minutes_before: 42, "
                        "epoch_minutes_after: 6.8, epochs_per_month: 100, cluster_hour_value: 800}\n");
  const Investment& i = investment(s, "infiniband");
  // (42 − 6.8) / 60 h × 100 epochs × ¥800 = 58.67 h × ¥800 = ¥46,933.33 a month.
  EXPECT_NEAR(i.benefit_monthly.mid(), 46933.333333, 1e-5);
  EXPECT_EQ(i.upfront, Range::point(125000));
  // The same from the catalog's defaults (network-10gbe-to-hdr-ib, network.epoch_min_*).
  Scenario d = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand +
                        "investments: {infiniband: {epochs_per_month: 100, cluster_hour_value: 800}}\n");
  EXPECT_NEAR(investment(d, "infiniband").benefit_monthly.mid(), 46933.333333, 1e-5);
  EXPECT_EQ(investment(d, "infiniband").upfront, Range::point(125000));
}

TEST(ScenarioTest, AiEnterpriseCostsPerGpuYear) {
  Scenario s = parse_ok("horizon: 36 months\nowned: {gpus: 8, price: 3200000, power_kw: 0}\n" + kRent + kDemand +
                        "investments:\n  ai_enterprise: {benefit_per_month: 30000}\n");
  const Investment& i = investment(s, "ai_enterprise");
  // 8 owned GPUs × ¥28,000 (nvidia-ai-enterprise) / 12 = ¥18,666.67 a month.
  EXPECT_NEAR(i.cost_monthly.mid(), 18666.666667, 1e-5);
  EXPECT_EQ(i.benefit_monthly, Range::point(30000));
  Scenario two = parse_ok("horizon: 36 months\n" + kOwned + kRent + kDemand +
                          "investments: {ai_enterprise: {gpus: 2, cost_per_gpu_year: 32000, benefit_per_month: 1}}\n");
  EXPECT_NEAR(investment(two, "ai_enterprise").cost_monthly.mid(), 5333.333333, 1e-5);  // 2 × 32,000 / 12
}

TEST(ScenarioTest, InvestmentFiguresOnlyTheUserKnowsAreRequired) {
  auto missing = [](const std::string& inv) {
    return parse_error("horizon: 36 months\n" + kOwned + kRent + kDemand + "investments:\n  " + inv + "\n").field;
  };
  EXPECT_EQ(missing("infiniband: {epochs_per_month: 100}"), "investments.infiniband.cluster_hour_value");
  EXPECT_EQ(missing("liquid_cooling: {}"), "investments.liquid_cooling.it_load_kw");
  EXPECT_EQ(missing("premium_support: {}"), "investments.premium_support.downtime_cost_per_hour");
  EXPECT_EQ(missing("ai_enterprise: {gpus: 8}"), "investments.ai_enterprise.benefit_per_month");
  EXPECT_EQ(missing("liquid: {}"), "investments.liquid");
  // What is missing is said as a phrase of its own.
  Error e = parse_error("horizon: 36 months\n" + kOwned + kRent + kDemand + "investments:\n  liquid_cooling: {}\n");
  EXPECT_EQ(e.message,
            Phrase("error.scenario.missing_figure").fact("what", {Phrase("error.scenario.figure.it_load_kw")}));
}

// --- Demand -----------------------------------------------------------------------------------

TEST(ScenarioTest, WeeklyEntriesAddUp) {
  Scenario s = parse_ok("horizon: 2 weeks\n" + kOwned + kRent +
                        "demand:\n  weekly:\n    - {days: [mon, tue, wed, thu, fri], gpus: 2}\n"
                        "    - {days: fri, from: 20, to: 24, gpus: 6}\n");
  ASSERT_EQ(s.demand.size(), 336u);
  EXPECT_EQ(s.demand[0], 2);            // Monday 00:00
  EXPECT_EQ(s.demand[4 * 24 + 19], 2);  // Friday 19:00
  EXPECT_EQ(s.demand[4 * 24 + 20], 8);  // Friday 20:00: 2 + 6
  EXPECT_EQ(s.demand[5 * 24], 0);       // Saturday
  // 5 days × 24 h × 2 + 4 h × 6 = 264 GPU-hours a week, two weeks.
  EXPECT_DOUBLE_EQ(total(s.demand), 528);
  // The description lists each entry with its weekdays, then the GPU-hours a week.
  EXPECT_EQ(s.demand_description.key, "tco.demand.weekly");
  EXPECT_EQ(fact(s.demand_description, "per_week"), "264");
  const Phrase first =
      Phrase("tco.demand.weekly_entry")
          .fact("gpus", "2")
          .fact("days", {Phrase("tco.weekday.mon"), Phrase("tco.weekday.tue"), Phrase("tco.weekday.wed"),
                         Phrase("tco.weekday.thu"), Phrase("tco.weekday.fri")})
          .fact("from", "0")
          .fact("to", "24");
  const Phrase second = Phrase("tco.demand.weekly_entry")
                            .fact("gpus", "6")
                            .fact("days", {Phrase("tco.weekday.fri")})
                            .fact("from", "20")
                            .fact("to", "24");
  const Fact* entries = find_fact(s.demand_description.facts, "entries");
  ASSERT_NE(entries, nullptr);
  ASSERT_EQ(entries->phrases.size(), 1u);
  EXPECT_EQ(entries->phrases[0], Phrase("tco.and_then").fact("first", {first}).fact("rest", {second}));
}

TEST(ScenarioTest, DemandFileSetsTheHorizonWhenNoneIsGiven) {
  std::string dir = temp_dir();
  write_file(dir, "d.csv", "hour,busy_gpus\n0,1\n1,2.5\n2,0\n");
  Scenario s = parse_ok(kOwned + kRent + "demand: {file: d.csv}\n", dir + "/s.yaml");
  EXPECT_EQ(s.horizon_hours, 3);
  EXPECT_EQ(s.demand, (std::vector<double>{1, 2.5, 0}));
  // A longer horizon repeats the file; a shorter one takes its first hours.
  Scenario longer = parse_ok("horizon: 8 h\n" + kOwned + kRent + "demand: {file: d.csv}\n", dir + "/s.yaml");
  EXPECT_EQ(longer.demand, (std::vector<double>{1, 2.5, 0, 1, 2.5, 0, 1, 2.5}));
  EXPECT_EQ(longer.demand_description, Phrase("tco.demand.file_repeated")
                                           .fact("file", "d.csv")
                                           .fact("rows", "3")
                                           .fact("hours", "8")
                                           .fact("times", "2.67"));
  EXPECT_EQ(s.demand_description, Phrase("tco.demand.file").fact("file", "d.csv").fact("rows", "3"));
  Scenario shorter = parse_ok("horizon: 2 h\n" + kOwned + kRent + "demand: {file: d.csv}\n", dir + "/s.yaml");
  EXPECT_EQ(shorter.demand, (std::vector<double>{1, 2.5}));
  EXPECT_EQ(shorter.demand_description,
            Phrase("tco.demand.file_first").fact("file", "d.csv").fact("rows", "3").fact("hours", "2"));
}

TEST(ScenarioTest, DemandCsvNeedsNoHeader) {
  std::string dir = temp_dir();
  auto d = read_demand_csv(write_file(dir, "d.csv", "0,3\r\n1, 4\r\n\r\n2,5\r\n"));
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ(*d, (std::vector<double>{3, 4, 5}));
}

// --- Bad scenarios: each names file, line and field -------------------------------------------

TEST(ScenarioTest, NegativeHorizonIsRejected) {
  Error e = parse_error("name: x\nhorizon: -5 months\n" + kOwned + kRent + kDemand);
  EXPECT_EQ(e.file, "s.yaml");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.field, "horizon");
  expect_message(e, "error.scenario.not_positive", {{"got", "-5 months"}});
  EXPECT_EQ(parse_error("horizon: 0 h\n" + kOwned + kRent + kDemand).field, "horizon");
}

TEST(ScenarioTest, UtilizationAbove100PercentIsRejected) {
  Error e = parse_error("horizon: 36 months\n" + kOwned + kRent + "demand:\n  utilization: 130%\n");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "demand.utilization");
  expect_message(e, "error.scenario.not_share", {{"got", "130%"}});
  // Without its sign, 130 is taken for a fraction: the message says how to write a percentage.
  expect_message(parse_error("horizon: 36 months\n" + kOwned + kRent + "demand:\n  utilization: 130\n"),
                 "error.scenario.not_share_needs_sign", {{"got", "130"}});
  EXPECT_EQ(parse_error("horizon: 36 months\n" + kOwned + kRent + "demand: {utilization: -0.1}\n").field,
            "demand.utilization");
}

TEST(ScenarioTest, PueBelowOneIsRejected) {
  Error e = parse_error("horizon: 36 months\nowned:\n  gpus: 2\n  price: 780000\n  power_kw: 1\n  pue: 0.9\n" + kRent +
                        kDemand);
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.field, "owned.pue");
  expect_message(e, "error.scenario.pue_below_one", {{"got", "0.9"}});
}

TEST(ScenarioTest, RentWithoutAPriceIsRejected) {
  Error e = parse_error("horizon: 36 months\n" + kOwned + "rent:\n  spot_overhead: 10%\n" + kDemand);
  EXPECT_EQ(e.file, "s.yaml");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.field, "rent");
  expect_message(e, "error.scenario.no_rent_price", {});
  Error none = parse_error("horizon: 36 months\n" + kOwned + kDemand);
  EXPECT_EQ(none.field, "rent");
  EXPECT_EQ(none.line, 1);
  expect_message(none, "error.scenario.rent_missing", {});
}

TEST(ScenarioTest, OwnedWithoutAPriceIsRejected) {
  Error e = parse_error("horizon: 36 months\nowned:\n  gpus: 2\n  power_kw: 0\n" + kRent + kDemand);
  EXPECT_EQ(e.file, "s.yaml");
  EXPECT_EQ(e.line, 3);  // the owned mapping starts on its first key
  EXPECT_EQ(e.field, "owned.price");
  expect_message(e, "error.scenario.owned_price_missing", {});
}

TEST(ScenarioTest, DemandFileWithAGapNamesTheCsvLine) {
  std::string dir = temp_dir();
  write_file(dir, "gap.csv", "hour,busy_gpus\n0,4\n1,4\n3,4\n4,4\n");
  auto r = parse_scenario("horizon: 36 months\n" + kOwned + kRent + "demand: {file: gap.csv}\n", dir + "/s.yaml",
                          default_catalog());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, dir + "/gap.csv");
  EXPECT_EQ(r.error().line, 4);  // "3,4": hour 3 after hour 1
  EXPECT_EQ(r.error().field, "hour");
  EXPECT_EQ(r.error().message,
            Phrase("error.scenario.csv_hour_missing").fact("hour", "3").fact("previous", "1").fact("first", "2"));
}

TEST(ScenarioTest, DemandCsvRejectsBadRows) {
  std::string dir = temp_dir();
  auto error = [&](const std::string& csv) {
    auto r = read_demand_csv(write_file(dir, "bad.csv", csv));
    EXPECT_FALSE(r) << csv;
    return r ? Error{} : r.error();
  };
  Error text = error("hour,busy_gpus\n0,4\n1,four\n");
  EXPECT_EQ(text.line, 3);
  EXPECT_EQ(text.field, "busy_gpus");
  Error negative = error("0,4\n1,-2\n");
  expect_message(text, "error.scenario.csv_not_number", {{"got", "four"}});
  EXPECT_EQ(negative.file, dir + "/bad.csv");
  EXPECT_EQ(negative.line, 2);
  EXPECT_EQ(negative.field, "busy_gpus");
  expect_message(negative, "error.scenario.negative", {{"got", "-2"}});
  expect_message(error("1,4\n"), "error.scenario.csv_first_hour", {{"got", "1"}});
  Error again = error("0,4\n0,4\n");
  EXPECT_EQ(again.line, 2);
  expect_message(again, "error.scenario.csv_hour_again", {{"hour", "0"}, {"previous", "0"}});
  Error fields = error("0,4,5\n");
  EXPECT_EQ(fields.line, 1);
  expect_message(fields, "error.scenario.csv_fields", {{"got", "3"}});
  expect_message(error("0,1\n1,1\n4,1\n"), "error.scenario.csv_hours_missing",
                 {{"hour", "4"}, {"previous", "1"}, {"first", "2"}, {"last", "3"}});
  expect_message(error("0,1\nx1,1\n"), "error.scenario.csv_hour_not_whole", {{"got", "x1"}});
  expect_message(error("hour,busy_gpus\n"), "error.scenario.csv_empty", {});
}

TEST(ScenarioTest, MissingDemandFileIsNamed) {
  std::string dir = temp_dir();
  Error e = parse_error("horizon: 36 months\n" + kOwned + kRent + "demand:\n  file: nowhere.csv\n", dir + "/s.yaml");
  EXPECT_EQ(e.file, dir + "/s.yaml");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "demand.file");
  expect_message(e, "error.cannot_read", {{"path", dir + "/nowhere.csv"}});
}

TEST(ScenarioTest, UnknownKeySuggestsTheNearest) {
  Error e = parse_error("horizn: 36 months\n" + kOwned + kRent + kDemand);
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.field, "horizn");
  expect_message(e, "error.yaml.unknown_field", {{"nearest", "horizon"}});
  Error owned =
      parse_error("horizon: 36 months\nowned: {gpus: 2, price: 1, power_kw: 0, pue_: 1.2}\n" + kRent + kDemand);
  EXPECT_EQ(owned.field, "owned.pue_");
  expect_message(owned, "error.yaml.unknown_field", {{"nearest", "pue"}});
}

TEST(ScenarioTest, MisspeltUnitIsRejected) {
  Error e = parse_error("horizon: 36 monts\n" + kOwned + kRent + kDemand);
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.field, "horizon");
  expect_message(
      e, "error.unknown_unit",
      {{"unit", "monts"}, {"text", "36 monts"}, {"units", "h, d, weeks, months, years"}, {"nearest", "months"}});
  Error bare = parse_error("horizon: 36\n" + kOwned + kRent + kDemand);
  expect_message(bare, "error.scenario.needs_unit", {{"text", "36"}, {"units", "h, d, weeks, months, years"}});
  Error tb = parse_error("horizon: 36 months\n" + kOwned + kRent + kDemand +
                         "transfer: {units: binary, egress_per_month: 100 TBs}\n");
  EXPECT_EQ(tb.field, "transfer.egress_per_month");
  expect_message(tb, "error.unknown_unit", {{"unit", "TBs"}, {"text", "100 TBs"}, {"units", "GB, TB, PB"}});
}

TEST(ScenarioTest, OtherMistakesNameTheirField) {
  auto field = [](const std::string& yaml) { return parse_error(yaml).field; };
  const std::string base = "horizon: 36 months\n";
  // Two demand kinds at once.
  EXPECT_EQ(field(base + kOwned + kRent + "demand: {utilization: 50%, file: d.csv}\n"), "demand.file");
  // Negative money.
  EXPECT_EQ(field(base + "owned: {gpus: 2, price: -1, power_kw: 0}\n" + kRent + kDemand), "owned.price");
  EXPECT_EQ(field(base + kOwned + "rent: {on_demand_gpu_hour: -12.8}\n" + kDemand), "rent.on_demand_gpu_hour");
  EXPECT_EQ(field(base + "owned: {gpus: 2, price: 1, power_kw: 0, rack_monthly: -800}\n" + kRent + kDemand),
            "owned.rack_monthly");
  // Idle fraction outside 0..1.
  EXPECT_EQ(field(base + "owned: {gpus: 2, price: 1, power_kw: 0, idle_fraction: 1.5}\n" + kRent + kDemand),
            "owned.idle_fraction");
  // Weekly: a day that is not mon..sun, hours outside 0..24, from >= to.
  const std::string weekly = base + kOwned + kRent + "demand:\n  weekly:\n";
  Error day = parse_error(weekly + "    - {days: [mon, thur], gpus: 8}\n");
  EXPECT_EQ(day.field, "demand.weekly[0].days[1]");
  EXPECT_EQ(day.line, 6);
  expect_message(day, "error.not_one_of", {{"got", "thur"}, {"nearest", "thu"}});
  EXPECT_EQ(field(weekly + "    - {days: [mon], from: 0, to: 25, gpus: 8}\n"), "demand.weekly[0].to");
  EXPECT_EQ(field(weekly + "    - {days: [mon], from: -1, gpus: 8}\n"), "demand.weekly[0].from");
  EXPECT_EQ(field(weekly + "    - {days: [mon], from: 20, to: 20, gpus: 8}\n"), "demand.weekly[0].to");
  // A server price needs GPUs per server; a config that is not there is named.
  EXPECT_EQ(field(base + kOwned + "rent: {on_demand_server_hour: 100}\n" + kDemand), "rent.on_demand_server_hour");
  EXPECT_EQ(field(base + "owned: {config: nowhere.yaml}\n" + kRent + kDemand), "owned.config");
  EXPECT_EQ(field(base + "owned: {gpus: 2, price: 1, gpu: a100-80gb-sxn}\n" + kRent + kDemand), "owned.gpu");
  EXPECT_EQ(field(base + "owned: {gpus: 2, price: 1}\n" + kRent + kDemand), "owned.power_kw");
  EXPECT_EQ(field(base + kOwned + kRent + kDemand + "transfer: {units: metric}\n"), "transfer.units");
  EXPECT_EQ(field(base + kOwned + kRent + kDemand + "factors: {data_sensitive: maybe}\n"), "factors.data_sensitive");
  EXPECT_EQ(field(base + kOwned + kRent + kDemand + "monte_carlo: {draws: 0}\n"), "monte_carlo.draws");
  EXPECT_EQ(field(kOwned + kRent + kDemand), "horizon");
  EXPECT_EQ(field(base + kOwned + kRent), "demand");
  // What each says: the key and its facts.
  auto error = [](const std::string& yaml) { return parse_error(yaml); };
  expect_message(error(weekly + "    - {days: [mon], from: 20, to: 20, gpus: 8}\n"), "error.scenario.to_not_after_from",
                 {{"from", "20"}, {"to", "20"}});
  expect_message(error(weekly + "    - {days: [mon], from: 0, to: 25, gpus: 8}\n"), "error.scenario.hour_out_of_range",
                 {{"got", "25"}});
  expect_message(error(weekly + "    - {days: [mon], from: 1.5, gpus: 8}\n"), "error.scenario.hour_not_whole",
                 {{"got", "1.5"}});
  expect_message(error(weekly + "    - {gpus: 8}\n"), "error.scenario.weekly_days_missing", {});
  expect_message(error(weekly + "    - {days: [mon]}\n"), "error.scenario.weekly_gpus_missing", {});
  expect_message(error(base + kOwned + "rent: {on_demand_server_hour: 100}\n" + kDemand),
                 "error.scenario.needs_gpus_per_server", {});
  expect_message(
      error(base + kOwned + "rent: {on_demand_gpu_hour: 1, on_demand_server_hour: 8, gpus_per_server: 8}\n" + kDemand),
      "error.scenario.rent_price_twice", {{"per_gpu", "on_demand_gpu_hour"}, {"per_server", "on_demand_server_hour"}});
  expect_message(error(base + "owned: {gpus: 2, price: 1}\n" + kRent + kDemand), "error.scenario.owned_power_missing",
                 {});
  expect_message(error(base + "owned: {price: 1, power_kw: 0}\n" + kRent + kDemand),
                 "error.scenario.owned_gpus_missing", {});
  expect_message(error(base + kOwned + kRent + kDemand + "monte_carlo: {draws: 0}\n"), "error.scenario.whole_between",
                 {{"min", "1"}, {"max", "100,000,000"}, {"got", "0"}});
  expect_message(error(kOwned + kRent + kDemand), "error.scenario.horizon_missing", {});
  expect_message(error(base + kOwned + kRent), "error.scenario.demand_missing", {});
  expect_message(error(base + kOwned + kRent + "demand: {utilization: 50%, file: d.csv}\n"),
                 "error.scenario.demand_several", {});
  expect_message(error("horizon: 10.5 h\n" + kOwned + kRent + kDemand), "error.scenario.horizon_not_whole",
                 {{"got", "10.5 h"}});
  expect_message(error("horizon: 1.05 d\n" + kOwned + kRent + kDemand), "error.scenario.horizon_not_whole_in_hours",
                 {{"got", "1.05 d"}, {"hours", "25.2 h"}});  // 1.05 × 24
  expect_message(error("horizon: 51 years\n" + kOwned + kRent + kDemand), "error.scenario.horizon_too_long",
                 {{"got", "51 years"}, {"max_years", "50"}});
  expect_message(error(base + kOwned + kRent + kDemand +
                       "investments: {liquid_cooling: {it_load_kw: 1, pue_before: 1.1, pue_after: 1.3}}\n"),
                 "error.scenario.exceeds", {{"limit_key", "pue_before"}, {"got", "1.3"}, {"limit", "1.1"}});
}

// Every scenario error reads in both languages, its facts in place.
TEST(ScenarioTest, ErrorsReadInBothLanguages) {
  Error e = parse_error("horizon: 36 months\n" + kOwned + kRent + "demand:\n  utilization: 130%\n");
  const std::string en = report::error_text(e, report::Lang::kEn), zh = report::error_text(e, report::Lang::kZh);
  EXPECT_NE(en, zh);
  for (const std::string& text : {en, zh}) {
    EXPECT_EQ(text.rfind("s.yaml:5: demand.utilization: ", 0), 0u) << text;
    EXPECT_NE(text.find("130%"), std::string::npos) << text;
    EXPECT_EQ(text.find('{'), std::string::npos) << text;  // every placeholder filled
  }
  for (const std::string& key : report::message_keys()) {
    if (key.rfind("error.scenario.", 0) != 0 && key.rfind("tco.", 0) != 0 && key.rfind("usage.", 0) != 0 &&
        key.rfind("error.usage.", 0) != 0)
      continue;
    const report::MessageText* m = report::find_message(key);
    ASSERT_NE(m, nullptr) << key;
    EXPECT_FALSE(m->en.empty()) << key;
    EXPECT_FALSE(m->zh.empty()) << key;
  }
}

}  // namespace
}  // namespace gpuplan::tco
