// NvmlFacts as JSON: the form a host snapshot keeps (gpuplan/nvml.json) and reads back, so a
// snapshot taken on the server is judged later on any machine. Writing then reading gives back
// the same facts.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/error.h"
#include "nvml/facts.h"

namespace gpuplan::nvml {

// The JSON a snapshot keeps (nvml.json) and reads back. Shape (every key always written; a
// nullopt is written as null; on reading, absent and null both mean nullopt, unknown keys are
// ignored so an older gpuplan reads a newer snapshot):
//   {
//     "library": "libnvidia-ml.so.1",              string
//     "driver_version": "535.129.03",               string, required
//     "cuda_driver_version": "12.2" | null,
//     "nvml_version": "12.535.129.03" | null,
//     "gpus": [                                     required
//       { "info": {                                 required; GpuStatic, same names:
//           "index": 0, "name": "...", "uuid": "GPU-...", "pci_bus_id": "00000000:07:00.0",
//                                                   (these four required)
//           "serial", "board_part_number", "vbios": string | null,
//           "max_link_gen", "max_link_width": unsigned | null,
//           "memory_total_mib", "power_limit_w", "max_sm_clock_mhz": number | null,
//           "slowdown_temp_c", "shutdown_temp_c": integer | null },
//         "now": {                                  GpuDynamic, same names:
//           "utilization_pct", "memory_used_mib", "temperature_c", "power_w",
//           "sm_clock_mhz": number | null,
//           "clock_event_reasons", "ecc_volatile_corrected", "ecc_volatile_uncorrected",
//           "ecc_aggregate_corrected", "ecc_aggregate_uncorrected": unsigned 64-bit | null,
//           "link_gen", "link_width", "pcie_replays", "retired_pages_sbe", "retired_pages_dbe",
//           "remapped_rows_correctable", "remapped_rows_uncorrectable": unsigned | null,
//           "ecc_enabled", "retired_pages_pending", "remapping_pending",
//           "remapping_failed": bool | null,
//           "nvlink_active": [true, ...],               one per link, [] without NVLink
//           "processes": [{"pid": 4242, "used_mib": 19968 | null}] | null } } ],
//     "topology": [{"gpus": [0, 1], "level": 10}],  one per GPU pair i < j NVML answered
//     "unsupported": ["nvmlDeviceGetRemappedRows (GPU 0): Not Supported"]
//   }
// facts_from_json's Error names `file` and the field path ("gpus[2].info.uuid: expected a string").
nlohmann::json facts_to_json(const NvmlFacts& facts);
Result<NvmlFacts> facts_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace gpuplan::nvml
