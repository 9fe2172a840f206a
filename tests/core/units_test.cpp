#include "core/units.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan {
namespace {

using gpuplan::testing::fact_in;

TEST(UnitsTest, DecimalAndBinaryPrefixesAreDistinct) {
  EXPECT_DOUBLE_EQ(*parse_quantity("1 TB", Dimension::kBytes), 1e12);
  EXPECT_DOUBLE_EQ(*parse_quantity("1TiB", Dimension::kBytes), 1099511627776.0);  // 2^40
  EXPECT_DOUBLE_EQ(*parse_quantity("512 GiB", Dimension::kBytes), 512.0 * 1073741824.0);
  // A "1 TiB" memory size is 1,024 vendor-GB of DIMMs.
  EXPECT_DOUBLE_EQ(bytes_to_memory_gb(*parse_quantity("1 TiB", Dimension::kBytes)), 1024);
}

TEST(UnitsTest, PowerCurrentTime) {
  EXPECT_DOUBLE_EQ(*parse_quantity("2.4 kW", Dimension::kPower), 2400);
  EXPECT_DOUBLE_EQ(*parse_quantity("16A", Dimension::kCurrent), 16);
  EXPECT_DOUBLE_EQ(*parse_quantity("90 min", Dimension::kTime), 1.5);
  EXPECT_DOUBLE_EQ(*parse_quantity("2 d", Dimension::kTime), 48);
}

TEST(UnitsTest, BareNumberNeedsAStatedUnit) {
  EXPECT_DOUBLE_EQ(*parse_quantity("16", Dimension::kCurrent, "A"), 16);
  auto bare = parse_quantity("16", Dimension::kCurrent);
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message.key, "error.units.needs_unit");
  EXPECT_EQ(*fact_in(bare.error().message, "text"), "16");
  EXPECT_EQ(*fact_in(bare.error().message, "units"), "A, mA");
}

TEST(UnitsTest, UnitTyposAreErrorsNamingTheAcceptedUnits) {
  auto typo = parse_quantity("512 GBB", Dimension::kBytes);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().message.key, "error.unknown_unit");
  EXPECT_EQ(*fact_in(typo.error().message, "unit"), "GBB");
  EXPECT_EQ(*fact_in(typo.error().message, "text"), "512 GBB");
  EXPECT_NE(fact_in(typo.error().message, "units")->find("GiB"), std::string::npos);
  EXPECT_TRUE(fact_in(typo.error().message, "nearest"));     // a unit one letter away
  auto wrong = parse_quantity("16 W", Dimension::kCurrent);  // wrong dimension
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message.key, "error.unknown_unit");
  EXPECT_EQ(*fact_in(wrong.error().message, "units"), "A, mA");
  auto words = parse_quantity("lots", Dimension::kPower);
  ASSERT_FALSE(words.ok());
  EXPECT_EQ(words.error().message.key, "error.units.not_quantity");
  EXPECT_EQ(*fact_in(words.error().message, "text"), "lots");
}

TEST(UnitsTest, FormatsWatts) {
  EXPECT_EQ(format_watts(3200), "3,200 W");
  EXPECT_EQ(format_watts(26900), "26.90 kW");
}

}  // namespace
}  // namespace gpuplan
