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
  // The unsupported lines so far (what read_facts copies into NvmlFacts::unsupported). Each
  // call that answered NOT_SUPPORTED or FUNCTION_NOT_FOUND for a GPU is not asked again.
  const std::vector<std::string>& unsupported() const;


  struct Impl;

 private:
  explicit Nvml(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

using Clock = std::function<std::chrono::system_clock::time_point()>;
using Sleep = std::function<void(std::chrono::milliseconds)>;

// At most this many rounds per sample_gpus call: 115 days at one a second (a 72-hour burn-in
// at one a second is 259,201 rounds).
constexpr int64_t kMaxSampleRounds = 10'000'000;

// Samples every GPU every `interval` for `duration` (the first reading at once, then
// duration / interval more, so 90 min at 30 min is 4 rounds; beyond kMaxSampleRounds only the
// first kMaxSampleRounds rounds are taken and reported), as telemetry Samples whose `gpu`
// is the NVML index and whose time_ms is now() when the round was taken. `now` and `sleep` are injectable for tests;
// `on_sample` (may be empty) sees each round as it is taken, for progress.
std::vector<telemetry::Sample> sample_gpus(Nvml& nvml, std::chrono::milliseconds duration,
                                           std::chrono::milliseconds interval, const Clock& now,
                                           const Sleep& sleep,
                                           const std::function<void(int round, int rounds)>& on_sample = {});

}  // namespace gpuplan::nvml
