// G12's hourly ECC trend from a gpuplan health archive (archive/): per GPU, the hours in which
// the aggregate (persistent, across driver reloads) corrected and uncorrected ECC counts rose,
// from the archive's hourly rollups and the hours not rolled up yet.
// A caller may rely on: GPUs named "<host>/<index>" as the telemetry readers name an archive's
// GPUs (so a trend matches its LogSummary GPU); rising hours in time order; nullopt for a file
// that is not an SQLite file (a log of another kind has no trend).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace gpuplan::accept {

struct EccRiseHour {
  int64_t hour_ms = 0;  // start of the hour, Unix ms
  uint64_t rise = 0;
};

struct GpuEccTrend {
  std::string gpu;                                  // "<host>/<index>"
  int64_t hours = 0;                                // hours the archive has readings of this GPU in
  std::vector<EccRiseHour> corrected, uncorrected;  // the hours the count rose in
};

struct ArchiveTrend {
  std::vector<GpuEccTrend> gpus;  // by NVML index
};

Result<std::optional<ArchiveTrend>> read_archive_trend(const std::string& path);

}  // namespace gpuplan::accept
