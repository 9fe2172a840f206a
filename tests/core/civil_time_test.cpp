#include "core/civil_time.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

// Expected instants from Python's datetime(…, tzinfo=timezone.utc).timestamp().
TEST(CivilTimeTest, EpochAndAnOrdinaryMorning) {
  EXPECT_EQ(civil_from_ms(0).date_time(), "1970-01-01 00:00:00");
  const CivilTime t = civil_from_ms(1714989600000);  // 2024-05-06 10:00 UTC
  EXPECT_EQ(t.date(), "2024-05-06");
  EXPECT_EQ(t.hour_minute(), "10:00");
  EXPECT_EQ(civil_from_ms(1714989600000 + 3'723'456).date_time(), "2024-05-06 11:02:03");  // +1 h 2 min 3.456 s
}

TEST(CivilTimeTest, LeapDayAndBefore1970) {
  EXPECT_EQ(civil_from_ms(1709208000000).date_time(), "2024-02-29 12:00:00");
  EXPECT_EQ(civil_from_ms(-1).date_time(), "1969-12-31 23:59:59");
  EXPECT_EQ(civil_from_ms(-2203891200000).date(), "1900-03-01");  // 1900 was not a leap year
}

}  // namespace
}  // namespace gpuplan
