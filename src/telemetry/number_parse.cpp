// The general number parsers behind number_parse.h's inline fast forms: decimals with signs,
// fractions and exponents, missing values ("[N/A]", "-"), units, and hex reason bits.
#include "telemetry/number_parse.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace gpuplan::telemetry::detail {
namespace {

// Plain decimals ("45", "250.12", "-3.5") without from_chars' generality: the hot path of
// every reader. Anything else (exponents, hex) falls back to from_chars.
inline const char* parse_decimal(const char* p, const char* end, double& v) {
  const char* start = p;
  bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* digits_start = p;
  uint64_t whole = 0;
  while (p < end && *p >= '0' && *p <= '9' && p - digits_start < 18)
    whole = whole * 10 + static_cast<uint64_t>(*p++ - '0');
  double value = static_cast<double>(whole);
  if (p < end && *p == '.') {
    ++p;
    static constexpr double kScale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    uint64_t frac = 0;
    int digits_after = 0;
    while (p < end && *p >= '0' && *p <= '9' && digits_after < 12)
      frac = frac * 10 + static_cast<uint64_t>(*p++ - '0'), ++digits_after;
    value += static_cast<double>(frac) / kScale[digits_after];
  }
  if (p == digits_start || (p < end && ((*p >= '0' && *p <= '9') || *p == 'e' || *p == 'E'))) {
    auto [e, ec] = std::from_chars(start, end, v);
    return ec == std::errc() && std::isfinite(v) ? e : nullptr;
  }
  v = negative ? -value : value;
  return p;
}

// After a number: nothing, or one of the units nvidia-smi prints (%, MiB, W, MHz, C).
[[gnu::always_inline]] inline bool known_unit_or_nothing(const char* p, const char* end) {
  while (p < end && *p == ' ') ++p;
  const size_t n = static_cast<size_t>(end - p);
  return n == 0 || (n == 1 && (*p == '%' || *p == 'W' || *p == 'C')) ||
         (n == 3 && ((p[0] == 'M' && p[1] == 'i' && p[2] == 'B') || (p[0] == 'M' && p[1] == 'H' && p[2] == 'z')));
}

}  // namespace

bool parse_value_slow(const char* p, const char* end, std::optional<float>& out) {
  while (end > p && end[-1] == ' ') --end;
  if (p == end || *p == '[' || (end - p == 1 && *p == '-') || (end - p == 3 && std::memcmp(p, "N/A", 3) == 0)) {
    out.reset();
    return true;
  }
  double v = 0;
  p = parse_decimal(p, end, v);
  if (!p || !known_unit_or_nothing(p, end)) return false;
  out = static_cast<float>(v);
  return true;
}

bool parse_hex(std::string_view s, std::optional<uint64_t>& out) {
  s = trim_blanks(s);
  if (s.empty() || s[0] == '[' || s == "-" || s == "N/A") {
    out.reset();
    return true;
  }
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  uint64_t v = 0;
  auto [e, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (ec != std::errc() || e != s.data() + s.size()) return false;  // not hex, or more than 64 bits
  out = v;
  return true;
}

bool parse_count(std::string_view s, std::optional<uint64_t>& out) {
  s = trim_blanks(s);
  if (s.empty() || s[0] == '[' || s == "-" || s == "N/A") {
    out.reset();
    return true;
  }
  uint64_t v = 0;
  auto [e, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || e != s.data() + s.size()) return false;
  out = v;
  return true;
}

}  // namespace gpuplan::telemetry::detail
