#include "probe/machine.h"

#include <thread>

namespace gpuplan::probe::machine {

Result<nvml::NvmlFacts> nvml_facts() {
  auto lib = nvml::Nvml::open();
  if (!lib) return lib.error();
  return (*lib)->read_facts();
}

Result<NvmlSamples> sample_nvml(std::chrono::milliseconds duration, std::chrono::milliseconds interval,
                                const SampleProgress& progress) {
  auto lib = nvml::Nvml::open();
  if (!lib) return lib.error();
  NvmlSamples out;
  out.samples = nvml::sample_gpus(
      **lib, duration, interval, [] { return std::chrono::system_clock::now(); },
      [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }, progress);
  out.gpus = (*lib)->count();
  return out;
}

std::chrono::system_clock::time_point now() {
  return std::chrono::system_clock::now();
}

}  // namespace gpuplan::probe::machine
