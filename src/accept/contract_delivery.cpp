// contract.delivery (`accept --contract`): the delivered server against the quote it was bought
// on, line by line. Each quote line whose part is a catalog gpu, cpu, memory, disk or nic entry
// is one comparison, a note that names the contract's line (the item as written, its quantity,
// file:line) beside what the host showed, with the sysfs/procfs paths and values in the
// evidence; the rack term is one more, against the soak log's peak power (a note only when there
// is no soak log or no rack term: other checks flag those). Platform, support and
// licence lines are not hardware to count and say nothing.
//
// Verdict per line: a part below the contract (fewer, smaller, slower, another model the
// catalog ranks lower) fails; a better or extra part warns (a person confirms the change was
// agreed); what the host did not show is needs-evidence naming what would settle it. The check
// is the worst of its lines.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "accept/attachment_helpers.h"
#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "catalog/gpu_ids.h"
#include "core/text.h"
#include "plan/contract_audit.h"

namespace gpuplan::accept::detail {
namespace {

using plan::VendorLine;
using plan::VendorQuote;

// Whitespace runs as one space, trimmed: /proc/cpuinfo pads some brand strings.
std::string squeeze(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += ch;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A raw value the host did not give: shown as "?" in every language.
std::string or_unknown(const std::string& s) {
  return s.empty() ? "?" : s;
}

// One contract line's comparison: what it says, what was found, and the verdict.
// The host is one server: a line is judged against its share, qty ÷ the servers the quote prices
// (plan::quoted_server_power, as the audit divides). A share that is not whole, or a shortfall
// when no platform line says how many servers the quote buys, warns: the evidence cannot tell.
class LineJudge {
 public:
  LineJudge(const VendorQuote& quote, const plan::QuotedPower& servers, Finding& c)
      : quote_(quote), servers_(servers), c_(c) {}

  // Starts a line: its share for this host, and whether that share is whole.
  void begin(const VendorLine& l) {
    short_ = false;
    uneven_ = std::fmod(l.qty, servers_.servers) != 0;
  }
  double want(const VendorLine& l) const { return l.qty / servers_.servers; }
  // Records whether the host shows fewer parts of the line's kind than its share, whatever the model.
  void shortfall(bool fewer) { short_ = fewer; }
  // Whether a fail the line's count gives stands (say() applies the same rule).
  bool fail_stands() const { return !uneven_ && !(short_ && !servers_.platform_priced); }

  Phrase line(const VendorLine& l) const {
    Phrase p = phrase(servers_.servers == 1 ? "accept.delivery.line" : "accept.delivery.line_share")
                   .fact("item", l.item)
                   .fact("qty", num(l.qty))
                   .fact("where", quote_.file + ":" + std::to_string(l.line));
    if (servers_.servers != 1) p.fact("each", num(want(l), uneven_ ? 2 : 0)).fact("servers", num(servers_.servers));
    return p;
  }

  // `key`: accept.delivery.ok (pass), .below (fail), .better (warn), .other (warn), .needs
  // (needs-evidence), .link_slow (warn), .link_down (needs-evidence); an uneven share or a
  // shortfall read against one assumed server turns it into .uneven or .fewer_one_server (warn).
  void say(Severity s, const char* key, const VendorLine& l, std::vector<Phrase> found) {
    if (uneven_ && s != Severity::kNeedsEvidence) {
      s = Severity::kWarn;
      key = "accept.delivery.uneven";
    } else if (s == Severity::kFail && short_ && !servers_.platform_priced) {
      s = Severity::kWarn;
      key = "accept.delivery.fewer_one_server";
    }
    escalate(c_.severity, s);
    c_.note(phrase(key).fact("line", {line(l)}).fact("found", std::move(found)));
  }

  void evidence(Phrase p) { c_.evidence.push_back(std::move(p)); }
  Finding& finding() { return c_; }

 private:
  const VendorQuote& quote_;
  const plan::QuotedPower& servers_;
  Finding& c_;
  bool short_ = false, uneven_ = false;
};

// The verdict key that goes with a severity.
const char* key_of(Severity s) {
  switch (s) {
    case Severity::kFail:
      return "accept.delivery.below";
    case Severity::kWarn:
      return "accept.delivery.better";
    case Severity::kNeedsEvidence:
      return "accept.delivery.needs";
    default:
      return "accept.delivery.ok";
  }
}

// Fewer than the contract fails, more warns.
Severity count_verdict(double got, double want) {
  return got < want ? Severity::kFail : got > want ? Severity::kWarn : Severity::kPass;
}

// GPUs ------------------------------------------------------------------------------------------
// A GPU the catalog ranks at least as high as the contract's: as much memory and compute.
bool at_least(const Entry& got, const Entry& want) {
  return got.number("memory_gb") >= want.number("memory_gb") &&
         got.number("bf16_tflops_dense") >= want.number("bf16_tflops_dense");
}

// A serial NVML reports for more than one GPU fails: each board has its own.
void judge_serials(const AcceptInputs& in, LineJudge& j) {
  if (!in.nvml) return;
  std::map<std::string, std::vector<std::string>> by_serial;
  for (const auto& g : in.nvml->gpus) {
    const bool has_serial = g.info.serial && !g.info.serial->empty();
    j.evidence(phrase(has_serial ? "accept.ev.delivery.serial" : "accept.ev.delivery.no_serial")
                   .fact("gpu", nvml_gpu(g))
                   .fact("name", g.info.name)
                   .fact("serial", g.info.serial.value_or("")));
    if (g.info.serial && !g.info.serial->empty()) by_serial[*g.info.serial].push_back(nvml_gpu(g));
  }
  for (const auto& [serial, gpus] : by_serial) {
    if (gpus.size() < 2) continue;
    escalate(j.finding().severity, Severity::kFail);
    j.finding().note(phrase("accept.delivery.duplicate_serial").fact("serial", serial).fact(list_of("gpus", gpus)));
  }
}

void judge_gpus(const AcceptInputs& in, const Catalog& cat, const VendorLine& l, const Entry& part, LineJudge& j) {
  std::map<std::string, int> found;  // catalog id, or vendor:device the catalog does not know → GPUs
  int matched = 0, better = 0, unknown = 0;
  for (const PciDevice* d : pci_gpus(in)) {
    const Entry* e = catalog::gpu_by_pci_id(cat, d->vendor, d->device);
    const std::string id = catalog::pci_id(d->vendor, d->device);
    j.evidence(phrase(e ? "accept.ev.delivery.gpu" : "accept.ev.delivery.gpu_unknown")
                   .fact("path", "/sys/bus/pci/devices/" + d->address)
                   .fact("id", id)
                   .fact("part", e ? e->id : ""));
    ++found[e ? e->id : id];
    if (e && e->id == part.id)
      ++matched;
    else if (e && at_least(*e, part))
      ++better;
    else if (!e)
      ++unknown;
  }
  std::vector<Phrase> what;
  for (const auto& [id, n] : found)
    what.push_back(phrase("accept.delivery.found.gpus").fact("count", std::to_string(n)).fact("part", id));
  if (what.empty()) what.push_back(phrase("accept.delivery.found.no_gpu"));
  const double want = j.want(l);
  j.shortfall(static_cast<double>(pci_gpus(in).size()) < want);
  Severity s = count_verdict(matched, want);
  // Another model in place of the contract's: better ones warn; anything else is below it.
  // One the catalog does not list cannot be ranked (as for CPUs): a person compares, nothing fails on it.
  const char* key = nullptr;
  if (s == Severity::kFail && matched + better >= want) s = Severity::kWarn;
  if (s == Severity::kFail && matched + better + unknown >= want) {
    s = Severity::kWarn;
    key = "accept.delivery.other";
  }
  if (s == Severity::kPass && matched < static_cast<int>(pci_gpus(in).size())) s = Severity::kWarn;
  j.say(s, key ? key : key_of(s), l, std::move(what));
  judge_serials(in, j);
}

// CPU -------------------------------------------------------------------------------------------
void judge_cpu(const AcceptInputs& in, const Catalog& cat, const VendorLine& l, const Entry& part, LineJudge& j) {
  const probe::CpuInventory& cpu = in.facts->inventory.cpu;
  if (cpu.model.empty())
    return j.say(Severity::kNeedsEvidence, key_of(Severity::kNeedsEvidence), l, {phrase("accept.delivery.needs.cpu")});
  j.evidence(phrase("accept.ev.delivery.cpu")
                 .fact("model", cpu.model)
                 .fact("sockets", std::to_string(cpu.sockets))
                 .fact("cpus", std::to_string(cpu.logical_cpus)));
  const Entry* delivered = nullptr;
  for (const Entry* e : cat.of_kind("cpu"))
    if (e->has("cpuinfo_model") && lower(squeeze(e->text("cpuinfo_model"))) == lower(squeeze(cpu.model))) delivered = e;
  const char* key = "accept.delivery.ok";
  Severity s = Severity::kPass;
  if (!delivered) {
    s = Severity::kWarn;  // a model the catalog cannot rank: a person compares
    key = "accept.delivery.other";
  } else if (delivered->id != part.id) {
    const bool better =
        delivered->number("cores") >= part.number("cores") && delivered->number("pcie_gen") >= part.number("pcie_gen");
    s = better ? Severity::kWarn : Severity::kFail;
    key = key_of(s);
  }
  j.shortfall(cpu.sockets < j.want(l));
  Severity count = cpu.sockets == 0 ? Severity::kNeedsEvidence : count_verdict(cpu.sockets, j.want(l));
  if (weighs_more(count, s)) {
    s = count;
    key = key_of(s);
  }
  j.say(s, key, l,
        {phrase("accept.delivery.found.cpu")
             .fact("sockets", cpu.sockets ? std::to_string(cpu.sockets) : "?")
             .fact("model", cpu.model)});
}

// Memory ----------------------------------------------------------------------------------------
// One DIMM's size, type and part number, as the evidence shows a module.
Phrase module_of(const probe::Dimm& d) {
  Phrase size = phrase(d.type.empty() ? "accept.ev.delivery.module" : "accept.ev.delivery.module_typed")
                    .fact("size", num(d.size_gb))
                    .fact("type", d.type);
  if (d.part_number.empty()) return size;
  return phrase("accept.ev.delivery.module_part").fact("module", {size}).fact("part", d.part_number);
}

// An EDAC DIMM: its sysfs directory, and the board's label when the driver set one.
Phrase edac_evidence(const probe::Dimm& d) {
  const bool labelled = !d.sysfs.empty() && !d.sysfs.ends_with("/" + d.locator);
  return phrase(labelled ? "accept.ev.delivery.dimm_labelled" : "accept.ev.delivery.dimm")
      .fact("path", d.sysfs.empty() ? d.locator : d.sysfs)
      .fact("label", d.locator)
      .fact("module", {module_of(d)});
}

// One list of DIMMs (EDAC's or an attached dmidecode's) against the line.
struct DimmCount {
  Severity severity = Severity::kPass;
  bool fewer = false;  // less memory installed than the line's share
  Phrase found{"accept.delivery.found.dimms"};
};

DimmCount count_dimms(const std::vector<probe::Dimm>& dimms, const Phrase& source, double want, const Entry& part,
                      const std::set<long>& contract_sizes) {
  const long size = std::lround(part.number("size_gb"));
  std::map<long, int> by_size;  // GiB → DIMMs
  double installed = 0;
  for (const auto& d : dimms) {
    ++by_size[std::lround(d.size_gb)];
    installed += d.size_gb;
  }
  // DIMMs of a size no memory line names stand in for this line's, if any are missing.
  int others = 0;
  for (const auto& [gib, n] : by_size)
    if (!contract_sizes.count(gib)) others += n;
  const int matched = by_size.count(size) ? by_size[size] : 0;
  DimmCount out;
  out.severity = count_verdict(matched, want);
  out.fewer = installed < part.number("size_gb") * want;
  // Other modules adding up to the contract's memory are another layout, not less memory.
  if (out.severity == Severity::kFail && others > 0 && !out.fewer) out.severity = Severity::kWarn;
  if (out.severity == Severity::kPass && others > 0) out.severity = Severity::kWarn;
  std::vector<Phrase> groups;
  for (const auto& [gib, n] : by_size)
    groups.push_back(
        phrase("accept.delivery.found.dimm_group").fact("count", std::to_string(n)).fact("size", num(gib)));
  out.found = phrase("accept.delivery.found.dimms")
                  .fact("groups", groups)
                  .fact("installed", num(installed))
                  .fact("source", {source});
  return out;
}

// The same modules by size, whatever order the two tools list them in.
bool same_sizes(const std::vector<probe::Dimm>& a, const std::vector<probe::Dimm>& b) {
  std::multiset<long> sa, sb;
  for (const auto& d : a) sa.insert(std::lround(d.size_gb));
  for (const auto& d : b) sb.insert(std::lround(d.size_gb));
  return sa == sb;
}

// EDAC's DIMM list, else an attached `dmidecode -t memory` (AMD's EDAC driver lists ranks, not
// modules). When both are there and disagree, neither is taken over the other: the line warns,
// and fails only when both lists are below the contract.
void judge_memory(const AcceptInputs& in, const VendorLine& l, const Entry& part, const std::set<long>& contract_sizes,
                  LineJudge& j) {
  const probe::MemoryInventory& mem = in.facts->inventory.memory;
  if (mem.total_gib) j.evidence(phrase("accept.ev.delivery.meminfo").fact("gib", num(*mem.total_gib, 1)));
  const Attachment* attached = nullptr;
  for (const Attachment* a : attachments_for(in, "contract.delivery"))
    if (a->dimms && !attached) attached = a;
  for (const auto& d : mem.dimms) j.evidence(edac_evidence(d));
  if (attached)
    for (const auto& d : *attached->dimms)
      j.evidence(phrase("accept.ev.delivery.dimm_attached")
                     .fact("file", attached->file)
                     .fact("slot", or_unknown(d.locator))
                     .fact("module", {module_of(d)}));
  const Phrase edac = phrase("accept.delivery.source.edac");
  const Phrase dmidecode =
      attached ? phrase("accept.delivery.source.dmidecode").fact("file", attached->file) : Phrase("");
  if (mem.dimms.empty() && !attached)
    return j.say(Severity::kNeedsEvidence, key_of(Severity::kNeedsEvidence), l,
                 {phrase("accept.delivery.needs.dimms")});
  if (mem.dimms.empty() || !attached || same_sizes(mem.dimms, *attached->dimms)) {
    const bool from_edac = !mem.dimms.empty();
    const DimmCount n = count_dimms(from_edac ? mem.dimms : *attached->dimms, from_edac ? edac : dmidecode, j.want(l),
                                    part, contract_sizes);
    j.shortfall(n.fewer);
    return j.say(n.severity, key_of(n.severity), l, {n.found});
  }
  const DimmCount a = count_dimms(mem.dimms, edac, j.want(l), part, contract_sizes);
  const DimmCount b = count_dimms(*attached->dimms, dmidecode, j.want(l), part, contract_sizes);
  j.shortfall(a.fewer && b.fewer);
  const bool both_below = a.severity == Severity::kFail && b.severity == Severity::kFail && j.fail_stands();
  escalate(j.finding().severity, both_below ? Severity::kFail : Severity::kWarn);
  j.finding().note(phrase(both_below ? "accept.delivery.dimms_disagree_below" : "accept.delivery.dimms_disagree")
                       .fact("line", {j.line(l)})
                       .fact("edac", {a.found})
                       .fact("attached", {b.found}));
}

// Disks -----------------------------------------------------------------------------------------
// The disk kind a catalog media is delivered as; "" for a device no disk line counts.
std::string media_of(const probe::BlockDevice& d) {
  if (d.removable || (d.transport != "nvme" && d.transport != "sata" && d.transport != "sas")) return "";
  if (d.transport == "nvme") return "nvme";
  return d.rotational ? "hdd" : "sata-ssd";
}

struct DiskPool {
  std::vector<const probe::BlockDevice*> disks;  // counted disks
  std::set<const probe::BlockDevice*> used;      // matched to a line or standing in for one
  std::map<const VendorLine*, int> exact;        // disks of the line's own capacity
  std::vector<std::string> hidden;               // fixed disks of unknown transport: a RAID volume may hide disks
  double tolerance = 0;
};

bool same_capacity(const probe::BlockDevice& d, double want_bytes, double tolerance) {
  return std::abs(d.size_bytes - want_bytes) <= want_bytes * tolerance;
}

// Every disk line takes the disks of its own capacity first, so that a larger disk standing in
// for one line's missing disk is never one another line was bought with.
void reserve_exact_disks(const VendorQuote& q, const Catalog& cat, double servers, DiskPool& pool) {
  for (const auto& l : q.lines) {
    const Entry* e = l.part.empty() ? nullptr : cat.find(l.part);
    if (!e || e->kind != "disk") continue;
    const double want_bytes = e->number("capacity_tb") * 1e12;
    int& matched = pool.exact[&l];
    for (const auto* d : pool.disks)
      if (matched < l.qty / servers && !pool.used.count(d) && media_of(*d) == e->text("media") &&
          same_capacity(*d, want_bytes, pool.tolerance)) {
        ++matched;
        pool.used.insert(d);
      }
  }
}

Phrase disk_found(const char* key, const probe::BlockDevice& d) {
  return phrase(key)
      .fact("name", d.name)
      .fact("model", d.model.empty() ? "?" : d.model)
      .fact("tb", num(d.size_bytes / 1e12, 2));
}

// A line's share: its own capacity, then larger disks of its media (warn). Still short, it fails,
// naming the smaller disks of its media left over (the likeliest stand-ins, largest first); a
// smaller disk is never taken for the line's part when the line is otherwise covered.
void judge_disks(const VendorLine& l, const Entry& part, DiskPool& pool, LineJudge& j) {
  const double want_bytes = part.number("capacity_tb") * 1e12;
  const std::string media = part.text("media");
  const double want = j.want(l);
  const int matched = pool.exact[&l];
  int larger = 0;
  std::vector<Phrase> what;
  std::vector<const probe::BlockDevice*> smaller;
  for (const auto* d : pool.disks) {
    if (pool.used.count(d) || media_of(*d) != media) continue;
    if (d->size_bytes < want_bytes) {
      smaller.push_back(d);
    } else if (matched + larger < want) {
      pool.used.insert(d);
      ++larger;
      what.push_back(disk_found("accept.delivery.found.disk_larger", *d));
    }
  }
  std::stable_sort(smaller.begin(), smaller.end(), [](auto* a, auto* b) { return a->size_bytes > b->size_bytes; });
  for (const auto* d : smaller) {
    if (matched + static_cast<double>(what.size()) >= want) break;
    pool.used.insert(d);
    what.push_back(disk_found("accept.delivery.found.disk_smaller", *d));
  }
  what.insert(what.begin(), phrase("accept.delivery.found.disks")
                                .fact("count", std::to_string(matched))
                                .fact("media", media)
                                .fact("tb", num(part.number("capacity_tb"), 2)));
  j.shortfall(static_cast<double>(what.size() - 1 + matched) < want);
  Severity s = count_verdict(matched + larger, want);
  if (s == Severity::kPass && larger > 0) s = Severity::kWarn;
  // Short while a RAID controller's volume may hold the missing disks: the host cannot tell.
  if (s == Severity::kFail && !pool.hidden.empty()) {
    what.push_back(phrase("accept.delivery.found.disks_hidden").fact(list_of("names", pool.hidden)));
    return j.say(Severity::kNeedsEvidence, "accept.delivery.disks_hidden", l, std::move(what));
  }
  j.say(s, key_of(s), l, std::move(what));
}

// Counted disks no line accounts for: an extra part warns.
void judge_extra_disks(const DiskPool& pool, LineJudge& j) {
  for (const auto* d : pool.disks) {
    if (pool.used.count(d)) continue;
    escalate(j.finding().severity, Severity::kWarn);
    j.finding().note(disk_found("accept.delivery.extra_disk", *d));
  }
}

// NICs ------------------------------------------------------------------------------------------
// The PCI card of a function: its address without the function number.
std::string card_of(const std::string& pci) {
  const auto dot = pci.rfind('.');
  return dot == std::string::npos ? pci : pci.substr(0, dot);
}

// How a port of another adapter compares with the part's speed. The link's speed decides; the
// PCI id is only a hint (one id is sold at several speeds: ConnectX-5 as 25 and 100 GbE), so a
// port without link, or linked slower on a card some catalog part of its id says is fast enough
// (a cable, a transceiver), is unsure, never slower.
enum class PortSpeed { kFastEnough, kSlower, kUnsure };

PortSpeed other_port_speed(const Catalog& cat, const probe::NetInterface& n, double want_mbps) {
  const bool linked = n.speed_mbps && *n.speed_mbps > 0 && n.operstate == "up";
  if (linked && *n.speed_mbps >= want_mbps) return PortSpeed::kFastEnough;
  if (!linked) return PortSpeed::kUnsure;
  for (const Entry* e : cat.of_kind("nic"))
    if (e->has("pci_ids")) {
      const auto ids = e->list("pci_ids");
      if (std::find(ids.begin(), ids.end(), lower(n.vendor_device)) != ids.end() &&
          e->number("speed_gbps") * 1000 >= want_mbps)
        return PortSpeed::kUnsure;
    }
  return PortSpeed::kSlower;
}

// The matching ports' links: down needs evidence (connect it), slower than the part warns.
void judge_links(const std::vector<const probe::NetInterface*>& ports, double speed_mbps, const VendorLine& l,
                 LineJudge& j) {
  for (const auto* n : ports) {
    const Phrase port = phrase("accept.delivery.found.port").fact("name", n->name).fact("id", n->vendor_device);
    if (!n->speed_mbps || n->operstate != "up")
      j.say(Severity::kNeedsEvidence, "accept.delivery.link_down", l, {port});
    else if (*n->speed_mbps < speed_mbps)
      j.say(Severity::kWarn, "accept.delivery.link_slow", l,
            {phrase("accept.delivery.found.link").fact("port", {port}).fact("mbps", count(*n->speed_mbps))});
  }
}

void judge_ethernet(const AcceptInputs& in, const Catalog& cat, const VendorLine& l, const Entry& part,
                    const std::set<std::string>& contract_ids, LineJudge& j) {
  const auto& nics = in.facts->inventory.nics;
  if (nics.empty())
    return j.say(Severity::kNeedsEvidence, key_of(Severity::kNeedsEvidence), l, {phrase("accept.delivery.needs.nics")});
  const auto ids = part.list("pci_ids");
  const double speed_mbps = part.number("speed_gbps") * 1000;
  std::vector<const probe::NetInterface*> matched;
  std::set<std::string> cards, found_ids;
  std::vector<Phrase> others;
  int faster_others = 0, unsure_others = 0;
  for (const auto& n : nics) {
    j.evidence(phrase("accept.ev.delivery.nic")
                   .fact("path", "/sys/class/net/" + n.name)
                   .fact("id", or_unknown(n.vendor_device))
                   .fact("address", or_unknown(n.pci_address))
                   .fact("mbps", n.speed_mbps ? count(*n.speed_mbps) : "?")
                   .fact("state", or_unknown(n.operstate)));
    if (std::find(ids.begin(), ids.end(), lower(n.vendor_device)) != ids.end()) {
      matched.push_back(&n);
      cards.insert(card_of(n.pci_address));
      found_ids.insert(lower(n.vendor_device));
    } else if (!n.vendor_device.empty() && (!contract_ids.count(lower(n.vendor_device)) ||
                                            other_port_speed(cat, n, speed_mbps) == PortSpeed::kFastEnough)) {
      // Another adapter, judged by its link: a slower one (an on-board 1 GbE port) takes nothing
      // away from those fast enough. A port of another line's id linked at this part's speed may
      // be this line's card (one id, several speeds): it stands in here too, for a person to confirm.
      const PortSpeed speed = other_port_speed(cat, n, speed_mbps);
      faster_others += speed == PortSpeed::kFastEnough;
      unsure_others += speed == PortSpeed::kUnsure;
      others.push_back(phrase("accept.delivery.found.port_other")
                           .fact("name", n.name)
                           .fact("id", n.vendor_device)
                           .fact("mbps", n.speed_mbps && n.operstate == "up" ? count(*n.speed_mbps) : "?"));
    }
  }
  const double want = part.number("ports") * j.want(l);
  const int got = static_cast<int>(matched.size());
  Severity s = count_verdict(got, want);
  // Other adapters stand in for missing ports when their links are at least as fast; ports whose
  // speed the host cannot tell need the link up before anyone can say they fall short.
  if (s == Severity::kFail && got + faster_others >= want) s = Severity::kWarn;
  if (s == Severity::kFail && got + faster_others + unsure_others >= want) s = Severity::kNeedsEvidence;
  j.shortfall(got + faster_others + unsure_others < want);
  // What was delivered, by the ids found; the part's accepted ids only when none of them was.
  std::vector<Phrase> what{got > 0 ? phrase("accept.delivery.found.nics")
                                         .fact("ports", std::to_string(got))
                                         .fact("cards", std::to_string(cards.size()))
                                         .fact(list_of("ids", {found_ids.begin(), found_ids.end()}))
                                   : phrase("accept.delivery.found.no_nic_port").fact(list_of("ids", ids))};
  if (s != Severity::kPass) what.insert(what.end(), others.begin(), others.end());
  j.say(s, s == Severity::kNeedsEvidence ? "accept.delivery.port_unsure" : key_of(s), l, std::move(what));
  judge_links(matched, speed_mbps, l, j);
}

void judge_infiniband(const AcceptInputs& in, const VendorLine& l, const Entry& part, LineJudge& j) {
  const double want_gbps = part.number("speed_gbps");
  int ports = 0, slow = 0, down = 0;
  for (const auto& p : in.facts->ib_ports) {
    if (p.link_layer != "InfiniBand") continue;
    ++ports;
    j.evidence(phrase("accept.ev.delivery.ib")
                   .fact("path", "/sys/class/infiniband/" + p.device + "/ports/" + std::to_string(p.port))
                   .fact("rate", or_unknown(p.rate))
                   .fact("state", or_unknown(p.state))
                   .fact("phys", or_unknown(p.phys_state)));
    const double gbps = std::atof(p.rate.c_str());  // "200 Gb/sec (4X HDR)"
    if (!p.active())
      ++down;
    else if (gbps < want_gbps)
      ++slow;
  }
  if (ports == 0)
    return j.say(Severity::kNeedsEvidence, key_of(Severity::kNeedsEvidence), l, {phrase("accept.delivery.needs.ib")});
  j.shortfall(ports < part.number("ports") * j.want(l));
  const Severity s = count_verdict(ports, part.number("ports") * j.want(l));
  std::vector<Phrase> what{phrase("accept.delivery.found.ib")
                               .fact("ports", std::to_string(ports))
                               .fact("slow", std::to_string(slow))
                               .fact("down", std::to_string(down))
                               .fact("gbps", num(want_gbps))};
  Severity worst = s;
  if (down > 0) escalate(worst, Severity::kNeedsEvidence);
  if (slow > 0) escalate(worst, Severity::kWarn);
  j.say(worst,
        worst == s              ? key_of(s)
        : down > 0 && slow == 0 ? "accept.delivery.link_down"
                                : "accept.delivery.link_slow",
        l, std::move(what));
}

// Power -----------------------------------------------------------------------------------------
// The soak log's peak power against the rack circuit's continuous capacity.
void judge_power(const AcceptInputs& in, const Catalog& cat, const VendorQuote& q, Finding& c) {
  const auto& terms = q.terms;
  const auto written = terms.written.find("rack");
  const Phrase term = written == terms.written.end()
                          ? phrase("accept.delivery.power.no_term")
                          : phrase("accept.delivery.power.term")
                                .fact("text", written->second.text)
                                .fact("where", q.file + ":" + std::to_string(written->second.line));
  const auto peak = in.soak ? in.soak->peak_power : std::nullopt;
  if (peak)
    c.evidence.push_back(phrase("accept.ev.delivery.peak")
                             .fact("file", in.soak->file)
                             .fact("watts", num(peak->watts))
                             .fact("gpus", std::to_string(peak->gpus))
                             .fact("time", clock_time(peak->time_ms)));
  // Without a soak log the `soak` check already needs evidence, and a missing rack term is the
  // audit's contract.rack_current failure: the parts delivered decide this check, the note says
  // what was not compared.
  if (!terms.rack || !terms.rack->voltage_v || !peak) {
    c.note(phrase(!peak ? "accept.delivery.power.no_log" : "accept.delivery.power.no_circuit").fact("term", {term}));
    return;
  }
  const double fraction = cat.threshold("rack.continuous_fraction");
  const double capacity = terms.rack->current_a * *terms.rack->voltage_v * fraction;
  const bool over = peak->watts > capacity;
  escalate(c.severity, over ? Severity::kFail : Severity::kPass);
  c.note(phrase(over ? "accept.delivery.power.over" : "accept.delivery.power.within")
             .fact("term", {term})
             .fact("current", num(terms.rack->current_a))
             .fact("voltage", num(*terms.rack->voltage_v))
             .fact("fraction", percent(fraction))
             .fact("capacity", num(capacity))
             .fact("peak", num(peak->watts))
             .fact("gpus", std::to_string(peak->gpus))
             .fact("time", clock_time(peak->time_ms)));
}

}  // namespace

void check_contract_delivery(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  if (!in.contract) return needs(c, phrase("accept.delivery.needs.contract"));
  const VendorQuote& q = *in.contract;
  if (!in.facts) return needs(c, phrase("accept.delivery.needs.host").fact("why", {in.facts_error}));
  c.severity = Severity::kPass;
  c.evidence.push_back(phrase("accept.ev.contract").fact("file", q.file));
  const plan::QuotedPower servers = plan::quoted_server_power(q, cat);
  LineJudge j(q, servers, c);
  // What all lines of a kind name, so one line's parts are not taken for another's substitutes.
  std::set<long> memory_sizes;
  std::set<std::string> nic_ids;
  for (const auto& l : q.lines)
    if (const Entry* e = l.part.empty() ? nullptr : cat.find(l.part)) {
      if (e->kind == "memory") memory_sizes.insert(std::lround(e->number("size_gb")));
      if (e->kind == "nic" && e->has("pci_ids"))
        for (const auto& id : e->list("pci_ids")) nic_ids.insert(lower(id));
    }
  DiskPool disks;
  for (const auto& d : in.facts->inventory.disks) {
    j.evidence(phrase("accept.ev.delivery.disk")
                   .fact("path", "/sys/block/" + d.name)
                   .fact("transport", or_unknown(d.transport))
                   .fact("model", or_unknown(d.model))
                   .fact("bytes", num(d.size_bytes))
                   .fact("tb", num(d.size_bytes / 1e12, 2)));
    if (!media_of(d).empty()) disks.disks.push_back(&d);
    if (d.transport.empty() && !d.removable) disks.hidden.push_back(d.name);
  }
  disks.tolerance = cat.threshold("accept.contract.disk_capacity_tolerance");
  reserve_exact_disks(q, cat, servers.servers, disks);
  bool disk_line = false;
  for (const auto& l : q.lines) {
    const Entry* e = l.part.empty() ? nullptr : cat.find(l.part);
    if (!e) continue;
    j.begin(l);
    if (e->kind == "gpu") judge_gpus(in, cat, l, *e, j);
    if (e->kind == "cpu") judge_cpu(in, cat, l, *e, j);
    if (e->kind == "memory") judge_memory(in, l, *e, memory_sizes, j);
    if (e->kind == "disk") {
      disk_line = true;
      if (in.facts->inventory.disks.empty())
        j.say(Severity::kNeedsEvidence, key_of(Severity::kNeedsEvidence), l, {phrase("accept.delivery.needs.disks")});
      else
        judge_disks(l, *e, disks, j);
    }
    if (e->kind == "nic")
      e->text("protocol") == "infiniband" ? judge_infiniband(in, l, *e, j) : judge_ethernet(in, cat, l, *e, nic_ids, j);
  }
  if (disk_line) judge_extra_disks(disks, j);
  judge_power(in, cat, q, c);
}

}  // namespace gpuplan::accept::detail
