// Review fixes on the TCO scenario: figures large enough to overflow a cost line (1e308 of
// anything) and a residual above the purchase are errors at file:line:field, not ¥inf or a
// negative purchase.
#include <gtest/gtest.h>

#include "tco/rule_of_thumb.h"
#include "tco/scenario.h"
#include "test_support.h"

namespace gpuplan::tco {
namespace {

using testing::default_catalog;

// Line 1 horizon, 2 owned, 3 rent, 4 demand, line 5 the section under test.
const std::string kBase =
    "horizon: 36 months\n"
    "owned: {gpus: 2, price: 1000000, power_kw: 0}\nrent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n";

struct BadCase {
  std::string yaml;
  std::string field;
  std::string key;
};

TEST(TcoReviewTest, OverflowingFiguresAreErrorsNamingTheField) {
  const std::vector<BadCase> cases = {
      {"exit: {engineer_weeks: 1e308, engineer_week_cost: 20000}\n", "exit.engineer_weeks", "error.yaml.implausible"},
      {"exit: {engineer_weeks: 18, engineer_week_cost: 1e308}\n", "exit.engineer_week_cost", "error.yaml.implausible"},
      {"transfer: {units: decimal, one_off_in: 1e300 PB}\n", "transfer.one_off_in", "error.yaml.implausible"},
      {"transfer: {units: decimal, one_off_out: 100 TB, egress_price_gb: [1e308, 1e308]}\n", "transfer.egress_price_gb",
       "error.yaml.implausible"},
      {"transfer: {egress_per_month: 1e300}\n", "transfer.egress_per_month", "error.yaml.implausible"},
  };
  for (const BadCase& c : cases) {
    auto r = parse_scenario(kBase + c.yaml, "s.yaml", default_catalog());
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_EQ(r.error().file, "s.yaml") << c.yaml;
    EXPECT_EQ(r.error().line, 5) << c.yaml;
    EXPECT_EQ(r.error().field, c.field) << c.yaml;
    EXPECT_EQ(r.error().message.key, c.key) << c.yaml;
  }
}

// A residual above what was paid (¥2,000,000 on ¥1,000,000, or 1e308) would make the buy total
// negative: an error at owned.residual.
TEST(TcoReviewTest, ResidualAbovePurchaseIsAnError) {
  for (const char* residual : {"2000000", "1e308", "[500000, 1000001]"}) {
    const std::string yaml =
        std::string("horizon: 36 months\nowned: {gpus: 2, price: 1000000, power_kw: 0,\n  residual: ") + residual +
        "}\nrent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n";
    auto r = parse_scenario(yaml, "s.yaml", default_catalog());
    ASSERT_FALSE(r.ok()) << residual;
    EXPECT_EQ(r.error().line, 3) << residual;
    EXPECT_EQ(r.error().field, "owned.residual") << residual;
    // 1e308 is past every amount's bound (core/bounds.h) before it is compared with the price.
    EXPECT_EQ(r.error().message.key, std::string(residual) == "1e308" ? "error.yaml.implausible"
                                                                      : "error.scenario.residual_above_purchase")
        << residual;
  }
  EXPECT_TRUE(parse_scenario("horizon: 36 months\nowned: {gpus: 2, price: 1000000, power_kw: 0, residual: 1000000}\n"
                             "rent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n",
                             "s.yaml", default_catalog())
                  .ok());
}

// HGX A100 boards are sold with 8 GPUs mounted (catalog purchase_unit_gpus): 12 GPUs is 1.5
// boards, which cannot be bought; 16 can.
TEST(TcoReviewTest, OwnedGpusMustBeWholeUnits) {
  const std::string rest = "rent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n";
  auto r = parse_scenario(
      "horizon: 36 months\nowned: {gpus: 12, price: 1200000, platform: hgx-a100-8gpu, power_kw: 0}\n" + rest, "s.yaml",
      default_catalog());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().field, "owned.gpus");
  EXPECT_EQ(r.error().message.key, "error.scenario.gpus_not_whole_units");
  auto ok = parse_scenario(
      "horizon: 36 months\nowned: {gpus: 16, price: 1600000, platform: hgx-a100-8gpu, power_kw: 0}\n" + rest, "s.yaml",
      default_catalog());
  ASSERT_TRUE(ok.ok()) << ok.error().str();
  EXPECT_EQ(ok->owned.unit_gpus, 8);
}

// A utilization summed a hair under 30% (0.3 - 1e-12) displays as 30.0%: compared at that
// precision it is not "below 30.0%" (catalog tco.rent_below_utilization 0.3).
TEST(TcoReviewTest, RuleOfThumbComparesAtTheDisplayedPrecision) {
  Scenario s;
  s.horizon_hours = 36 * kHoursPerMonth;
  s.owned.gpus = 8;
  const RuleOfThumb near = rule_of_thumb(default_catalog(), s, 0.3 - 1e-12, 2.4, 2.4);
  ASSERT_FALSE(near.why.empty());
  EXPECT_NE(near.why.front().key, "tco.rule.low");
  const RuleOfThumb below = rule_of_thumb(default_catalog(), s, 0.2994, 2.4, 2.4);  // shows 29.9%
  ASSERT_FALSE(below.why.empty());
  EXPECT_EQ(below.why.front().key, "tco.rule.low");
}

// The used-card band prices cards within their service life: a 120-month horizon outlasts the
// default 36-month life, so the resale residual falls to the book value, nothing (1 − 120/36 < 0),
// instead of 30–50% of the cards' new price ten years on.
TEST(TcoReviewTest, ResaleBandEndsWithTheServiceLife) {
  const std::string owned = "owned: {gpus: 8, gpu: a100-80gb-sxm, price: 1000000, power_kw: 0}\n"
                            "rent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n";
  auto within = parse_scenario("horizon: 36 months\n" + owned, "s.yaml", default_catalog());
  ASSERT_TRUE(within.ok()) << within.error().str();
  ASSERT_TRUE(within->owned.resale.has_value());
  EXPECT_FALSE(within->owned.resale->past_life);
  // 8 × ¥85,000 (catalog a100-80gb-sxm buy midpoint) × [0.3, 0.5] = ¥204,000–340,000.
  EXPECT_DOUBLE_EQ(within->owned.residual->low, 204000);
  EXPECT_DOUBLE_EQ(within->owned.residual->high, 340000);
  auto past = parse_scenario("horizon: 120 months\n" + owned, "s.yaml", default_catalog());
  ASSERT_TRUE(past.ok()) << past.error().str();
  ASSERT_TRUE(past->owned.resale.has_value());
  EXPECT_TRUE(past->owned.resale->past_life);
  EXPECT_DOUBLE_EQ(past->owned.residual->low, 0);
  EXPECT_DOUBLE_EQ(past->owned.residual->high, 0);
}

}  // namespace
}  // namespace gpuplan::tco
