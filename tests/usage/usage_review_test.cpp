// Review fixes on usage's cost answer: monthly rent is held in whole servers of the market
// class, the "beyond owned" line counts whole purchasable units, and the two rule-of-thumb lines
// are told apart.
#include <gtest/gtest.h>

#include <sstream>

#include "report/usage_render.h"
#include "test_support.h"
#include "usage/synth.h"
#include "usage/usage.h"

namespace gpuplan::usage {
namespace {

using testing::default_catalog;
using testing::temp_dir;
using testing::write_file;

telemetry::HourlyData synth_hours(SynthPattern pattern, int days, int gpus) {
  SynthOptions o;
  o.pattern = pattern;
  o.gpus = gpus;
  o.days = days;
  o.interval_s = 300;
  std::ostringstream text;
  synthesize(o, text);
  auto data = telemetry::read_hourly({write_file(temp_dir(), "synth.log", text.str())}, telemetry::SourceFormat::kAuto);
  EXPECT_TRUE(data.ok()) << (data.ok() ? "" : data.error().str());
  return data.ok() ? *data : telemetry::HourlyData{};
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

}  // namespace
}  // namespace gpuplan::usage
