// Sample: one reading of one GPU at one time, whatever the source (nvidia-smi CSV or dmon
// logs, dcgm-exporter scrapes). Everything downstream (usage, later diagnose and accept's soak
// check) reads this one shape. A metric the source did not give is nullopt, never a magic value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuplan::telemetry {

struct Sample {
  int64_t time_ms = 0;  // wall-clock time as the source wrote it, ms since 1970-01-01 (no zone)
  uint32_t gpu = 0;     // index into GpuRegistry (host + GPU id)
  uint32_t line = 0;    // the line it was read from (of the range, for read_smi_csv_range); 0: unknown
  std::optional<float> utilization_pct;
  std::optional<float> memory_used_mib;
  std::optional<float> memory_total_mib;
  std::optional<float> temperature_c;
  std::optional<float> power_w;
  std::optional<float> power_limit_w;  // the limit in force (nvidia-smi power.limit), when the log has it
  std::optional<float> sm_clock_mhz;
  std::optional<uint64_t> ecc_corrected;  // volatile ECC error counts (since the driver loaded), whole
  std::optional<uint64_t> ecc_uncorrected;
  std::optional<uint64_t> clock_event_reasons;  // NVML clocks event (throttle) reason bits, 0x40 = HW thermal
};

// A reader's line number as Sample::line holds it: 0 (unknown) past what 32 bits hold.
inline uint32_t sample_line(int64_t number) {
  return number > 0 && number <= int64_t{UINT32_MAX} ? static_cast<uint32_t>(number) : 0;
}

}  // namespace gpuplan::telemetry
