// What the live and snapshot hosts share about the machine gpuplan runs on, whatever its files:
// NVML (the library the loader finds) and the system clock. Internal to probe/.
#pragma once

#include <chrono>

#include "probe/host_input.h"

namespace gpuplan::probe::machine {

Result<nvml::NvmlFacts> nvml_facts();
Result<NvmlSamples> sample_nvml(std::chrono::milliseconds duration, std::chrono::milliseconds interval,
                                const SampleProgress& progress);
std::chrono::system_clock::time_point now();

// A HostInput whose NVML and clock are this machine's.
class MachineHost : public HostInput {
 public:
  Result<nvml::NvmlFacts> nvml_facts() override { return machine::nvml_facts(); }
  Result<NvmlSamples> sample_nvml(std::chrono::milliseconds duration, std::chrono::milliseconds interval,
                                  const SampleProgress& progress) override {
    return machine::sample_nvml(duration, interval, progress);
  }
  std::chrono::system_clock::time_point now() override { return machine::now(); }
};

}  // namespace gpuplan::probe::machine
