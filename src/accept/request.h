// An acceptance request: the files and values a buyer names for `gpuplan accept` (soak and load
// logs, tool outputs, benchmark, firmware images and checksums, attachments), read and joined
// with the gathered host into the AcceptInputs the checks judge, and the evidence files they
// rest on.
//
// A caller may rely on: a named file that is missing or does not parse is an Error naming the
// file, line and flag (a contract naming a part the catalog lacks too, as `gpuplan audit` says it); a host capture that does not parse is left out with a note (the evidence
// keeps it), so a broken tool on the server cannot stop the verdict. The benchmark command runs
// only on a live host, through its HostInput.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "accept/accept.h"
#include "catalog/catalog.h"
#include "core/bundle.h"
#include "core/error.h"
#include "probe/gather.h"
#include "probe/host_input.h"
#include "telemetry/readers.h"

namespace gpuplan::accept {

struct AcceptRequest {
  std::string host;                 // the report's host name
  std::string soak, load, archive;  // sample logs
  std::vector<std::string> smartctl;
  std::string ibstat, topo;
  std::string benchmark, benchmark_cmd;  // a benchmark's output, or the command to run now
  std::string benchmark_scope;           // "per-gpu" or "total", when the output does not say
  std::optional<int> benchmark_gpus;     // the GPUs the benchmark ran on, when the output does not say
  std::string benchmark_model;           // the model it ran ("resnet50"), when the output does not say
  std::string benchmark_mode;            // "training" or "inference", when the output does not say
  std::optional<int> benchmark_batch;    // its batch per GPU, when the output does not say
  std::vector<std::string> firmware;
  std::string checksums;
  std::string cuda, nccl;           // versions the buyer states
  std::vector<std::string> attach;  // "CHECK=FILE"
  std::optional<int> expected_gpus;
  std::string contract;  // --contract: a vendor quote (plan::read_vendor_quote)
};

// The checks a buyer may attach a file to with --attach.
const std::vector<std::string>& attachable_checks();

// How long a benchmark command may run before it is stopped.
constexpr std::chrono::hours kBenchmarkTimeout{7 * 24};

struct PreparedAcceptance {
  AcceptInputs inputs;
  std::vector<BundleFile> evidence;  // copies of the named files and the benchmark's output
};

using Note = std::function<void(const Phrase&)>;

// Reads what `request` names (with `progress` on the long log reads; `note` hears what was
// skipped or left out and when the benchmark starts) and joins it with `view`.
Result<PreparedAcceptance> prepare_acceptance(const AcceptRequest& request, probe::HostInput& host,
                                              const probe::HostView& view, const catalog::Catalog& catalog,
                                              const Note& note, const telemetry::Progress& progress = {});

}  // namespace gpuplan::accept
