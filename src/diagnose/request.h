// A diagnosis request: the sample logs, the topology file and the live NVML sampling a user asks
// `gpuplan diagnose` for, read and joined with the gathered host into DiagnoseInputs.
//
// A caller may rely on: a named file that is missing or does not parse is an Error naming it;
// a host's topology or NVLink status capture that does not parse is left out; NVML is sampled only when
// `sample` is above zero and the NVML source allows the library (not off, not snapshot).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "diagnose/diagnose.h"
#include "probe/gather.h"
#include "probe/host_input.h"

namespace gpuplan::diagnose {

struct DiagnoseRequest {
  std::vector<std::string> logs;
  std::string topo;  // nvidia-smi topo -m output; else the host's capture
  std::chrono::milliseconds sample{0}, interval{1000};
  probe::NvmlSource nvml = probe::NvmlSource::kAuto;
};

using Note = std::function<void(const Phrase&)>;

// `note` hears each line a log reader skipped; `progress` each NVML sampling round.
Result<DiagnoseInputs> prepare_diagnosis(const DiagnoseRequest& request, probe::HostInput& host,
                                         const probe::HostView& view, const Note& note,
                                         const probe::SampleProgress& progress = {});

}  // namespace gpuplan::diagnose
