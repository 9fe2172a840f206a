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
  std::optional<float> utilization_pct;
  std::optional<float> memory_used_mib;
  std::optional<float> memory_total_mib;
  std::optional<float> temperature_c;
  std::optional<float> power_w;
  std::optional<float> sm_clock_mhz;
  std::optional<uint64_t> ecc_corrected;  // volatile ECC error counts (since the driver loaded), whole
  std::optional<uint64_t> ecc_uncorrected;
  std::optional<uint64_t> clock_event_reasons;  // NVML clocks event (throttle) reason bits, 0x40 = HW thermal
};

}  // namespace gpuplan::telemetry
