// Monthly rent is paid in whole months (issue 27): a one-week job pays a month, not a quarter of
// one; and the seeds' boundary between hourly and monthly rent for a job that runs day and night
// [S0 §5]. Every figure is worked by hand in the comments.
#include <gtest/gtest.h>

#include "report/render.h"
#include "report/tco_render.h"
#include "tco/tco.h"
#include "test_support.h"

namespace gpuplan::tco {
namespace {

using gpuplan::testing::default_catalog;

Scenario parse(const std::string& text) {
  auto s = parse_scenario(text, "scenario.yaml", default_catalog());
  if (!s) throw std::runtime_error(s.error().str());
  return *s;
}

double total(const TcoResult& r, const std::string& id) {
  for (const auto& s : r.strategies)
    if (s.id == id) return s.total;
  throw std::runtime_error("no strategy " + id);
}

// 8 GPUs for one week (168 h), held every hour. Monthly: ¥1,687.5 a GPU-month, one whole month
// begun: 8 × ¥1,687.5 = ¥13,500 (not 168/730 of it, ¥3,106.8). By the hour at ¥34.7: 8 × 168 ×
// ¥34.7 = ¥46,636.8.
TEST(TcoWholeMonthsTest, AOneWeekJobPaysAWholeMonthOfMonthlyRent) {
  const Scenario s = parse(
      "horizon: 1 week\n"
      "owned: {gpus: 8, price: 1000000, power_kw: 0}\n"
      "rent: {on_demand_gpu_hour: 34.7, monthly_gpu: 1687.5}\n"
      "demand: {weekly: [{days: [mon, tue, wed, thu, fri, sat, sun], from: 0, to: 24, gpus: 8}]}\n");
  const TcoResult r = analyse(s, default_catalog());
  EXPECT_NEAR(total(r, "rent_monthly"), 13500, 1e-6);
  EXPECT_NEAR(total(r, "rent_hourly"), 46636.8, 1e-6);
  EXPECT_EQ(r.recommendation, "rent_monthly");
}

// Six weeks (1,008 h) are one month (730 h) and part of a second: two whole months,
// 8 × ¥1,687.5 × 2 = ¥27,000.
TEST(TcoWholeMonthsTest, APartMonthAtTheEndIsPaidWhole) {
  const Scenario s = parse(
      "horizon: 6 weeks\n"
      "owned: {gpus: 8, price: 1000000, power_kw: 0}\n"
      "rent: {on_demand_gpu_hour: 34.7, monthly_gpu: 1687.5}\n"
      "demand: {weekly: [{days: [mon, tue, wed, thu, fri, sat, sun], from: 0, to: 24, gpus: 8}]}\n");
  EXPECT_NEAR(total(analyse(s, default_catalog()), "rent_monthly"), 27000, 1e-6);
}

// [S0 §5]: a job running day and night pays 24 h a day by the hour or a month's rent. At ¥1,687.5
// a GPU-month against ¥34.7 a GPU-hour the month costs as much as 1,687.5 / 34.7 = 48.63 hours:
// 2.03 days. A month's rent above a whole month by the hour (¥30,000 > 730 × ¥34.7 = ¥25,331)
// never pays.
TEST(TcoWholeMonthsTest, TheContinuousJobBoundaryIsInDays) {
  const TcoResult r = analyse(parse("horizon: 12 months\n"
                                    "owned: {gpus: 8, price: 1000000, power_kw: 0}\n"
                                    "rent: {on_demand_gpu_hour: 34.7, monthly_gpu: 1687.5}\n"
                                    "demand: {weekly: [{days: [mon, tue, wed], from: 0, to: 24, gpus: 8}]}\n"),
                              default_catalog());
  ASSERT_TRUE(r.hourly_vs_monthly_hours && r.continuous_job_days);
  EXPECT_NEAR(*r.hourly_vs_monthly_hours, 1687.5 / 34.7, 1e-9);
  EXPECT_NEAR(*r.continuous_job_days, 1687.5 / 34.7 / 24, 1e-9);
  const std::string table = report::render_tco(r, report::Format::kTable, {});
  EXPECT_NE(table.find("longer than 2.0 days in a month"), std::string::npos) << table;

  const TcoResult dear = analyse(parse("horizon: 12 months\n"
                                       "owned: {gpus: 8, price: 1000000, power_kw: 0}\n"
                                       "rent: {on_demand_gpu_hour: 34.7, monthly_gpu: 30000}\n"
                                       "demand: {weekly: [{days: [mon, tue, wed], from: 0, to: 24, gpus: 8}]}\n"),
                                 default_catalog());
  EXPECT_FALSE(dear.continuous_job_days.has_value());
  EXPECT_NE(report::render_tco(dear, report::Format::kTable, {}).find(testing::en("tco_continuous_job_never")),
            std::string::npos);
}

// JSON figures are written as people read them: a sum that floating point leaves at
// 268,055.9999999968 is 268,056; shares keep 4 decimals; whole numbers and nulls stay.
TEST(TcoWholeMonthsTest, JsonFiguresAreRoundedForPeople) {
  const nlohmann::json in = {
      {"total", 268055.9999999968}, {"share", 0.123456}, {"n", 3}, {"none", nullptr}, {"list", {1.00000001, -0.00001}}};
  const nlohmann::json out = report::rounded_figures(in);
  EXPECT_EQ(out["total"], 268056.0);
  EXPECT_EQ(out["share"], 0.1235);
  EXPECT_EQ(out["n"], 3);
  EXPECT_TRUE(out["none"].is_null());
  EXPECT_EQ(out["list"][0], 1.0);
  EXPECT_EQ(out["list"][1], 0.0);
  EXPECT_FALSE(std::signbit(out["list"][1].get<double>()));
}

}  // namespace
}  // namespace gpuplan::tco
