// What every HostInput shares about the machine gpuplan runs on, whatever its files: NVML (the
// library the loader finds) and the system clock. Internal to probe/.
#pragma once

#include <chrono>

#include "probe/host_input.h"

namespace gpuplan::probe::machine {

Result<nvml::NvmlFacts> nvml_facts();
Result<NvmlSamples> sample_nvml(std::chrono::milliseconds duration, std::chrono::milliseconds interval,
                                const SampleProgress& progress);
std::chrono::system_clock::time_point now();

}  // namespace gpuplan::probe::machine
