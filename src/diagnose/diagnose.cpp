#include "diagnose/diagnose.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "catalog/gpu_ids.h"
#include "core/dates.h"
#include "core/money.h"
#include "core/pci_address.h"
#include "core/text.h"

namespace gpuplan::diagnose {
namespace {

using catalog::Catalog;
using catalog::Entry;
using telemetry::Sample;

// NVML clock-event (throttle) reason bits that mean heat: SW thermal slowdown, HW thermal
// slowdown, HW slowdown (which the board raises for over-temperature and power-brake).
constexpr uint64_t kSwThermal = 0x20, kHwThermal = 0x40, kHwSlowdown = 0x8;
constexpr uint64_t kThermalBits = kSwThermal | kHwThermal | kHwSlowdown;
// nvmlGpuTopologyLevel_t: at or above a host bridge, GPU pairs talk through the CPU.
constexpr int kTopologyHostBridge = 30;

// An NVML topology level as nvidia-smi topo -m names the same path (NVML_TOPOLOGY_*: 10 one
// switch, 20 several, 30 host bridge, 40 NUMA node, 50 across sockets).
std::string topology_level_name(int level) {
  switch (level) {
    case 10: return "PIX";
    case 20: return "PXB";
    case 30: return "PHB";
    case 40: return "NODE";
    case 50: return "SYS";
  }
  return std::to_string(level);
}

std::string num(double v, int decimals = 0) {
  return format_number(v, decimals);
}

std::pair<std::string, std::string> civil(int64_t ms) {
  const CivilTime t = civil_from_ms(ms);
  return {t.date(), t.hour_minute()};
}

// "2024-05-06 10:00–10:40", or "2024-05-06 23:50–2024-05-07 00:20" across midnight.
std::string time_range(int64_t from_ms, int64_t to_ms) {
  auto [d1, t1] = civil(from_ms);
  auto [d2, t2] = civil(to_ms);
  return d1 == d2 ? fmt::format("{} {}–{}", d1, t1, t2) : fmt::format("{} {}–{} {}", d1, t1, d2, t2);
}

struct Run {
  int64_t from_ms = 0, to_ms = 0;
  double peak = 0;
  double minutes() const { return (to_ms - from_ms) / 60000.0; }
};

// Stretches of consecutive samples (one GPU, in time order) where `value` is present and `hit`.
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
Fact ranges_fact(const std::vector<Run>& rs) {
  std::vector<std::string> parts;
  for (const Run& r : rs) parts.push_back(time_range(r.from_ms, r.to_ms));
  return list_of("ranges", parts);
}

struct Series {
  std::string name;
  std::vector<const Sample*> samples;  // time order
};

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

template <class F>
std::optional<double> mean_of(const Series& s, F f) {
  double sum = 0;
  int64_t n = 0;
  for (const Sample* x : s.samples)
    if (auto v = f(*x)) {
      sum += *v;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
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

// NVML's clock-event reasons, each a phrase with its bit.
std::vector<Phrase> reasons(uint64_t bits) {
  std::vector<Phrase> out;
  if (bits & kSwThermal) out.push_back(Phrase("diagnose.reason.sw_thermal"));
  if (bits & kHwThermal) out.push_back(Phrase("diagnose.reason.hw_thermal"));
  if (bits & kHwSlowdown) out.push_back(Phrase("diagnose.reason.hw_slowdown"));
  return out;
}

std::string gpu_label(const nvml::GpuFacts& g) {
  return fmt::format("GPU {} ({})", g.info.index, g.info.pci_bus_id);
}

// H1 --------------------------------------------------------------------------------------------
void check_thermal(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  const double airflow = cat.threshold("diagnose.thermal.airflow_c");
  const double minutes = cat.threshold("diagnose.thermal.sustained_minutes");
  const std::string normal = format_range(cat.threshold_range("diagnose.thermal.normal_c")) + " °C";
  const std::string slowdown = format_range(cat.threshold_range("diagnose.thermal.slowdown_pct")) + "%";
  const char* source = "S0 §4.1";
  for (const Series& s : by_gpu(in)) {
    std::vector<Run> hot;
    for (const Run& r : runs(s.samples, temp, [&](double t) { return t > airflow; }))
      if (r.minutes() >= minutes) hot.push_back(r);
    if (!hot.empty()) {
      double peak = 0, total = 0;
      for (const Run& r : hot) {
        peak = std::max(peak, r.peak);
        total += r.minutes();
      }
      Finding f = make_finding("diagnose.thermal", Severity::kFail, "airflow", source);
      f.fact("gpu", s.name)
          .fact(ranges_fact(hot))
          .fact("peak", num(peak) + " °C")
          .fact("minutes", num(total))
          .fact("limit", num(airflow) + " °C")
          .fact("sustained", num(minutes))
          .fact("normal", normal)
          .fact("slowdown", slowdown);
      out.push_back(f);
    }
    uint64_t seen = 0;
    auto throttled = runs(
        s.samples,
        [&](const Sample& x) -> std::optional<double> {
          if (!x.clock_event_reasons) return std::nullopt;
          seen |= *x.clock_event_reasons & kThermalBits;
          return static_cast<double>(*x.clock_event_reasons & kThermalBits);
        },
        [](double bits) { return bits != 0; });
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
      out.push_back(f);
    }
  }
  if (!in.nvml) return;
  for (const auto& g : in.nvml->gpus) {
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

// H2 --------------------------------------------------------------------------------------------
std::string link_str(std::optional<unsigned> gen, std::optional<unsigned> width) {
  return fmt::format("Gen{} x{}", gen ? std::to_string(*gen) : "?", width ? std::to_string(*width) : "?");
}

void judge_link(const std::string& gpu, std::optional<unsigned> gen, std::optional<unsigned> width,
                std::optional<unsigned> max_gen, std::optional<unsigned> max_width, std::optional<double> utilization,
                const std::string& where, const Catalog& cat, std::vector<Finding>& out) {
  const unsigned min_gen = static_cast<unsigned>(cat.threshold("accept.pcie.min_gen"));
  const unsigned min_width = static_cast<unsigned>(cat.threshold("accept.pcie.min_width"));
  if (!gen || !width) return;
  const bool below_min = *gen < min_gen || *width < min_width;
  const bool below_max = (max_gen && *gen < *max_gen) || (max_width && *width < *max_width);
  if (!below_min && !below_max) return;
  // An idle A100 lowers its link speed to save power; only the width is a fault at idle.
  const bool idle_speed_only = utilization && *utilization == 0 && *width >= std::max(min_width, max_width.value_or(0));
  std::string variant = idle_speed_only ? "idle_speed" : below_min ? "downgraded" : "below_max";
  Severity sev = idle_speed_only ? Severity::kInfo : below_min ? Severity::kFail : Severity::kWarn;
  Finding f =
      make_finding("diagnose.pcie_link", sev, variant, "S0 §4.1; nvidia-a100-datasheet");
  f.fact("gpu", gpu)
      .fact("link", link_str(gen, width))
      .fact("max", link_str(max_gen, max_width))
      .fact("expected", fmt::format("Gen{} x{}", min_gen, min_width))
      .fact("where", where);
  out.push_back(f);
}

void check_pcie_link(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  std::set<std::string> judged;
  auto nvml_at = [&](const std::string& address) -> const nvml::GpuFacts* {
    if (!in.nvml) return nullptr;
    for (const auto& g : in.nvml->gpus)
      if (pci_address_key(g.info.pci_bus_id) == pci_address_key(address)) return &g;
    return nullptr;
  };
  if (in.facts) {
    for (const probe::PciDevice* d : in.facts->pci.of_kind(probe::PciKind::kGpu)) {
      judged.insert(pci_address_key(d->address));
      auto as_u = [](std::optional<int> v) {
        return v ? std::optional<unsigned>(static_cast<unsigned>(*v)) : std::nullopt;
      };
      const nvml::GpuFacts* n = nvml_at(d->address);
      judge_link(d->address, as_u(d->current.generation()), as_u(d->current.width), as_u(d->max.generation()),
                 as_u(d->max.width), n ? n->now.utilization_pct : std::nullopt,
                 d->sysfs_path + " current_link_speed/width", cat, out);
    }
  }
  if (in.nvml) {
    for (const auto& g : in.nvml->gpus) {
      if (judged.count(pci_address_key(g.info.pci_bus_id))) continue;
      judge_link(gpu_label(g), g.now.link_gen, g.now.link_width, g.info.max_link_gen, g.info.max_link_width,
                 g.now.utilization_pct, "NVML nvmlDeviceGetCurrPcieLinkGeneration/Width", cat, out);
    }
  }
}

// H3 --------------------------------------------------------------------------------------------
void check_input_bound(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  const double max_util = cat.threshold("diagnose.input.max_utilization_pct");
  const double idle = cat.threshold("diagnose.input.idle_below_pct");
  const double low_temp = cat.threshold_range("diagnose.thermal.normal_c").low;
  const double low_power = cat.threshold("diagnose.input.low_power_fraction");
  const double min_drops = cat.threshold("diagnose.input.min_periodic_drops");
  const double tolerance = cat.threshold("diagnose.input.period_tolerance");
  const char* source = "S0 §4.3";
  auto series = by_gpu(in);
  // One power limit for the host when NVML gives the same one for every GPU (the usual case);
  // samples carry no limit of their own.
  std::optional<double> limit;
  if (in.nvml) {
    std::set<double> limits;
    for (const auto& g : in.nvml->gpus)
      if (g.info.power_limit_w) limits.insert(*g.info.power_limit_w);
    if (limits.size() == 1) limit = *limits.begin();
  }
  // SPEC H3 claims starvation only while temperature and power stay low: every GPU must show
  // both (power judged against NVML's limit), or the finding would rest on utilization alone, which
  // a throttled or power-capped GPU also shows. Missing data → no "starved" finding.
  std::vector<std::string> utils;
  bool all_low = false, any_busy = false, cool = true;
  std::optional<double> hottest, most_power;
  int64_t first = 0, last = 0;
  for (const Series& s : series) {
    auto u = mean_of(s, util);
    if (!u) continue;
    if (utils.empty()) {
      all_low = true;
      first = s.samples.front()->time_ms;
      last = s.samples.back()->time_ms;
    }
    first = std::min(first, s.samples.front()->time_ms);
    last = std::max(last, s.samples.back()->time_ms);
    utils.push_back(fmt::format("{} {}%", s.name, num(*u)));
    if (*u >= max_util) all_low = false;
    if (*u >= idle) any_busy = true;
    if (auto t = mean_of(s, temp)) {
      hottest = std::max(hottest.value_or(*t), *t);
      if (*t >= low_temp) cool = false;
    } else {
      cool = false;  // no temperature: "stays low" unproven
    }
    if (auto p = mean_of(s, power); p && limit) {
      most_power = std::max(most_power.value_or(*p), *p);
      if (*p >= low_power * *limit) cool = false;
    } else {
      cool = false;  // no power, or no limit to call it low against
    }
  }
  if (all_low && any_busy && cool) {
    Finding f = make_finding("diagnose.input_bound", Severity::kWarn, "starved", source);
    f.fact("gpus", std::to_string(utils.size()))
        .fact(list_of("utilization", {utils.begin(), utils.end()}))
        .fact("limit", num(max_util) + "%")
        .fact("temperature", hottest ? num(*hottest) + " °C" : "?")
        .fact("power", most_power ? std::vector<Phrase>{limit ? Phrase("diagnose.power_of")
                                                                  .fact("power", num(*most_power))
                                                                  .fact("limit", num(*limit))
                                                            : Phrase("diagnose.power").fact("power", num(*most_power))}
                                  : std::vector<Phrase>{Phrase("diagnose.unknown")})
        .fact("range", time_range(first, last));
    out.push_back(f);
  }
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
    Finding f = make_finding("diagnose.input_bound", Severity::kWarn, "periodic", source);
    f.fact("gpu", s.name)
        .fact("drops", std::to_string(starts.size()))
        .fact("period", num(mean / 1000.0) + " s")
        .fact("limit", num(max_util) + "%")
        .fact("range", time_range(starts.front(), starts.back()));
    out.push_back(f);
  }
}

// H4 --------------------------------------------------------------------------------------------
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
    out.push_back(f);
  }
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

// H5 --------------------------------------------------------------------------------------------
// Whether the GPUs are SXM modules, which have no GPU-to-GPU path but NVLink: NVML or
// `nvidia-smi nvlink --status` names them so, or the catalog's form factor of the GPUs the PCI bus
// shows. PCIe cards are not: their NVLink bridges are optional, and pairs over PCIe their design.
bool sxm_board(const DiagnoseInputs& in, const Catalog& cat) {
  auto sxm_name = [](const std::string& name) { return name.find("SXM") != std::string::npos; };
  if (in.nvml)
    for (const auto& g : in.nvml->gpus)
      if (sxm_name(g.info.name)) return true;
  if (in.nvlink)
    for (const auto& g : in.nvlink->gpus)
      if (sxm_name(g.name)) return true;
  if (in.facts)
    for (const auto* d : in.facts->pci.of_kind(probe::PciKind::kGpu))
      if (const Entry* e = catalog::gpu_by_pci_id(cat, d->vendor, d->device); e && e->text("form_factor") == "sxm")
        return true;
  return false;
}

// NVLinks down on each GPU, a phrase per GPU ("GPU0: links 3, 7"), from nvidia-smi nvlink --status
// when captured, else from NVML's link state; `where` says which.
std::vector<Phrase> inactive_links(const DiagnoseInputs& in, Phrase& where) {
  std::vector<Phrase> out;
  auto add = [&](unsigned gpu, const std::vector<size_t>& down) {
    if (!down.empty())
      out.push_back(Phrase("diagnose.nvlink_down")
                        .fact("gpu", fmt::format("GPU{}", gpu))
                        .fact("links", fmt::format("{}", fmt::join(down, ", "))));
  };
  if (in.nvlink) {
    where = Phrase("diagnose.from_nvlink_status");
    for (const auto& g : in.nvlink->gpus) {
      // "all links are inActive": nvidia-smi lists no link, for none is up.
      if (g.links_gbs.empty())
        out.push_back(Phrase("diagnose.nvlink_all_down").fact("gpu", fmt::format("GPU{}", g.index)));
      std::vector<size_t> down;
      for (size_t i = 0; i < g.links_gbs.size(); ++i)
        if (!g.links_gbs[i]) down.push_back(i);
      add(static_cast<unsigned>(g.index), down);
    }
  } else if (in.nvml) {
    where = Phrase("diagnose.from_nvml_nvlink");
    for (const auto& g : in.nvml->gpus) {
      std::vector<size_t> down;
      for (size_t i = 0; i < g.now.nvlink_active.size(); ++i)
        if (!g.now.nvlink_active[i]) down.push_back(i);
      add(g.info.index, down);
    }
  }
  return out;
}

// GPU pairs connected over PCIe ("GPU0–GPU2 PHB"), from topo -m, else NVML's topology of pairs
// where either GPU has no active NVLink; `where` says which.
std::vector<std::string> pcie_pairs(const DiagnoseInputs& in, Phrase& where) {
  std::vector<std::string> pairs;
  if (in.topo) {
    where = Phrase("diagnose.from_topo");
    for (const auto& [pair, link] : in.topo->link)
      if (pair.first < pair.second && !probe::GpuTopology::is_nvlink(link))
        pairs.push_back(fmt::format("{}–{} {}", pair.first, pair.second, link));
  } else if (in.nvml) {
    where = Phrase("diagnose.from_nvml_topology");
    auto no_nvlink = [&](unsigned i) {
      for (const auto& g : in.nvml->gpus)
        if (g.info.index == i)
          return std::none_of(g.now.nvlink_active.begin(), g.now.nvlink_active.end(), [](bool b) { return b; });
      return true;
    };
    for (const auto& [pair, level] : in.nvml->topology)
      if (level >= kTopologyHostBridge && (no_nvlink(pair.first) || no_nvlink(pair.second)))
        pairs.push_back(fmt::format("GPU{}–GPU{} {}", pair.first, pair.second, topology_level_name(level)));
  }
  return pairs;
}

void check_p2p(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  const char* source = "S0 §4.3; corrections; nvidia-a100-datasheet";
  if (!sxm_board(in, cat)) return;
  // Every NVLink of an SXM module is wired (to the NVSwitches on HGX A100): one down is a fault.
  Phrase where;
  if (auto down = inactive_links(in, where); !down.empty()) {
    Finding f = make_finding("diagnose.p2p", Severity::kFail, "nvlink_inactive", source);
    f.fact("gpus", std::to_string(down.size())).fact("links", down).fact("where", std::vector<Phrase>{where});
    out.push_back(f);
  }
  if (auto pairs = pcie_pairs(in, where); !pairs.empty()) {
    Finding f = make_finding("diagnose.p2p", Severity::kWarn, "pcie_pairs", source);
    f.fact("count", std::to_string(pairs.size()))
        .fact(list_of("pairs", {pairs.begin(), pairs.end()}))
        .fact("where", std::vector<Phrase>{where});
    out.push_back(f);
  }
}

// H6 --------------------------------------------------------------------------------------------
void check_used_card(const DiagnoseInputs& in, const Catalog& cat, std::vector<Finding>& out) {
  if (!in.nvml) return;
  const char* source = "S0 §4.4";
  std::vector<std::string> missing;
  std::map<std::string, std::vector<std::string>> by_serial;
  for (const auto& g : in.nvml->gpus) {
    if (!g.info.serial || g.info.serial->find_first_not_of(" \t0") == std::string::npos)
      missing.push_back(gpu_label(g));
    else
      by_serial[*g.info.serial].push_back(gpu_label(g));
  }
  if (!missing.empty()) {
    Finding f = make_finding("diagnose.used_card", Severity::kWarn, "serial_missing", source);
    f.fact(list_of("gpus", {missing.begin(), missing.end()}));
    out.push_back(f);
  }
  for (const auto& [serial, gpus] : by_serial) {
    if (gpus.size() < 2) continue;
    Finding f = make_finding("diagnose.used_card", Severity::kWarn, "serial_duplicate", source);
    f.fact("serial", serial).fact(list_of("gpus", {gpus.begin(), gpus.end()}));
    out.push_back(f);
  }
  for (const auto& g : in.nvml->gpus) {
    const std::map<std::string, std::optional<std::string>> fields = {
        {"name", g.info.name}, {"board_part_number", g.info.board_part_number}, {"vbios", g.info.vbios}};
    for (const Entry* m : cat.of_kind("board_marker")) {
      const auto& value = fields.at(m->text("field"));
      if (!value || lower(*value).find(lower(m->text("contains"))) == std::string::npos) continue;
      Finding f = make_finding("diagnose.used_card", Severity::kWarn, "engineering_sample", source);
      f.fact("gpu", gpu_label(g))
          .fact("field", m->text("field"))
          .fact("value", *value)
          .fact("meaning", m->text("meaning"), m->text_zh("meaning"))
          .fact("marker", m->id);
      out.push_back(f);
    }
    const auto& d = g.now;
    // In 64 bits: two unsigned counts near UINT_MAX would wrap to a small sum (or 0, hiding them).
    uint64_t retired = uint64_t{d.retired_pages_sbe.value_or(0)} + d.retired_pages_dbe.value_or(0);
    uint64_t remapped = uint64_t{d.remapped_rows_correctable.value_or(0)} + d.remapped_rows_uncorrectable.value_or(0);
    if (retired + remapped == 0) continue;
    Finding f = make_finding("diagnose.used_card", Severity::kWarn, "repaired_memory", source);
    f.fact("gpu", gpu_label(g))
        .fact("retired", std::to_string(retired))
        .fact("remapped", std::to_string(remapped))
        .fact(g.info.serial ? Fact{"serial", *g.info.serial, std::nullopt, {}, {}}
                            : Fact{"serial", {}, std::nullopt, {Phrase("diagnose.no_serial")}, {}});
    out.push_back(f);
  }
}

using Rule = void (*)(const DiagnoseInputs&, const Catalog&, std::vector<Finding>&);

// SPEC §H1–H6, in order.
const Rule kRules[] = {check_thermal, check_pcie_link, check_input_bound, check_memory, check_p2p, check_used_card};

}  // namespace

std::vector<Finding> diagnose(const DiagnoseInputs& in, const catalog::Catalog& catalog) {
  std::vector<Finding> out;
  for (Rule rule : kRules) rule(in, catalog, out);
  return out;
}

}  // namespace gpuplan::diagnose
