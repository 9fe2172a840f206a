#include "core/dates.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace gpuplan {
namespace {

// a / b rounded down and the remainder that goes with it (0 <= r < b, for b > 0), without the
// overflow of (a - b + 1) / b near INT64_MIN.
int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b < 0 ? 1 : 0);
}
int64_t floor_mod(int64_t a, int64_t b) {
  return a % b < 0 ? a % b + b : a % b;
}

}  // namespace

// Howard Hinnant's days_from_civil: exact for every proleptic Gregorian date.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

CivilTime civil_from_days(int64_t days) {
  // Howard Hinnant's civil_from_days (public domain algorithm).
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  CivilTime t;
  t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  t.year = yoe + era * 400 + (t.month <= 2 ? 1 : 0);
  return t;
}

CivilTime civil_from_seconds(int64_t secs) {
  const int64_t second_of_day = floor_mod(secs, 86400);
  CivilTime t = civil_from_days(floor_div(secs, 86400));
  t.hour = static_cast<int>(second_of_day / 3600);
  t.minute = static_cast<int>(second_of_day % 3600 / 60);
  t.second = static_cast<int>(second_of_day % 60);
  return t;
}

CivilTime civil_from_ms(int64_t ms) {
  return civil_from_seconds(floor_div(ms, 1000));
}

std::string CivilTime::date() const {
  return fmt::format("{:04}-{:02}-{:02}", year, month, day);
}
std::string CivilTime::hour_minute() const {
  return fmt::format("{:02}:{:02}", hour, minute);
}
std::string CivilTime::date_time() const {
  return date() + fmt::format(" {:02}:{:02}:{:02}", hour, minute, second);
}

std::optional<int64_t> parse_utc_time(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d%c", &y, &mo, &d, &h, &mi, &se, &tail) == 6 ||
      std::sscanf(s.c_str(), "%d-%d-%d%c", &y, &mo, &d, &tail) == 3) {
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
    return (days_from_civil(y, mo, d) * 24 + h) * 3600 + mi * 60 + se;
  }
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (!s.empty() && end && *end == 0 && v > 0) return v;
  return std::nullopt;
}

std::optional<CivilTime> parse_catalog_date(const std::string& s) {
  if (s.size() != 4 && s.size() != 7 && s.size() != 10) return std::nullopt;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9')) return std::nullopt;
  }
  CivilTime c;
  c.year = std::stoi(s.substr(0, 4));
  if (s.size() >= 7) c.month = std::stoi(s.substr(5, 2));
  if (s.size() == 10) c.day = std::stoi(s.substr(8, 2));
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > 31) return std::nullopt;
  if (civil_from_days(days_from_civil(c.year, c.month, c.day)).day != c.day) return std::nullopt;  // 02-30
  return c;
}

int64_t whole_months(const CivilTime& from, const CivilTime& to) {
  int64_t months = (to.year - from.year) * 12 + (to.month - from.month);
  if (to.day < from.day) --months;  // the last month is not yet whole
  return months;
}

std::string iso_utc(std::chrono::system_clock::time_point t) {
  const CivilTime c = civil_from_seconds(static_cast<int64_t>(std::chrono::system_clock::to_time_t(t)));
  return fmt::format("{}T{:02}:{:02}:{:02}Z", c.date(), c.hour, c.minute, c.second);
}

}  // namespace gpuplan
