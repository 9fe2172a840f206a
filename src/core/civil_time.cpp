#include "core/civil_time.h"

#include <fmt/format.h>

namespace gpuplan {

CivilTime civil_from_ms(int64_t ms) {
  const int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  const int64_t second_of_day = secs - days * 86400;
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
  t.hour = static_cast<int>(second_of_day / 3600);
  t.minute = static_cast<int>(second_of_day % 3600 / 60);
  t.second = static_cast<int>(second_of_day % 60);
  return t;
}

std::string CivilTime::date() const { return fmt::format("{:04}-{:02}-{:02}", year, month, day); }
std::string CivilTime::hour_minute() const { return fmt::format("{:02}:{:02}", hour, minute); }
std::string CivilTime::date_time() const { return date() + fmt::format(" {:02}:{:02}:{:02}", hour, minute, second); }

}  // namespace gpuplan
