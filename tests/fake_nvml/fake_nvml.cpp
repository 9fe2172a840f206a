// A stand-in for NVIDIA's libnvidia-ml.so.1 that answers the NVML calls gpuplan makes from a
// YAML scenario, so every NVML path runs in CI without a GPU. nvmlInit_v2 reads the file named
// by $GPUPLAN_FAKE_NVML_SCENARIO (unset: DRIVER_NOT_LOADED; missing or bad file: UNKNOWN, with
// a line on stderr); nvmlShutdown forgets it, so each open can use another scenario.
//
// Scenario keys (tests/fixtures/nvml/*.yaml are the examples):
//   driver_version: "535.129.03"       nvmlSystemGetDriverVersion
//   cuda_driver_version: 12020          nvmlSystemGetCudaDriverVersion(_v2)
//   nvml_version: "12.535.129.03"      nvmlSystemGetNVMLVersion
//   init_result: 9                      nvmlInit_v2 fails with this code
//   clock_file: PATH                    elapsed seconds since init are read from PATH (a number)
//                                       instead of CLOCK_REALTIME; $GPUPLAN_FAKE_NVML_CLOCK_FILE
//                                       overrides it, so a test can drive a fixture's clock
//   unsupported: [nvmlDeviceGet...]     these answer NOT_SUPPORTED on every GPU
//   function_not_found: [nvml...]       these answer FUNCTION_NOT_FOUND (how a driver without a
//                                       function answers; one .so cannot lack a symbol per test)
//   topology: {default: 50, pairs: [[0, 1, 10], ...]}   nvmlDeviceGetTopologyCommonAncestor
//   processes_v3_entry_bytes: 32        _v3 writes 32-byte entries, as the 535.43–535.86 drivers
//   processes_count_extra: 100          the process calls answer SUCCESS with a count this much
//                                       above the entries they wrote (a driver not to trust)
//   (nvmlDeviceGetPciInfo, the legacy symbol, fills only busIdLegacy and the fields before busId)
//   defaults: {GPU keys}                laid under every entry of gpus
//   gpus: [{GPU keys}, ...]             one entry per GPU, in NVML index order
// GPU keys: name, uuid, serial, board_part_number, vbios, pci_bus_id, pci_device_id,
//   max_link_gen, max_link_width, link_gen, link_width, memory_total_mib, memory_used_mib,
//   utilization_gpu_pct, utilization_memory_pct, temperature_c, slowdown_temp_c, shutdown_temp_c,
//   power_w, power_limit_w, sm_clock_mhz, max_sm_clock_mhz, clock_event_reasons, pcie_replays,
//   ecc_enabled, ecc_volatile_corrected, ecc_volatile_uncorrected, ecc_aggregate_corrected,
//   ecc_aggregate_uncorrected, retired_pages_sbe, retired_pages_dbe, retired_pages_pending,
//   remapped_rows_correctable, remapped_rows_uncorrectable, remapping_pending, remapping_failed,
//   nvlinks (number of links), nvlinks_down (indices of inactive links),
//   processes ([{pid, used_mib}], used_mib absent = NVML_VALUE_NOT_AVAILABLE),
//   unsupported (as above, this GPU only), handle_error (nvmlDeviceGetHandleByIndex fails with it),
//   memory_temperature_c (nvmlDeviceGetFieldValues NVML_FI_DEV_MEMORY_TEMP), energy_mj
//   (nvmlDeviceGetTotalEnergyConsumption), memory_clock_mhz (nvmlDeviceGetClockInfo NVML_CLOCK_MEM),
//   nvlink_replay_errors, nvlink_recovery_errors, nvlink_crc_flit_errors, nvlink_crc_data_errors
//   (nvmlDeviceGetNvLinkErrorCounter: what EACH link answers, so the sum is this × nvlinks),
//   lost: {from_s: A, to_s: B}   every call on this GPU (its handle too) answers GPU_IS_LOST while
//                                A <= seconds since nvmlInit < B (on the clock_file clock when set);
//                                to_s absent: lost for good.
// (The calls from ECC on live in fake_nvml_calls.inc, included at the end.)
// A key that is absent answers NOT_SUPPORTED. Any number may instead be {start: S, per_hour: R}:
// S + R × hours since nvmlInit (integers are rounded down).
#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "../../src/nvml/nvml_api.h"

namespace {

namespace api = gpuplan::nvml::api;
using api::Return;

struct FakeDevice {
  unsigned index;
};

struct State {
  std::mutex mu;
  int refcount = 0;
  std::string file;
  YAML::Node scenario;
  std::vector<YAML::Node> gpus;  // defaults laid under each entry
  std::vector<std::unique_ptr<FakeDevice>> devices;
  std::set<std::string> unsupported, function_not_found;
  std::vector<std::set<std::string>> gpu_unsupported;
  std::string clock_file;
  double init_time_s = 0;
};

State& state() {
  static State s;
  return s;
}

const std::set<std::string> kTopKeys = {"driver_version",
                                        "cuda_driver_version",
                                        "nvml_version",
                                        "init_result",
                                        "clock_file",
                                        "unsupported",
                                        "function_not_found",
                                        "topology",
                                        "defaults",
                                        "gpus",
                                        "processes_v3_entry_bytes",
                                        "processes_count_extra"};
const std::set<std::string> kGpuKeys = {"name",
                                        "uuid",
                                        "serial",
                                        "board_part_number",
                                        "vbios",
                                        "pci_bus_id",
                                        "pci_device_id",
                                        "max_link_gen",
                                        "max_link_width",
                                        "link_gen",
                                        "link_width",
                                        "memory_total_mib",
                                        "memory_used_mib",
                                        "utilization_gpu_pct",
                                        "utilization_memory_pct",
                                        "temperature_c",
                                        "slowdown_temp_c",
                                        "shutdown_temp_c",
                                        "power_w",
                                        "power_limit_w",
                                        "sm_clock_mhz",
                                        "max_sm_clock_mhz",
                                        "clock_event_reasons",
                                        "pcie_replays",
                                        "ecc_enabled",
                                        "ecc_volatile_corrected",
                                        "ecc_volatile_uncorrected",
                                        "ecc_aggregate_corrected",
                                        "ecc_aggregate_uncorrected",
                                        "retired_pages_sbe",
                                        "retired_pages_dbe",
                                        "retired_pages_pending",
                                        "remapped_rows_correctable",
                                        "remapped_rows_uncorrectable",
                                        "remapping_pending",
                                        "remapping_failed",
                                        "nvlinks",
                                        "nvlinks_down",
                                        "processes",
                                        "unsupported",
                                        "handle_error",
                                        "memory_temperature_c",
                                        "energy_mj",
                                        "memory_clock_mhz",
                                        "nvlink_replay_errors",
                                        "nvlink_recovery_errors",
                                        "nvlink_crc_flit_errors",
                                        "nvlink_crc_data_errors",
                                        "lost"};

double realtime_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::set<std::string> name_set(const YAML::Node& n) {
  std::set<std::string> out;
  if (n) {
    for (const auto& item : n) out.insert(item.as<std::string>());
  }
  return out;
}

void check_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& where) {
  if (!map.IsMap()) throw std::runtime_error(where + ": expected a mapping");
  for (const auto& kv : map) {
    auto key = kv.first.as<std::string>();
    if (!allowed.count(key)) throw std::runtime_error(where + ": unknown key '" + key + "'");
  }
}

// Reads the scenario into `s`; an exception's text says what is wrong.
void load_scenario(State& s, const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the scenario file");
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root = YAML::Load(text.str());
  check_keys(root, kTopKeys, "top level");
  s.file = file;
  s.scenario = root;
  s.unsupported = name_set(root["unsupported"]);
  s.function_not_found = name_set(root["function_not_found"]);
  s.clock_file = root["clock_file"] ? root["clock_file"].as<std::string>() : "";
  if (const char* env = std::getenv("GPUPLAN_FAKE_NVML_CLOCK_FILE"); env && *env) s.clock_file = env;
  YAML::Node defaults = root["defaults"] ? root["defaults"] : YAML::Node(YAML::NodeType::Map);
  check_keys(defaults, kGpuKeys, "defaults");
  s.gpus.clear();
  s.devices.clear();
  s.gpu_unsupported.clear();
  if (root["gpus"] && !root["gpus"].IsSequence()) throw std::runtime_error("gpus: expected a list");
  unsigned index = 0;
  for (const auto& entry : root["gpus"]) {
    check_keys(entry, kGpuKeys, "gpus[" + std::to_string(index) + "]");
    YAML::Node gpu = YAML::Clone(defaults);
    for (const auto& kv : entry) gpu[kv.first.as<std::string>()] = kv.second;
    s.gpu_unsupported.push_back(name_set(gpu["unsupported"]));
    s.gpus.push_back(gpu);
    s.devices.push_back(std::make_unique<FakeDevice>(FakeDevice{index++}));
  }
  s.init_time_s = realtime_s();
}

// Hours since nvmlInit: from the clock file when the scenario names one.
double hours(const State& s) {
  if (!s.clock_file.empty()) {
    std::ifstream in(s.clock_file);
    double seconds = 0;
    if (!(in >> seconds)) throw std::runtime_error("clock file " + s.clock_file + " holds no number");
    return seconds / 3600.0;
  }
  return (realtime_s() - s.init_time_s) / 3600.0;
}

// Whether GPU node `g` is inside its `lost` window now.
bool is_lost(const State& s, const YAML::Node& g) {
  const YAML::Node lost = g["lost"];
  if (!lost) return false;
  const double now_s = hours(s) * 3600.0;
  const double from = lost["from_s"] ? lost["from_s"].as<double>() : 0.0;
  return now_s >= from && (!lost["to_s"] || now_s < lost["to_s"].as<double>());
}

double number(const State& s, const YAML::Node& v) {
  if (v.IsMap()) return v["start"].as<double>() + v["per_hour"].as<double>() * hours(s);
  return v.as<double>();
}

// Counters and bit masks: integers as written (0x48 too), or a rising count rounded down.
unsigned long long count_value(const State& s, const YAML::Node& v) {
  if (v.IsMap()) return static_cast<unsigned long long>(std::floor(number(s, v)));
  return v.as<unsigned long long>();
}

Return copy_string(const std::string& value, char* buf, unsigned length) {
  if (!buf) return api::kErrorInvalidArgument;
  if (value.size() + 1 > length) return api::kErrorInsufficientSize;
  std::memcpy(buf, value.c_str(), value.size() + 1);
  return api::kSuccess;
}

// Common checks of every device call, then `body(gpu node)` under the lock. Exceptions (a
// badly typed scenario value) end as UNKNOWN with a stderr line: none may cross into C.
template <class Body>
Return answer(const char* function, api::Device device, Body body) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0) return api::kErrorUninitialized;
  const FakeDevice* dev = nullptr;
  for (const auto& d : s.devices) {
    if (reinterpret_cast<api::Device>(d.get()) == device) dev = d.get();
  }
  if (!dev) return api::kErrorInvalidArgument;
  if (s.function_not_found.count(function)) return api::kErrorFunctionNotFound;
  if (s.unsupported.count(function) || s.gpu_unsupported[dev->index].count(function)) return api::kErrorNotSupported;
  try {
    if (is_lost(s, s.gpus[dev->index])) return api::kErrorGpuIsLost;
    return body(s, s.gpus[dev->index], dev->index);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake NVML: %s: %s (GPU %u): %s\n", s.file.c_str(), function, dev->index, e.what());
    return api::kErrorUnknown;
  }
}

template <class Body>
Return answer_system(const char* function, Body body) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0) return api::kErrorUninitialized;
  if (s.function_not_found.count(function)) return api::kErrorFunctionNotFound;
  if (s.unsupported.count(function)) return api::kErrorNotSupported;
  try {
    return body(s, s.scenario);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake NVML: %s: %s: %s\n", s.file.c_str(), function, e.what());
    return api::kErrorUnknown;
  }
}

Return device_string(const char* function, api::Device device, const char* key, char* buf, unsigned length) {
  return answer(function, device, [&](State&, const YAML::Node& g, unsigned) {
    if (!g[key]) return api::kErrorNotSupported;
    return copy_string(g[key].as<std::string>(), buf, length);
  });
}

// An unsigned fact `key` × `scale` (W to mW).
Return device_uint(const char* function, api::Device device, const char* key, unsigned* out, double scale = 1) {
  return answer(function, device, [&](State& s, const YAML::Node& g, unsigned) {
    if (!out) return api::kErrorInvalidArgument;
    if (!g[key]) return api::kErrorNotSupported;
    *out = static_cast<unsigned>(std::llround(number(s, g[key]) * scale));
    return api::kSuccess;
  });
}

Return pci_info(const char* function, api::Device device, api::PciInfo* pci) {
  return answer(function, device, [&](State&, const YAML::Node& g, unsigned) {
    if (!pci) return api::kErrorInvalidArgument;
    if (!g["pci_bus_id"]) return api::kErrorNotSupported;
    auto id = g["pci_bus_id"].as<std::string>();
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) {
      throw std::runtime_error("pci_bus_id '" + id + "' is not DDDDDDDD:BB:DD.F");
    }
    // The legacy symbol fills only the older layout's fields, the first 36 bytes; bus_id stays
    // as the caller left it.
    const bool legacy = std::strcmp(function, "nvmlDeviceGetPciInfo") == 0;
    if (!legacy) {
      *pci = api::PciInfo{};
      std::snprintf(pci->bus_id, sizeof pci->bus_id, "%s", id.c_str());
    }
    std::snprintf(pci->bus_id_legacy, sizeof pci->bus_id_legacy, "%04X:%02X:%02X.0", domain & 0xFFFF, bus, dev);
    pci->domain = domain;
    pci->bus = bus;
    pci->device = dev;
    pci->pci_device_id = g["pci_device_id"] ? g["pci_device_id"].as<unsigned>() : 0;
    pci->pci_subsystem_id = 0;
    return api::kSuccess;
  });
}

// The count-query protocol of the process calls, writing `stride`-byte entries: 16 (v1: pid,
// usedGpuMemory), 24 (v2: + GPU and compute instance ids) or 32 (+ usedGpuCcProtectedMemory,
// what _v3 wrote on the 535.43–535.86 drivers).
Return processes(const char* function, api::Device device, unsigned* count, void* infos, size_t stride) {
  return answer(function, device, [&](State& s, const YAML::Node& g, unsigned) {
    if (!count) return api::kErrorInvalidArgument;
    if (!g["processes"]) return api::kErrorNotSupported;
    const YAML::Node list = g["processes"];
    unsigned n = static_cast<unsigned>(list.size());
    if (*count < n || (n > 0 && !infos)) {
      *count = n;
      return api::kErrorInsufficientSize;
    }
    auto* out = static_cast<unsigned char*>(infos);
    for (unsigned i = 0; i < n; ++i) {
      unsigned char* entry = out + i * stride;
      std::memset(entry, 0, stride);
      unsigned pid = list[i]["pid"].as<unsigned>();
      unsigned long long used = list[i]["used_mib"]
                                    ? static_cast<unsigned long long>(number(s, list[i]["used_mib"]) * 1024 * 1024)
                                    : api::kValueNotAvailable;
      std::memcpy(entry, &pid, sizeof pid);
      std::memcpy(entry + 8, &used, sizeof used);
      if (stride >= 24) std::memset(entry + 16, 0xFF, 8);  // not MIG: both instance ids 0xFFFFFFFF
    }
    // A driver that overstates how many it wrote (processes_count_extra) is what a caller
    // must not trust past its buffer.
    const YAML::Node extra = s.scenario["processes_count_extra"];
    *count = n + (extra ? extra.as<unsigned>() : 0u);
    return api::kSuccess;
  });
}

Return retired_pages(const char* function, api::Device device, api::Enum cause, unsigned* count,
                     unsigned long long* addresses, unsigned long long* timestamps) {
  return answer(function, device, [&](State& s, const YAML::Node& g, unsigned) {
    if (!count) return api::kErrorInvalidArgument;
    const char* key = cause == api::kRetiredMultipleSingleBit ? "retired_pages_sbe"
                      : cause == api::kRetiredDoubleBit       ? "retired_pages_dbe"
                                                              : nullptr;
    if (!key) return api::kErrorInvalidArgument;
    if (!g[key]) return api::kErrorNotSupported;
    auto n = static_cast<unsigned>(count_value(s, g[key]));
    if (*count < n) {
      *count = n;
      return api::kErrorInsufficientSize;
    }
    for (unsigned i = 0; i < n; ++i) {
      if (addresses) addresses[i] = 0x1000ull * (i + 1);
      if (timestamps) timestamps[i] = 1700000000ull + i;
    }
    *count = n;
    return api::kSuccess;
  });
}

const char* error_text(Return rc) {
  switch (rc) {
    case api::kSuccess:
      return "Success";
    case api::kErrorUninitialized:
      return "Uninitialized";
    case api::kErrorInvalidArgument:
      return "Invalid Argument";
    case api::kErrorNotSupported:
      return "Not Supported";
    case api::kErrorNoPermission:
      return "Insufficient Permissions";
    case api::kErrorNotFound:
      return "Not Found";
    case api::kErrorInsufficientSize:
      return "Insufficient Size";
    case api::kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    case api::kErrorLibraryNotFound:
      return "NVML Shared Library Not Found";
    case api::kErrorFunctionNotFound:
      return "Function Not Found";
    case api::kErrorGpuIsLost:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

}  // namespace

#define NVML_EXPORT extern "C" __attribute__((visibility("default")))

NVML_EXPORT Return nvmlInit_v2() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount > 0) {
    ++s.refcount;
    return api::kSuccess;
  }
  const char* file = std::getenv("GPUPLAN_FAKE_NVML_SCENARIO");
  if (!file || !*file) {
    std::fprintf(stderr, "fake NVML: GPUPLAN_FAKE_NVML_SCENARIO is not set\n");
    return api::kErrorDriverNotLoaded;
  }
  try {
    load_scenario(s, file);
    if (s.scenario["init_result"]) {
      if (auto rc = s.scenario["init_result"].as<int>(); rc != api::kSuccess) return rc;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake NVML: %s: %s\n", file, e.what());
    return api::kErrorUnknown;
  }
  s.refcount = 1;
  return api::kSuccess;
}

NVML_EXPORT Return nvmlInit() {
  return nvmlInit_v2();
}

NVML_EXPORT Return nvmlShutdown() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0) return api::kErrorUninitialized;
  if (--s.refcount == 0) {
    s.gpus.clear();
    s.devices.clear();
    s.scenario = YAML::Node();
  }
  return api::kSuccess;
}

NVML_EXPORT const char* nvmlErrorString(Return rc) {
  return error_text(rc);
}

NVML_EXPORT Return nvmlSystemGetDriverVersion(char* version, unsigned length) {
  return answer_system("nvmlSystemGetDriverVersion", [&](State&, const YAML::Node& root) {
    if (!root["driver_version"]) return api::kErrorNotSupported;
    return copy_string(root["driver_version"].as<std::string>(), version, length);
  });
}

NVML_EXPORT Return nvmlSystemGetNVMLVersion(char* version, unsigned length) {
  return answer_system("nvmlSystemGetNVMLVersion", [&](State&, const YAML::Node& root) {
    if (!root["nvml_version"]) return api::kErrorNotSupported;
    return copy_string(root["nvml_version"].as<std::string>(), version, length);
  });
}

namespace {
Return cuda_version(const char* function, int* version) {
  return answer_system(function, [&](State&, const YAML::Node& root) {
    if (!version) return api::kErrorInvalidArgument;
    if (!root["cuda_driver_version"]) return api::kErrorLibraryNotFound;  // no libcuda.so.1
    *version = root["cuda_driver_version"].as<int>();
    return api::kSuccess;
  });
}
}  // namespace

NVML_EXPORT Return nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return cuda_version("nvmlSystemGetCudaDriverVersion_v2", version);
}
NVML_EXPORT Return nvmlSystemGetCudaDriverVersion(int* version) {
  return cuda_version("nvmlSystemGetCudaDriverVersion", version);
}

NVML_EXPORT Return nvmlDeviceGetCount_v2(unsigned* count) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0) return api::kErrorUninitialized;
  if (!count) return api::kErrorInvalidArgument;
  *count = static_cast<unsigned>(s.gpus.size());
  return api::kSuccess;
}
NVML_EXPORT Return nvmlDeviceGetCount(unsigned* count) {
  return nvmlDeviceGetCount_v2(count);
}

NVML_EXPORT Return nvmlDeviceGetHandleByIndex_v2(unsigned index, api::Device* device) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0) return api::kErrorUninitialized;
  if (!device || index >= s.gpus.size()) return api::kErrorInvalidArgument;
  try {
    if (s.gpus[index]["handle_error"]) return s.gpus[index]["handle_error"].as<int>();
    if (is_lost(s, s.gpus[index])) return api::kErrorGpuIsLost;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake NVML: %s: gpus[%u].handle_error: %s\n", s.file.c_str(), index, e.what());
    return api::kErrorUnknown;
  }
  *device = reinterpret_cast<api::Device>(s.devices[index].get());
  return api::kSuccess;
}
NVML_EXPORT Return nvmlDeviceGetHandleByIndex(unsigned index, api::Device* device) {
  return nvmlDeviceGetHandleByIndex_v2(index, device);
}

NVML_EXPORT Return nvmlDeviceGetName(api::Device d, char* buf, unsigned length) {
  return device_string("nvmlDeviceGetName", d, "name", buf, length);
}
NVML_EXPORT Return nvmlDeviceGetUUID(api::Device d, char* buf, unsigned length) {
  return device_string("nvmlDeviceGetUUID", d, "uuid", buf, length);
}
NVML_EXPORT Return nvmlDeviceGetSerial(api::Device d, char* buf, unsigned length) {
  return device_string("nvmlDeviceGetSerial", d, "serial", buf, length);
}
NVML_EXPORT Return nvmlDeviceGetBoardPartNumber(api::Device d, char* buf, unsigned length) {
  return device_string("nvmlDeviceGetBoardPartNumber", d, "board_part_number", buf, length);
}
NVML_EXPORT Return nvmlDeviceGetVbiosVersion(api::Device d, char* buf, unsigned length) {
  return device_string("nvmlDeviceGetVbiosVersion", d, "vbios", buf, length);
}

NVML_EXPORT Return nvmlDeviceGetPciInfo_v3(api::Device d, api::PciInfo* pci) {
  return pci_info("nvmlDeviceGetPciInfo_v3", d, pci);
}
NVML_EXPORT Return nvmlDeviceGetPciInfo_v2(api::Device d, api::PciInfo* pci) {
  return pci_info("nvmlDeviceGetPciInfo_v2", d, pci);
}
NVML_EXPORT Return nvmlDeviceGetPciInfo(api::Device d, api::PciInfo* pci) {
  return pci_info("nvmlDeviceGetPciInfo", d, pci);
}

NVML_EXPORT Return nvmlDeviceGetMaxPcieLinkGeneration(api::Device d, unsigned* v) {
  return device_uint("nvmlDeviceGetMaxPcieLinkGeneration", d, "max_link_gen", v);
}
NVML_EXPORT Return nvmlDeviceGetMaxPcieLinkWidth(api::Device d, unsigned* v) {
  return device_uint("nvmlDeviceGetMaxPcieLinkWidth", d, "max_link_width", v);
}
NVML_EXPORT Return nvmlDeviceGetCurrPcieLinkGeneration(api::Device d, unsigned* v) {
  return device_uint("nvmlDeviceGetCurrPcieLinkGeneration", d, "link_gen", v);
}
NVML_EXPORT Return nvmlDeviceGetCurrPcieLinkWidth(api::Device d, unsigned* v) {
  return device_uint("nvmlDeviceGetCurrPcieLinkWidth", d, "link_width", v);
}
NVML_EXPORT Return nvmlDeviceGetPcieReplayCounter(api::Device d, unsigned* v) {
  return device_uint("nvmlDeviceGetPcieReplayCounter", d, "pcie_replays", v);
}
NVML_EXPORT Return nvmlDeviceGetPowerUsage(api::Device d, unsigned* mw) {
  return device_uint("nvmlDeviceGetPowerUsage", d, "power_w", mw, 1000);
}
NVML_EXPORT Return nvmlDeviceGetEnforcedPowerLimit(api::Device d, unsigned* mw) {
  return device_uint("nvmlDeviceGetEnforcedPowerLimit", d, "power_limit_w", mw, 1000);
}

NVML_EXPORT Return nvmlDeviceGetMemoryInfo(api::Device d, api::Memory* memory) {
  return answer("nvmlDeviceGetMemoryInfo", d, [&](State& s, const YAML::Node& g, unsigned) {
    if (!memory) return api::kErrorInvalidArgument;
    if (!g["memory_total_mib"] || !g["memory_used_mib"]) return api::kErrorNotSupported;
    constexpr double kMiB = 1024.0 * 1024.0;
    memory->total = static_cast<unsigned long long>(number(s, g["memory_total_mib"]) * kMiB);
    memory->used = static_cast<unsigned long long>(number(s, g["memory_used_mib"]) * kMiB);
    memory->free = memory->total > memory->used ? memory->total - memory->used : 0;
    return api::kSuccess;
  });
}

NVML_EXPORT Return nvmlDeviceGetUtilizationRates(api::Device d, api::Utilization* util) {
  return answer("nvmlDeviceGetUtilizationRates", d, [&](State& s, const YAML::Node& g, unsigned) {
    if (!util) return api::kErrorInvalidArgument;
    if (!g["utilization_gpu_pct"]) return api::kErrorNotSupported;
    util->gpu = static_cast<unsigned>(std::llround(number(s, g["utilization_gpu_pct"])));
    util->memory =
        g["utilization_memory_pct"] ? static_cast<unsigned>(std::llround(number(s, g["utilization_memory_pct"]))) : 0;
    return api::kSuccess;
  });
}

NVML_EXPORT Return nvmlDeviceGetTemperature(api::Device d, api::Enum sensor, unsigned* temp) {
  return answer("nvmlDeviceGetTemperature", d, [&](State& s, const YAML::Node& g, unsigned) {
    if (!temp || sensor != api::kTemperatureGpu) return api::kErrorInvalidArgument;
    if (!g["temperature_c"]) return api::kErrorNotSupported;
    *temp = static_cast<unsigned>(std::llround(number(s, g["temperature_c"])));
    return api::kSuccess;
  });
}

NVML_EXPORT Return nvmlDeviceGetTemperatureV(api::Device d, api::Temperature* t) {
  return answer("nvmlDeviceGetTemperatureV", d, [&](State& s, const YAML::Node& g, unsigned) {
    if (!t) return api::kErrorInvalidArgument;
    if (t->version != api::kTemperatureV1) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    if (t->sensor_type != api::kTemperatureGpu) return api::kErrorInvalidArgument;
    if (!g["temperature_c"]) return api::kErrorNotSupported;
    t->temperature = static_cast<int>(std::llround(number(s, g["temperature_c"])));
    return api::kSuccess;
  });
}

NVML_EXPORT Return nvmlDeviceGetTemperatureThreshold(api::Device d, api::Enum type, unsigned* temp) {
  return answer("nvmlDeviceGetTemperatureThreshold", d, [&](State& s, const YAML::Node& g, unsigned) {
    if (!temp) return api::kErrorInvalidArgument;
    const char* key = type == api::kTemperatureThresholdShutdown   ? "shutdown_temp_c"
                      : type == api::kTemperatureThresholdSlowdown ? "slowdown_temp_c"
                                                                   : nullptr;
    if (!key || !g[key]) return api::kErrorNotSupported;
    *temp = static_cast<unsigned>(std::llround(number(s, g[key])));
    return api::kSuccess;
  });
}

NVML_EXPORT Return nvmlDeviceGetClockInfo(api::Device d, api::Enum type, unsigned* mhz) {
  if (type == api::kClockMem) return device_uint("nvmlDeviceGetClockInfo", d, "memory_clock_mhz", mhz);
  if (type != api::kClockSm) return api::kErrorNotSupported;
  return device_uint("nvmlDeviceGetClockInfo", d, "sm_clock_mhz", mhz);
}
NVML_EXPORT Return nvmlDeviceGetMaxClockInfo(api::Device d, api::Enum type, unsigned* mhz) {
  if (type != api::kClockSm) return api::kErrorNotSupported;
  return device_uint("nvmlDeviceGetMaxClockInfo", d, "max_sm_clock_mhz", mhz);
}

namespace {
Return clock_reasons(const char* function, api::Device d, unsigned long long* reasons) {
  return answer(function, d, [&](State& s, const YAML::Node& g, unsigned) {
    if (!reasons) return api::kErrorInvalidArgument;
    if (!g["clock_event_reasons"]) return api::kErrorNotSupported;
    *reasons = count_value(s, g["clock_event_reasons"]);
    return api::kSuccess;
  });
}
}  // namespace

NVML_EXPORT Return nvmlDeviceGetCurrentClocksEventReasons(api::Device d, unsigned long long* reasons) {
  return clock_reasons("nvmlDeviceGetCurrentClocksEventReasons", d, reasons);
}
NVML_EXPORT Return nvmlDeviceGetCurrentClocksThrottleReasons(api::Device d, unsigned long long* reasons) {
  return clock_reasons("nvmlDeviceGetCurrentClocksThrottleReasons", d, reasons);
}

#include "fake_nvml_calls.inc"  // NOLINT: the rest of this library (see that file)
