#include "core/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <vector>

#include "core/money.h"
#include "core/text.h"

namespace gpuplan {
namespace {

struct Unit {
  std::string_view symbol;
  Dimension dim;
  double factor;  // to the dimension's base unit
};

constexpr std::array kUnits = {
    Unit{"B", Dimension::kBytes, 1},
    Unit{"kB", Dimension::kBytes, 1e3},
    Unit{"MB", Dimension::kBytes, 1e6},
    Unit{"GB", Dimension::kBytes, 1e9},
    Unit{"TB", Dimension::kBytes, 1e12},
    Unit{"PB", Dimension::kBytes, 1e15},
    Unit{"KiB", Dimension::kBytes, 1024.0},
    Unit{"MiB", Dimension::kBytes, 1024.0 * 1024},
    Unit{"GiB", Dimension::kBytes, 1024.0 * 1024 * 1024},
    Unit{"TiB", Dimension::kBytes, 1024.0 * 1024 * 1024 * 1024},
    Unit{"PiB", Dimension::kBytes, 1024.0 * 1024 * 1024 * 1024 * 1024},
    Unit{"W", Dimension::kPower, 1},
    Unit{"kW", Dimension::kPower, 1e3},
    Unit{"A", Dimension::kCurrent, 1},
    Unit{"mA", Dimension::kCurrent, 1e-3},
    Unit{"V", Dimension::kVoltage, 1},
    Unit{"kV", Dimension::kVoltage, 1e3},
    Unit{"s", Dimension::kTime, 1.0 / 3600},
    Unit{"min", Dimension::kTime, 1.0 / 60},
    Unit{"h", Dimension::kTime, 1},
    Unit{"d", Dimension::kTime, 24},
};

}  // namespace

std::string units_of(Dimension dim) {
  std::string out;
  for (const Unit& u : kUnits) {
    if (u.dim != dim) continue;
    if (!out.empty()) out += ", ";
    out += u.symbol;
  }
  return out;
}

Result<double> parse_quantity(std::string_view text, Dimension dim, std::string_view bare_unit) {
  std::string_view s = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value))
    return Error{
        {}, 0, {}, Phrase("error.units.not_quantity").fact("text", std::string(text)).fact("units", units_of(dim))};
  std::string_view unit = trim(std::string_view(end, s.data() + s.size() - end));
  if (unit.empty()) {
    if (bare_unit.empty())
      return Error{
          {}, 0, {}, Phrase("error.units.needs_unit").fact("text", std::string(text)).fact("units", units_of(dim))};
    unit = bare_unit;
  }
  std::vector<std::string> symbols;
  for (const Unit& u : kUnits) {
    if (u.dim != dim) continue;
    if (u.symbol == unit) return value * u.factor;
    symbols.emplace_back(u.symbol);
  }
  return Error{{}, 0, {}, unknown_unit(std::string(unit), std::string(text), units_of(dim), symbols)};
}

std::string format_watts(double watts) {
  if (std::fabs(watts) >= 10000) return format_number(watts / 1000, 2) + " kW";
  return format_number(watts) + " W";
}

}  // namespace gpuplan
