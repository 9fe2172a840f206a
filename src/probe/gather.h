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
  // Read these kernel logs (plain or gzip; --kernel-log, repeatable) instead of the host's.
  std::vector<std::string> kernel_log_files;
  NvmlSource nvml = NvmlSource::kAuto;
};

// How long an optional tool may run before it is stopped.
constexpr std::chrono::seconds kToolTimeout{120};

// What a live host's journal gives of this boot's kernel log, where journald keeps it: /dev/kmsg
// is a ring buffer that wraps, and an Xid older than it is only in the journal.
inline constexpr const char* kJournalKernelCommand = "journalctl -k -b -o json --no-pager";

// One kernel log gathered: where it came from ("/dev/kmsg", a --kernel-log path,
// "gpuplan/kernel.log") and the name a snapshot keeps it under below gpuplan/ ("kernel.log",
// "journal-kernel.json", "kernel-logs/kern.log.2.gz" for a --kernel-log file, inflated).
struct KernelLogCapture {
  std::string source;
  std::string capture;
  std::string text;
};

struct HostView {
  std::optional<HostFacts> facts;
  Phrase facts_error;  // why facts is empty
  // The kernel logs read: the --kernel-log files; else a snapshot's gpuplan/kernel.log,
  // gpuplan/journal-kernel.json and gpuplan/kernel-logs/*; else the live /dev/kmsg (or dmesg) and
  // the journal's kernel log of this boot. kernel_log is all of them merged (kernel_log.h).
  std::optional<KernelLog> kernel_log;
  std::vector<KernelLogCapture> kernel_logs;
  std::string kernel_log_source;  // their sources joined by ", "; "" when there is no kernel log
  std::optional<nvml::NvmlFacts> nvml;
  std::string nvml_json;                            // the facts as a snapshot keeps them
  Phrase nvml_error;                                // why nvml is empty
  std::map<std::string, std::string> tool_outputs;  // "ibstat.txt" → what the tool printed
};

Result<HostView> gather_host(HostInput& host, const GatherOptions& options);

// What a snapshot of the gathered host keeps: the files the probes read, the link directories
// they listed, and the captures (kernel log, nvml.json, tool outputs).
SnapshotContent snapshot_content(const HostInput& host, const HostView& view);

// The evidence files the gathered host gives: the kernel logs (a copy of each --kernel-log file as
// it is, else the captures), nvml.json, tool outputs, and every host file as the checks read it.
std::vector<BundleFile> host_evidence(const HostInput& host, const HostView& view, const GatherOptions& options);

}  // namespace gpuplan::probe
