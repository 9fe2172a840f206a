// Acceptance: the 12 actions of the acceptance article [S1 §5], plus `xid`, `ecc` and
// `gpu.count`, as checks over what the probes, the kernel log, NVML, the sample logs and the
// buyer's own files showed. Pure: the CLI gathers the inputs (live or from a snapshot), this
// module judges them, report/ renders.
//
// A caller may rely on: every check is a Finding whose severity is its verdict (pass, warn,
// fail, needs-evidence); its notes say what it saw and its evidence what it rests on, as
// phrases (report/messages words them). Every check id below appears exactly once in a report,
// in this order: soak, pcie.topology, pcie.aer, infiniband, versions, load, pcie.aspm, iommu,
// firmware.versions, performance, firmware.hashes, health.archive, xid, ecc, gpu.count, and
// last contract.delivery, which appears only when a contract is given (`--contract`: without
// one a report is as before). A check whose input is missing is needs-evidence and names the
// input (flag or snapshot file) that would let it run. The report's verdict follows from the
// checks alone (see Verdict). Thresholds come from the catalog (kind threshold, ids accept.*);
// nothing is judged from a number typed in C++. With a contract, its terms replace the catalog's
// where it states them: the performance clause's images/s per GPU (performance), and the driver
// and CUDA versions (versions: a delivered driver older than the contract's fails, a newer one
// warns; the contract's CUDA is judged as a declared --cuda when none is declared). The
// sample-log summaries (accept/log_summary.h) and the parsers for the buyer's files
// (accept/buyer_files.h, accept/benchmark_output.h) that fill AcceptInputs come with this header.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accept/archive_trend.h"
#include "accept/benchmark_output.h"
#include "accept/buyer_files.h"
#include "accept/log_summary.h"
#include "catalog/catalog.h"
#include "core/finding.h"
#include "nvml/nvml.h"
#include "plan/audit.h"
#include "probe/attached_tools.h"
#include "probe/host.h"
#include "probe/kernel_log.h"
#include "probe/lspci.h"
#include "probe/tools.h"
#include "telemetry/readers.h"

namespace gpuplan::accept {

// The overall verdict (docs/rules.md "Verdicts"): fail when any check failed; else incomplete
// when any check needs evidence; else pass (warnings included: a warning asks a person to look,
// it is neither a failure nor missing evidence). A report never says pass while a check did not run.
enum class Verdict { kPass, kIncomplete, kFail };

// "pass" / "incomplete" / "fail": the JSON `verdict` word.
const char* verdict_name(Verdict v);
Verdict verdict_of(const std::vector<Finding>& checks);

struct AcceptReport {
  std::string host;
  Verdict verdict = Verdict::kIncomplete;  // verdict_of(checks)
  std::vector<Finding> checks;             // severity: pass, warn, fail or needs-evidence
};

struct FirmwareImage {
  std::string path;    // as given
  std::string sha256;  // lowercase hex, computed by the caller
};

// One --attach CHECK=FILE. Files for pcie.topology and pcie.aer (`lspci -vvv`), infiniband,
// firmware.versions, ecc (`nvidia-smi -q`) and contract.delivery (`dmidecode -t memory`) are read
// (probe/attached_tools.h, probe/lspci.h); the other checks' attachments are kept for a person to
// judge, and their checks say so.
struct Attachment {
  std::string check;                                // "infiniband"
  std::string file;                                 // as given
  std::string sha256;                               // lowercase hex
  bool empty = false;                               // nothing but blanks in it
  std::optional<probe::IbEvidence> ib;              // infiniband: what the file showed
  std::optional<probe::FirmwareEvidence> firmware;  // firmware.versions
  std::vector<probe::GpuMemoryHealth> memory;       // ecc: the GPUs `nvidia-smi -q` showed
  // contract.delivery: the populated DIMMs of `dmidecode -t memory`; a file that is not such
  // output is rejected when the request is prepared, so this is set for every such attachment.
  std::optional<std::vector<probe::Dimm>> dimms;
  // pcie.topology, pcie.aer: the devices of `lspci -vvv`; a file that is not such output is
  // rejected when the request is prepared.
  std::optional<std::vector<probe::LspciDevice>> lspci;
};

struct AcceptInputs {
  std::string host;  // name in the report; the probe's hostname when empty
  std::optional<probe::HostFacts> facts;
  Phrase facts_error{"accept.host.not_read"};  // why facts is empty
  std::optional<probe::KernelLog> kernel_log;
  std::string kernel_log_source;  // "kernel.log", "/dev/kmsg", "dmesg"
  std::optional<nvml::NvmlFacts> nvml;
  Phrase nvml_error{"accept.nvml.not_read"};  // why nvml is empty (accept.nvml.off, the loader's error…)
  std::optional<LogSummary> soak;     // --soak: G1
  std::optional<LogSummary> load;     // --load: G6
  std::optional<LogSummary> archive;  // --archive: G12
  std::optional<ArchiveTrend> archive_trend;  // --archive when it is a gpuplan archive: the hourly ECC trend
  std::vector<std::pair<std::string, probe::SmartNvme>> smart;  // (file, parsed) per NVMe
  std::optional<std::vector<probe::IbstatPort>> ibstat;
  std::optional<probe::GpuTopology> topo;
  std::optional<BenchmarkFigure> benchmark;  // G10, as the output states it (scope, GPUs)
  std::string benchmark_source;              // file or command that gave it
  // What the buyer states where the output does not (--benchmark-scope, --benchmark-gpus,
  // --benchmark-model, --benchmark-mode, --benchmark-batch); a statement of the buyer's outranks
  // the output's words.
  std::optional<BenchmarkScope> benchmark_scope;
  std::optional<int> benchmark_gpus;
  std::optional<std::string> benchmark_model;  // normalise_model's form: "resnet50"
  std::optional<BenchmarkMode> benchmark_mode;
  std::optional<int> benchmark_batch;                  // per GPU
  std::vector<FirmwareImage> firmware;                 // G11
  std::map<std::string, std::string> expected_sha256;  // file name → hash, from the checksum file
  std::string checksum_file;
  std::map<std::string, std::string> versions;  // user-declared: "cuda" → "12.2", "nccl" → "2.18.3"
  std::vector<Attachment> attachments;  // --attach CHECK=FILE, in the order given (G4, G9)
  std::optional<int> expected_gpus;              // --gpus; else every GPU NVML or PCI shows must be there
  // --contract: the vendor quote the server was bought on (its lines are the bill of materials,
  // its terms the thresholds); nullopt: the catalog's defaults, and no contract.delivery check.
  std::optional<plan::VendorQuote> contract;
};

AcceptReport run_acceptance(const AcceptInputs& in, const catalog::Catalog& catalog);

}  // namespace gpuplan::accept
