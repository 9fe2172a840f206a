// Hourly rollups and raw retention of the archive, internal to archive/: which reading columns
// roll up as gauges (mean/min/max) and which as counters (the hour's rise), and maintain().
// A caller may rely on: maintain rolls whole hours in one transaction and deletes raw readings
// only of hours already rolled up.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "archive/archive.h"
#include "archive/sqlite_db.h"

namespace gpuplan::archive::detail {

struct GaugeColumn {
  const char* name;  // the readings column; rollups hold <name>_mean, _min, _max
  HourlyRollup::Gauge HourlyRollup::*member;
};
struct CounterColumn {
  const char* name;  // the readings column; rollups hold <name>_rise, _last
  std::optional<uint64_t> HourlyRollup::*rise;
  std::optional<uint64_t> HourlyRollup::*last;  // nullptr: kept in the table, not shown in HourlyRollup
};

inline constexpr std::array kGauges{
    GaugeColumn{"utilization_pct", &HourlyRollup::utilization_pct},
    GaugeColumn{"memory_copy_utilization_pct", &HourlyRollup::memory_copy_utilization_pct},
    GaugeColumn{"memory_used_mib", &HourlyRollup::memory_used_mib},
    GaugeColumn{"temperature_c", &HourlyRollup::temperature_c},
    GaugeColumn{"memory_temperature_c", &HourlyRollup::memory_temperature_c},
    GaugeColumn{"power_w", &HourlyRollup::power_w},
    GaugeColumn{"sm_clock_mhz", &HourlyRollup::sm_clock_mhz},
};
inline constexpr std::array kCounters{
    CounterColumn{"ecc_volatile_corrected", &HourlyRollup::ecc_corrected_rise, nullptr},
    CounterColumn{"ecc_volatile_uncorrected", &HourlyRollup::ecc_uncorrected_rise, nullptr},
    CounterColumn{"ecc_aggregate_corrected", &HourlyRollup::ecc_aggregate_corrected_rise,
                  &HourlyRollup::ecc_aggregate_corrected_last},
    CounterColumn{"ecc_aggregate_uncorrected", &HourlyRollup::ecc_aggregate_uncorrected_rise,
                  &HourlyRollup::ecc_aggregate_uncorrected_last},
    CounterColumn{"pcie_replays", &HourlyRollup::pcie_replay_rise, nullptr},
    CounterColumn{"energy_mj", &HourlyRollup::energy_mj_rise, nullptr},
};

inline constexpr int64_t kHourMs = 3'600'000;

// One hour of one GPU being rolled up.
struct GaugeAcc {
  double sum = 0, min = 0, max = 0;
  int64_t n = 0;
  void add(double v) {
    min = n == 0 ? v : std::min(min, v);
    max = n == 0 ? v : std::max(max, v);
    sum += v;
    ++n;
  }
};

struct CounterAcc {
  std::optional<int64_t> rise;
  std::optional<int64_t> last;  // carried from hour to hour
};

struct HourAcc {
  int64_t readings = 0, lost = 0;
  std::array<GaugeAcc, kGauges.size()> gauges;
  std::array<CounterAcc, kCounters.size()> counters;
};

using HourSink = std::function<bool(int64_t gpu, int64_t hour_ms, const HourAcc& acc)>;

// Scans the raw readings of [from, to) GPU by GPU, in time order, and hands each hour to `sink`
// (false stops with an Error); counters start from each GPU's last value in the rollups before `from`.
Result<void> scan_hours(Db& db, const std::string& path, int64_t from, int64_t to, const HourSink& sink);
// The rollup an hour's accumulation makes, as read_rollups would read it back.
HourlyRollup to_rollup(int64_t gpu, int64_t hour_ms, const HourAcc& acc);
// The first hour not rolled up: the mark maintain leaves, else the first reading's hour (0: none).
std::optional<int64_t> rolled_up_to(Db& db);

Result<void> maintain(Db& db, const std::string& path, int64_t now_ms, int64_t keep_raw_ms);

}  // namespace gpuplan::archive::detail
