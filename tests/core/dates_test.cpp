#include "core/dates.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpuplan {
namespace {

// Expected instants from Python's datetime(…, tzinfo=timezone.utc).timestamp().
TEST(DatesTest, EpochAndAnOrdinaryMorning) {
  EXPECT_EQ(civil_from_ms(0).date_time(), "1970-01-01 00:00:00");
  const CivilTime t = civil_from_ms(1714989600000);  // 2024-05-06 10:00 UTC
  EXPECT_EQ(t.date(), "2024-05-06");
  EXPECT_EQ(t.hour_minute(), "10:00");
  EXPECT_EQ(civil_from_ms(1714989600000 + 3'723'456).date_time(), "2024-05-06 11:02:03");  // +1 h 2 min 3.456 s
}

TEST(DatesTest, LeapDayAndBefore1970) {
  EXPECT_EQ(civil_from_ms(1709208000000).date_time(), "2024-02-29 12:00:00");
  EXPECT_EQ(civil_from_ms(-1).date_time(), "1969-12-31 23:59:59");
  EXPECT_EQ(civil_from_ms(-2203891200000).date(), "1900-03-01");  // 1900 was not a leap year
}

TEST(DatesTest, DaysFromCivilAndBack) {
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  // 2024-01-01: 54 years of 365 days and 13 leap days (1972..2020) = 19,723; then 31 + 29 + 31 +
  // 30 days of January to April = 19,844.
  EXPECT_EQ(days_from_civil(2024, 5, 1), 19844);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
  EXPECT_EQ(days_from_civil(1, 1, 1), -719162);
  for (int64_t day : {-719162LL, -25508LL, -1LL, 0LL, 11017LL, 19844LL, 2932897LL}) {
    const CivilTime t = civil_from_days(day);
    EXPECT_EQ(days_from_civil(t.year, t.month, t.day), day) << t.date();
    EXPECT_EQ(t.hour + t.minute + t.second, 0);
  }
  EXPECT_EQ(civil_from_days(2932897).date(), "10000-01-01");  // 253,402,300,800 s / 86,400
}

TEST(DatesTest, SecondsFarFromTheEpochDoNotOverflow) {
  const CivilTime t = civil_from_seconds(std::numeric_limits<int64_t>::min());
  EXPECT_GE(t.second, 0);
  EXPECT_LT(t.second, 60);
  EXPECT_LT(t.year, -292'000'000'000);  // about 2^63 s / 31,556,952 s per year before 1970
  EXPECT_EQ(civil_from_seconds(253402300800).date_time(), "10000-01-01 00:00:00");
}

TEST(DatesTest, ParseUtcTimeReadsTheCommandLineForms) {
  // 2024-05-01 is day 19,844: 19,844 × 86,400 = 1,714,521,600 s.
  EXPECT_EQ(parse_utc_time("2024-05-01"), 1'714'521'600);
  // Noon: 1,714,521,600 + 12 × 3,600 = 1,714,564,800.
  EXPECT_EQ(parse_utc_time("2024-05-01T12:00:00"), 1'714'564'800);
  EXPECT_EQ(parse_utc_time("1714564800"), 1'714'564'800);  // Unix seconds as they are
  // A leap second is the next day's first: 2016-12-31 is day 17,166, × 86,400 + 86,400 =
  // 1,483,228,800 = 2017-01-01T00:00:00Z.
  EXPECT_EQ(parse_utc_time("2016-12-31T23:59:60"), 1'483'228'800);
  EXPECT_EQ(parse_utc_time("1969-12-31"), -86'400);  // a date before 1970 counts back
}

TEST(DatesTest, ParseUtcTimeRefusesWhatIsNoInstant) {
  for (const char* s : {"", "0", "-5", "12abc", "2024-13-01", "2024-05-32", "2024-05-00", "2024-05-01T24:00:00",
                        "2024-05-01T12:60:00", "2024-05-01T12:00", "2024-05-01T12:00:00Z", "2024-05-01x", "May 1"})
    EXPECT_EQ(parse_utc_time(s), std::nullopt) << s;
}

TEST(DatesTest, IsoUtcWritesWholeSecondsInUtc) {
  using std::chrono::system_clock;
  // 2024-05-06 is day 19,849: 19,849 × 86,400 = 1,714,953,600 s, plus 10:00:01 = 36,001 s.
  const system_clock::time_point t{std::chrono::seconds(1'714'989'601)};
  EXPECT_EQ(iso_utc(t), "2024-05-06T10:00:01Z");
  EXPECT_EQ(iso_utc(t + std::chrono::milliseconds(999)), "2024-05-06T10:00:01Z");  // the fraction dropped
  EXPECT_EQ(iso_utc(system_clock::time_point{}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso_utc(system_clock::time_point{std::chrono::seconds(-1)}), "1969-12-31T23:59:59Z");
}

TEST(DatesTest, ACatalogDateStandsForItsFirstDay) {
  auto year = parse_catalog_date("2024");
  ASSERT_TRUE(year);
  EXPECT_EQ(year->date(), "2024-01-01");
  EXPECT_EQ(parse_catalog_date("2024-06")->date(), "2024-06-01");
  EXPECT_EQ(parse_catalog_date("2024-06-15")->date(), "2024-06-15");
  EXPECT_EQ(parse_catalog_date("2024-02-29")->date(), "2024-02-29");  // a leap year
  for (const char* s : {"", "24", "2024-6", "2024-13", "2024-00", "2024-06-32", "2024-06-00", "2026-02-29",
                        "2024-04-31", "2024/06", "June 2024"})
    EXPECT_EQ(parse_catalog_date(s), std::nullopt) << s;
}

TEST(DatesTest, WholeMonthsCountOnlyFinishedMonths) {
  const CivilTime june = *parse_catalog_date("2024-06-15");
  EXPECT_EQ(whole_months(june, *parse_catalog_date("2024-07-14")), 0);  // one day short
  EXPECT_EQ(whole_months(june, *parse_catalog_date("2024-07-15")), 1);
  // 2024-06-01 to 2026-12-07: 2 years (24) and 6 months = 30.
  EXPECT_EQ(whole_months(*parse_catalog_date("2024-06"), *parse_catalog_date("2026-12-07")), 30);
  EXPECT_EQ(whole_months(*parse_catalog_date("2026-12"), *parse_catalog_date("2026-06-30")), -6);
}

}  // namespace
}  // namespace gpuplan
