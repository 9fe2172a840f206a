// nvidia-smi's timestamps, "2024/05/01 12:00:00.123", to ms since 1970 (private to telemetry/).
// Consecutive lines mostly repeat the last timestamp or its hour, so the parser remembers both:
// most lines cost a compare.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/dates.h"
#include "telemetry/number_parse.h"
#include "telemetry/text_scan.h"

namespace gpuplan::telemetry::detail {

// nvidia-smi's "2024/05/01 12:00:00.123" (also with '-' separators, without milliseconds).
struct TimestampParser {
  // The whole text of the last timestamp: every GPU of one polling round usually carries the same
  // one, so most lines cost a 3-word compare.
  char last[32] = {};
  size_t last_size = 0;
  int64_t last_ms = 0;
  // Its first 13 characters ("2024/05/01 12"): consecutive rounds almost always share the hour.
  char cached[13] = {};
  int64_t cached_hour_ms = 0;
  bool has_cache = false;

  [[gnu::always_inline]] bool parse(std::string_view s, int64_t& ms) {
    s = trim_blanks(s);
    if (s.size() < 19) return false;
    if (s.size() == last_size && bytes_equal(s.data(), last, s.size())) {
      ms = last_ms;
      return true;
    }
    if (!parse_new(s.data(), s.size(), ms)) return false;
    if (s.size() <= sizeof last) {
      std::memcpy(last, s.data(), s.size());
      last_size = s.size();
      last_ms = ms;
    }
    return true;
  }

 private:
  bool parse_new(const char* p, size_t n, int64_t& ms) {
    if (!has_cache || !bytes_equal(p, cached, 13)) {
      if (!digits(p, 4) || !digits(p + 5, 2) || !digits(p + 8, 2) || !digits(p + 11, 2)) return false;
      int year = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + two(p + 2);
      int month = two(p + 5), day = two(p + 8), hour = two(p + 11);
      if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23) return false;
      cached_hour_ms = (days_from_civil(year, month, day) * 24 + hour) * 3600000LL;
      std::memcpy(cached, p, 13);
      has_cache = true;
    }
    int64_t in_hour = 0;
    if (!(n == 23 && minutes_seconds_millis(p, in_hour)) && !minutes_seconds_general(p, n, in_hour)) return false;
    ms = cached_hour_ms + in_hour;
    return true;
  }

  // ":mm:ss.fff" at p + 13, the form nvidia-smi writes, without a branch per digit: bytes 15..22
  // ("m:ss.fff") are read as one little-endian word, separators and digits checked with masks.
  static bool minutes_seconds_millis(const char* p, int64_t& in_hour) {
    if constexpr (std::endian::native != std::endian::little) {
      return false;  // minutes_seconds_general reads it
    } else {
      constexpr uint64_t kDigitBytes = 0xFFFFFF00FFFF00FF;  // bytes 0, 2, 3, 5, 6, 7
      constexpr uint64_t kSeparators = 0x000000FF0000FF00;  // ':' at byte 1, '.' at byte 4
      constexpr uint64_t kSeparatorText = 0x0000002E00003A00;
      constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0 & kDigitBytes, kDigitHigh = 0x3030303030303030 & kDigitBytes;
      const uint64_t x = load64(p + 15);
      // A byte c is a digit when its high nibble is 3 and adding 6 keeps it 3 (0x3A..0x3F turn
      // 0x4_). The addition cannot carry between bytes once the first two tests have passed.
      if (p[13] != ':' || static_cast<unsigned>(p[14] - '0') > 9 || (x & kSeparators) != kSeparatorText ||
          (x & kHigh) != kDigitHigh || ((x + 0x0606060606060606) & kHigh) != kDigitHigh)
        return false;
      const uint64_t v = x & 0x0F0F0F0F0F0F0F0F;
      const int64_t minute = (p[14] - '0') * 10 + static_cast<int64_t>(v & 0xF);
      const int64_t second = static_cast<int64_t>((v >> 16) & 0xF) * 10 + static_cast<int64_t>((v >> 24) & 0xF);
      const int64_t milli = static_cast<int64_t>((v >> 40) & 0xF) * 100 + static_cast<int64_t>((v >> 48) & 0xF) * 10 +
                            static_cast<int64_t>(v >> 56);
      if (minute > 59 || second > 60) return false;
      in_hour = minute * 60000 + second * 1000 + milli;
      return true;
    }
  }

  // Any length: no milliseconds, ',' as the decimal mark, fewer than 3 digits after it.
  static bool minutes_seconds_general(const char* p, size_t n, int64_t& in_hour) {
    if (p[13] != ':' || p[16] != ':' || !digits(p + 14, 2) || !digits(p + 17, 2)) return false;
    int minute = two(p + 14), second = two(p + 17);
    if (minute > 59 || second > 60) return false;
    int milli = 0;
    if (n > 19) {
      if (p[19] != '.' && p[19] != ',') return false;
      int scale = 100;
      for (size_t i = 20; i < n && i < 23; ++i) {
        if (p[i] < '0' || p[i] > '9') return false;
        milli += (p[i] - '0') * scale;
        scale /= 10;
      }
    }
    in_hour = minute * 60000LL + second * 1000LL + milli;
    return true;
  }
};

}  // namespace gpuplan::telemetry::detail
