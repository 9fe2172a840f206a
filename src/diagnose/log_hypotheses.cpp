// SPEC H1 (thermal), H3 (input-bound) and H4 (memory): the rules that read the samples of
// nvidia-smi CSV/dmon logs, scrapes or live NVML sampling, and NVML's facts of now. Each finding
// from samples names the log lines and hours it rests on (series.h's add_evidence).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "diagnose/hypotheses.h"
#include "diagnose/series.h"

namespace gpuplan::diagnose::detail {
namespace {

using catalog::Catalog;
using Window = std::pair<int64_t, int64_t>;

// NVML clock-event (throttle) reason bits that mean heat: SW thermal slowdown, HW thermal
// slowdown, HW slowdown (which the board raises for over-temperature and power-brake).
constexpr uint64_t kSwThermal = 0x20, kHwThermal = 0x40, kHwSlowdown = 0x8;
constexpr uint64_t kThermalBits = kSwThermal | kHwThermal | kHwSlowdown;
// The reasons that hold clocks back for heat or power: the thermal ones, SW power cap (0x4) and
// HW power brake (0x80). GPU idle (0x1), application clocks (0x2), sync boost (0x10) and display
// clock (0x100) are settings or rest, not a limit the GPU ran into.
constexpr uint64_t kHeldBackBits = kThermalBits | 0x4 | 0x80;

// The reasons that mean the power budget, not heat: SW power cap (the driver holds the board at
// its power limit) and HW power brake (an external signal, usually the PSU or the chassis).
constexpr uint64_t kSwPowerCap = 0x4, kHwPowerBrake = 0x80;
constexpr uint64_t kPowerBits = kSwPowerCap | kHwPowerBrake;

// NVML's clock-event reasons, each a phrase with its bit.
std::vector<Phrase> reasons(uint64_t bits) {
  std::vector<Phrase> out;
  if (bits & kSwThermal) out.push_back(Phrase("diagnose.reason.sw_thermal"));
  if (bits & kHwThermal) out.push_back(Phrase("diagnose.reason.hw_thermal"));
  if (bits & kHwSlowdown) out.push_back(Phrase("diagnose.reason.hw_slowdown"));
  if (bits & kSwPowerCap) out.push_back(Phrase("diagnose.reason.sw_power_cap"));
  if (bits & kHwPowerBrake) out.push_back(Phrase("diagnose.reason.hw_power_brake"));
  return out;
}

std::vector<Window> windows_of(const std::vector<Run>& rs) {
  std::vector<Window> out;
  for (const Run& r : rs) out.emplace_back(r.from_ms, r.to_ms);
  return out;
}

// Stretches where one of `mask`'s reasons held the clocks back, and every such reason seen.
std::vector<Run> reason_runs(const Series& s, uint64_t mask, uint64_t& seen) {
  return runs(
      s.samples,
      [&](const Sample& x) -> std::optional<double> {
        if (!x.clock_event_reasons) return std::nullopt;
        seen |= *x.clock_event_reasons & mask;
        return static_cast<double>(*x.clock_event_reasons & mask);
      },
      [](double bits) { return bits != 0; });
}

// H1's other half: clocks held back by the power budget, told apart from heat, since the remedy
// differs (the power limit, the PSU and the rack's circuit, not the airflow).
void power_capped(const DiagnoseInputs& in, const Series& s, std::vector<Finding>& out) {
  uint64_t seen = 0;
  auto capped = reason_runs(s, kPowerBits, seen);
  if (capped.empty()) return;
  std::optional<double> peak_power, limit;
  for (const Sample* x : s.samples) {
    if (x->power_w) peak_power = std::max<double>(peak_power.value_or(*x->power_w), *x->power_w);
    if (x->power_limit_w) limit = std::min<double>(limit.value_or(*x->power_limit_w), *x->power_limit_w);
  }
  Finding f = make_finding("diagnose.power_cap", Severity::kWarn, "samples", "S0 §4.1; nvml-clock-reasons");
  f.fact("gpu", s.name)
      .fact(ranges_fact(capped))
      .fact("reasons", reasons(seen))
      .fact("power", peak_power ? num(*peak_power) + " W" : "?")
      .fact("limit", limit ? num(*limit) + " W" : "?");
  add_evidence(f, in, {&s}, windows_of(capped));
  out.push_back(f);
}

// H1 from samples: held above the airflow limit. When the SM clock fell during the hot stretches
// below the highest clock the same log shows, the finding says so (the throttling SPEC H1 costs).
void hot_runs(const DiagnoseInputs& in, const Series& s, const Catalog& cat, std::vector<Finding>& out) {
  const double airflow = cat.threshold("diagnose.thermal.airflow_c");
  const double minutes = cat.threshold("diagnose.thermal.sustained_minutes");
  std::vector<Run> hot;
  for (const Run& r : runs(s.samples, temp, [&](double t) { return t > airflow; }))
    if (r.minutes() >= minutes) hot.push_back(r);
  if (hot.empty()) return;
  double peak = 0, total = 0;
  std::optional<double> hot_clock, top_clock;
  for (const Run& r : hot) {
    peak = std::max(peak, r.peak);
    total += r.minutes();
    for (const Sample* x : within(s, r.from_ms, r.to_ms))
      if (x->sm_clock_mhz) hot_clock = std::min<double>(hot_clock.value_or(*x->sm_clock_mhz), *x->sm_clock_mhz);
  }
  for (const Sample* x : s.samples)
    if (x->sm_clock_mhz) top_clock = std::max<double>(top_clock.value_or(*x->sm_clock_mhz), *x->sm_clock_mhz);
  const bool clock_drop = hot_clock && top_clock && *hot_clock < *top_clock;
  Finding f = make_finding("diagnose.thermal", Severity::kFail, clock_drop ? "airflow_clock" : "airflow", "S0 §4.1");
  f.fact("gpu", s.name)
      .fact(ranges_fact(hot))
      .fact("peak", num(peak) + " °C")
      .fact("minutes", num(total))
      .fact("limit", num(airflow) + " °C")
      .fact("sustained", num(minutes))
      .fact("normal", format_range(cat.threshold_range("diagnose.thermal.normal_c")) + " °C")
      .fact("slowdown", format_range(cat.threshold_range("diagnose.thermal.slowdown_pct")) + "%");
  if (clock_drop) f.fact("clock", num(*hot_clock) + " MHz").fact("max_clock", num(*top_clock) + " MHz");
  add_evidence(f, in, {&s}, windows_of(hot));
  out.push_back(f);
}

}  // namespace

// H1 --------------------------------------------------------------------------------------------
void check_thermal(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  const std::string normal = format_range(cat.threshold_range("diagnose.thermal.normal_c")) + " °C";
  const std::string slowdown = format_range(cat.threshold_range("diagnose.thermal.slowdown_pct")) + "%";
  const char* source = "S0 §4.1";
  for (const Series& s : by_gpu(in)) {
    hot_runs(in, s, cat, out);
    power_capped(in, s, out);
    uint64_t seen = 0;
    auto throttled = reason_runs(s, kThermalBits, seen);
    if (!throttled.empty()) {
      std::optional<double> peak_temp;
      for (const Sample* x : s.samples)
        if (x->temperature_c && (!peak_temp || *x->temperature_c > *peak_temp)) peak_temp = *x->temperature_c;
      Finding f = make_finding("diagnose.thermal", Severity::kWarn, "throttle", source);
      f.fact("gpu", s.name)
          .fact(ranges_fact(throttled))
          .fact("reasons", reasons(seen))
          .fact("peak", peak_temp ? num(*peak_temp) + " °C" : "?")
          .fact("normal", normal)
          .fact("slowdown", slowdown);
      add_evidence(f, in, {&s}, windows_of(throttled));
      out.push_back(f);
    }
  }
  if (!in.nvml) return;
  for (const auto& g : in.nvml->gpus) {
    if (uint64_t power_bits = g.now.clock_event_reasons.value_or(0) & kPowerBits) {
      Finding f = make_finding("diagnose.power_cap", Severity::kWarn, "now", "S0 §4.1; nvml-clock-reasons");
      f.fact("gpu", gpu_label(g))
          .fact("reasons", reasons(power_bits))
          .fact("power", g.now.power_w ? num(*g.now.power_w) + " W" : "?")
          .fact("limit", g.info.power_limit_w ? num(*g.info.power_limit_w) + " W" : "?");
      out.push_back(f);
    }
    uint64_t bits = g.now.clock_event_reasons.value_or(0) & kThermalBits;
    if (!bits) continue;
    Finding f = make_finding("diagnose.thermal", Severity::kWarn, "throttle_now", source);
    f.fact("gpu", gpu_label(g))
        .fact("reasons", reasons(bits))
        .fact("temperature", g.now.temperature_c ? num(*g.now.temperature_c) + " °C" : "?")
        .fact("normal", normal)
        .fact("slowdown", slowdown);
    out.push_back(f);
  }
}

// H3 --------------------------------------------------------------------------------------------
namespace {

// The power limit each sample is judged against: its own (a power.limit column), else NVML's
// when every GPU has the same one, else the lowest TDP in the catalog — power under a fraction of
// that is under the same fraction of any catalogued GPU's limit, whichever card wrote the log.
struct PowerLimit {
  std::optional<double> nvml;
  std::optional<double> catalog;
  std::string catalog_gpu;

  std::optional<double> of(const Sample& x) const {
    if (x.power_limit_w && *x.power_limit_w > 0) return *x.power_limit_w;
    return nvml ? nvml : catalog;
  }
  Phrase source(const std::vector<const Sample*>& samples) const {
    if (std::any_of(samples.begin(), samples.end(), [](const Sample* x) { return x->power_limit_w.has_value(); }))
      return Phrase("diagnose.limit_from.log");
    if (nvml) return Phrase("diagnose.limit_from.nvml");
    return Phrase("diagnose.limit_from.catalog").fact("gpu", catalog_gpu);
  }
};

PowerLimit power_limit(const DiagnoseInputs& in, const Catalog& cat) {
  PowerLimit out;
  if (in.nvml) {
    std::set<double> limits;
    for (const auto& g : in.nvml->gpus)
      if (g.info.power_limit_w) limits.insert(*g.info.power_limit_w);
    if (limits.size() == 1) out.nvml = *limits.begin();
  }
  for (const catalog::Entry* g : cat.of_kind("gpu"))
    if (auto tdp = g->opt_number("tdp_w"); tdp && (!out.catalog || *tdp < *out.catalog)) {
      out.catalog = *tdp;
      out.catalog_gpu = g->id;
    }
  return out;
}

// The parts of a and b (each sorted, disjoint) that overlap.
std::vector<Window> intersect(const std::vector<Window>& a, const std::vector<Window>& b) {
  std::vector<Window> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t from = std::max(a[i].first, b[j].first), to = std::min(a[i].second, b[j].second);
    if (from <= to) out.emplace_back(from, to);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

void starved_finding(const DiagnoseInputs& in, const std::vector<const Series*>& working,
                     const std::vector<Window>& common, const PowerLimit& limit, const Catalog& cat,
                     std::vector<Finding>& out);

// SPEC H3's first sign: every working GPU held under the utilization limit, below the normal
// temperature band, well under its power limit and with no throttle reason, together for a
// sustained span. A sample missing utilization, temperature or power ends a span: what the log
// does not show is not claimed. GPUs idle over the whole log run no job to starve.
void check_starved(const DiagnoseInputs& in, const std::vector<Series>& series, const Catalog& cat,
                   std::vector<Finding>& out) {
  const double max_util = cat.threshold("diagnose.input.max_utilization_pct");
  const double idle = cat.threshold("diagnose.input.idle_below_pct");
  const double cool_below = cat.threshold_range("diagnose.thermal.normal_c").low;
  const double low_power = cat.threshold("diagnose.input.low_power_fraction");
  const PowerLimit limit = power_limit(in, cat);
  auto starved = [&](const Sample& x) -> std::optional<double> {
    const std::optional<double> lim = limit.of(x);
    const bool ok = x.utilization_pct && x.temperature_c && x.power_w && lim && *x.utilization_pct < max_util &&
                    *x.temperature_c < cool_below && *x.power_w < low_power * *lim &&
                    (x.clock_event_reasons.value_or(0) & kHeldBackBits) == 0;
    return ok ? 1.0 : 0.0;
  };
  // "Every GPU" means every GPU of one server: logs of several hosts are judged host by host,
  // so one host's busy GPUs never hide another host's starved ones.
  std::map<std::string, std::vector<const Series*>> by_host;
  for (const Series& s : series) {
    const size_t slash = s.name.rfind('/');  // "host/gpu"; a name without a host is one host's
    by_host[slash == std::string::npos ? std::string() : s.name.substr(0, slash)].push_back(&s);
  }
  for (const auto& [host, host_series] : by_host) {
    std::vector<const Series*> working;
    std::optional<std::vector<Window>> common;
    for (const Series* s : host_series) {
      auto u = mean_of(s->samples, util);
      if (!u || *u < idle) continue;
      working.push_back(s);
      auto mine = windows_of(runs(s->samples, starved, [](double v) { return v > 0; }));
      common = common ? intersect(*common, mine) : mine;
    }
    if (!working.empty() && common && !common->empty())
      starved_finding(in, working, *common, limit, cat, out);
  }
}

// The finding for `working` GPUs of one host starved together over the longest of `common`.
void starved_finding(const DiagnoseInputs& in, const std::vector<const Series*>& working,
                     const std::vector<Window>& common, const PowerLimit& limit, const Catalog& cat,
                     std::vector<Finding>& out) {
  const double max_util = cat.threshold("diagnose.input.max_utilization_pct");
  const double sustained = cat.threshold("diagnose.input.sustained_minutes");
  const Window span = *std::max_element(common.begin(), common.end(), [](const Window& a, const Window& b) {
    return a.second - a.first < b.second - b.first;
  });
  if (static_cast<double>(span.second - span.first) / 60000.0 < sustained) return;
  std::vector<std::string> utils;
  std::vector<const Sample*> all;
  for (const Series* s : working) {
    auto mine = within(*s, span.first, span.second);
    utils.push_back(fmt::format("{} {}%", s->name, num(mean_of(mine, util).value_or(0))));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  double hottest = 0, most_power = 0, lowest_limit = 0;
  for (const Sample* x : all) {
    hottest = std::max<double>(hottest, *x->temperature_c);
    most_power = std::max<double>(most_power, *x->power_w);
    const double lim = *limit.of(*x);
    lowest_limit = lowest_limit == 0 ? lim : std::min(lowest_limit, lim);
  }
  Finding f = make_finding("diagnose.input_bound", Severity::kWarn, "starved", "S0 §4.3");
  f.fact("gpus", std::to_string(working.size()))
      .fact(list_of("utilization", {utils.begin(), utils.end()}))
      .fact("limit", num(max_util) + "%")
      .fact("temperature", num(hottest) + " °C")
      .fact("power", {Phrase("diagnose.power_of").fact("power", num(most_power)).fact("limit", num(lowest_limit))})
      .fact("limit_source", {limit.source(all)})
      .fact("range", time_range(span.first, span.second));
  add_evidence(f, in, working, {span});
  out.push_back(f);
}

}  // namespace

void check_input_bound(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  const double max_util = cat.threshold("diagnose.input.max_utilization_pct");
  const double min_drops = cat.threshold("diagnose.input.min_periodic_drops");
  const double tolerance = cat.threshold("diagnose.input.period_tolerance");
  const auto series = by_gpu(in);
  check_starved(in, series, cat, out);
  // Periodic drops: a data loader that cannot keep up stalls every N steps at a steady rhythm.
  for (const Series& s : series) {
    std::vector<int64_t> starts;
    std::optional<double> prev;
    for (const Sample* x : s.samples) {
      if (!x->utilization_pct) continue;
      double u = *x->utilization_pct;
      if (prev && *prev >= max_util && u < max_util) starts.push_back(x->time_ms);
      prev = u;
    }
    if (static_cast<double>(starts.size()) < min_drops) continue;
    std::vector<double> gaps;
    for (size_t i = 1; i < starts.size(); ++i) gaps.push_back(static_cast<double>(starts[i] - starts[i - 1]));
    double mean = 0;
    for (double g : gaps) mean += g;
    mean /= static_cast<double>(gaps.size());
    bool even = mean > 0 &&
                std::all_of(gaps.begin(), gaps.end(), [&](double g) { return std::abs(g - mean) <= tolerance * mean; });
    if (!even) continue;
    Finding f = make_finding("diagnose.input_bound", Severity::kWarn, "periodic", "S0 §4.3");
    f.fact("gpu", s.name)
        .fact("drops", std::to_string(starts.size()))
        .fact("period", num(mean / 1000.0) + " s")
        .fact("limit", num(max_util) + "%")
        .fact("range", time_range(starts.front(), starts.back()));
    add_evidence(f, in, {&s}, {{starts.front(), starts.back()}});
    out.push_back(f);
  }
}

// H4 --------------------------------------------------------------------------------------------
namespace {

// A captured nvidia-smi: an idle GPU whose memory the listed processes hold (leftover), or a GPU
// near full and who holds it (held). Each names the capture's lines it rests on.
void held_in_capture(const SmiCapture& capture, const Catalog& cat, std::vector<Finding>& out) {
  const double near = cat.threshold("diagnose.memory.near_full_fraction");
  const double idle = cat.threshold("diagnose.input.idle_below_pct");
  const double leftover = cat.threshold("diagnose.memory.leftover_mib");
  for (const telemetry::SmiTableGpu& g : capture.table.gpus) {
    std::vector<std::string> procs;
    double held = 0;
    int64_t first = g.line, last = g.line;
    for (const telemetry::SmiTableProcess& p : capture.table.processes) {
      if (p.gpu != g.index) continue;
      procs.push_back(fmt::format("{} {} ({} MiB)", p.pid, p.name, p.used_mib ? num(*p.used_mib) : "?"));
      held += p.used_mib.value_or(0);
      last = std::max(last, p.line);
    }
    const double used = std::max<double>(held, g.memory_used_mib.value_or(0));
    const bool is_idle = g.utilization_pct && *g.utilization_pct < idle && used >= leftover;
    const bool is_full = g.memory_total_mib && *g.memory_total_mib > 0 && used / *g.memory_total_mib >= near;
    if ((!is_idle && !is_full) || procs.empty()) continue;
    const Fact lines = list_of("lines", {fmt::format("{}:{}–{}", capture.path, first, last)});
    Finding f =
        make_finding("diagnose.memory", Severity::kWarn, is_idle ? "leftover" : "held", "S0 §4.2; pytorch-cuda-memory");
    f.fact("gpu", fmt::format("GPU {} ({})", g.index, g.bus_id))
        .fact("used", num(used) + " MiB")
        .fact(list_of("processes", procs))
        .fact(lines)
        .note(Phrase("diagnose.evidence.capture").fact(lines));
    if (is_idle)
      f.fact("utilization", num(*g.utilization_pct) + "%");
    else
      f.fact("total", num(*g.memory_total_mib) + " MiB")
          .fact("peak", num(100 * used / *g.memory_total_mib, 1) + "%")
          .fact("limit", num(near * 100) + "%");
    out.push_back(f);
  }
}

}  // namespace

void check_memory(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  const double near = cat.threshold("diagnose.memory.near_full_fraction");
  const double idle = cat.threshold("diagnose.input.idle_below_pct");
  const double leftover = cat.threshold("diagnose.memory.leftover_mib");
  const char* source = "S0 §4.2; pytorch-cuda-memory";
  for (const Series& s : by_gpu(in)) {
    auto full = runs(
        s.samples,
        [](const Sample& x) -> std::optional<double> {
          if (!x.memory_used_mib || !x.memory_total_mib || *x.memory_total_mib <= 0) return std::nullopt;
          return *x.memory_used_mib / *x.memory_total_mib;
        },
        [&](double share) { return share >= near; });
    if (full.empty()) continue;
    double peak = 0;
    for (const Run& r : full) peak = std::max(peak, r.peak);
    Finding f = make_finding("diagnose.memory", Severity::kWarn, "near_full", source);
    f.fact("gpu", s.name)
        .fact(ranges_fact(full))
        .fact("peak", num(peak * 100, 1) + "%")
        .fact("limit", num(near * 100) + "%");
    add_evidence(f, in, {&s}, windows_of(full));
    out.push_back(f);
  }
  for (const SmiCapture& capture : in.smi_tables) held_in_capture(capture, cat, out);
  if (!in.nvml) return;
  for (const auto& g : in.nvml->gpus) {
    if (!g.now.utilization_pct || *g.now.utilization_pct >= idle) continue;
    std::vector<std::string> pids;
    double held = 0;
    for (const auto& p : g.now.processes.value_or(std::vector<nvml::GpuProcess>{})) {
      pids.push_back(fmt::format("{} ({} MiB)", p.pid, p.used_mib ? num(*p.used_mib) : "?"));
      held += p.used_mib.value_or(0);
    }
    double used = std::max(held, g.now.memory_used_mib.value_or(0));
    if (used < leftover) continue;
    Finding f = make_finding("diagnose.memory", Severity::kWarn, "leftover", source);
    f.fact("gpu", gpu_label(g))
        .fact("used", num(used) + " MiB")
        .fact("utilization", num(*g.now.utilization_pct) + "%")
        .fact(pids.empty() ? Fact{"processes", {}, std::nullopt, {Phrase("diagnose.none_listed")}, {}}
                           : list_of("processes", pids));
    out.push_back(f);
  }
}

}  // namespace gpuplan::diagnose::detail
