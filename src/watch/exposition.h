// /metrics: a WatchState in the Prometheus text format (version 0.0.4). The fields watch shares
// with dcgm-exporter carry its names, types, HELP and labels (gpu, UUID, pci_bus_id, device,
// modelName, Hostname), so dashboards built for it work unchanged; gpuplan_* series add what it
// lacks. A caller may rely on: a value NVML did not give (nullopt) has no sample, never a 0; a
// lost GPU keeps only its gpuplan_gpu_lost and Xid series (its last reading is stale); label
// values are escaped; families come in a fixed order, GPUs in state order.
#pragma once

#include <string>
#include <string_view>

#include "watch/state.h"

namespace gpuplan::watch {

// The content type /metrics answers with.
inline constexpr std::string_view kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string render_metrics(const WatchState& state);

// A label value as the text format writes it between quotes: \ → \\, " → \", newline → \n.
std::string escape_label_value(std::string_view value);

}  // namespace gpuplan::watch
