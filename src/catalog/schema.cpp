#include "catalog/schema.h"

#include <algorithm>

namespace gpuplan::catalog {
namespace {

using T = FieldType;

// Every entry also carries id, name, source and as_of (required), and notes, name_zh and
// source_zh (the display name and the source in Chinese) (optional).
// A range field accepts `[low, high]` or one number (low == high).
const std::vector<KindSchema> kKinds = {
    {"gpu",
     "GPU accelerator: data-sheet facts and a purchase range per card",
     {{"form_factor", T::kEnum, true, "pcie|sxm"},
      {"memory_gb", T::kNumber, true},
      {"memory_bandwidth_gbs", T::kNumber, true},
      {"tdp_w", T::kNumber, true},
      {"fp16_tflops_dense", T::kNumber, true},
      {"bf16_tflops_dense", T::kNumber, true},
      {"nvlink_gen", T::kNumber, true},
      {"nvlink_bandwidth_gbs", T::kNumber, true},
      {"pcie_gen", T::kNumber, true},
      {"pcie_lanes", T::kNumber, true},
      {"buy", T::kRange, true},
      {"family", T::kString, true},
      // PCI vendor:device ids of the part ("10de:20b2"), how acceptance tells SXM from PCIe on the bus.
      {"pci_ids", T::kStringList, false},
      // ResNet-50 training images/s per GPU a performance clause should promise (contract.performance).
      {"resnet50_images_per_s", T::kNumber, false},
      // What US export rules say about selling the part into China, with the rule's date, in both
      // languages: the quote's gpu.export note.
      {"export_note", T::kString, false},
      {"export_note_zh", T::kString, false},
      // `used`: the part is no longer made and `buy` is a used-market price.
      {"condition", T::kEnum, false, "new|used"}}},
    {"platform",
     "Chassis and board for 1, 4 or 8 GPUs, with the parts it ships with by default",
     {{"max_gpus", T::kNumber, true},
      {"gpu_form_factor", T::kEnum, true, "pcie|sxm"},
      {"interconnect", T::kEnum, true, "pcie|nvlink-bridge|nvswitch"},
      {"cpu_direct_x16_slots", T::kNumber, true},
      {"switched_x16_slots", T::kNumber, true},
      {"pcie_gen", T::kNumber, true},
      {"cpu_sockets", T::kNumber, true},
      {"base_power_w", T::kNumber, true},
      {"buy", T::kRange, true},
      {"liquid_ready", T::kBool, true},
      {"tpm2", T::kBool, true},
      {"default_cpu", T::kRef, true, "cpu"},
      {"default_memory", T::kRef, true, "memory"},
      {"default_memory_modules", T::kNumber, true},
      {"default_system_disk", T::kRef, true, "disk"},
      {"default_system_disks", T::kNumber, true},
      {"default_data_disk", T::kRef, true, "disk"},
      {"default_data_disks", T::kNumber, true},
      {"default_nic", T::kRef, true, "nic"},
      {"default_nics", T::kNumber, true},
      {"default_cooling", T::kRef, true, "cooling"},
      // NICs an HGX-style board hangs off its own PCIe switches (they use no CPU lanes).
      {"nics_behind_switches", T::kNumber, false},
      // GPU families the board is built for (HGX A100 vs HGX H100); empty: any of its form factor.
      {"gpu_families", T::kStringList, false},
      // GPUs that are only sold together (an HGX baseboard's 8); absent: GPUs are bought one by one.
      {"purchase_unit_gpus", T::kNumber, false},
      // The vendor's stated maximum system power (data sheet), W; absent: server factor × GPU TDP.
      {"system_max_w", T::kNumber, false}}},
    {"cpu",
     "Server CPU: cores, PCIe lanes (vendor data sheets), TDP, price per socket",
     {{"vendor", T::kString, true},
      {"cores", T::kNumber, true},
      {"pcie_gen", T::kNumber, true},
      {"pcie_lanes_per_socket", T::kNumber, true},
      {"pcie_lanes_dual_socket", T::kNumber, true},
      {"tdp_w", T::kNumber, true},
      {"buy", T::kRange, true},
      // The CPUID brand string as /proc/cpuinfo "model name" prints it: how `accept --contract` knows the part.
      {"cpuinfo_model", T::kString, false}}},
    {"memory",
     "Memory module (price per module)",
     {{"size_gb", T::kNumber, true},
      {"generation", T::kString, true},
      {"power_w", T::kNumber, true},
      {"buy", T::kRange, true}}},
    {"disk",
     "Disk; price = capacity_tb x buy_per_tb x endurance_multiplier",
     {{"media", T::kEnum, true, "nvme|sata-ssd|hdd"},
      {"capacity_tb", T::kNumber, true},
      {"buy_per_tb", T::kRange, true},
      {"endurance_multiplier", T::kNumber, false},
      {"pcie_lanes", T::kNumber, true},
      {"power_w", T::kNumber, true}}},
    {"nic",
     "Network adapter",
     {{"protocol", T::kEnum, true, "ethernet|infiniband"},
      {"speed_gbps", T::kNumber, true},
      {"ports", T::kNumber, true},
      {"rdma", T::kBool, true},
      {"pcie_lanes", T::kNumber, true},
      {"power_w", T::kNumber, true},
      {"buy", T::kRange, true},
      // PCI vendor:device ids of the adapters the entry stands for ("15b3:101f"), how `accept --contract` knows the
      // part.
      {"pci_ids", T::kStringList, false}}},
    {"switch",
     "Network switch for multi-node clusters",
     {{"protocol", T::kEnum, true, "ethernet|infiniband"}, {"ports", T::kNumber, true}, {"buy", T::kRange, true}}},
    {"cooling",
     "Cooling and power-supply option; buy is the extra over the platform's default",
     {{"method", T::kEnum, true, "air|liquid"},
      {"psu_count", T::kNumber, true},
      {"psu_watts", T::kNumber, true},
      {"psu_redundant", T::kNumber, true},
      {"buy", T::kRange, true},
      {"install_if_not_in_contract", T::kRange, false}}},
    {"rack",
     "Rack power circuit; rent_monthly is the extra over the 8 A baseline",
     {{"amps", T::kNumber, true}, {"volts", T::kNumber, true}, {"rent_monthly", T::kRange, false}}},
    {"region",
     "Data-centre region: rent price factor and typical latency to users",
     {{"price_factor", T::kRange, true}, {"latency_ms", T::kNumber, true}}},
    {"software_image", "Pre-installed software image (monthly, rented servers)", {{"rent_monthly", T::kRange, true}}},
    {"rent_addon",
     "A monthly rent add-on on top of the market class: per InfiniBand adapter, per TB of storage, or a bandwidth tier",
     {{"applies_to", T::kEnum, true, "infiniband|storage|bandwidth"},
      {"unit", T::kEnum, true, "adapter|tb|month"},
      {"rent_monthly", T::kRange, true},
      // A fixed public bandwidth tier: its line rate and the traffic it carries a month at that rate.
      {"mbps", T::kNumber, false},
      {"traffic_tb_month", T::kNumber, false}}},
    {"licence",
     "Software licence priced per GPU per year",
     {{"per_gpu_year", T::kRange, true},
      {"version", T::kString, false},
      // The oldest release still supported, as a version ("4") and as the year it came out, for
      // licences a quote names by year ("AI Enterprise 2022"); the audit's contract.licence.
      {"supported_from", T::kString, false},
      {"supported_from_year", T::kNumber, false},
      // Modules LLM inference needs from this licence ([S1 §3]: TensorRT-LLM).
      {"llm_inference_modules", T::kStringList, false}}},
    {"support",
     "Hardware support tier; per_year is the extra over basic",
     {{"per_year", T::kRange, true},
      {"response_h", T::kNumber, true},
      {"fix_h", T::kNumber, true},
      {"downtime_h_per_year", T::kNumber, false},
      // The hours the tier answers in; the audit warns when a contract writes fewer.
      {"hours", T::kEnum, false, "7x24|5x8"}}},
    {"cluster_manager",
     "Cluster manager: licence for a number of nodes and years, or staff weeks to set up",
     {{"licence", T::kRange, false},
      {"licence_nodes", T::kNumber, false},
      {"licence_years", T::kNumber, false},
      {"setup_engineer_weeks", T::kNumber, false}}},
    {"market",
     "Whole-server market range for a GPU family and count",
     {{"family", T::kString, true},
      {"gpus", T::kNumber, true},
      {"rent_monthly", T::kRange, true},
      {"buy", T::kRange, true},
      // Data-disk TB the class's rent includes; rent add-ons charge storage beyond it.
      {"included_data_tb", T::kNumber, false}}},
    {"reference_system",
     "Whole system priced in an article, for comparison",
     {{"gpus", T::kNumber, true},
      {"buy", T::kRange, true},
      {"description", T::kString, true},
      {"description_zh", T::kString, false}}},
    {"upgrade",
     "Price difference of an upgrade between two configurations",
     {{"from", T::kString, true},
      {"to", T::kString, true},
      {"from_zh", T::kString, false},
      {"to_zh", T::kString, false},
      {"delta", T::kRange, true}}},
    {"cloud_offer",
     "Public cloud A100 offer, per instance-hour, in the offer's currency",
     {{"provider", T::kString, true},
      {"instance", T::kString, true},
      {"gpu", T::kRef, true, "gpu"},
      {"gpus", T::kNumber, true},
      {"region", T::kString, true},
      {"currency", T::kString, true},
      {"on_demand_hour", T::kNumber, true},
      {"spot_hour", T::kNumber, false},
      // The buyers' market the offer is sold in (usage prices renting at the buyer's market);
      // absent: cn for a CNY price, else global.
      {"market", T::kEnum, false, "cn|global"}}},
    {"fx", "Exchange rate: 1 unit of `from` in CNY", {{"from", T::kString, true}, {"cny", T::kNumber, true}}},
    {"software",
     "Software compatibility matrix row: minimum version and/or the allowed releases",
     {{"component", T::kEnum, true, "driver|cuda|cudnn|nccl|pytorch|tensorflow"},
      {"min_version", T::kString, false},
      {"allowed", T::kStringList, false}}},
    {"cuda_driver",
     "The oldest driver a CUDA toolkit's major release runs on (minor version compatibility)",
     {{"cuda_major", T::kNumber, true}, {"min_driver", T::kString, true}}},
    {"threshold",
     "A rule threshold or default; value is a number or a range",
     {{"value", T::kRange, true}, {"unit", T::kString, true}}},
    {"xid",
     "An NVIDIA Xid (or NVSwitch SXid) error code: what it means and what to do",
     {{"code", T::kNumber, true},
      {"scope", T::kEnum, true, "gpu|nvswitch"},
      {"severity", T::kEnum, true, "info|warn|fail"},
      {"action", T::kEnum, true, "none|restart-app|reset-gpu|reboot|inspect-hardware|contact-support"},
      {"meaning", T::kString, true},
      {"meaning_zh", T::kString, false},
      // Whether the entry was checked against NVIDIA's own table (catalog/xid.yaml says how).
      {"verified", T::kEnum, false, "yes|no"}}},
    {"pcie_switch",
     "A PCIe switch a GPU board is designed around (its sharing is by design, not a defect)",
     {{"vendor_id", T::kString, true},
      {"device_id", T::kString, true},
      {"designed_for", T::kString, true},
      {"designed_for_zh", T::kString, false}}},
    {"board_marker",
     "A sign that a GPU board is an engineering sample or otherwise not a retail part [S0 §4.4]",
     {{"field", T::kEnum, true, "name|board_part_number|vbios"},
      {"contains", T::kString, true},
      {"meaning", T::kString, true},
      {"meaning_zh", T::kString, false}}},
    {"hidden_cost",
     "A cost quotes often leave out [S0 §3.5]",
     {{"name_zh", T::kString, true}, {"description", T::kString, true}}},
    {"recommend_rule",
     "Workload to GPU-count rule [S0 §3.1]; params in billions, [min, max)",
     {{"task", T::kEnum, true, "inference|finetune|train|pretrain|simulation"},
      {"params_b", T::kRange, true},
      {"gpus", T::kNumber, true},
      {"nodes", T::kNumber, true},
      {"rdma", T::kBool, true},
      {"cluster_manager", T::kBool, true},
      // The fine-tuning methods the rule is for (full|lora|qlora); absent: every method.
      {"methods", T::kStringList, false}}},
    {"model_shape",
     "Reference model shape for the KV cache: parameters in billions, layers, key/value width per layer",
     {{"params_b", T::kNumber, true}, {"layers", T::kNumber, true}, {"kv_width", T::kNumber, true}}},
};

}  // namespace

const std::vector<KindSchema>& kinds() { return kKinds; }

const KindSchema* find_kind(std::string_view kind) {
  auto it = std::find_if(kKinds.begin(), kKinds.end(),
                         [&](const KindSchema& k) { return k.kind == kind; });
  return it == kKinds.end() ? nullptr : &*it;
}

const FieldSchema* KindSchema::field(std::string_view key) const {
  auto it = std::find_if(fields.begin(), fields.end(),
                         [&](const FieldSchema& f) { return f.key == key; });
  return it == fields.end() ? nullptr : &*it;
}

}  // namespace gpuplan::catalog
