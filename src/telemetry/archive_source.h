// The health archive (archive/) as a telemetry source, private to telemetry/ (readers.h is the
// public interface): its raw readings become Samples, GPUs named "<host>/<index>" after the
// archive's host, as dcgm-exporter's Hostname and gpu labels name them.
#pragma once

#include <string>

#include "core/error.h"
#include "telemetry/readers.h"

namespace gpuplan::telemetry::detail {

// Lost readings (a GPU off the bus) give no Sample; they are counted in ReadStats::lines only.
Result<ReadStats> read_archive(const std::string& path, GpuRegistry& gpus, SampleSink& sink, const Progress& progress);

}  // namespace gpuplan::telemetry::detail
