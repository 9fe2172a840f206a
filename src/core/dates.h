// Civil dates and times, proleptic Gregorian, with no zone: the one place days are counted.
// Days since 1970-01-01 from a date and back; the civil time of an instant given as seconds or
// milliseconds since 1970-01-01 in the instant's own zone (logs carry no zone), as reports print
// a sample's time; the command line's dates (--from, --to, --dmon-start); and the UTC stamps
// evidence carries. Exact for every date an int64_t count of days reaches; times before 1970
// count back correctly.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gpuplan {

// Days since 1970-01-01 of a civil date: days_from_civil(2024, 5, 1) = 19,844. Month 1-12 and
// day 1-31 are the caller's to check; the timestamp parsers do before they call it.
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);

struct CivilTime {
  int64_t year = 1970;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;

  std::string date() const;         // "2024-05-06"
  std::string hour_minute() const;  // "10:00"
  std::string date_time() const;    // "2024-05-06 10:00:00"
};

// Midnight of the day `days` after 1970-01-01 (before it when negative).
CivilTime civil_from_days(int64_t days);
CivilTime civil_from_seconds(int64_t seconds);
CivilTime civil_from_ms(int64_t ms);

// The command line's instants as seconds since 1970-01-01 UTC: "2024-05-01" (midnight),
// "2024-05-01T12:00:00" or positive Unix seconds ("1714564800"), the numbers read as sscanf and
// strtoll read them. nullopt when `s` is none of these or its month, day or time of day is out of
// range.
std::optional<int64_t> parse_utc_time(const std::string& s);

// A date as the catalog dates its figures: "2024", "2024-06" or "2024-06-15" (a year or a month
// stands for its first day, the earliest it can mean). nullopt for anything else or a day the
// month does not have.
std::optional<CivilTime> parse_catalog_date(const std::string& s);

// Whole months from `from` to `to` (2024-06-01 to 2026-12-07: 30); negative when `to` is earlier.
int64_t whole_months(const CivilTime& from, const CivilTime& to);

// "2024-05-06T10:00:01Z": a clock reading as evidence writes it (UTC, whole seconds).
std::string iso_utc(std::chrono::system_clock::time_point t);

}  // namespace gpuplan
