// The reader of each log format, behind read_samples (private to telemetry/; readers.h is the
// public interface). Each reads one opened file of its format into `sink` and returns its counts;
// an error only for what stops the whole read. Malformed lines are skipped and counted.
#pragma once

#include <functional>
#include <string>

#include "core/error.h"
#include "telemetry/byte_source.h"
#include "telemetry/readers.h"

namespace gpuplan::telemetry::detail {

// nvidia-smi --query-gpu CSV (smi_csv.cpp).
Result<ReadStats> read_smi_csv_file(const std::string& path, OpenedSource& src, GpuRegistry& gpus, SampleSink& sink,
                                    const Progress& progress, const ReadOptions& options);

// nvidia-smi dmon (dmon.cpp).
Result<ReadStats> read_dmon_file(const std::string& path, OpenedSource& src, GpuRegistry& gpus, SampleSink& sink,
                                 const Progress& progress, const ReadOptions& options);

// One Prometheus text-format scrape, as dcgm-exporter writes it (prom_scrape.cpp).
Result<ReadStats> read_prom_scrape(const std::string& path, OpenedSource& src, GpuRegistry& gpus, SampleSink& sink,
                                   const Progress& progress);

// The line of `path` (a file, not a directory) holding the first sample `pick` picks, found by
// reading the file again with every value (so each sample has its line) into `gpus` as it is
// now; 0 when none is picked or the source has no lines (the archive). For an error naming the
// line of a limit's breach, found after the fast read that met it (readers.cpp, hourly.cpp).
int first_line_where(const std::string& path, SourceFormat format, GpuRegistry& gpus, const ReadOptions& options,
                     const std::function<bool(const Sample&)>& pick);

}  // namespace gpuplan::telemetry::detail
