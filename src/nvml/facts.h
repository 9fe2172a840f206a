// The GPU facts NVML reports, as plain data: what does not change while the server runs
// (GpuStatic), one reading of what does (GpuDynamic), and the whole answer of one read
// (NvmlFacts). An optional fact NVML could not give is nullopt, and why is a line in
// NvmlFacts::unsupported. Acceptance and diagnosis read these; the Nvml class (nvml/nvml.h)
// fills them and nvml/facts_json.h keeps them in a snapshot.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::nvml {

// What does not change while the server runs.
struct GpuStatic {
  unsigned index = 0;
  std::string name;                              // "NVIDIA A100-SXM4-80GB"
  std::string uuid;                              // "GPU-…"
  std::optional<std::string> serial;             // nullopt / "" on boards without one (a warning sign, SPEC H6)
  std::optional<std::string> board_part_number;  // "692-2G506-0210-002"; engineering samples differ
  std::optional<std::string> vbios;              // "92.00.45.00.05"
  std::string pci_bus_id;                        // "00000000:17:00.0" as NVML writes it
  std::optional<unsigned> max_link_gen;
  std::optional<unsigned> max_link_width;
  std::optional<double> memory_total_mib;
  std::optional<double> power_limit_w;  // enforced limit
  std::optional<int> slowdown_temp_c;   // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
  std::optional<int> shutdown_temp_c;   // NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
  std::optional<double> max_sm_clock_mhz;
};

struct GpuProcess {
  unsigned pid = 0;
  std::optional<double> used_mib;
};

// One reading of what changes.
struct GpuDynamic {
  std::optional<double> utilization_pct;
  std::optional<double> memory_copy_utilization_pct;  // nvmlUtilization_t.memory: memory controller busy
  std::optional<double> memory_used_mib;
  std::optional<double> memory_free_mib;
  std::optional<double> temperature_c;
  std::optional<double> memory_temperature_c;  // HBM (NVML_FI_DEV_MEMORY_TEMP); nullopt where not reported
  std::optional<double> power_w;
  std::optional<uint64_t> energy_mj;  // total energy since the driver loaded, millijoules
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz;
  std::optional<uint64_t>
      clock_event_reasons;           // bit 0x20 SW thermal, 0x40 HW thermal, 0x8 HW slowdown, 0x4 SW power cap
  std::optional<unsigned> link_gen;  // current PCIe link
  std::optional<unsigned> link_width;
  std::optional<unsigned> pcie_replays;
  std::optional<bool> ecc_enabled;
  std::optional<uint64_t> ecc_volatile_corrected;
  std::optional<uint64_t> ecc_volatile_uncorrected;
  std::optional<uint64_t> ecc_aggregate_corrected;
  std::optional<uint64_t> ecc_aggregate_uncorrected;
  std::optional<unsigned> retired_pages_sbe;  // retired for multiple single-bit errors
  std::optional<unsigned> retired_pages_dbe;  // retired for a double-bit error
  std::optional<bool> retired_pages_pending;
  std::optional<unsigned> remapped_rows_correctable;
  std::optional<unsigned> remapped_rows_uncorrectable;
  std::optional<bool> remapping_pending;
  std::optional<bool> remapping_failed;
  std::vector<bool> nvlink_active;                   // per link index; empty when the GPU has no NVLink
  // NVLink error counters summed over the GPU's links (nvmlDeviceGetNvLinkErrorCounter): nullopt
  // when the GPU has no NVLink or the driver does not report them.
  std::optional<uint64_t> nvlink_replay_errors, nvlink_recovery_errors;
  std::optional<uint64_t> nvlink_crc_flit_errors, nvlink_crc_data_errors;
  std::optional<std::vector<GpuProcess>> processes;  // compute processes; NVML's unused (pid 0) slots left out
};

struct GpuFacts {
  GpuStatic info;
  GpuDynamic now;
};

struct NvmlFacts {
  std::string library;                             // the file that was loaded, for evidence
  std::string driver_version;                      // "535.129.03"
  std::optional<std::string> cuda_driver_version;  // "12.2" (decoded from 12020)
  std::optional<std::string> nvml_version;
  std::vector<GpuFacts> gpus;
  // nvmlGpuTopologyLevel_t between GPU i < j: 0 internal, 10 single switch, 20 multiple
  // switches, 30 host bridge, 40 NUMA node, 50 system. NVLink is in GpuDynamic::nvlink_active.
  std::map<std::pair<unsigned, unsigned>, int> topology;
  std::vector<std::string> unsupported;  // "nvmlDeviceGetRemappedRows (GPU 0): Not Supported"
};

}  // namespace gpuplan::nvml
