// Money: amounts are plain doubles in a named currency (CNY unless stated). Conversion
// always names its dated rate, so a figure can be traced. Rounding happens only when printing.
#pragma once

#include <string>

#include "core/range.h"

namespace gpuplan {

inline constexpr const char* kDefaultCurrency = "CNY";

struct ExchangeRate {
  std::string from;  // e.g. "USD"
  std::string to;    // e.g. "CNY"
  double rate = 1;   // 1 `from` = rate `to`
  std::string as_of;
  std::string source;

  double convert(double amount) const { return amount * rate; }
  Range convert(const Range& r) const { return r * rate; }
};

// "¥280,000" / "US$3.43" / "EUR 12": grouped thousands, `decimals` places.
std::string format_money(double amount, const std::string& currency, int decimals = 0);
std::string format_money_range(const Range& r, const std::string& currency, int decimals = 0);
// "0.71–0.83", or one number when both ends print the same.
std::string format_range(const Range& r, int decimals = 0);
// 1234567.8 -> "1,234,568" (decimals = 0).
std::string format_number(double value, int decimals = 0);
// A figure as written, with only the decimals it has, up to `max_decimals`: 8 -> "8",
// 2.5 -> "2.5", 138.95 -> "138.95" (max 2), 1850 -> "1,850".
std::string format_figure(double value, int max_decimals);

// An amount rounded to the fen (0.01), half away from zero as written in decimal: 0.285 -> 0.29
// although the double 0.285 lies just below; 2838239.999999963 -> 2838240. NaN and infinities
// pass through; -0.001 -> 0 (never -0).
double round_to_fen(double amount);

}  // namespace gpuplan
