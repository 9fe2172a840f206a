// The one version comparison (core/version.h) used by the quote's software rule and acceptance G5.
#include "core/version.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan {
namespace {

TEST(VersionTest, ComponentsCompareAsNumbers) {
  EXPECT_LT(compare_versions("525.85.05", "535.104.05"), 0);  // 525 < 535
  EXPECT_GT(compare_versions("525.105.17", "525.85.05"), 0);  // 105 > 85 (as strings '1' < '8')
  EXPECT_LT(compare_versions("2.9", "2.12"), 0);
  EXPECT_GT(compare_versions("12.10", "12.2"), 0);
  EXPECT_GT(compare_versions("530", "525.85.05"), 0);
}

TEST(VersionTest, MissingPartsAndLeadingZerosDoNotCount) {
  EXPECT_EQ(compare_versions("12.1", "12.1.0"), 0);
  EXPECT_EQ(compare_versions("535.129.03", "535.129.3"), 0);
  EXPECT_EQ(compare_versions("0012.01", "12.1"), 0);
  EXPECT_EQ(compare_versions("2.1.0+cu121", "2.1"), 0);  // digits end at '+'
  EXPECT_EQ(compare_versions("", "0.0"), 0);
}

TEST(VersionTest, LongComponentsNeverOverflow) {
  // 20 nines (≈1e20) is above LONG_MAX (≈9.2e18): the old `n = n * 10 + d` on long overflowed
  // (undefined behaviour; in practice wrapped negative and sorted below 1). Compared as digit
  // strings: 20 digits > 19 digits, and "99…9" (20) > "10…0" (20) lexically.
  const std::string twenty_nines(20, '9');
  const std::string ten_to_19 = "1" + std::string(19, '0');  // 20 digits
  EXPECT_GT(compare_versions("1." + twenty_nines, "1.1"), 0);
  EXPECT_GT(compare_versions("1." + twenty_nines, "1." + std::string(19, '9')), 0);
  EXPECT_GT(compare_versions(twenty_nines, ten_to_19), 0);
  EXPECT_EQ(compare_versions("000" + twenty_nines, twenty_nines), 0);
  EXPECT_LT(compare_versions(std::string(400, '8'), std::string(400, '9')), 0);
}

TEST(VersionTest, AllowedListMatchesEqualOrADottedRelease) {
  const std::vector<std::string> allowed = {"11.8", "12.2"};
  EXPECT_TRUE(version_in("12.2", allowed));
  EXPECT_TRUE(version_in("12.2.0", allowed));    // equal: missing parts are 0
  EXPECT_TRUE(version_in("12.2.140", allowed));  // release 12.2.140 of 12.2
  EXPECT_TRUE(version_in("11.08.89", allowed));  // leading zero: 11.8.89
  EXPECT_FALSE(version_in("12.20", allowed));    // 12.20 is not a release of 12.2
  EXPECT_FALSE(version_in("12.1", allowed));
  EXPECT_FALSE(version_in("12", allowed));  // 12 < 12.2: the family, not a release
  EXPECT_FALSE(version_in("12.2", {}));
}

}  // namespace
}  // namespace gpuplan
