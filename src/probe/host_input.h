// HostInput: the one door to the outside world for the verbs that look at a server. Besides the
// host's files (HostFs) it is the kernel log, external tools run with a timeout, NVML and the
// clock. Three implementations: live (the machine gpuplan runs on), snapshot (an unpacked
// `gpuplan snapshot` archive or a fixture tree: files and gpuplan/ captures, nothing run) and
// fake (scripted answers, for tests).
//
// A caller may rely on: no call throws; a tool that is not installed, does not start or runs
// past its timeout is a ToolRun that says so, never a hang; only a live host runs commands or
// reads the live kernel log. NVML and the clock are always the machine gpuplan runs on (a
// snapshot's NVML facts are its gpuplan/nvml.json capture, read through fs()).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "nvml/nvml.h"
#include "probe/host_fs.h"
#include "probe/kernel_log.h"
#include "telemetry/sample.h"

namespace gpuplan::probe {

// What a command printed (standard output and error together) and how it ended.
struct ToolRun {
  bool started = false;
  int exit_code = -1;      // -1: killed by a signal or not started
  bool timed_out = false;  // stopped after its timeout
  std::string out;
  bool ok() const { return started && exit_code == 0 && !timed_out; }
};

// Rounds of NVML samples (telemetry::Sample.gpu is the NVML index) and how many GPUs answered.
struct NvmlSamples {
  std::vector<telemetry::Sample> samples;
  unsigned gpus = 0;
};

using SampleProgress = std::function<void(int round, int rounds)>;

class HostInput {
 public:
  virtual ~HostInput() = default;

  // The host's files: "/" live, the snapshot or fixture tree otherwise.
  virtual const HostFs& fs() const = 0;
  // True when fs() is the machine gpuplan runs on, so its tools and kernel log describe it.
  virtual bool live() const = 0;

  // The live kernel ring buffer (/dev/kmsg records, else `dmesg`); nullopt when neither can be
  // read or the host is not live. The journal's copy is read with run() (probe/gather.cpp).
  virtual std::optional<KernelLogText> live_kernel_log() = 0;
  // Whether `name` is an executable on PATH (false when not live).
  virtual bool has_tool(const std::string& name) = 0;
  // Runs `command` with sh, stopped after `timeout` so a hung tool (nvidia-smi after an Xid 79)
  // cannot hang gpuplan; not started when the host is not live.
  virtual ToolRun run(const std::string& command, std::chrono::seconds timeout) = 0;

  // NVML on the machine gpuplan runs on: every GPU's facts, or the loader's error.
  virtual Result<nvml::NvmlFacts> nvml_facts() = 0;
  // Samples every GPU every `interval` for `duration` (nvml::sample_gpus).
  virtual Result<NvmlSamples> sample_nvml(std::chrono::milliseconds duration, std::chrono::milliseconds interval,
                                          const SampleProgress& progress) = 0;

  virtual std::chrono::system_clock::time_point now() = 0;
};

// The machine gpuplan runs on, its files under "/".
std::unique_ptr<HostInput> live_host();
// `root` as a host: "/" (or "") is the live host; a directory is a snapshot tree or fixture; a
// file is a snapshot archive, unpacked into a temporary directory that lives as long as the
// returned host. An Error names `root` (field "--root") or the archive entry that was refused.
Result<std::unique_ptr<HostInput>> open_host(const std::string& root);

}  // namespace gpuplan::probe
