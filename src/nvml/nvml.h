// NVML: the GPU facts acceptance and diagnosis read from NVIDIA's management library, loaded
// with dlopen at run time so gpuplan runs (and builds, and is tested) on machines without a GPU.
// Symbols are looked up by their versioned names (nvmlInit_v2, nvmlDeviceGetCount_v2, …, see
// ../shared/reference/nvml-abi.txt) with the older names as fallbacks; a few are required (init,
// shutdown, count, handle, error string), every other one is optional: a missing symbol or
// NOT_SUPPORTED leaves that fact nullopt and is listed in `unsupported`, never an error.
//
// Tests point GPUPLAN_NVML_LIBRARY at the project's fake libnvidia-ml.so.1 (tests/fake_nvml),
// which answers from the scenario file named by GPUPLAN_FAKE_NVML_SCENARIO.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
// The fact types, their JSON form and the sampler come with this header, so a caller of NVML
// includes this one.
#include "nvml/facts.h"
#include "nvml/facts_json.h"
#include "nvml/sampler.h"

namespace gpuplan::nvml {

// How much one dynamic reading asks (see Nvml::read_sample, read_watch, read_dynamic).
enum class Depth { kSample, kWatch, kFull };

// One reading as `gpuplan watch` takes it: `lost` when NVML answered GPU_IS_LOST (the GPU fell
// off the bus) to any call of the reading; `values` is then empty, and nothing is noted as
// unsupported. A lost GPU is asked again at the next reading (its handle too, when NVML could
// not open it), so its return is seen.
struct WatchReading {
  bool lost = false;
  GpuDynamic values;
};

class Nvml {
 public:
  // `library` empty: $GPUPLAN_NVML_LIBRARY, else "libnvidia-ml.so.1", else "libnvidia-ml.so".
  // An Error says which file could not be loaded, which required symbol is missing, or what
  // nvmlInit_v2 returned (with nvmlErrorString's text).
  static Result<std::unique_ptr<Nvml>> open(const std::string& library = "");
  ~Nvml();  // nvmlShutdown, dlclose
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  unsigned count() const;
  // Static facts of every GPU, one dynamic reading, and the GPU-pair topology.
  NvmlFacts read_facts();
  // The static facts of GPU `index` alone.
  GpuStatic read_static(unsigned index);
  // One full dynamic reading of GPU `index`.
  GpuDynamic read_dynamic(unsigned index);
  // The part of a dynamic reading a telemetry::Sample carries (utilization, memory, temperature,
  // power, SM clock, clock event reasons, ECC mode and volatile counts): what the sampler calls
  // every interval, without the NVLink, process and retirement queries.
  GpuDynamic read_sample(unsigned index);
  // What `gpuplan watch` reads every interval: the sample plus link, replays, aggregate ECC,
  // memory copy utilization, memory free and temperature, energy, memory clock and the NVLink
  // states and error counters (summed over links). `full` adds the costlier reads: retired
  // pages, remapped rows and processes.
  WatchReading read_watch(unsigned index, bool full);
  // The unsupported lines so far (what read_facts copies into NvmlFacts::unsupported). Each
  // call that answered NOT_SUPPORTED or FUNCTION_NOT_FOUND for a GPU is not asked again.
  const std::vector<std::string>& unsupported() const;

  // The loaded library and what it has answered (nvml/library.h, private to src/nvml).
  struct Impl;

 private:
  explicit Nvml(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuplan::nvml
