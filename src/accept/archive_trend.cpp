// G12's hourly ECC trend from a health archive (see archive_trend.h).
#include "accept/archive_trend.h"

#include <map>

#include "archive/archive.h"

namespace gpuplan::accept {

Result<std::optional<ArchiveTrend>> read_archive_trend(const std::string& path) {
  if (!archive::is_sqlite_file(path)) return std::optional<ArchiveTrend>();
  auto header = archive::read_header(path);
  if (!header) return header.error();
  auto hours = archive::read_hourly(path);
  if (!hours) return hours.error();
  std::map<unsigned, GpuEccTrend> by_gpu;
  for (const archive::HourlyRollup& h : *hours) {
    GpuEccTrend& t = by_gpu[h.gpu];
    t.gpu = header->host + "/" + std::to_string(h.gpu);
    if (h.readings > h.lost_readings) ++t.hours;
    if (h.ecc_aggregate_corrected_rise.value_or(0) > 0)
      t.corrected.push_back({h.hour_ms, *h.ecc_aggregate_corrected_rise});
    if (h.ecc_aggregate_uncorrected_rise.value_or(0) > 0) {
      t.uncorrected.push_back({h.hour_ms, *h.ecc_aggregate_uncorrected_rise});
    }
  }
  ArchiveTrend trend;
  for (auto& [index, t] : by_gpu) trend.gpus.push_back(std::move(t));
  return std::optional<ArchiveTrend>(std::move(trend));
}

}  // namespace gpuplan::accept
