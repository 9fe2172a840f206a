// The contract and service terms of a vendor quote, typed (issue 13): what each term says, read
// from the structured YAML form (`rack: {current_a: 32, voltage_v: 220}`) or from the free text
// buyers and vendors actually write, in English or Chinese ("32 A at 220 V", "32安 220V",
// "100 Mbps fixed + 10 TB/month", "按流量计费", ">= 1,850 images/s per GPU", "每卡 ≥1850 张/秒").
// Both forms give the same typed values. The audit (plan/contract_audit.h) judges them against
// the catalog and the quote's own lines; `accept --contract` takes the delivery thresholds and
// the bill of materials from them.
//
// A caller may rely on: every term present in the quote is in `written` under its field name
// (below), with its text as written and its line; a term present whose wording gpuplan could not
// read keeps its typed value empty and its field is listed in `unparsed` (the audit warns and
// quotes it), never a guessed value. A structured value of the wrong type or unit is a parse
// Error naming file, line and field.
//
// Field names (the keys of `written`, and the YAML keys of the structured form under
// `contract:`; the older free-text keys are read as the same field):
//   gpu               {model: <catalog gpu id>, count}          (also `gpu_model`)
//   driver            "535.104.05"                              (also `driver_version`)
//   cuda              "12.1"                                    (also `cuda_version`)
//   rack              {current_a, voltage_v}                    (also `rack_current`)
//   public_bandwidth  {mbps, billing: fixed|metered, traffic_tb_month}
//   internal_network  {kind: ethernet|infiniband, gbps, ports}  (also `internal_bandwidth`)
//   performance       {benchmark: resnet50-train, batch, min_images_per_gpu}  (also `performance_clause`)
//   reboot_sla_min    15                                        (also `reboot_sla`)
//   installation      free text (written down is what matters)
//   cooling           free text: the rack's high-density airflow and the room's emergency cooling
// and under the quote's top-level `service:` (fields "service.response_h", "service.mttr_h",
// "service.penalty", "service.hours"):
//   response_h (also `response_time_h`), mttr_h, penalty, hours: 7x24|5x8
// Every reader below gives nothing for a text longer than kMaxTermBytes.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/yaml_reader.h"

namespace gpuplan::plan {

// A term as the quote writes it.
struct WrittenTerm {
  std::string text;  // the scalar as written; a structured value is rendered "key: value, …"
  int line = 0;
};

struct GpuTerm {
  std::string model;         // catalog gpu id; "" when the wording names no GPU the catalog knows
  std::optional<int> count;  // per server
};

struct RackTerm {
  double current_a = 0;
  std::optional<double> voltage_v;  // unset when the term names only the current
};

enum class Billing { kFixed, kMetered };

struct PublicBandwidthTerm {
  std::optional<double> mbps;
  std::optional<Billing> billing;
  std::optional<double> traffic_tb_month;  // the traffic package, or the stated monthly volume
};

enum class NetworkKind { kEthernet, kInfiniband };

struct InternalNetworkTerm {
  std::optional<NetworkKind> kind;
  double gbps = 0;           // per port
  std::optional<int> ports;  // per server
};

struct PerformanceTerm {
  std::string benchmark = "resnet50-train";
  std::optional<int> batch;
  double min_images_per_gpu = 0;  // a clause stated for the whole server is divided by its GPUs
};

struct PenaltyTerm {
  bool none = false;        // written as empty, "none", "无", "n/a", "-"
  bool has_amount = false;  // names an amount: a percentage, a sum of money, days of fee
};

enum class ServiceHours { k7x24, k5x8 };

struct ServiceTerms {
  std::optional<double> response_h;
  std::optional<double> mttr_h;
  std::optional<PenaltyTerm> penalty;
  std::optional<ServiceHours> hours;
};

struct ContractTerms {
  std::optional<GpuTerm> gpu;
  std::optional<std::string> driver;  // a version: "535.104.05", "535"
  std::optional<std::string> cuda;    // "12.1"
  std::optional<RackTerm> rack;
  std::optional<PublicBandwidthTerm> public_bandwidth;
  std::optional<InternalNetworkTerm> internal_network;
  std::optional<PerformanceTerm> performance;
  std::optional<double> reboot_sla_min;
  std::optional<std::string> installation;
  std::optional<std::string> cooling;
  ServiceTerms service;

  std::map<std::string, WrittenTerm> written;  // field name → as written, for every term present
  std::vector<std::string> unparsed;           // fields written in words gpuplan could not read

  bool has(const std::string& field) const { return written.count(field) != 0; }
};

// The longest term read, in bytes. A contract term is one sentence; the readers' std::regex
// (libstdc++) recurses about once per character it matches, so a term of tens of kB would
// overflow the stack. A longer term is an input-format limit, not a judgement: it is never run
// through a reader, it is listed in `unparsed`, and the audit quotes it cut short.
inline constexpr size_t kMaxTermBytes = 512;

// Reads a quote's `contract:` and `service:` mappings (either may be undefined) into terms, by the
// field names above; every term present is `written`, those whose words could not be read are
// `unparsed`. Throws ParseFailure (core/error.h) naming file, line and field for a structured value
// of the wrong type, unit or value, an unknown key, or a term given under two of its names.
ContractTerms read_contract_terms(const YamlReader& reader, const YAML::Node& contract, const YAML::Node& service,
                                  const catalog::Catalog& catalog);

// One term's wording, English or Chinese (the README's "Contract terms" table lists what each reads).
// Each gives nothing when the wording says nothing gpuplan can read for sure: no number with its
// unit, two different values, or a value that fits more than one reading.
//
// GPU: model is the catalog gpu id only when exactly one catalog GPU fits the model word, the
// memory size (which must be written: never a guess between 40 GB and 80 GB) and the form factor
// if named ("SXM", "HGX", "PCIe"); otherwise "" with the count if one was read.
std::optional<GpuTerm> read_gpu_wording(std::string_view text, const catalog::Catalog& catalog);
std::optional<std::string> read_driver_wording(std::string_view text);  // "535.104.05", "R535" → "535"
std::optional<std::string> read_cuda_wording(std::string_view text);    // "CUDA 12.1" → "12.1"
// A current is needed: a power alone ("7 kW") would need a guessed voltage and reads as nothing.
// So does a three-phase circuit ("three-phase", "3-phase", "三相", "3φ", or a 380/400/415 V line
// voltage, which only three-phase supplies have): its capacity depends on the phases and the
// wiring (√3 × V × A or 3 × per-phase), which a single current and voltage do not say. Several
// feeds ("2×16A", "16A ×2", "双路16A", "2路", "A+B 16A") read as nothing too: per feed or summed
// is not said.
std::optional<RackTerm> read_rack_wording(std::string_view text);
std::optional<PublicBandwidthTerm> read_public_bandwidth_wording(std::string_view text);
std::optional<InternalNetworkTerm> read_internal_network_wording(std::string_view text);
// A figure stated per server ("整机", "per server") is divided by `gpus_per_server`, the contract's
// own GPU count; without it the clause reads as nothing.
std::optional<PerformanceTerm> read_performance_wording(std::string_view text, std::optional<int> gpus_per_server);
std::optional<double> read_hours_wording(std::string_view text);    // "4 h", "4小时", "30 min" → 0.5
std::optional<double> read_minutes_wording(std::string_view text);  // "15 min", "15分钟内", "0.5 h" → 30
std::optional<ServiceHours> read_service_hours_wording(std::string_view text);  // "7×24", "5x8"
// Always readable: none (also "0", "0%", "¥0", "no penalty", "无违约金", "免责" when no amount is
// named), with or without an amount. A text over kMaxTermBytes reads as no amount.
PenaltyTerm read_penalty_wording(std::string_view text);

}  // namespace gpuplan::plan
