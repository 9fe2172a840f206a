#include "core/units.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

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
  EXPECT_NE(bare.error().message.find("needs a unit"), std::string::npos);
}

TEST(UnitsTest, UnitTyposAreErrorsNamingTheAcceptedUnits) {
  auto typo = parse_quantity("512 GBB", Dimension::kBytes);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("unknown unit 'GBB'"), std::string::npos);
  EXPECT_NE(typo.error().message.find("GiB"), std::string::npos);
  EXPECT_FALSE(parse_quantity("16 W", Dimension::kCurrent).ok());  // wrong dimension
  EXPECT_FALSE(parse_quantity("lots", Dimension::kPower).ok());
}

TEST(UnitsTest, FormatsWatts) {
  EXPECT_EQ(format_watts(3200), "3,200 W");
  EXPECT_EQ(format_watts(26900), "26.90 kW");
}

}  // namespace
}  // namespace gpuplan
