// Numbers out of log fields (private to telemetry/): nvidia-smi's values with their units
// ("45 %", "12345 MiB", "250.12 W", "[N/A]"), its hex clock event reasons, and the digit pairs of
// dates and times. The common forms are read inline without a branch per digit (SWAR); the rest
// goes to the general parsers in number_parse.cpp, which give the same numbers.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "telemetry/text_scan.h"

namespace gpuplan::telemetry::detail {

// The general case of parse_value below: decimals, signs, exponents and missing values.
bool parse_value_slow(const char* p, const char* end, std::optional<float>& out);

// The whole number in the up to 8 digits at p, if p[0..n) are digits and p[n] is not: n is
// returned (0 when p[0] is not a digit). Reads 8 bytes at p whatever the field's length.
// SWAR, no branch per digit: xor with '0' turns digits into 0..9; adding 0x76 to a byte sets its
// top bit exactly when it was above 9 (bytes at or above 0x80 have it set already), and the
// lowest such byte ends the number (a carry only moves towards later bytes). The digits are
// then shifted to the top of the word, behind zeros, and combined pairwise by three multiplies
// (Lemire's eight-digit parse).
[[gnu::always_inline]] inline uint64_t digit_values(const char* p) {
  return load64(p) ^ 0x3030303030303030;
}
[[gnu::always_inline]] inline uint64_t non_digits(uint64_t values) {
  return ((values + 0x7676767676767676) | values) & 0x8080808080808080;
}
// The number the first n (1 to 8) of digit_values' bytes stand for, shifted by 64 - 8n to the top
// of the word (zeros below).
[[gnu::always_inline]] inline uint32_t combine_digits(uint64_t shifted) {
  uint64_t v = shifted;
  v = v * 10 + (v >> 8);  // pairs of digits
  v = ((v & 0x000000FF000000FF) * (100 + (1000000ULL << 32)) +
       ((v >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32))) >>
      32;
  return static_cast<uint32_t>(v);
}
[[gnu::always_inline]] inline int leading_digits(const char* p, uint32_t& value) {
  const uint64_t digits = digit_values(p);
  const int n = std::countr_zero(non_digits(digits)) / 8;  // 8 when all eight are digits
  if (n == 0) return 0;
  value = combine_digits(digits << (64 - 8 * n));
  return n;
}

// "45 %", "12345 MiB", "250.12 W", "[N/A]", "-" → the number, or nullopt. This runs for every
// value of every line, so nvidia-smi's usual form, one space, a whole number of up to 8 digits
// and " %", " MiB", " W", " C", " MHz" or nothing, is read inline with a few word compares, and
// everything else goes to parse_value_slow. Both give the same float: an integer below 10^8
// rounds the same way from an integer as from an exact double.
// The buffer must be readable for 8 bytes past the field (the readers' buffers have slack).
[[gnu::always_inline]] inline bool parse_value(std::string_view s, std::optional<float>& out) {
  const char* p = s.data();
  const char* const end = p + s.size();
  if constexpr (std::endian::native == std::endian::little) {
    const char* const digits = p + (p < end && *p == ' ');
    uint32_t v = 0;
    const int n = leading_digits(digits, v);
    const char* const unit = digits + n;
    const ptrdiff_t rest = end - unit;  // negative when the digits ran past the field
    uint32_t unit4 = 0;
    if (rest == 4) std::memcpy(&unit4, unit, 4);
    constexpr uint32_t kMiB = ' ' | 'M' << 8 | 'i' << 16 | 'B' << 24, kMHz = ' ' | 'M' << 8 | 'H' << 16 | 'z' << 24;
    if (n > 0 && (rest == 0 || (rest == 2 && unit[0] == ' ' && (unit[1] == '%' || unit[1] == 'W' || unit[1] == 'C')) ||
                  (rest == 4 && (unit4 == kMiB || unit4 == kMHz)))) {
      out = static_cast<float>(v);
      return true;
    }
  }
  while (p < end && *p == ' ') ++p;
  return parse_value_slow(p, end, out);
}

// nvidia-smi's clocks_event_reasons.active, "0x0000000000000040" → the reason bits; "[N/A]",
// "[Not Supported]", "-" → nullopt.
bool parse_hex(std::string_view s, std::optional<uint64_t>& out);

// An error count ("12", " 0", "[N/A]", "-", "N/A") as the whole 64-bit integer it is: ECC totals
// outgrow a float's 24-bit mantissa, and a count is never a fraction. false for a sign, a decimal
// point, a unit or more than 64 bits.
bool parse_count(std::string_view s, std::optional<uint64_t>& out);

// The two digits at p as a number; whether the n bytes at p are all digits.
inline int two(const char* p) {
  return (p[0] - '0') * 10 + (p[1] - '0');
}
inline bool digits(const char* p, int n) {
  for (int i = 0; i < n; ++i)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

}  // namespace gpuplan::telemetry::detail
