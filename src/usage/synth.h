// Synthetic GPU telemetry for tests and benchmarks: `gpuplan usage synth`. Deterministic for a
// seed; the utilization of any GPU at any second is a pure function (synth_utilization), so a
// test can work out what a reader and the analysis must find.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace gpuplan::usage {

// Outside a job a GPU reads 0% and 0 MiB, as an idle A100 with no process does.
enum class SynthPattern {
  kIdle,         // every GPU held all the time, 0–10% (a notebook left open)
  kSteady,       // every GPU held, 70–90%
  kNightlyPeak,  // the first half of the GPUs held at 85–95% all day; all of them 20:00–24:00
  kWeeklyBurst,  // every GPU held at 90–100% on Monday and Tuesday, free otherwise
};

enum class SynthFormat {
  kSmiCsv,       // nvidia-smi --query-gpu=timestamp,index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw --format=csv
  kDmon,         // nvidia-smi dmon -s pucm -o DT
  kProm,         // dcgm-exporter text exposition, one sample line per metric with a ms timestamp
  kOpenMetrics,  // the same as OpenMetrics (seconds timestamps, # EOF) for promtool tsdb create-blocks-from
};

struct SynthOptions {
  SynthPattern pattern = SynthPattern::kSteady;
  SynthFormat format = SynthFormat::kSmiCsv;
  int gpus = 8;
  int days = 7;
  int interval_s = 1;
  unsigned seed = 1;
  int64_t start_s = 1714348800;  // 2024-04-29 00:00:00, a Monday (wall clock, written without a zone)
  std::string host = "node1";
};

// The names --pattern and --format take; nullopt for anything else.
std::optional<SynthPattern> parse_synth_pattern(const std::string& s);
std::optional<SynthFormat> parse_synth_format(const std::string& s);

// Utilization % of `gpu` at `t` seconds after the start (whole number, as nvidia-smi prints).
bool synth_held(const SynthOptions& o, int gpu, int64_t t);  // whether a job holds the GPU
int synth_utilization(const SynthOptions& o, int gpu, int64_t t);
int synth_memory_used_mib(const SynthOptions& o, int gpu, int64_t t);
int synth_temperature_c(const SynthOptions& o, int gpu, int64_t t);

// Writes the whole log to `out`, streaming (no whole-file buffer).
void synthesize(const SynthOptions& o, std::ostream& out);

}  // namespace gpuplan::usage
