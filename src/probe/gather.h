// Gathering a host: everything the probes, the kernel log, NVML and the optional tools show
// about one server, read through its HostInput, for `accept`, `diagnose` and `snapshot`.
//
// A caller may rely on: what the host does not have (no NVML, no kernel log, a tool not
// installed, a tool that failed or timed out) is left out with the reason where one is needed
// (facts_error, nvml_error), never an Error; an Error means input the user named is bad (an
// unreadable --kernel-log, a snapshot's nvml.json that does not parse).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/bundle.h"
#include "core/error.h"
#include "probe/host.h"
#include "probe/host_input.h"
#include "probe/kernel_log.h"
#include "probe/snapshot.h"

namespace gpuplan::probe {

enum class NvmlSource {
  kAuto,      // the library on a live host, the snapshot's nvml.json otherwise
  kLive,      // the library of the machine gpuplan runs on
  kSnapshot,  // gpuplan/nvml.json under the host's root
  kOff,
};
// "auto", "live", "snapshot", "off"; nullopt for anything else.
std::optional<NvmlSource> parse_nvml_source(const std::string& name);

struct GatherOptions {
  std::string kernel_log_file;  // read this kernel log instead of the host's
  NvmlSource nvml = NvmlSource::kAuto;
};

// How long an optional tool may run before it is stopped.
constexpr std::chrono::seconds kToolTimeout{120};

struct HostView {
  std::optional<HostFacts> facts;
  Phrase facts_error;  // why facts is empty
  std::optional<KernelLog> kernel_log;
  std::string kernel_log_text, kernel_log_source;  // source "" when there is no kernel log
  std::optional<nvml::NvmlFacts> nvml;
  std::string nvml_json;                            // the facts as a snapshot keeps them
  Phrase nvml_error;                                // why nvml is empty
  std::map<std::string, std::string> tool_outputs;  // "ibstat.txt" → what the tool printed
};

Result<HostView> gather_host(HostInput& host, const GatherOptions& options);

// What a snapshot of the gathered host keeps: the files the probes read, the link directories
// they listed, and the captures (kernel log, nvml.json, tool outputs).
SnapshotContent snapshot_content(const HostInput& host, const HostView& view);

// The evidence files the gathered host gives: the kernel log (a copy of the --kernel-log file,
// else the capture), nvml.json, tool outputs, and every host file as the checks read it.
std::vector<BundleFile> host_evidence(const HostInput& host, const HostView& view, const GatherOptions& options);

}  // namespace gpuplan::probe
