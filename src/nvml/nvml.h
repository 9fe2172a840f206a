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

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/error.h"
#include "telemetry/sample.h"

namespace gpuplan::nvml {

// What does not change while the server runs.
struct GpuStatic {
  unsigned index = 0;
  std::string name;               // "NVIDIA A100-SXM4-80GB"
  std::string uuid;               // "GPU-…"
  std::optional<std::string> serial;             // nullopt / "" on boards without one (a warning sign, SPEC H6)
  std::optional<std::string> board_part_number;  // "692-2G506-0210-002"; engineering samples differ
  std::optional<std::string> vbios;              // "92.00.45.00.05"
  std::string pci_bus_id;         // "00000000:17:00.0" as NVML writes it
  std::optional<unsigned> max_link_gen;
  std::optional<unsigned> max_link_width;
  std::optional<double> memory_total_mib;
  std::optional<double> power_limit_w;           // enforced limit
  std::optional<int> slowdown_temp_c;            // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
  std::optional<int> shutdown_temp_c;            // NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
  std::optional<double> max_sm_clock_mhz;
};

struct GpuProcess {
  unsigned pid = 0;
  std::optional<double> used_mib;
};

// One reading of what changes.
struct GpuDynamic {
  std::optional<double> utilization_pct;
  std::optional<double> memory_used_mib;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> sm_clock_mhz;
  std::optional<uint64_t> clock_event_reasons;  // bit 0x20 SW thermal, 0x40 HW thermal, 0x8 HW slowdown, 0x4 SW power cap
  std::optional<unsigned> link_gen;             // current PCIe link
  std::optional<unsigned> link_width;
  std::optional<unsigned> pcie_replays;
  std::optional<bool> ecc_enabled;
  std::optional<uint64_t> ecc_volatile_corrected;
  std::optional<uint64_t> ecc_volatile_uncorrected;
  std::optional<uint64_t> ecc_aggregate_corrected;
  std::optional<uint64_t> ecc_aggregate_uncorrected;
  std::optional<unsigned> retired_pages_sbe;    // retired for multiple single-bit errors
  std::optional<unsigned> retired_pages_dbe;    // retired for a double-bit error
  std::optional<bool> retired_pages_pending;
  std::optional<unsigned> remapped_rows_correctable;
  std::optional<unsigned> remapped_rows_uncorrectable;
  std::optional<bool> remapping_pending;
  std::optional<bool> remapping_failed;
  std::vector<bool> nvlink_active;              // per link index; empty when the GPU has no NVLink
  std::optional<std::vector<GpuProcess>> processes;  // compute processes
};

struct GpuFacts {
  GpuStatic info;
  GpuDynamic now;
};

struct NvmlFacts {
  std::string library;             // the file that was loaded, for evidence
  std::string driver_version;      // "535.129.03"
  std::optional<std::string> cuda_driver_version;  // "12.2" (decoded from 12020)
  std::optional<std::string> nvml_version;
  std::vector<GpuFacts> gpus;
  // nvmlGpuTopologyLevel_t between GPU i < j: 0 internal, 10 single switch, 20 multiple
  // switches, 30 host bridge, 40 NUMA node, 50 system. NVLink is in GpuDynamic::nvlink_active.
  std::map<std::pair<unsigned, unsigned>, int> topology;
  std::vector<std::string> unsupported;  // "nvmlDeviceGetRemappedRows (GPU 0): Not Supported"
};

// The JSON a snapshot keeps (nvml.json) and reads back; the shape is documented in README.
nlohmann::json facts_to_json(const NvmlFacts& facts);
Result<NvmlFacts> facts_from_json(const nlohmann::json& j, const std::string& file);

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
  // One dynamic reading of GPU `index` (what the sampler calls every interval).
  GpuDynamic read_dynamic(unsigned index);

  struct Impl;

 private:
  explicit Nvml(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

using Clock = std::function<std::chrono::system_clock::time_point()>;
using Sleep = std::function<void(std::chrono::milliseconds)>;

// Samples every GPU every `interval` for `duration` (the first reading at once), as telemetry
// Samples whose `gpu` is the NVML index. `now` and `sleep` are injectable for tests; `on_sample`
// (may be empty) sees each round as it is taken, for progress.
std::vector<telemetry::Sample> sample_gpus(Nvml& nvml, std::chrono::milliseconds duration,
                                           std::chrono::milliseconds interval, const Clock& now,
                                           const Sleep& sleep,
                                           const std::function<void(int round, int rounds)>& on_sample = {});

}  // namespace gpuplan::nvml
