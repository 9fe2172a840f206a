// The health archive as a telemetry source (see archive_source.h).
#include "telemetry/archive_source.h"

#include <filesystem>
#include <map>
#include <system_error>
#include <vector>

#include "archive/archive.h"

namespace gpuplan::telemetry::detail {

namespace {

std::optional<float> as_float(const std::optional<double>& v) {
  return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
}

}  // namespace

Result<ReadStats> read_archive(const std::string& path, GpuRegistry& gpus, SampleSink& sink, const Progress& progress) {
  auto header = archive::read_header(path);
  if (!header) return header.error();
  std::map<unsigned, std::optional<double>> memory_total;
  for (const archive::ArchivedGpu& g : header->gpus) memory_total[g.index] = g.memory_total_mib;
  std::map<unsigned, uint32_t> ids;
  ReadStats stats;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  stats.bytes = ec ? 0 : static_cast<int64_t>(size);
  std::vector<Sample> batch;
  batch.reserve(256);
  auto read = archive::read_readings(path, INT64_MIN, INT64_MAX, [&](const archive::Reading& r) {
    ++stats.lines;
    if (r.lost) return true;
    auto id = ids.find(r.gpu);
    if (id == ids.end()) id = ids.emplace(r.gpu, gpus.id(header->host, std::to_string(r.gpu))).first;
    Sample& s = batch.emplace_back();
    s.time_ms = r.time_ms;
    s.gpu = id->second;
    s.line = 0;  // a table has no lines
    s.utilization_pct = as_float(r.values.utilization_pct);
    s.memory_used_mib = as_float(r.values.memory_used_mib);
    s.memory_total_mib = as_float(memory_total[r.gpu]);
    s.temperature_c = as_float(r.values.temperature_c);
    s.power_w = as_float(r.values.power_w);
    s.sm_clock_mhz = as_float(r.values.sm_clock_mhz);
    s.ecc_corrected = r.values.ecc_volatile_corrected;
    s.ecc_uncorrected = r.values.ecc_volatile_uncorrected;
    s.clock_event_reasons = r.values.clock_event_reasons;
    ++stats.samples;
    if (batch.size() == batch.capacity()) {
      sink.add_batch(batch);
      batch.clear();
      if (progress) progress(0, stats.bytes);
    }
    return true;
  });
  if (!read) return read.error();
  if (!batch.empty()) sink.add_batch(batch);
  if (progress) progress(stats.bytes, stats.bytes);
  return stats;
}

}  // namespace gpuplan::telemetry::detail
