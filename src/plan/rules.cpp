#include "plan/rules.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/money.h"
#include "core/units.h"
#include "core/version.h"
#include "plan/quote.h"
#include "plan/software_matrix.h"

namespace gpuplan::plan {
namespace {

using catalog::Catalog;
using catalog::Entry;

std::string watts(double w) { return format_watts(w); }
std::string cny(const Range& r) {
  return format_money_range(r, "CNY");
}

// B1: the rack circuit must carry the servers in it at full load. A circuit nobody stated is not
// judged: the finding states the current the servers need at the circuit's voltage, and the rack
// the quote prices (the catalog's smallest that carries them; a warning when none does).
void check_power_rack(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const Entry& rack = *cat.find("rack", q.config.rack);
  const double capacity = rack.number("amps") * rack.number("volts");
  const double fraction = cat.threshold("rack.continuous_fraction");
  const double load = q.power.peak_w() * q.config.servers_per_rack;
  const char* source = "S0 §3.3";
  Finding f;
  if (!q.config.rack_stated) {
    const double volts = rack.number("volts");  // the catalog's circuits share the country's voltage
    const bool carries = capacity * fraction >= load;
    f = carries ? make_finding("power.rack", Severity::kInfo, "unstated", source)
                : make_finding("power.rack", Severity::kWarn, "unstated_short", source);
    f.fact("needed_amps", format_number(std::ceil(load / (volts * fraction))))
        .fact("default_volts", format_number(volts))
        .fact("rack", rack.name, rack.display_name_zh());
  } else if (load > capacity) {
    f = make_finding("power.rack", Severity::kFail, "over", source);
  } else if (load > capacity * fraction) {
    f = make_finding("power.rack", Severity::kWarn, "near", source);
  } else {
    return;
  }
  f.fact("load", watts(load))
      .fact("governs", {governing_power(q.power)})
      .fact("servers", std::to_string(q.config.servers_per_rack))
      .fact("gpu_draw", watts(q.power.gpus_w))
      .fact("gpus", std::to_string(q.config.gpus))
      .fact("gpu_tdp", watts(cat.find("gpu", q.config.gpu)->number("tdp_w")))
      .fact("amps", format_number(rack.number("amps")))
      .fact("volts", format_number(rack.number("volts")))
      .fact("capacity", watts(capacity))
      .fact("continuous", watts(capacity * fraction))
      .fact("fraction", format_number(fraction * 100) + "%");
  out.push_back(f);
}

// B1: the power supplies must carry one node, ideally with their redundant units spare.
void check_power_psu(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const Entry& cooling = *cat.find("cooling", q.config.cooling);
  const double psu_w = cooling.number("psu_watts");
  const double total = cooling.number("psu_count") * psu_w;
  const double redundant_ok = (cooling.number("psu_count") - cooling.number("psu_redundant")) * psu_w;
  // PSU ratings are output (DC) watts. The parts' sum is DC; the system-level figure is drawn at
  // the wall and includes the supplies' own loss, so it is compared at the DC side (× the
  // efficiency at full rated load, where the question "does it reach the rating?" is asked).
  // Comparing the wall figure with an output rating would overstate the load: a false alarm.
  const double efficiency = cat.threshold("power.psu_efficiency");
  const double load = std::max(q.power.parts_w(), q.power.system_w * efficiency);
  Finding f;
  if (load > total) f = make_finding("power.psu", Severity::kFail, "over", "S0 §3.3; nvidia-dgx-a100");
  else if (load > redundant_ok) f = make_finding("power.psu", Severity::kWarn, "no_redundancy", "S0 §3.3; nvidia-dgx-a100");
  else return;
  f.fact("load", watts(load))
      .fact("peak", watts(q.power.peak_w()))
      .fact("efficiency", format_number(efficiency * 100) + "%")
      .fact("psus", format_number(cooling.number("psu_count")) + " × " + watts(psu_w))
      .fact("total", watts(total))
      .fact("redundant", format_number(cooling.number("psu_redundant")))
      .fact("without_redundant", watts(redundant_ok));
  out.push_back(f);
}

// B2: lanes the CPUs offer against GPUs, NVMe and NICs.
void check_pcie_lanes(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  const Entry& cpu = *cat.find("cpu", c.cpu);
  const Entry& platform = *cat.find("platform", c.platform);
  const Entry& gpu = *cat.find("gpu", c.gpu);
  const double available = c.cpu_sockets == 1 ? cpu.number("pcie_lanes_per_socket")
                                              : cpu.number("pcie_lanes_dual_socket") * (c.cpu_sockets / 2.0);
  // GPUs in CPU-direct slots take their own lanes; switched GPUs share one x16 uplink per pair.
  const int direct = std::min(c.gpus, static_cast<int>(platform.number("cpu_direct_x16_slots")));
  const int switched = c.gpus - direct;
  const double gpu_lanes = direct * gpu.number("pcie_lanes") + std::ceil(switched / 2.0) * gpu.number("pcie_lanes");
  double nvme_lanes = 0;
  for (const PartCount* d : {&c.system_disk, &c.data_disk}) nvme_lanes += d->count * cat.find("disk", d->part)->number("pcie_lanes");
  int nics_behind_switch = static_cast<int>(platform.opt_number("nics_behind_switches").value_or(0));
  double nic_lanes = 0;
  for (const auto& n : c.nics) {
    int on_cpu = std::max(0, n.count - nics_behind_switch);
    nics_behind_switch = std::max(0, nics_behind_switch - n.count);
    nic_lanes += on_cpu * cat.find("nic", n.part)->number("pcie_lanes");
  }
  const double needed = gpu_lanes + nvme_lanes + nic_lanes;
  if (needed <= available) return;
  Finding f = make_finding("pcie.lanes", Severity::kFail, "", "S1 §2; corrections; amd-epyc-7003; intel-xeon-8480");
  f.fact("needed", format_number(needed))
      .fact("available", format_number(available))
      .fact("gpu_lanes", format_number(gpu_lanes))
      .fact("nvme_lanes", format_number(nvme_lanes))
      .fact("nic_lanes", format_number(nic_lanes))
      .fact("cpu", cpu.name, cpu.display_name_zh())
      .fact("sockets", std::to_string(c.cpu_sockets));
  out.push_back(f);
}

// B2: every GPU in a CPU-direct Gen4 x16 slot of a platform made for its form factor.
void check_pcie_slot(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  const Entry& platform = *cat.find("platform", c.platform);
  const Entry& gpu = *cat.find("gpu", c.gpu);
  const char* source = "S1 §2; S1 §5 #2";
  if (gpu.text("form_factor") != platform.text("gpu_form_factor")) {
    Finding f = make_finding("pcie.slot", Severity::kFail, "form_factor", source);
    f.fact("gpu", gpu.name, gpu.display_name_zh())
        .fact("gpu_form", gpu.text("form_factor"))
        .fact("platform", platform.name, platform.display_name_zh())
        .fact("platform_form", platform.text("gpu_form_factor"));
    out.push_back(f);
    return;
  }
  if (c.gpus > platform.number("max_gpus")) {
    Finding f = make_finding("pcie.slot", Severity::kFail, "count", source);
    f.fact("gpus", std::to_string(c.gpus))
        .fact("platform", platform.name, platform.display_name_zh())
        .fact("max", format_number(platform.number("max_gpus")));
    out.push_back(f);
    return;
  }
  // SXM boards reach the CPU through the switches they were designed with; only card slots are judged.
  const int direct = static_cast<int>(platform.number("cpu_direct_x16_slots"));
  if (gpu.text("form_factor") == "pcie" && c.gpus > direct) {
    Finding f = make_finding("pcie.slot", Severity::kWarn, "switched", source);
    f.fact("gpus", std::to_string(c.gpus)).fact("direct", std::to_string(direct))
        .fact("switched", std::to_string(c.gpus - direct))
        .fact("platform", platform.name, platform.display_name_zh());
    out.push_back(f);
  }
  if (gpu.number("pcie_gen") > platform.number("pcie_gen")) {
    Finding f = make_finding("pcie.slot", Severity::kWarn, "generation", source);
    f.fact("gpu", gpu.name, gpu.display_name_zh()).fact("gpu_gen", format_number(gpu.number("pcie_gen")))
        .fact("platform_gen", format_number(platform.number("pcie_gen")));
    out.push_back(f);
  }
}

// B3: training needs at least 256 GB of host memory.
void check_memory(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  const double gb = c.memory.count * cat.find("memory", c.memory.part)->number("size_gb");
  const double min_gb = cat.threshold("memory.min_gb");
  if (gb >= min_gb) return;
  Finding f = make_finding("memory.min", is_training(c.task) ? Severity::kWarn : Severity::kInfo, "", "S0 §2.2");
  f.fact("memory", format_number(gb) + " GB").fact("min", format_number(min_gb) + " GB").fact("task", task_name(c.task));
  out.push_back(f);
}

// B3, S1 §2: training reads its data from NVMe, at least recommend.min_data_tb of it; SATA SSDs
// serve a tenth of the random reads and leave the GPUs waiting, hard disks are for backups.
void check_storage(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  if (!is_training(c.task)) return;
  const Entry& disk = *cat.find("disk", c.data_disk.part);
  const std::string media = disk.text("media");
  const double data_tb = c.data_disk.count * disk.number("capacity_tb");
  const double min_tb = cat.threshold("recommend.min_data_tb");
  Finding f;
  if (media == "sata-ssd") {
    f = make_finding("storage.data", Severity::kWarn, "sata", "S1 §2");
    f.fact("sata_iops", format_number(cat.threshold("storage.iops_sata_ssd")))
        .fact("nvme_iops", format_number(cat.threshold("storage.iops_nvme")));
  } else if (media == "hdd") {
    f = make_finding("storage.data", Severity::kWarn, "hdd", "S0 §2.2");
  } else if (data_tb < min_tb) {
    f = make_finding("storage.data", Severity::kWarn, "small", "S0 §2.2");
  } else {
    return;
  }
  f.fact("disk", disk.name, disk.display_name_zh())
      .fact("data", format_figure(data_tb, 2) + " TB")
      .fact("min", format_figure(min_tb, 2) + " TB")
      .fact("task", task_name(c.task));
  out.push_back(f);
}

bool has_rdma(const ServerConfig& c, const Catalog& cat) {
  return std::any_of(c.nics.begin(), c.nics.end(), [&](const PartCount& n) { return n.count > 0 && cat.find("nic", n.part)->flag("rdma"); });
}

// B4: multi-node training needs RDMA; one node does not need InfiniBand.
void check_network_rdma(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  const char* source = "S0 §2.3";
  Range ib_cost;
  for (const auto& n : c.nics) {
    const Entry& nic = *cat.find("nic", n.part);
    if (nic.text("protocol") == "infiniband") ib_cost += nic.range("buy") * n.count;
  }
  if (c.nodes > 1 && !has_rdma(c, cat)) {
    Finding f = make_finding("network.rdma", Severity::kFail, "missing", source);
    f.fact("nodes", std::to_string(c.nodes));
    out.push_back(f);
  } else if (c.nodes > 1 && ib_cost.high > 0 && !c.network_switch) {
    Finding f = make_finding("network.rdma", Severity::kWarn, "no_switch", source);
    f.fact("nodes", std::to_string(c.nodes));
    out.push_back(f);
  } else if (c.nodes == 1 && ib_cost.high > 0) {
    Finding f = make_finding("network.rdma", Severity::kInfo, "unneeded", source);
    f.fact("cost", cny(ib_cost));
    out.push_back(f);
  }
}

// B4: NVLink/NVSwitch matters for multi-GPU training only.
void check_network_nvlink(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  std::string link = cat.find("platform", c.platform)->text("interconnect");
  // A card without NVLink (L20, L40S) has no bridge to take: its GPUs talk over PCIe.
  if (link == "nvlink-bridge" && cat.find("gpu", c.gpu)->number("nvlink_gen") == 0) link = "pcie";
  const char* source = "S0 §3.4";
  if (c.gpus > 1 && is_training(c.task) && link == "pcie") {
    Finding f = make_finding("network.nvlink", Severity::kWarn, "missing", source);
    f.fact("gpus", std::to_string(c.gpus)).fact("task", task_name(c.task));
    out.push_back(f);
  } else if ((c.gpus == 1 || c.task == Task::kInference) && link != "pcie") {
    Finding f = make_finding("network.nvlink", Severity::kInfo, "unneeded", source);
    f.fact("gpus", std::to_string(c.gpus)).fact("task", task_name(c.task)).fact("interconnect", link);
    out.push_back(f);
  }
}

// What the US export rules say about the GPU and China, dated (catalog export_note): a note,
// since the rule decides whether and how the part can be bought at all.
void check_export(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const Entry& gpu = *cat.find("gpu", q.config.gpu);
  if (!gpu.has("export_note")) return;
  Finding f = make_finding("gpu.export", Severity::kInfo, "", "export-rules");
  f.fact("gpu", gpu.name, gpu.display_name_zh())
      .fact("note", gpu.text("export_note"),
            gpu.has("export_note_zh") ? gpu.text("export_note_zh") : gpu.text("export_note"));
  out.push_back(f);
}

// S0 §4.4: a second-hand card is priced as one; what to check before buying it.
void check_used(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const Entry& gpu = *cat.find("gpu", q.config.gpu);
  if (gpu.text("condition") != "used") return;
  Finding f = make_finding("gpu.used", Severity::kInfo, "", "S0 §4.4");
  f.fact("gpu", gpu.name, gpu.display_name_zh()).fact("price", cny(gpu.range("buy")));
  out.push_back(f);
}

// A2: metered public traffic is the classic trap (tens of GB of weights per download).
void check_public_bandwidth(const Quote& q, const Catalog&, std::vector<Finding>& out) {
  if (q.config.public_bandwidth != "metered") return;
  out.push_back(make_finding("network.public", Severity::kWarn, "metered", "S0 §2.3"));
}

// B5: air cooling in a hot room throttles.
void check_cooling(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServerConfig& c = q.config;
  if (!c.room_temp_c || cat.find("cooling", c.cooling)->text("method") != "air") return;
  const double hot = cat.threshold("cooling.hot_room_c");
  if (*c.room_temp_c < hot) return;
  Finding f = make_finding("cooling.air", Severity::kWarn, "", "S1 §2; ashrae-thermal");
  f.fact("room", format_number(*c.room_temp_c, 1) + " °C").fact("limit", format_number(hot) + " °C")
      .fact("throttle", format_number(cat.threshold("cooling.air_throttle_pct")) + "%");
  out.push_back(f);
}

// B6: versions against the dated compatibility matrix, judged as acceptance judges them.
void check_software(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const SoftwareVersions& s = q.config.software;
  if (!s.any()) {
    out.push_back(make_finding("software.matrix", Severity::kInfo, "unspecified", "S0 §3.4"));
    return;
  }
  std::map<std::string, std::string> versions;
  auto given = [&](const char* component, const std::optional<std::string>& v) {
    if (v) versions[component] = *v;
  };
  given("driver", s.driver);
  given("cuda", s.cuda);
  given("cudnn", s.cudnn);
  given("pytorch", s.pytorch);
  given("tensorflow", s.tensorflow);
  for (Finding& f : judge_versions(versions, cat)) out.push_back(std::move(f));
}

// The figures are in CNY per GPU (purchase) or per GPU-month (rent): the message says which.
// Notes, not warnings: the band contradicts the same article's card and server prices, so a
// build with new cards is outside it on every quote.
void check_band(const char* id, const Range& per_gpu, const Range& band, std::vector<Finding>& out) {
  const char* source = "S0 §3.2; corrections";
  Finding f;
  if (per_gpu.low > band.high)
    f = make_finding(id, Severity::kInfo, "above", source);
  else if (per_gpu.high < band.low) f = make_finding(id, Severity::kInfo, "below", source);
  else return;
  f.fact("per_gpu", cny(per_gpu)).fact("band", cny(band));
  out.push_back(f);
}

// A3: per-GPU monthly rent and purchase against the article's sanity band.
// The band is the article's [S0 §3.2], but the same article's whole-server rents [S0 §2.1] come to
// less a GPU on the larger servers (SPEC §J): a finding below the band says so, with the
// article's own per-GPU rents of the family's market classes worked out from the catalog.
void check_band_rent(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  if (!q.market) return;  // no rent figure to judge
  const std::size_t before = out.size();
  check_band("band.rent_per_gpu", q.rent_per_gpu_month, cat.threshold_range("band.rent_per_gpu_month"), out);
  if (out.size() == before) return;
  const std::string family = cat.find("gpu", q.config.gpu)->text("family");
  std::vector<const Entry*> classes;
  for (const Entry* m : cat.of_kind("market"))
    if (m->text("family") == family) classes.push_back(m);
  std::sort(classes.begin(), classes.end(), [](const Entry* a, const Entry* b) { return a->number("gpus") > b->number("gpus"); });
  std::vector<Phrase> rents;
  for (const Entry* m : classes) {
    const double gpus = m->number("gpus");
    rents.push_back(Phrase("band.note.market_class")
                        .fact("gpus", format_number(gpus))
                        .fact("rent", cny(m->range("rent_monthly")))
                        .fact("per_gpu", cny(m->range("rent_monthly") / gpus)));
  }
  out.back().note(Phrase("band.note.source_conflict").fact("classes", rents));
}

void check_band_buy(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  check_band("band.buy_per_gpu", q.buy_per_gpu, cat.threshold_range("band.buy_per_gpu"), out);
}

// S0 §1: "the final quote easily doubles or triples" the card price. What this build's node
// hardware comes to over its cards, at the middle of both ranges, beside the article's band.
void check_server_over_card(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const Range cards = cat.find("gpu", q.config.gpu)->range("buy") * q.config.gpus;
  if (cards.mid() <= 0) return;
  const double ratio = q.node_hardware_buy.mid() / cards.mid();
  const Range band = cat.threshold_range("band.server_over_card");
  const char* variant = ratio < band.low ? "below" : ratio > band.high ? "above" : "within";
  Finding f = make_finding("band.server_over_card", Severity::kInfo, variant, "S0 §1");
  f.fact("ratio", format_number(ratio, 2))
      .fact("node", cny(q.node_hardware_buy))
      .fact("cards", cny(cards))
      .fact("gpus", std::to_string(q.config.gpus))
      .fact("band", format_number(band.low) + "–" + format_number(band.high));
  out.push_back(f);
}

// A2: the component build-up of one node against the whole-server market range. A note with
// the budget figure (Quote::budget), not a warning: the articles' server prices are below their
// own card prices, so the disagreement says nothing about this build unless the cards fit.
void check_market(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const std::string budget = format_money(q.budget.amount, q.currency);
  if (!q.market) {
    Finding f = make_finding("market.range", Severity::kInfo, "unknown", "S0 §2.1");
    f.fact("gpu", q.config.gpu).fact("gpus", std::to_string(q.config.gpus)).fact("budget", budget);
    out.push_back(f);
    return;
  }
  const double tolerance = cat.threshold("market.tolerance");
  const Range widened{q.market->buy.low * (1 - tolerance), q.market->buy.high * (1 + tolerance)};
  if (q.node_hardware_buy.overlaps(widened)) return;
  const double cards_low = q.config.gpus * cat.find("gpu", q.config.gpu)->range("buy").low;
  const char* variant = q.node_hardware_buy.low <= widened.high ? "below"
                        : cards_low > widened.high              ? "cards_exceed"
                                                                : "above";
  Finding f = make_finding("market.range", Severity::kInfo, variant, "S0 §2.1; S0 §1; corrections");
  f.fact("build_up", cny(q.node_hardware_buy))
      .fact("market", cny(q.market->buy))
      .fact("market_gpus", std::to_string(q.market->gpus))
      .fact("tolerance", format_number(tolerance * 100) + "%")
      .fact("gpus", std::to_string(q.config.gpus))
      .fact("cards", format_money(cards_low, q.currency))
      .fact("budget", budget)
      .fact("basis", {Phrase("quote.budget.basis." + q.budget.basis)});
  out.push_back(f);
}

// B7: what the platform lacks for the next few years, as advisories.
void check_future(const Quote& q, const Catalog& cat, std::vector<Finding>& out) {
  const Entry& platform = *cat.find("platform", q.config.platform);
  const char* source = "S1 §6";
  if (platform.number("pcie_gen") < 5) {
    Finding f = make_finding("future.pcie5", Severity::kInfo, "", source);
    if (const Entry* up = cat.find("upgrade", "pcie5-ready-platform")) f.fact("cost", cny(up->range("delta")));
    else f.fact("cost", "—");
    out.push_back(f);
  }
  if (q.config.gpus > 1 && platform.text("interconnect") == "pcie") out.push_back(make_finding("future.nvlink", Severity::kInfo, "", source));
  if (!platform.flag("liquid_ready") && cat.find("cooling", q.config.cooling)->text("method") == "air")
    out.push_back(make_finding("future.liquid", Severity::kInfo, "", source));
  if (!platform.flag("tpm2")) out.push_back(make_finding("future.tpm", Severity::kInfo, "", source));
}

const std::vector<Rule> kRules = {
    {"power.rack", check_power_rack},
    {"power.psu", check_power_psu},
    {"pcie.lanes", check_pcie_lanes},
    {"pcie.slot", check_pcie_slot},
    {"memory.min", check_memory},
    {"storage.data", check_storage},
    {"network.rdma", check_network_rdma},
    {"network.nvlink", check_network_nvlink},
    {"network.public", check_public_bandwidth},
    {"gpu.export", check_export},
    {"gpu.used", check_used},
    {"cooling.air", check_cooling},
    {"software.matrix", check_software},
    {"band.rent_per_gpu", check_band_rent},
    {"band.buy_per_gpu", check_band_buy},
    {"band.server_over_card", check_server_over_card},
    {"market.range", check_market},
    {"future.", check_future},
};

}  // namespace

const std::vector<Rule>& rules() { return kRules; }

std::vector<Finding> check_rules(const Quote& quote, const Catalog& catalog) {
  std::vector<Finding> out;
  for (const Rule& rule : kRules) rule.check(quote, catalog, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return weighs_more(a.severity, b.severity); });
  return out;
}

}  // namespace gpuplan::plan
