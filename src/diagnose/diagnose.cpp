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
#include "diagnose/hypotheses.h"
#include "diagnose/series.h"

namespace gpuplan::diagnose {
namespace {

using catalog::Catalog;
using catalog::Entry;
using detail::gpu_label;

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
const Rule kRules[] = {detail::check_thermal, check_pcie_link, detail::check_input_bound,
                       detail::check_memory,  check_p2p,       check_used_card};

}  // namespace

bool examined_anything(const DiagnoseInputs& in) {
  const bool pci_gpu = in.facts && std::any_of(in.facts->pci.devices.begin(), in.facts->pci.devices.end(),
                                                [](const probe::PciDevice& d) { return d.kind == probe::PciKind::kGpu; });
  return !in.samples.empty() || !in.smi_tables.empty() || (in.nvml && !in.nvml->gpus.empty()) || in.topo ||
         in.nvlink || pci_gpu;
}

std::vector<Finding> diagnose(const DiagnoseInputs& in, const catalog::Catalog& catalog) {
  std::vector<Finding> out;
  for (Rule rule : kRules) rule(in, catalog, out);
  return out;
}

}  // namespace gpuplan::diagnose
