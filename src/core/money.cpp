#include "core/money.h"

#include <cmath>

#include <fmt/format.h>

namespace gpuplan {

std::string format_figure(double value, int max_decimals) {
  int decimals = 0;
  for (double scale = 1; decimals < max_decimals && std::abs(value * scale - std::round(value * scale)) > 1e-6;
       scale *= 10)
    ++decimals;
  return format_number(value, decimals);
}

double round_to_fen(double amount) {
  if (!std::isfinite(amount)) return amount;
  const double scaled = amount * 100;
  // A decimal tie such as 0.285 is stored a few ulps below or above .5 after scaling; a nudge of
  // 1e-12 relative (far below a fen for any amount under 10^9 yuan) settles it away from zero.
  const double nudged = scaled + std::copysign(std::fabs(scaled) * 1e-12, scaled);
  return std::round(nudged) / 100 + 0.0;  // + 0.0: no -0
}

std::string format_number(double value, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  if (digits.find_first_not_of("0.") == std::string::npos) value = 0;  // no "-0"
  auto dot = digits.find('.');
  std::string whole = digits.substr(0, dot);
  std::string grouped;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) grouped += ',';
    grouped += whole[i];
  }
  if (dot != std::string::npos) grouped += digits.substr(dot);
  return (value < 0 ? "-" : "") + grouped;
}

std::string format_money(double amount, const std::string& currency, int decimals) {
  std::string number = format_number(amount, decimals);
  std::string sign;
  if (!number.empty() && number[0] == '-') sign = "-", number.erase(0, 1);  // "-¥220,265", not "¥-220,265"
  if (currency == "CNY") return sign + "¥" + number;
  if (currency == "USD") return sign + "US$" + number;
  return sign + currency + " " + number;
}

std::string format_range(const Range& r, int decimals) {
  std::string low = format_number(r.low, decimals), high = format_number(r.high, decimals);
  return low == high ? low : low + "–" + high;
}

std::string format_money_range(const Range& r, const std::string& currency, int decimals) {
  if (format_number(r.low, decimals) == format_number(r.high, decimals))
    return format_money(r.low, currency, decimals);
  return format_money(r.low, currency, decimals) + "–" + format_number(r.high, decimals);
}

}  // namespace gpuplan
