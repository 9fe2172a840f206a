// Summaries of sample logs (soak, load, health archive) for acceptance: per GPU, what the
// samples showed (span and the time it covers, peak temperature, lowest utilization, memory growth, ECC rises),
// built while the telemetry readers stream the log, so a 72-hour log of 1-second samples never
// sits in memory. The limits a sample is counted against come from the catalog (accept.soak.*).
// A caller may rely on: one GpuLogSummary per GPU that had a sample, in registry order, named
// by the registry; a log that cannot be read is an Error from the readers, unchanged.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "telemetry/readers.h"

namespace gpuplan::accept {

// Per-GPU summary of a sample log (soak, load or health archive), built while streaming, so a
// 72-hour log of 1-second samples never sits in memory. Feed it as a telemetry::SampleSink.
struct GpuLogSummary {
  std::string gpu;  // registry name "host/gpu"
  int64_t samples = 0;
  int64_t first_ms = 0, last_ms = 0;
  // The median of the intervals between this GPU's consecutive samples (the lower middle one,
  // counted to 10 ms so that timestamp jitter does not spread them), ms; nullopt under 2 samples.
  std::optional<int64_t> median_interval_ms;
  // The time the samples cover: last − first + one median interval, since each sample stands
  // for the interval it opens (a log sampled every 10 s from 00:00:00 to 23:59:50 covers 24 h).
  // 0 for a single sample: its interval is unknown.
  int64_t covered_ms() const;
  std::optional<double> max_temperature_c;
  int64_t max_temperature_ms = 0;
  std::optional<double> min_utilization_pct;
  int64_t min_utilization_ms = 0;
  int64_t utilization_samples = 0;
  int64_t power_samples = 0;
  int64_t samples_below_utilization = 0;  // below accept.soak.min_utilization_pct
  int64_t samples_above_temperature = 0;  // above accept.soak.max_temperature_c
  // Least-squares slope of memory used over time, MiB per hour (needs ≥ 2 samples over > 0 s).
  std::optional<double> memory_growth_mib_per_h;
  std::optional<double> memory_first_mib, memory_last_mib;
  std::optional<uint64_t> ecc_corrected_first, ecc_corrected_last;
  std::optional<uint64_t> ecc_uncorrected_first, ecc_uncorrected_last;
  int64_t ecc_rises = 0;  // times the corrected or uncorrected count went up between samples
  int64_t ecc_first_rise_ms = 0;
  // When each count first went up (nullopt: never), so G12 can say which error class rose first.
  std::optional<int64_t> ecc_corrected_first_rise_ms, ecc_uncorrected_first_rise_ms;
};

// The most power the GPUs drew together: the sum over the GPUs sampled in one second of the log
// (a GPU sampled more than once in that second counts once, at its highest reading). GPU power
// only: the log does not see the CPUs, fans and disks, so it understates the server.
struct PowerPeak {
  double watts = 0;
  int gpus = 0;  // GPUs with a power reading in that second
  int64_t time_ms = 0;  // the second's start
};

struct LogSummary {
  std::string file;
  telemetry::ReadStats stats;
  std::vector<GpuLogSummary> gpus;
  std::optional<PowerPeak> peak_power;  // nullopt when no sample had power
  // The hours the log covers: from the earliest to the latest sample over all GPUs, plus the
  // median of the GPUs' median intervals (the lower middle one).
  double hours() const;
};

class LogSummariser : public telemetry::SampleSink {
 public:
  LogSummariser(std::string file, double min_utilization_pct, double max_temperature_c);
  ~LogSummariser() override;  // out of line: Acc is complete only in log_summary.cpp
  void add(const telemetry::Sample& s) override;
  // Names come from the registry the reader filled.
  LogSummary finish(const telemetry::GpuRegistry& gpus, const telemetry::ReadStats& stats) const;

 private:
  struct Acc;
  std::string file_;
  double min_utilization_pct_, max_temperature_c_;
  std::vector<Acc> acc_;
  // Power per GPU in the seconds still open (second → GPU → its highest reading): a reader may
  // interleave GPUs, so the last few seconds stay open and older ones are closed into the peak.
  std::map<int64_t, std::map<uint32_t, double>> open_power_;
  std::optional<PowerPeak> peak_power_;
};
// Reads a log through the telemetry readers and summarises it.
Result<LogSummary> summarise_log(const std::string& path, const catalog::Catalog& catalog,
                                 const telemetry::Progress& progress = {});

}  // namespace gpuplan::accept
