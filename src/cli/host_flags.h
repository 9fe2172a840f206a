// What the verbs that look at a server (accept, diagnose, snapshot) share: the flags naming the
// host (--root, --kernel-log, --nvml, --host) and opening and gathering it through probe/.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "probe/gather.h"
#include "probe/host_input.h"

namespace gpuplan::cli {

struct HostFlags {
  std::string root = "/";
  bool root_named = false;               // --root was given (even as "/")
  std::vector<std::string> kernel_logs;  // --kernel-log, repeatable
  std::string nvml = "auto";             // auto (live on /, the snapshot's otherwise), live, snapshot, off
  std::string host;
};

void add_host_flags(CLI::App& cmd, HostFlags& flags);

struct GatheredHost {
  std::unique_ptr<probe::HostInput> input;
  probe::GatherOptions options;
  probe::HostView view;
};

// The host --root names, opened and gathered.
Result<GatheredHost> gather(const HostFlags& flags);

// The report's host: --host, else the host's own name, else what --root named.
std::string host_name(const HostFlags& flags, const GatheredHost& host);

// The NVML source --nvml names.
probe::NvmlSource nvml_source(const HostFlags& flags);

}  // namespace gpuplan::cli
