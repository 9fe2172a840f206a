// Review fixes on usage's cost answer: monthly rent is held in whole servers of the market
// class, the "beyond owned" line counts whole purchasable units, and the two rule-of-thumb lines
// are told apart.
#include <gtest/gtest.h>

#include <algorithm>

#include <sstream>

#include "report/usage_render.h"
#include "test_support.h"
#include "usage/synth.h"
#include "usage/synth_hours.h"
#include "usage/usage.h"

namespace gpuplan::usage {
namespace {

using testing::default_catalog;

// Five-minute samples, as these cases were worked at.
telemetry::HourlyData synth_hours(SynthPattern pattern, int days, int gpus) {
  return testing::synth_hours(pattern, days, gpus, 300);
}

const tco::StrategyResult* strategy(const UsageResult& r, const std::string& id) {
  for (const auto& s : r.costs->strategies)
    if (s.id == id) return &s;
  return nullptr;
}

// 3 busy PCIe cards, --rent monthly: the market class is the 4-GPU server, ¥7,000–12,000 a month
// [S0 §2.1], midpoint ¥9,500. Three GPUs cannot be rented by the month without the whole server:
// 1 server × ¥9,500 × 36 months = ¥342,000 (not 3 × ¥2,375 × 36 = ¥256,500). Busy hours per
// rented GPU-month: the 3 GPUs are busy every hour, over 4 rented: 730 × 3 / 4 = 547.5.
TEST(UsageReviewTest, MonthlyRentIsHeldInWholeServers) {
  Options o;
  o.gpu = "a100-80gb-pcie";
  o.rent = RentBasis::kMonthly;
  const UsageResult r = analyse(synth_hours(SynthPattern::kSteady, 14, 3), o, default_catalog());
  ASSERT_TRUE(r.costs && r.rent && r.rent->monthly);
  EXPECT_EQ(r.rent->monthly->entry->id, "a100-80gb-4gpu");
  const tco::StrategyResult* rent = strategy(r, "rent_monthly");
  const tco::StrategyResult* buy = strategy(r, "buy");
  ASSERT_TRUE(rent && buy);
  EXPECT_NEAR(rent->total, 9500.0 * 36, 1e-6);
  EXPECT_NEAR(r.rent->monthly->busy_hours, 547.5, 1e-9);
  EXPECT_LT(buy->total, rent->total);
  EXPECT_EQ(r.recommendation, "buy");
}

// Weekly burst on SXM cards: all 8 busy Monday and Tuesday (48 h of 168), idle otherwise, so
// renting wins and the next 8-GPU board (the unit an HGX is sold in) is busy 8 × 48 / (8 × 168)
// = 28.6% → "29%" of its GPU-hours. The unit is said once, by usage, not also by the tco model.
TEST(UsageReviewTest, BeyondOwnedSpeaksOfTheNextBoardAndOfMonthsWhenRentingMonthly) {
  const UsageResult hourly = analyse(synth_hours(SynthPattern::kWeeklyBurst, 14, 8), {}, default_catalog());
  ASSERT_EQ(hourly.unit_gpus, 8);
  EXPECT_EQ(hourly.owned_gpus, 0);
  const Phrase board =
      Phrase("usage.why.beyond_owned_board").fact("owned", "0").fact("unit", "8").fact("share", "29%");
  EXPECT_NE(std::find(hourly.recommendation_why.begin(), hourly.recommendation_why.end(), board),
            hourly.recommendation_why.end());
  for (const Phrase& why : hourly.recommendation_why) {
    EXPECT_NE(why.key, "tco.why.unit_platform");
    EXPECT_NE(why.key, "usage.why.beyond_owned");
  }
  // The same profile on PCIe cards rented by the month: a GPU, and no "those hours".
  Options monthly;
  monthly.gpu = "a100-80gb-pcie";
  monthly.rent = RentBasis::kMonthly;
  const UsageResult m = analyse(synth_hours(SynthPattern::kWeeklyBurst, 14, 8), monthly, default_catalog());
  ASSERT_EQ(m.owned_gpus, 0);
  const Phrase gpu = Phrase("usage.why.beyond_owned_monthly").fact("owned", "0").fact("share", "29%");
  EXPECT_NE(std::find(m.recommendation_why.begin(), m.recommendation_why.end(), gpu), m.recommendation_why.end());
}

}  // namespace
}  // namespace gpuplan::usage
