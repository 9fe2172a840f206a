// Units: quantities written with a unit ("1 TiB", "16A", "2.4 kW") become numbers in one
// base unit per dimension. Decimal (GB, TB) and binary (GiB, TiB) prefixes are distinct and
// stated; a misspelt unit is an error that names the units accepted, never a guess.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace gpuplan {

enum class Dimension {
  kBytes,    // base: byte
  kPower,    // base: watt
  kCurrent,  // base: ampere
  kVoltage,  // base: volt
  kTime,     // base: hour
};

// Parses "<number> <unit>" (space optional). A bare number is rejected unless
// `bare_unit` names the unit it is in (e.g. "GB" for a field called memory_gb).
Result<double> parse_quantity(std::string_view text, Dimension dim, std::string_view bare_unit = {});

// The units accepted for a dimension, for error messages: "B, kB, MB, GB, TB, KiB, ...".
std::string units_of(Dimension dim);

inline constexpr double kGiB = 1024.0 * 1024 * 1024;
inline constexpr double kGB = 1e9;

// Memory modules are sold by binary size under decimal labels (a "64 GB" RDIMM holds 64 GiB),
// so memory sizes are counted in GiB and shown as the vendors' "GB".
inline double bytes_to_memory_gb(double bytes) { return bytes / kGiB; }

std::string format_watts(double watts);  // "3,200 W" or "4.52 kW"

}  // namespace gpuplan
