// The PCIe checks of acceptance: pcie.topology (G2: every GPU's link and every hop above it
// carry what the GPU can do, no switch uplink shared below the GPUs' sum), pcie.aer (G3: no AER
// error in sysfs counters or the kernel log), pcie.aspm (G7: link power saving off) and iommu
// (G8: DMA translated, each GPU alone in its IOMMU group), from the host facts, NVML and the
// kernel log.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "accept/attachment_helpers.h"
#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "catalog/gpu_ids.h"
#include "core/pci_address.h"
#include "core/text.h"

namespace gpuplan::accept::detail {

namespace {

// Bus and device without the function: the GPU's audio or USB functions share it.
std::string bus_device(std::string_view a) {
  std::string s = pci_address_key(a);
  size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(0, dot);
}

const nvml::GpuFacts* nvml_gpu_at(const AcceptInputs& in, std::string_view address) {
  if (!in.nvml) return nullptr;
  for (const auto& g : in.nvml->gpus)
    if (pci_address_key(g.info.pci_bus_id) == pci_address_key(address)) return &g;
  return nullptr;
}

}  // namespace

// G2 --------------------------------------------------------------------------------------------
namespace {

struct LinkFigures {
  int gen = 0, width = 0;
  double gbs = 0;
  bool known = false;
};
LinkFigures figures(const probe::PciLink& l) {
  LinkFigures f;
  if (auto g = l.generation()) f.gen = *g;
  if (l.width) f.width = *l.width;
  if (auto b = l.gbytes_per_s()) f.gbs = *b;
  f.known = f.gen > 0 && f.width > 0;
  return f;
}

// What a GPU's link can carry under load: its max link, or its current one when the max is not
// exposed.
const probe::PciLink& capability_link(const PciDevice& d) {
  return figures(d.max).known ? d.max : d.current;
}
LinkFigures capability(const PciDevice& d) {
  return figures(capability_link(d));
}

std::string hex4(uint16_t v) {
  return fmt::format("{:04x}", v);
}

// The catalog entry of a switch an HGX-style board is designed around, if this bridge is one.
const Entry* designed_switch(const PciDevice& d, const Catalog& cat) {
  for (const Entry* e : cat.of_kind("pcie_switch")) {
    auto id = [](std::string s) {
      s = lower(std::move(s));
      if (s.rfind("0x", 0) == 0) s = s.substr(2);
      while (s.size() < 4) s = "0" + s;
      return s;
    };
    if (id(e->text("vendor_id")) == hex4(d.vendor) && id(e->text("device_id")) == hex4(d.device)) return e;
  }
  return nullptr;
}

// The path from a GPU up to its root port, one phrase a hop, read "0000:05:00.0 (Gen3 x16) ←
// 0000:04:08.0 ← 0000:03:00.0 uplink Gen3 x8 ← root 0000:00:01.1".
Fact path_of(const PciDevice& gpu, const probe::PciTopology& pci, std::string_view slow_hop) {
  std::vector<Phrase> hops = {
      phrase("accept.pcie.hop_gpu").fact("address", gpu.address).fact("link", gpu.current.str())};
  for (const auto& addr : gpu.upstream) {
    const PciDevice* b = pci.find(addr);
    const bool root = b && b->root_port;
    Phrase hop = phrase(root ? "accept.pcie.hop_root" : "accept.pcie.hop");
    hop.fact("address", addr);
    if (addr == slow_hop && b)
      hop = phrase(root ? "accept.pcie.hop_root_uplink" : "accept.pcie.hop_uplink")
                .fact("address", addr)
                .fact("link", b->current.str());
    hops.push_back(std::move(hop));
  }
  return Fact{"path", {}, std::nullopt, std::move(hops), " ← "};
}

// The form factor ("sxm", "pcie") the catalog gives this function's vendor:device; "" when no gpu
// entry lists it.
std::string form_factor(const PciDevice& d, const Catalog& cat) {
  const Entry* e = catalog::gpu_by_pci_id(cat, d.vendor, d.device);
  return e ? e->text("form_factor") : "";
}

// What the host shows of an NVLink/NVSwitch fabric joining its GPUs: NVSwitch functions on the
// PCI bus, NVLinks NVML reports active, NV# pairs in `nvidia-smi topo -m`. One phrase per source
// that shows it; none when nothing does.
std::vector<Phrase> fabric_seen(const AcceptInputs& in) {
  std::vector<Phrase> seen;
  if (size_t n = in.facts->pci.of_kind(PciKind::kNvSwitch).size())
    seen.push_back(phrase("accept.ev.fabric_nvswitch").fact("count", std::to_string(n)));
  if (in.nvml) {
    size_t gpus = 0, links = 0;
    for (const auto& g : in.nvml->gpus) {
      auto active = std::count(g.now.nvlink_active.begin(), g.now.nvlink_active.end(), true);
      links += static_cast<size_t>(active);
      gpus += active > 0;
    }
    if (links)
      seen.push_back(
          phrase("accept.ev.fabric_nvml").fact("gpus", std::to_string(gpus)).fact("links", std::to_string(links)));
  }
  if (in.topo) {
    std::set<std::pair<std::string, std::string>> pairs;
    for (const auto& [pair, link] : in.topo->link)
      if (probe::GpuTopology::is_nvlink(link)) pairs.insert(std::minmax(pair.first, pair.second));
    if (!pairs.empty()) seen.push_back(phrase("accept.ev.fabric_topo").fact("pairs", std::to_string(pairs.size())));
  }
  return seen;
}

// What GPUs sharing a switch uplink say of the board. PCIe cards: a slot behind a switch, never a
// design (the seeds' PLX rule [S1 §5 #2]). A design: SXM modules (they ship only on NVLink
// baseboards, whose GPU-to-GPU traffic bypasses PCIe), or GPUs the catalog cannot place on a host
// that shows an NVLink/NVSwitch fabric. Unknown: GPUs the catalog cannot place, no fabric seen.
enum class Board { kPcieCards, kDesign, kUnknown };
Board board_of(const std::vector<const PciDevice*>& gpus, const Catalog& cat, bool fabric) {
  bool all_sxm = true;
  for (const PciDevice* d : gpus) {
    const std::string form = form_factor(*d, cat);
    if (form == "pcie") return Board::kPcieCards;
    all_sxm = all_sxm && form == "sxm";
  }
  return all_sxm || fabric ? Board::kDesign : Board::kUnknown;
}

// A switch's upstream port (odd depth below a root port: root, upstream, downstream, upstream…)
// carries every GPU below it; less bandwidth than their sum shares the uplink. A switch the catalog
// lists (kind pcie_switch) above GPUs that are not PCIe cards is noted in `designed`; an unlisted
// one on a board whose design it is (board_of) warns `c`, naming its id for the catalog. PCIe
// cards sharing an uplink, and GPUs the catalog cannot place behind an unlisted switch with no
// fabric in sight, fail `c`.
void judge_shared_uplinks(const AcceptInputs& in, const Catalog& cat, Finding& c, std::vector<Phrase>& problems,
                          std::vector<Phrase>& designed) {
  const probe::PciTopology& pci = in.facts->pci;
  const std::vector<Phrase> fabric = fabric_seen(in);
  bool fabric_noted = false;
  // (vendor, device) of an unlisted switch → its shared uplinks: one note a part, however many
  // of it the board carries.
  std::map<std::pair<std::string, std::string>, std::vector<Phrase>> unlisted;
  for (const PciDevice& b : pci.devices) {
    if (b.kind != PciKind::kBridge || b.root_port || b.upstream.size() % 2 == 0) continue;
    std::vector<const PciDevice*> below;
    for (const PciDevice* d : pci.below(b.address))
      if (d->kind == PciKind::kGpu) below.push_back(d);
    if (below.size() < 2) continue;
    LinkFigures up = figures(b.current);
    if (!up.known) continue;
    // Demand is what the GPUs can draw under load (their max links): idle GPUs trained down to
    // Gen1 would hide a shared uplink that halves their bandwidth once the job starts.
    double sum = 0;
    std::set<std::string> links;
    for (const PciDevice* d : below) {
      sum += capability(*d).gbs;
      links.insert(capability_link(*d).str());
    }
    if (up.gbs + 1e-9 >= sum) continue;
    Phrase who =
        links.size() == 1
            ? phrase("accept.pcie.gpus_alike").fact("count", std::to_string(below.size())).fact("link", *links.begin())
            : phrase("accept.pcie.gpus_mixed")
                  .fact("count", std::to_string(below.size()))
                  .fact(list_of("links", {links.begin(), links.end()}));
    const Entry* e = designed_switch(b, cat);
    const Board board = board_of(below, cat, !fabric.empty());
    // A listed switch above GPUs the catalog cannot place stays accepted: the list is the
    // evidence then. PCIe cards behind it are not.
    if (e && board != Board::kPcieCards) {
      designed.push_back(phrase("accept.pcie.designed")
                             .fact("who", {who})
                             .fact("address", b.address)
                             .fact("switch", e->name, e->display_name_zh())
                             .fact("designed_for", e->text("designed_for"), e->text_zh("designed_for"))
                             .fact("uplink", b.current.str())
                             .fact("id", e->id));
    } else if (board == Board::kDesign) {
      escalate(c.severity, Severity::kWarn);
      unlisted[{hex4(b.vendor), hex4(b.device)}].push_back(phrase("accept.pcie.uplink_shared")
                                                              .fact("who", {who})
                                                              .fact("uplink", b.current.str())
                                                              .fact("address", b.address));
    } else {
      const double share = up.gbs / sum;
      Phrase effect = std::abs(share - 0.5) < 0.01 ? phrase("accept.pcie.halves")
                                                   : phrase("accept.pcie.leaves").fact("share", num(share * 100) + "%");
      escalate(c.severity, Severity::kFail);
      problems.push_back(phrase("accept.pcie.shared")
                             .fact("who", {who})
                             .fact("uplink", b.current.str())
                             .fact("address", b.address)
                             .fact("vendor", hex4(b.vendor))
                             .fact("device", hex4(b.device))
                             .fact("effect", {effect}));
      continue;
    }
    // What the board-design verdict rested on, once.
    if (!fabric_noted) c.evidence.insert(c.evidence.end(), fabric.begin(), fabric.end());
    fabric_noted = true;
  }
  for (auto& [id, uplinks] : unlisted)
    problems.push_back(
        phrase("accept.pcie.unlisted_switch")
            .fact("uplinks", std::move(uplinks))
            .fact("vendor", id.first)
            .fact("device", id.second)
            .fact("fabric", fabric.empty() ? std::vector<Phrase>{phrase("accept.pcie.sxm_only")} : fabric));
}

}  // namespace

namespace {

// An attached `lspci -vvv`: each NVIDIA GPU's LnkSta against its LnkCap (a block cut above its
// header is judged too, as a device lspci did not name). Fewer lanes than the card has fail a
// GPU; a lower speed alone warns, since an idle GPU trains its speed down (a capture under load
// settles it); an unnamed device never fails. A capture that shows no GPU link says so.
void judge_lspci_links(const AcceptInputs& in, Finding& c) {
  for (const Attachment* a : attachments_for(in, "pcie.topology")) {
    if (!a->lspci) continue;
    bool read = false;
    c.evidence.push_back(
        phrase("accept.ev.attached_read").fact("file", attachment_label(*a)).fact(list_of("forms", {"lspci -vvv"})));
    for (const probe::LspciDevice& d : *a->lspci) {
      const bool named_gpu = d.nvidia_gpu();
      if ((!named_gpu && !d.address.empty()) || d.status_line == 0) continue;
      read = true;
      const std::string device = d.address.empty() ? "?" : d.address;
      c.evidence.push_back(phrase("accept.ev.lspci_link")
                               .fact("file", a->file)
                               .fact("line", std::to_string(d.status_line))
                               .fact("device", device)
                               .fact("status", d.status.str())
                               .fact("capability", d.capability.str()));
      // The figures where both links are shown, else lspci's own "(downgraded)".
      const LinkFigures sta = figures(d.status), cap = figures(d.capability);
      const bool both = sta.known && cap.known;
      const bool narrow = both ? sta.width < cap.width : d.width_downgraded;
      const bool slow = both ? sta.gen < cap.gen : d.speed_downgraded;
      const char* key = !narrow && !slow ? ""
                        : !both          ? "accept.pcie.lspci_marked"
                        : narrow         ? "accept.pcie.lspci_narrow"
                                         : "accept.pcie.lspci_slow";
      if (!*key) continue;
      escalate(c.severity, narrow && named_gpu ? Severity::kFail : Severity::kWarn);
      c.note(phrase(key)
                 .fact("file", a->file)
                 .fact("line", std::to_string(d.status_line))
                 .fact("device", named_gpu ? device : "?")
                 .fact("status", d.status.str())
                 .fact("capability", d.capability.str()));
      if (!named_gpu) c.note(phrase("accept.pcie.lspci_unnamed").fact("file", a->file));
    }
    if (!read) c.note(phrase("accept.pcie.lspci_no_gpu").fact("file", a->file));
  }
}

// "RxErr BadTLP", or "-" for none.
std::string bit_list(const std::vector<std::string>& bits) {
  return bits.empty() ? "-" : fmt::format("{}", fmt::join(bits, " "));
}

// An attached `lspci -vvv`'s AER status registers: bits set since the device was last reset.
// An uncorrectable bit on a GPU fails (UnsupReq alone warns: probing software sets it); on another
// device, or a correctable bit anywhere, warns. Returns whether an AER register was read.
bool judge_lspci_aer(const AcceptInputs& in, Finding& c, size_t& uncorrected, size_t& corrected,
                     std::vector<Phrase>& ev) {
  bool read = false;
  for (const Attachment* a : attachments_for(in, "pcie.aer")) {
    if (!a->lspci) continue;
    read = true;
    for (const probe::LspciDevice& d : *a->lspci) {
      if (d.uncorrectable.empty() && d.correctable.empty()) continue;
      const bool only_unsupported = d.uncorrectable.size() == 1 && d.uncorrectable[0] == "UnsupReq";
      const bool bad = !d.uncorrectable.empty() && d.nvidia_gpu() && !only_unsupported;
      ev.push_back(phrase("accept.ev.lspci_aer")
                       .fact("file", a->file)
                       .fact("line", std::to_string(d.aer_line))
                       .fact("device", d.address.empty() ? "?" : d.address)
                       .fact("uncorrectable", bit_list(d.uncorrectable))
                       .fact("correctable", bit_list(d.correctable)));
      escalate(c.severity, bad ? Severity::kFail : Severity::kWarn);
      ++(d.uncorrectable.empty() ? corrected : uncorrected);
    }
  }
  return read;
}

}  // namespace

void check_pcie_topology(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  if (!in.facts) {
    // Without the host's sysfs the path to the root port is not known: lspci's links are judged,
    // and only a fault they show decides the check.
    judge_lspci_links(in, c);
    if (c.severity != Severity::kFail) c.severity = Severity::kNeedsEvidence;
    c.note(phrase("accept.needs.host_facts").fact("why", {in.facts_error}));
    return;
  }
  const probe::PciTopology& pci = in.facts->pci;
  const int min_gen = static_cast<int>(cat.threshold("accept.pcie.min_gen"));
  const int min_width = static_cast<int>(cat.threshold("accept.pcie.min_width"));
  auto gpus = pci_gpus(in);
  if (gpus.empty()) {
    c.severity = Severity::kFail;
    c.note(phrase("accept.pcie.no_gpu"));
    return;
  }
  c.severity = Severity::kPass;
  std::vector<Phrase> problems, designed;
  for (const PciDevice* g : gpus) {
    // Slot → root port → NUMA node: the map the acceptance article asks to record.
    c.evidence.push_back(phrase(g->upstream.empty() ? "accept.ev.pcie_map_no_root" : "accept.ev.pcie_map")
                             .fact("address", g->address)
                             .fact("link", g->current.str())
                             .fact("root", g->upstream.empty() ? "" : g->upstream.back())
                             .fact("numa", g->numa_node ? std::to_string(*g->numa_node) : "?")
                             .fact("path", g->sysfs_path));
    LinkFigures cur = figures(g->current), max = figures(g->max);
    if (!cur.known) {
      escalate(c.severity, Severity::kWarn);
      problems.push_back(phrase("accept.pcie.link_unknown").fact("address", g->address));
      continue;
    }
    bool below_min = cur.gen < min_gen || cur.width < min_width;
    bool below_max = max.known && (cur.gen < max.gen || cur.width < max.width);
    if (below_min || below_max) {
      // An idle A100 trains its link down to save power; width does not change, speed does.
      const nvml::GpuFacts* n = nvml_gpu_at(in, g->address);
      bool idle_speed_only =
          cur.width >= std::max(min_width, max.width) && n && n->now.utilization_pct && *n->now.utilization_pct == 0;
      escalate(c.severity, idle_speed_only ? Severity::kWarn : Severity::kFail);
      std::vector<Phrase> below;
      if (below_min)
        below.push_back(phrase("accept.pcie.below_min")
                            .fact("gen", std::to_string(min_gen))
                            .fact("width", std::to_string(min_width)));
      if (below_max) below.push_back(phrase("accept.pcie.below_max").fact("max", g->max.str()));
      problems.push_back(phrase(idle_speed_only ? "accept.pcie.trained_low_idle" : "accept.pcie.trained_low")
                             .fact("address", g->address)
                             .fact("link", g->current.str())
                             .fact("below", below));
    }
    // Every hop above the GPU must carry what the GPU can do under load: its capability (max
    // link), not its current link, which an idle GPU trains down (to Gen1 on an A100). The first
    // hop is the port at the other end of the GPU's own link and trains down with it: it is
    // held to the GPU's current link, the idle case being judged above.
    const LinkFigures cap = capability(*g);
    for (size_t i = 0; i < g->upstream.size(); ++i) {
      const std::string& addr = g->upstream[i];
      const PciDevice* b = pci.find(addr);
      if (!b) continue;
      LinkFigures hop = figures(b->current);
      if (!hop.known) continue;
      const LinkFigures& need = i == 0 ? cur : cap;
      if (hop.gen < need.gen || hop.width < need.width) {
        escalate(c.severity, Severity::kFail);
        Phrase slower = phrase("accept.pcie.slower_hop");
        slower.facts.push_back(path_of(*g, pci, addr));
        problems.push_back(std::move(slower));
        break;
      }
    }
  }
  judge_shared_uplinks(in, cat, c, problems, designed);
  judge_lspci_links(in, c);
  if (problems.empty())
    problems.push_back(phrase("accept.pcie.ok")
                           .fact("gpus", std::to_string(gpus.size()))
                           .fact("gen", std::to_string(min_gen))
                           .fact("width", std::to_string(min_width)));
  for (auto& p : problems) c.note(std::move(p));
  for (auto& p : designed) c.note(std::move(p));
}

// G3 --------------------------------------------------------------------------------------------
void check_pcie_aer(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  bool sysfs = false;
  size_t uncorrected = 0, corrected = 0;
  std::vector<Phrase> ev;
  c.severity = Severity::kPass;
  if (in.facts) {
    for (const PciDevice& d : in.facts->pci.devices) {
      if (!d.aer) continue;
      sysfs = true;
      const auto& a = *d.aer;
      if (a.fatal == 0 && a.nonfatal == 0 && a.correctable == 0) continue;
      ev.push_back(phrase("accept.ev.aer_counters")
                       .fact("address", d.address)
                       .fact("kind", probe::pci_kind_name(d.kind))
                       .fact("fatal", std::to_string(a.fatal))
                       .fact("nonfatal", std::to_string(a.nonfatal))
                       .fact("correctable", std::to_string(a.correctable)));
      const bool bad = a.fatal > 0 || a.nonfatal > 0;
      escalate(c.severity, bad ? Severity::kFail : Severity::kWarn);
      ++(bad ? uncorrected : corrected);
    }
  }
  int events = 0;
  if (in.kernel_log) {
    for (const auto& e : in.kernel_log->events) {
      if (e.kind != probe::KernelEventKind::kAer) continue;
      ++events;
      bool bad = e.severity.rfind("Uncorrected", 0) == 0 ||
                 (e.severity.empty() &&
                  (e.text.find("Uncorrect") != std::string::npos || e.text.find("Fatal") != std::string::npos));
      ev.push_back(quoted_line(e.source.empty() ? log_name(in) : e.source, e.line,
                               (e.device.empty() ? "" : e.device + ": ") + e.text));
      escalate(c.severity, bad ? Severity::kFail : Severity::kWarn);
      ++(bad ? uncorrected : corrected);
    }
    // Firmware-first platforms report PCIe errors through APEI GHES instead of the kernel's AER
    // driver: "fatal" and "recoverable" are uncorrected errors, "corrected" corrected ones.
    for (const auto& e : in.kernel_log->events) {
      if (e.kind != probe::KernelEventKind::kGhes || e.section.find("PCIe") == std::string::npos) continue;
      ++events;
      const bool bad = e.severity == "fatal" || e.severity == "recoverable";
      ev.push_back(phrase("accept.ev.ghes")
                       .fact("log", e.source.empty() ? log_name(in) : e.source)
                       .fact("line", std::to_string(e.line))
                       .fact("device", e.device.empty() ? "?" : e.device)
                       .fact("severity", e.severity.empty() ? "?" : e.severity)
                       .fact("section", e.section));
      escalate(c.severity, bad ? Severity::kFail : Severity::kWarn);
      ++(bad ? uncorrected : corrected);
    }
  }
  const bool lspci = judge_lspci_aer(in, c, uncorrected, corrected, ev);
  if (!sysfs && !in.kernel_log && !lspci) return needs(c, phrase("accept.needs.aer_input"));
  add_capped(c.evidence, ev);
  std::vector<Phrase> sources;
  if (sysfs || in.kernel_log)
    sources.push_back(sysfs && in.kernel_log ? phrase("accept.aer.from_both").fact("log", log_name(in))
                      : sysfs                ? phrase("accept.aer.from_sysfs")
                                             : phrase("accept.aer.from_log").fact("log", log_name(in)));
  for (const Attachment* a : attachments_for(in, "pcie.aer"))
    if (a->lspci) sources.push_back(phrase("accept.aer.from_lspci").fact("file", a->file));
  std::vector<Phrase> counts;
  if (uncorrected) counts.push_back(phrase("accept.aer.uncorrected").fact("count", std::to_string(uncorrected)));
  if (corrected) counts.push_back(phrase("accept.aer.corrected").fact("count", std::to_string(corrected)));
  if (counts.empty())
    c.note(phrase("accept.aer.none").fact("sources", sources).fact("events", std::to_string(events)));
  else
    c.note(phrase("accept.aer.found").fact("counts", counts).fact("sources", sources));
  judge_kernel_log(in, cat, c);
}

// G7 --------------------------------------------------------------------------------------------
void check_pcie_aspm(const AcceptInputs& in, const Catalog&, Finding& c) {
  if (!in.facts) return needs(c, phrase("accept.needs.host_facts").fact("why", {in.facts_error}));
  const std::string policy = in.facts->aspm_policy.value_or("");
  if (!policy.empty()) c.evidence.push_back(phrase("accept.ev.aspm_policy").fact("policy", policy));
  std::vector<std::string> on;
  bool all_exposed = true;
  auto gpus = pci_gpus(in);
  for (const PciDevice* g : gpus) {
    if (!g->aspm) {
      all_exposed = false;
      continue;
    }
    c.evidence.push_back(phrase(g->aspm->empty() ? "accept.ev.aspm_off" : "accept.ev.aspm_on")
                             .fact("address", g->address)
                             .fact("states", *g->aspm));
    if (!g->aspm->empty()) on.push_back(g->address + " (" + *g->aspm + ")");
  }
  if (!on.empty()) {
    c.severity = Severity::kFail;
    c.note(phrase("accept.aspm.on").fact(list_of("links", {on.begin(), on.end()})));
  } else if (policy == "powersave" || policy == "powersupersave") {
    c.severity = Severity::kFail;
    c.note(phrase("accept.aspm.powersave").fact("policy", policy));
  } else if (policy == "performance") {
    c.severity = Severity::kPass;
    c.note(phrase("accept.aspm.performance"));
  } else if (all_exposed && !gpus.empty()) {
    c.severity = Severity::kPass;
    c.note(phrase("accept.aspm.off").fact("gpus", std::to_string(gpus.size())));
  } else if (policy.empty() && gpus.empty()) {
    needs(c, phrase("accept.aspm.unexposed"));
  } else {
    c.severity = Severity::kWarn;
    c.note(policy.empty() ? phrase("accept.aspm.bios_unknown") : phrase("accept.aspm.bios").fact("policy", policy));
  }
}

// G8 --------------------------------------------------------------------------------------------
void check_iommu(const AcceptInputs& in, const Catalog&, Finding& c) {
  if (!in.facts && !in.kernel_log) return needs(c, phrase("accept.needs.iommu_input"));
  // On means the IOMMU translates DMA now: IOMMU groups exist, or the kernel said it enabled
  // one. intel_iommu=on / amd_iommu=on only asks for it (a BIOS with VT-d/AMD-Vi off ignores the
  // request), so the command line is evidence, never proof.
  std::vector<Phrase> why_on;
  std::vector<std::string> asked;
  if (in.kernel_log)
    for (const auto& e : in.kernel_log->events)
      if (e.kind == probe::KernelEventKind::kIommuEnabled) {
        why_on.push_back(quoted_line(e.source.empty() ? log_name(in) : e.source, e.line, e.text));
        break;
      }
  if (in.facts) {
    if (!in.facts->iommu_groups.empty())
      why_on.push_back(phrase("accept.ev.iommu_groups").fact("count", std::to_string(in.facts->iommu_groups.size())));
    for (const char* flag : {"intel_iommu=on", "amd_iommu=on"})
      if (in.facts->kernel_cmdline.find(flag) != std::string::npos) asked.push_back(flag);
  }
  c.evidence = why_on;
  for (const auto& flag : asked) c.evidence.push_back(phrase("accept.ev.iommu_asked").fact("flag", flag));
  if (why_on.empty() && !(in.facts && in.facts->iommu_groups_dir)) {
    // No sysfs to look at and no log line: a kernel log excerpt rarely reaches back to boot,
    // where the IOMMU announces itself, so its silence proves nothing.
    return needs(c, phrase("accept.needs.iommu_groups"));
  }
  if (why_on.empty()) {
    c.severity = Severity::kFail;
    c.note(asked.empty()
               ? phrase("accept.iommu.off")
               : phrase("accept.iommu.asked_not_active").fact(list_of("flags", {asked.begin(), asked.end()})));
    return;
  }
  c.severity = Severity::kPass;
  std::vector<std::string> unknown;
  std::vector<Phrase> shared;
  auto gpus = pci_gpus(in);
  for (const PciDevice* g : gpus) {
    std::optional<int> group = g->iommu_group;
    if (!group && in.facts)
      for (const auto& [id, members] : in.facts->iommu_groups)
        if (std::find(members.begin(), members.end(), g->address) != members.end()) group = id;
    if (!group || !in.facts->iommu_groups.count(*group)) {
      unknown.push_back(g->address);
      continue;
    }
    const auto& members = in.facts->iommu_groups.at(*group);
    std::vector<std::string> others;
    for (const auto& m : members)
      if (bus_device(m) != bus_device(g->address)) others.push_back(m);
    c.evidence.push_back(phrase("accept.ev.iommu_group")
                             .fact("address", g->address)
                             .fact("group", std::to_string(*group))
                             .fact(list_of("members", {members.begin(), members.end()})));
    if (!others.empty())
      shared.push_back(phrase("accept.iommu.shared")
                           .fact("address", g->address)
                           .fact("group", std::to_string(*group))
                           .fact(list_of("others", {others.begin(), others.end()})));
  }
  if (!shared.empty()) {
    c.severity = Severity::kFail;
    for (auto& p : shared) c.note(std::move(p));
    c.note(phrase("accept.iommu.not_alone"));
  } else if (!unknown.empty()) {
    c.severity = Severity::kWarn;
    c.note(phrase("accept.iommu.group_unknown").fact(list_of("gpus", {unknown.begin(), unknown.end()})));
  } else {
    c.note(phrase("accept.iommu.ok").fact("gpus", std::to_string(gpus.size())));
  }
}

}  // namespace gpuplan::accept::detail
