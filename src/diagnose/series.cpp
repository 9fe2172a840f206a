#include "diagnose/series.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "core/dates.h"
#include "core/money.h"

namespace gpuplan::diagnose::detail {

std::string num(double v, int decimals) {
  return format_number(v, decimals);
}

std::string time_range(int64_t from_ms, int64_t to_ms) {
  const CivilTime a = civil_from_ms(from_ms), b = civil_from_ms(to_ms);
  return a.date() == b.date() ? fmt::format("{} {}–{}", a.date(), a.hour_minute(), b.hour_minute())
                              : fmt::format("{} {}–{} {}", a.date(), a.hour_minute(), b.date(), b.hour_minute());
}

Fact ranges_fact(const std::vector<Run>& rs) {
  std::vector<std::string> parts;
  for (const Run& r : rs) parts.push_back(time_range(r.from_ms, r.to_ms));
  return list_of("ranges", parts);
}

std::vector<Series> by_gpu(const DiagnoseInputs& in) {
  std::map<uint32_t, Series> m;
  for (const Sample& s : in.samples) m[s.gpu].samples.push_back(&s);
  std::vector<Series> out;
  for (auto& [gpu, series] : m) {
    series.name = gpu < in.gpu_names.size() ? in.gpu_names[gpu] : "gpu" + std::to_string(gpu);
    std::stable_sort(series.samples.begin(), series.samples.end(),
                     [](const Sample* a, const Sample* b) { return a->time_ms < b->time_ms; });
    out.push_back(std::move(series));
  }
  return out;
}

std::optional<double> util(const Sample& s) {
  return s.utilization_pct ? std::optional<double>(*s.utilization_pct) : std::nullopt;
}
std::optional<double> temp(const Sample& s) {
  return s.temperature_c ? std::optional<double>(*s.temperature_c) : std::nullopt;
}
std::optional<double> power(const Sample& s) {
  return s.power_w ? std::optional<double>(*s.power_w) : std::nullopt;
}

std::vector<const Sample*> within(const Series& s, int64_t from_ms, int64_t to_ms) {
  std::vector<const Sample*> out;
  for (const Sample* x : s.samples)
    if (x->time_ms >= from_ms && x->time_ms <= to_ms) out.push_back(x);
  return out;
}

std::string gpu_label(const nvml::GpuFacts& g) {
  return fmt::format("GPU {} ({})", g.info.index, g.info.pci_bus_id);
}

void add_evidence(Finding& f, const DiagnoseInputs& in, const std::vector<const Series*>& series,
                  const std::vector<std::pair<int64_t, int64_t>>& windows) {
  // Per source file (in reading order): the first and last line of the samples it rests on.
  std::vector<std::pair<uint32_t, uint32_t>> lines(in.sources.size(), {UINT32_MAX, 0});
  for (const Series* s : series)
    for (const auto& [from, to] : windows)
      for (const Sample* x : within(*s, from, to)) {
        const Sample* begin = in.samples.data();
        if (x->line == 0 || std::less<>{}(x, begin) || !std::less<>{}(x, begin + in.samples.size())) continue;
        const auto index = static_cast<size_t>(x - in.samples.data());
        for (size_t i = 0; i < in.sources.size(); ++i)
          if (index >= in.sources[i].first && index < in.sources[i].end) {
            lines[i].first = std::min(lines[i].first, x->line);
            lines[i].second = std::max(lines[i].second, x->line);
          }
      }
  std::vector<std::string> parts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].second == 0) continue;
    const auto [first, last] = lines[i];
    parts.push_back(first == last ? fmt::format("{}:{}", in.sources[i].path, first)
                                  : fmt::format("{}:{}–{}", in.sources[i].path, first, last));
  }
  int64_t ms = 0;
  for (const auto& [from, to] : windows) ms += to - from;
  const std::string hours = num(static_cast<double>(ms) / 3'600'000.0, 1);
  f.fact("hours", hours);
  if (parts.empty()) return;
  f.fact(list_of("lines", parts));
  // Said in the detail too: the terminal shows no evidence block.
  f.note(Phrase("diagnose.evidence.lines").fact(list_of("lines", parts)).fact("hours", hours));
}

}  // namespace gpuplan::diagnose::detail
