// What the diagnosis rules share (private to diagnose/): the samples of each GPU in time order,
// the stretches of them that meet a condition, and the facts every finding from a log carries —
// its time ranges, and the log lines and hours it rests on ("gpu-node-17.csv:2–5761").
//
// A caller may rely on: by_gpu keeps pointers into DiagnoseInputs::samples (valid while it is
// not changed); evidence names a file's lines only for samples a reader numbered (Sample::line)
// inside one of DiagnoseInputs::sources.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/finding.h"
#include "diagnose/diagnose.h"

namespace gpuplan::diagnose::detail {

using telemetry::Sample;

std::string num(double v, int decimals = 0);

// "2024-05-06 10:00–10:40", or "2024-05-06 23:50–2024-05-07 00:20" across midnight.
std::string time_range(int64_t from_ms, int64_t to_ms);

struct Run {
  int64_t from_ms = 0, to_ms = 0;
  double peak = 0;
  double minutes() const { return static_cast<double>(to_ms - from_ms) / 60000.0; }
};

// Stretches of consecutive samples (one GPU, in time order) where `value` is present and `hit`;
// a sample without the value neither extends nor ends a stretch.
template <class Value, class Hit>
std::vector<Run> runs(const std::vector<const Sample*>& samples, Value value, Hit hit) {
  std::vector<Run> out;
  bool open = false;
  for (const Sample* s : samples) {
    std::optional<double> v = value(*s);
    if (v && hit(*v)) {
      if (!open) out.push_back({s->time_ms, s->time_ms, *v});
      open = true;
      out.back().to_ms = s->time_ms;
      out.back().peak = std::max(out.back().peak, *v);
    } else if (v) {
      open = false;
    }
  }
  return out;
}

// The runs' time ranges as the listed fact "ranges".
Fact ranges_fact(const std::vector<Run>& rs);

struct Series {
  std::string name;
  std::vector<const Sample*> samples;  // time order
};

std::vector<Series> by_gpu(const DiagnoseInputs& in);

template <class F>
std::optional<double> mean_of(const std::vector<const Sample*>& samples, F f) {
  double sum = 0;
  int64_t n = 0;
  for (const Sample* x : samples)
    if (auto v = f(*x)) {
      sum += *v;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

std::optional<double> util(const Sample& s);
std::optional<double> temp(const Sample& s);
std::optional<double> power(const Sample& s);

// The samples of `s` from `from_ms` through `to_ms`.
std::vector<const Sample*> within(const Series& s, int64_t from_ms, int64_t to_ms);

std::string gpu_label(const nvml::GpuFacts& g);

// The facts "lines" (per log file, the first and last line of the samples of `series` inside the
// windows: "gpu-node-17.csv:2–5761"; left out when no sample has a known line) and "hours" (the
// windows' total length, one decimal).
void add_evidence(Finding& f, const DiagnoseInputs& in, const std::vector<const Series*>& series,
                  const std::vector<std::pair<int64_t, int64_t>>& windows);

}  // namespace gpuplan::diagnose::detail
