// Diagnose: SPEC §H1–H6 over samples and host facts. Each finding carries the evidence that
// fired it (GPU, time ranges, values) as facts and the remedy the SPEC gives, through the
// message table (report/messages) like every other Finding. Pure; thresholds from the catalog
// (kind threshold, ids diagnose.*).
//
// Findings from logs (H1, H3, H4) carry the log lines and hours they rest on (facts "lines",
// "hours").
//
// Finding ids (public): diagnose.thermal and diagnose.power_cap (H1: heat and the power budget
// apart), diagnose.pcie_link (H2), diagnose.input_bound
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
#include "telemetry/smi_table.h"

namespace gpuplan::diagnose {

// A log read into DiagnoseInputs::samples: those at [first, end) came from `path`.
struct LogSource {
  std::string path;
  size_t first = 0, end = 0;
};

// A captured plain `nvidia-smi` output, read from `path`.
struct SmiCapture {
  std::string path;
  telemetry::SmiTable table;
};

struct DiagnoseInputs {
  std::vector<telemetry::Sample> samples;  // any order; `gpu` indexes gpu_names
  std::vector<LogSource> sources;          // where the samples came from, when from files
  std::vector<std::string> log_hosts;      // the hosts the logs name (else their file names), in reading order
  std::vector<SmiCapture> smi_tables;      // plain nvidia-smi outputs given among the logs
  std::vector<std::string> gpu_names;
  std::optional<probe::HostFacts> facts;
  std::optional<nvml::NvmlFacts> nvml;
  std::optional<probe::GpuTopology> topo;  // nvidia-smi topo -m, when given
  std::optional<probe::NvlinkStatus> nvlink;  // nvidia-smi nvlink --status, when captured
};

std::vector<Finding> diagnose(const DiagnoseInputs& in, const catalog::Catalog& catalog);

// Whether the inputs hold anything a rule reads: samples, a plain nvidia-smi capture, NVML facts
// of at least one GPU, a topology or NVLink capture, or a GPU on the PCI bus. Without any, "no
// findings" would claim a healthy server that was never looked at.
bool examined_anything(const DiagnoseInputs& in);

}  // namespace gpuplan::diagnose
