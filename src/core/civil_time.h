// Civil date and time of a wall-clock instant given as milliseconds since 1970-01-01 in the
// instant's own zone (logs carry no zone): what reports print for a sample's time.
#pragma once

#include <cstdint>
#include <string>

namespace gpuplan {

struct CivilTime {
  int64_t year = 1970;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;

  std::string date() const;           // "2024-05-06"
  std::string hour_minute() const;    // "10:00"
  std::string date_time() const;      // "2024-05-06 10:00:00"
};

// Proleptic Gregorian; times before 1970 count back correctly.
CivilTime civil_from_ms(int64_t ms);

}  // namespace gpuplan
