// FakeHost: a HostInput that answers from what a test sets, so the gathering of a host (kernel
// log, tools with timeouts, NVML, the clock) is tested without spawning gpuplan or touching the
// machine. Its files are a fixture tree read through HostFs like any snapshot.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "probe/host_input.h"

namespace gpuplan::probe {

class FakeHost final : public HostInput {
 public:
  explicit FakeHost(std::string root, bool live = true) : fs_(std::move(root)), live_(live) {}

  static Error no_nvml() { return Error{{}, 0, {}, Phrase("error.nvml.cannot_load").fact("why", "FakeHost")}; }

  // What live_kernel_log() answers; the journal's copy is a tool run, tools[kJournalKernelCommand].
  std::optional<KernelLogText> kernel_log;
  std::set<std::string> installed;          // the tools has_tool() finds
  std::map<std::string, ToolRun> tools;     // command → its run; any other command does not start
  Result<nvml::NvmlFacts> nvml = no_nvml();
  Result<NvmlSamples> samples = no_nvml();
  std::chrono::system_clock::time_point clock{};

  // What was asked of it, in order: each command run with its timeout.
  std::vector<std::pair<std::string, std::chrono::seconds>> ran;

  const HostFs& fs() const override { return fs_; }
  bool live() const override { return live_; }
  std::optional<KernelLogText> live_kernel_log() override { return live_ ? kernel_log : std::nullopt; }
  bool has_tool(const std::string& name) override { return live_ && installed.count(name) > 0; }
  ToolRun run(const std::string& command, std::chrono::seconds timeout) override {
    if (!live_) return {};
    ran.emplace_back(command, timeout);
    auto it = tools.find(command);
    return it == tools.end() ? ToolRun{} : it->second;
  }
  Result<nvml::NvmlFacts> nvml_facts() override { return nvml; }
  Result<NvmlSamples> sample_nvml(std::chrono::milliseconds, std::chrono::milliseconds,
                                  const SampleProgress&) override {
    return samples;
  }
  std::chrono::system_clock::time_point now() override { return clock; }

 private:
  HostFs fs_;
  bool live_;
};

}  // namespace gpuplan::probe
