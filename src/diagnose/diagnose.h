// Diagnose: SPEC §H1–H6 over samples and host facts. Each finding carries the evidence that
// fired it (GPU, time ranges, values) as facts and the remedy the SPEC gives, through the
// message table (report/messages) like every other Finding. Pure; thresholds from the catalog
// (kind threshold, ids diagnose.*).
//
// Finding ids (public): diagnose.thermal (H1), diagnose.pcie_link (H2), diagnose.input_bound
// (H3), diagnose.memory (H4), diagnose.p2p (H5: NVLink down or GPU pairs over PCIe on an SXM
// board; PCIe cards, whose NVLink bridges are optional, get none), diagnose.used_card (H6).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "nvml/nvml.h"
#include "probe/host.h"
#include "probe/tools.h"
#include "telemetry/sample.h"

namespace gpuplan::diagnose {

struct DiagnoseInputs {
  std::vector<telemetry::Sample> samples;  // any order; `gpu` indexes gpu_names
  std::vector<std::string> gpu_names;
  std::optional<probe::HostFacts> facts;
  std::optional<nvml::NvmlFacts> nvml;
  std::optional<probe::GpuTopology> topo;  // nvidia-smi topo -m, when given
  std::optional<probe::NvlinkStatus> nvlink;  // nvidia-smi nvlink --status, when captured
};

std::vector<Finding> diagnose(const DiagnoseInputs& in, const catalog::Catalog& catalog);

}  // namespace gpuplan::diagnose
