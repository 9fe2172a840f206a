#include "nvml/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <set>

#include "nvml/nvml_api.h"

namespace gpuplan::nvml {
namespace {

using namespace api;  // NOLINT: this file is the one user of the ABI declarations

// Notes and the "probe once" cache key calls that concern no one GPU with this index.
constexpr unsigned kSystem = UINT_MAX;

template <class F>
struct Sym {
  const char* name = nullptr;
  F fn = nullptr;
};

template <class F>
Sym<F> find(void* lib, const char* name) {
  // dlsym hands back data pointers; POSIX guarantees the cast to a function pointer works.
  return {name, reinterpret_cast<F>(dlsym(lib, name))};
}

// The first of `names` the library exports; {names[0], nullptr} when none is.
template <class F>
Sym<F> find_first(void* lib, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto s = find<F>(lib, name); s.fn) return s;
  }
  return {*names.begin(), nullptr};
}

double bytes_to_mib(unsigned long long bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// cuDriverGetVersion style: 12020 -> "12.2" (NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR).
std::string decode_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// " (GPU 3)", " (GPU 3, volatile corrected)", or "" for a system call.
std::string where(unsigned gpu, const std::string& variant = "") {
  std::string inside = gpu == kSystem ? "" : "GPU " + std::to_string(gpu);
  if (!variant.empty()) inside += (inside.empty() ? "" : ", ") + variant;
  return inside.empty() ? "" : " (" + inside + ")";
}

// One way to obtain a fact: a symbol (or the first of a fallback chain) and how to call it.
struct Attempt {
  const char* name;
  bool exported;
  std::function<Return()> run;
  // For calls with a selector argument (ECC counter, threshold, retirement cause): a GPU may
  // refuse one selector and answer another, so each is remembered on its own.
  std::string variant = "";
};

}  // namespace

struct Nvml::Impl {
  void* lib = nullptr;
  std::string library;
  bool initialized = false;

  // Required: without these there is nothing to read.
  Sym<InitFn> init;
  Sym<ShutdownFn> shutdown;
  Sym<ErrorStringFn> error_string;
  Sym<CountFn> get_count;
  Sym<HandleByIndexFn> handle_by_index;

  // Optional: each missing one costs one fact.
  Sym<SystemStringFn> driver_version, nvml_version;
  Sym<SystemIntFn> cuda_version_v2, cuda_version;
  Sym<DeviceStringFn> name, uuid, serial, board_part_number, vbios;
  Sym<PciInfoFn> pci_info_v3, pci_info_v2, pci_info;
  Sym<DeviceUintFn> max_link_gen, max_link_width, curr_link_gen, curr_link_width;
  Sym<MemoryFn> memory_info;
  Sym<UtilizationFn> utilization;
  Sym<TemperatureFn> temperature, temperature_threshold;
  Sym<TemperatureVFn> temperature_v;
  Sym<DeviceUintFn> power_usage, enforced_power_limit, pcie_replays;
  Sym<ClockFn> clock_info, max_clock_info;
  Sym<DeviceUint64Fn> clocks_event_reasons, clocks_throttle_reasons;
  Sym<EccModeFn> ecc_mode;
  Sym<TotalEccFn> total_ecc_errors;
  Sym<RetiredPagesFn> retired_pages;
  Sym<EnableStateFn> retired_pages_pending;
  Sym<RemappedRowsFn> remapped_rows;
  Sym<NvLinkStateFn> nvlink_state;
  Sym<TopologyFn> topology;
  Sym<ProcessesFn> processes_v3, processes_v2, processes_v1;
  size_t processes_v3_stride = sizeof(ProcessInfoV2);

  std::vector<Device> devices;  // nullptr where GetHandleByIndex failed
  // (symbol and variant, GPU) that answered NOT_SUPPORTED or FUNCTION_NOT_FOUND: never asked again,
  // so a 72-hour sampler does not repeat a failing call 260,000 times.
  std::set<std::pair<std::string, unsigned>> refused;
  std::vector<std::optional<unsigned>> nvlink_links;  // links found by the first probe, per GPU
  std::vector<std::string> notes;                     // NvmlFacts::unsupported, in the order first seen
  std::set<std::string> noted;

  ~Impl() {
    if (initialized) shutdown.fn();
    if (lib) dlclose(lib);
  }

  void resolve_optional() {
    driver_version = find<SystemStringFn>(lib, "nvmlSystemGetDriverVersion");
    nvml_version = find<SystemStringFn>(lib, "nvmlSystemGetNVMLVersion");
    cuda_version_v2 = find<SystemIntFn>(lib, "nvmlSystemGetCudaDriverVersion_v2");
    cuda_version = find<SystemIntFn>(lib, "nvmlSystemGetCudaDriverVersion");
    name = find<DeviceStringFn>(lib, "nvmlDeviceGetName");
    uuid = find<DeviceStringFn>(lib, "nvmlDeviceGetUUID");
    serial = find<DeviceStringFn>(lib, "nvmlDeviceGetSerial");
    board_part_number = find<DeviceStringFn>(lib, "nvmlDeviceGetBoardPartNumber");
    vbios = find<DeviceStringFn>(lib, "nvmlDeviceGetVbiosVersion");
    pci_info_v3 = find<PciInfoFn>(lib, "nvmlDeviceGetPciInfo_v3");
    pci_info_v2 = find<PciInfoFn>(lib, "nvmlDeviceGetPciInfo_v2");
    pci_info = find<PciInfoFn>(lib, "nvmlDeviceGetPciInfo");
    max_link_gen = find<DeviceUintFn>(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    max_link_width = find<DeviceUintFn>(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    curr_link_gen = find<DeviceUintFn>(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    curr_link_width = find<DeviceUintFn>(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    // v1, not _v2: v1 needs no version stamp (a wrong one makes _v2 fail, see the ABI notes) and
    // is in every driver. Its "used" includes the driver's constant reservation, which neither
    // a growth slope nor a leak check minds.
    memory_info = find<MemoryFn>(lib, "nvmlDeviceGetMemoryInfo");
    utilization = find<UtilizationFn>(lib, "nvmlDeviceGetUtilizationRates");
    temperature = find<TemperatureFn>(lib, "nvmlDeviceGetTemperature");
    temperature_v = find<TemperatureVFn>(lib, "nvmlDeviceGetTemperatureV");
    temperature_threshold = find<TemperatureFn>(lib, "nvmlDeviceGetTemperatureThreshold");
    power_usage = find<DeviceUintFn>(lib, "nvmlDeviceGetPowerUsage");
    enforced_power_limit = find<DeviceUintFn>(lib, "nvmlDeviceGetEnforcedPowerLimit");
    clock_info = find<ClockFn>(lib, "nvmlDeviceGetClockInfo");
    max_clock_info = find<ClockFn>(lib, "nvmlDeviceGetMaxClockInfo");
    clocks_event_reasons = find<DeviceUint64Fn>(lib, "nvmlDeviceGetCurrentClocksEventReasons");
    clocks_throttle_reasons = find<DeviceUint64Fn>(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    pcie_replays = find<DeviceUintFn>(lib, "nvmlDeviceGetPcieReplayCounter");
    ecc_mode = find<EccModeFn>(lib, "nvmlDeviceGetEccMode");
    total_ecc_errors = find<TotalEccFn>(lib, "nvmlDeviceGetTotalEccErrors");
    retired_pages = find<RetiredPagesFn>(lib, "nvmlDeviceGetRetiredPages");
    retired_pages_pending = find<EnableStateFn>(lib, "nvmlDeviceGetRetiredPagesPendingStatus");
    remapped_rows = find<RemappedRowsFn>(lib, "nvmlDeviceGetRemappedRows");
    nvlink_state = find<NvLinkStateFn>(lib, "nvmlDeviceGetNvLinkState");
    topology = find<TopologyFn>(lib, "nvmlDeviceGetTopologyCommonAncestor");
    processes_v3 = find<ProcessesFn>(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    processes_v2 = find<ProcessesFn>(lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    processes_v1 = find<ProcessesFn>(lib, "nvmlDeviceGetComputeRunningProcesses");
    // The entry size _v3 writes changed between drivers without a new symbol (ABI notes §4):
    // 32 bytes on the 535 drivers that have confidential-compute memory but not yet the
    // process detail list, 24 bytes before and after. nvitop's rule, used only when _v2 is gone.
    if (processes_v3.fn && dlsym(lib, "nvmlDeviceGetConfComputeMemSizeInfo") &&
        !dlsym(lib, "nvmlDeviceGetRunningProcessDetailList")) {
      processes_v3_stride = 32;
    }
  }

  std::string error_text(Return rc) const {
    const char* text = error_string.fn(rc);
    return text ? text : "NVML error " + std::to_string(rc);
  }

  // error.nvml.call_failed: `call` returned `rc`, with nvmlErrorString's text for it.
  Phrase call_failed(const char* call, Return rc) const {
    Phrase p("error.nvml.call_failed");
    p.fact("call", call).fact("code", std::to_string(rc));
    const char* text = error_string.fn(rc);
    return text ? p.fact("why", text) : p.fact("why", {Phrase("error.nvml.no_error_text")});
  }

  void note(const std::string& line) {
    if (noted.insert(line).second) notes.push_back(line);
  }

  // Runs `attempts` in order until one answers. NOT_SUPPORTED and FUNCTION_NOT_FOUND move on
  // to the next (an older symbol may still work) and are remembered for `gpu`; another error
  // stops. When none answers, one line says why: the last refusal, or that none is exported.
  bool try_in_order(unsigned gpu, std::initializer_list<Attempt> attempts) {
    const Attempt* last = nullptr;
    Return last_rc = kSuccess;
    bool any_exported = false;
    for (const auto& a : attempts) {
      if (!a.exported) continue;
      any_exported = true;
      std::string key = a.variant.empty() ? a.name : std::string(a.name) + "/" + a.variant;
      if (refused.count({key, gpu})) continue;
      Return rc = a.run();
      if (rc == kSuccess) return true;
      last = &a;
      last_rc = rc;
      if (rc != kErrorNotSupported && rc != kErrorFunctionNotFound) break;
      refused.insert({key, gpu});
    }
    if (!any_exported) {
      std::string names;
      for (const auto& a : attempts) names += (names.empty() ? "" : " / ") + std::string(a.name);
      note(names + ": not exported by " + library);
    } else if (last) {
      note(last->name + where(gpu, last->variant) + ": " + error_text(last_rc));
    }
    return false;
  }

  template <class F, class... Args>
  bool call(const Sym<F>& s, unsigned gpu, Args... args) {
    return try_in_order(gpu, {{s.name, s.fn != nullptr, [&] { return s.fn(args...); }}});
  }

  template <class F, class... Args>
  bool call_variant(const Sym<F>& s, const std::string& variant, unsigned gpu, Args... args) {
    return try_in_order(gpu, {{s.name, s.fn != nullptr, [&] { return s.fn(args...); }, variant}});
  }

  template <class F, class... Args>
  bool call_first(const Sym<F>& a, const Sym<F>& b, unsigned gpu, Args... args) {
    return try_in_order(gpu, {{a.name, a.fn != nullptr, [&] { return a.fn(args...); }},
                              {b.name, b.fn != nullptr, [&] { return b.fn(args...); }}});
  }

  std::optional<std::string> device_string(const Sym<DeviceStringFn>& s, unsigned gpu, unsigned size) {
    std::string buf(size, '\0');
    if (!call(s, gpu, devices[gpu], buf.data(), size)) return std::nullopt;
    buf.resize(std::strlen(buf.c_str()));
    return buf;
  }

  std::optional<unsigned> device_uint(const Sym<DeviceUintFn>& s, unsigned gpu) {
    unsigned v = 0;
    if (!call(s, gpu, devices[gpu], &v)) return std::nullopt;
    return v;
  }

  // The count-query protocol: ask with *count = 0, then with room for what was asked plus
  // slack, since processes may start between the calls. Every layout starts with pid at 0
  // and usedGpuMemory at 8; only the stride differs.
  static Return query_processes(ProcessesFn fn, Device dev, size_t stride, std::vector<GpuProcess>& out) {
    unsigned count = 0;
    Return rc = fn(dev, &count, nullptr);
    std::vector<unsigned long long> buf;  // 8-byte aligned like the structs
    unsigned capacity = 0;                // entries buf holds
    for (int attempt = 0; rc == kErrorInsufficientSize && attempt < 3; ++attempt) {
      capacity = count + 8;
      buf.assign((capacity * stride + 7) / 8, 0);
      count = capacity;
      rc = fn(dev, &count, buf.data());
    }
    if (rc != kSuccess) return rc;
    // A driver that answers with more entries than there was room for wrote past nothing we
    // own; only the entries the buffer holds are read.
    count = std::min(count, capacity);
    out.clear();
    const auto* bytes = reinterpret_cast<const unsigned char*>(buf.data());
    for (unsigned i = 0; i < count; ++i) {
      unsigned pid = 0;
      unsigned long long used = 0;
      std::memcpy(&pid, bytes + i * stride, sizeof pid);
      std::memcpy(&used, bytes + i * stride + 8, sizeof used);
      GpuProcess p;
      p.pid = pid;
      if (used != kValueNotAvailable) p.used_mib = bytes_to_mib(used);
      out.push_back(p);
    }
    return kSuccess;
  }

  std::optional<std::vector<GpuProcess>> processes(unsigned gpu) {
    std::vector<GpuProcess> out;
    Device dev = devices[gpu];
    // _v2 first: its 24-byte entry is the same in every header and driver, while the stride
    // _v3 writes depends on the driver build (see resolve_optional). _v3 only where _v2 is gone.
    bool ok = try_in_order(gpu, {{processes_v2.name, processes_v2.fn != nullptr,
                                  [&] { return query_processes(processes_v2.fn, dev, sizeof(ProcessInfoV2), out); }},
                                 {processes_v3.name, processes_v3.fn != nullptr,
                                  [&] { return query_processes(processes_v3.fn, dev, processes_v3_stride, out); }},
                                 {processes_v1.name, processes_v1.fn != nullptr,
                                  [&] { return query_processes(processes_v1.fn, dev, sizeof(ProcessInfoV1), out); }}});
    if (!ok) return std::nullopt;
    return out;
  }

  // Links 0, 1, … until the driver says INVALID_ARGUMENT (past its last link); the count found
  // the first time is kept, so later readings ask exactly those links.
  std::vector<bool> nvlinks(unsigned gpu) {
    std::vector<bool> active;
    Device dev = devices[gpu];
    if (!nvlink_links[gpu]) {
      Enum state = kFeatureDisabled;
      // A refusal is remembered by call(); any other error leaves the next reading to probe again.
      if (!call(nvlink_state, gpu, dev, 0u, &state)) return active;
      active.push_back(state == kFeatureEnabled);
      for (unsigned link = 1; link < kMaxNvLinks; ++link) {
        if (nvlink_state.fn(dev, link, &state) != kSuccess) break;
        active.push_back(state == kFeatureEnabled);
      }
      nvlink_links[gpu] = static_cast<unsigned>(active.size());
      return active;
    }
    for (unsigned link = 0; link < *nvlink_links[gpu]; ++link) {
      Enum state = kFeatureDisabled;
      Return rc = nvlink_state.fn(dev, link, &state);
      if (rc != kSuccess)
        note(std::string(nvlink_state.name) + where(gpu) + ": link " + std::to_string(link) + ": " + error_text(rc));
      active.push_back(rc == kSuccess && state == kFeatureEnabled);
    }
    return active;
  }

  GpuStatic read_static(unsigned gpu) {
    GpuStatic s;
    s.index = gpu;
    Device dev = devices[gpu];
    if (!dev) return s;
    s.name = device_string(name, gpu, kDeviceNameBufferSize).value_or("");
    s.uuid = device_string(uuid, gpu, kDeviceUuidBufferSize).value_or("");
    s.serial = device_string(serial, gpu, kDeviceSerialBufferSize);
    s.board_part_number = device_string(board_part_number, gpu, kDevicePartNumberBufferSize);
    s.vbios = device_string(vbios, gpu, kDeviceVbiosBufferSize);
    PciInfo pci{};
    if (try_in_order(gpu, {{pci_info_v3.name, pci_info_v3.fn != nullptr, [&] { return pci_info_v3.fn(dev, &pci); }},
                           {pci_info_v2.name, pci_info_v2.fn != nullptr, [&] { return pci_info_v2.fn(dev, &pci); }},
                           {pci_info.name, pci_info.fn != nullptr, [&] { return pci_info.fn(dev, &pci); }}})) {
      // The legacy call fills the old, shorter struct: its bus id ("0000:17:00.0") sits in
      // busIdLegacy and busId stays empty. The _v2/_v3 calls fill both; busId is the full one.
      pci.bus_id[sizeof pci.bus_id - 1] = '\0';
      pci.bus_id_legacy[sizeof pci.bus_id_legacy - 1] = '\0';
      s.pci_bus_id = pci.bus_id[0] != '\0' ? pci.bus_id : pci.bus_id_legacy;
    }
    s.max_link_gen = device_uint(max_link_gen, gpu);
    s.max_link_width = device_uint(max_link_width, gpu);
    Memory mem{};
    if (call(memory_info, gpu, dev, &mem)) s.memory_total_mib = bytes_to_mib(mem.total);
    if (auto mw = device_uint(enforced_power_limit, gpu)) s.power_limit_w = *mw / 1000.0;
    unsigned v = 0;
    if (call_variant(temperature_threshold, "slowdown", gpu, dev, kTemperatureThresholdSlowdown, &v)) {
      s.slowdown_temp_c = static_cast<int>(v);
    }
    if (call_variant(temperature_threshold, "shutdown", gpu, dev, kTemperatureThresholdShutdown, &v)) {
      s.shutdown_temp_c = static_cast<int>(v);
    }
    if (call(max_clock_info, gpu, dev, kClockSm, &v)) s.max_sm_clock_mhz = v;
    return s;
  }

  // What a telemetry Sample carries; `full` adds links, replays, aggregate ECC, retirement,
  // remapping, NVLink and processes.
  GpuDynamic read_dynamic(unsigned gpu, bool full) {
    GpuDynamic d;
    Device dev = devices[gpu];
    if (!dev) return d;
    Utilization util{};
    if (call(utilization, gpu, dev, &util)) d.utilization_pct = util.gpu;
    Memory mem{};
    if (call(memory_info, gpu, dev, &mem)) d.memory_used_mib = bytes_to_mib(mem.used);
    // nvmlDeviceGetTemperature is deprecated in NVML 13; its successor takes a versioned struct.
    unsigned t = 0;
    Temperature tv{kTemperatureV1, kTemperatureGpu, 0};
    bool legacy_temperature = false;
    if (try_in_order(gpu, {{temperature.name, temperature.fn != nullptr,
                            [&] {
                              legacy_temperature = true;
                              return temperature.fn(dev, kTemperatureGpu, &t);
                            }},
                           {temperature_v.name, temperature_v.fn != nullptr, [&] {
                              legacy_temperature = false;
                              return temperature_v.fn(dev, &tv);
                            }}})) {
      d.temperature_c = legacy_temperature ? static_cast<double>(t) : static_cast<double>(tv.temperature);
    }
    if (auto mw = device_uint(power_usage, gpu)) d.power_w = *mw / 1000.0;
    unsigned clock = 0;
    if (call(clock_info, gpu, dev, kClockSm, &clock)) d.sm_clock_mhz = clock;
    // "ClocksEvent" is the 12.2 name of the same bitmask; older drivers only have "Throttle".
    unsigned long long reasons = 0;
    if (call_first(clocks_event_reasons, clocks_throttle_reasons, gpu, dev, &reasons)) d.clock_event_reasons = reasons;

    Enum current = kFeatureDisabled, pending = kFeatureDisabled;
    if (call(ecc_mode, gpu, dev, &current, &pending)) d.ecc_enabled = current == kFeatureEnabled;
    if (d.ecc_enabled != false) {  // the counters need ECC on; unknown mode: ask anyway
      auto ecc = [&](Enum type, Enum counter, const char* variant) -> std::optional<uint64_t> {
        unsigned long long n = 0;
        if (!call_variant(total_ecc_errors, variant, gpu, dev, type, counter, &n)) return std::nullopt;
        return n;
      };
      d.ecc_volatile_corrected = ecc(kMemoryErrorCorrected, kVolatileEcc, "volatile corrected");
      d.ecc_volatile_uncorrected = ecc(kMemoryErrorUncorrected, kVolatileEcc, "volatile uncorrected");
      if (full) {
        d.ecc_aggregate_corrected = ecc(kMemoryErrorCorrected, kAggregateEcc, "aggregate corrected");
        d.ecc_aggregate_uncorrected = ecc(kMemoryErrorUncorrected, kAggregateEcc, "aggregate uncorrected");
      }
    }
    if (!full) return d;

    d.link_gen = device_uint(curr_link_gen, gpu);
    d.link_width = device_uint(curr_link_width, gpu);
    d.pcie_replays = device_uint(pcie_replays, gpu);
    // A count query (*pageCount = 0) answers INSUFFICIENT_SIZE with the count when pages exist.
    auto retired = [&](Enum cause, const char* variant) -> std::optional<unsigned> {
      unsigned n = 0;
      auto query = [&] {
        n = 0;
        Return rc = retired_pages.fn(dev, cause, &n, nullptr);
        return rc == kErrorInsufficientSize ? kSuccess : rc;
      };
      if (!try_in_order(gpu, {{retired_pages.name, retired_pages.fn != nullptr, query, variant}})) return std::nullopt;
      return n;
    };
    d.retired_pages_sbe = retired(kRetiredMultipleSingleBit, "multiple single-bit");
    d.retired_pages_dbe = retired(kRetiredDoubleBit, "double-bit");
    Enum retire_pending = kFeatureDisabled;
    if (call(retired_pages_pending, gpu, dev, &retire_pending))
      d.retired_pages_pending = retire_pending == kFeatureEnabled;
    unsigned corr = 0, unc = 0, is_pending = 0, failed = 0;
    if (call(remapped_rows, gpu, dev, &corr, &unc, &is_pending, &failed)) {
      d.remapped_rows_correctable = corr;
      d.remapped_rows_uncorrectable = unc;
      d.remapping_pending = is_pending != 0;
      d.remapping_failed = failed != 0;
    }
    d.nvlink_active = nvlinks(gpu);
    d.processes = processes(gpu);
    return d;
  }
};

Nvml::Nvml(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Nvml::~Nvml() = default;

Result<std::unique_ptr<Nvml>> Nvml::open(const std::string& library) {
  std::vector<std::string> candidates;
  if (!library.empty()) {
    candidates = {library};
  } else if (const char* env = std::getenv("GPUPLAN_NVML_LIBRARY"); env && *env) {
    candidates = {env};
  } else {
    candidates = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  }

  auto impl = std::make_unique<Impl>();
  Fact why{"why", {}, std::nullopt, {}, "; "};  // one reason per file tried
  for (const auto& path : candidates) {
    dlerror();
    // RTLD_NOW: a library with unresolved dependencies fails here, with dlerror's reason,
    // not at some later call. RTLD_LOCAL: its symbols stay out of everyone else's way.
    impl->lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (impl->lib) {
      impl->library = path;
      break;
    }
    const char* err = dlerror();
    why.phrases.push_back(err ? Phrase("error.nvml.dlerror").fact("reason", err)
                              : Phrase("error.nvml.not_loadable").fact("path", path));
  }
  if (!impl->lib) {
    // Several paths tried are each named in their own reason.
    Phrase cannot_load("error.nvml.cannot_load");
    cannot_load.facts.push_back(std::move(why));
    return Error{candidates.size() == 1 ? candidates.front() : std::string(), 0, "", std::move(cannot_load)};
  }

  void* lib = impl->lib;
  impl->init = find_first<InitFn>(lib, {"nvmlInit_v2", "nvmlInit"});
  impl->shutdown = find<ShutdownFn>(lib, "nvmlShutdown");
  impl->error_string = find<ErrorStringFn>(lib, "nvmlErrorString");
  impl->get_count = find_first<CountFn>(lib, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  impl->handle_by_index =
      find_first<HandleByIndexFn>(lib, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  const std::pair<bool, const char*> required[] = {
      {impl->init.fn != nullptr, "nvmlInit_v2 / nvmlInit"},
      {impl->shutdown.fn != nullptr, "nvmlShutdown"},
      {impl->error_string.fn != nullptr, "nvmlErrorString"},
      {impl->get_count.fn != nullptr, "nvmlDeviceGetCount_v2 / nvmlDeviceGetCount"},
      {impl->handle_by_index.fn != nullptr, "nvmlDeviceGetHandleByIndex_v2 / nvmlDeviceGetHandleByIndex"},
  };
  for (const auto& [found, what] : required) {
    if (!found) return Error{impl->library, 0, "", Phrase("error.nvml.missing_symbol").fact("symbol", what)};
  }

  if (Return rc = impl->init.fn(); rc != kSuccess)
    return Error{impl->library, 0, "", impl->call_failed(impl->init.name, rc)};
  impl->initialized = true;
  unsigned count = 0;
  if (Return rc = impl->get_count.fn(&count); rc != kSuccess)
    return Error{impl->library, 0, "", impl->call_failed(impl->get_count.name, rc)};
  impl->resolve_optional();
  impl->devices.assign(count, nullptr);
  impl->nvlink_links.assign(count, std::nullopt);
  for (unsigned i = 0; i < count; ++i) {
    // One GPU NVML may not open (no permission, lost) still counts; its facts stay empty.
    if (Return rc = impl->handle_by_index.fn(i, &impl->devices[i]); rc != kSuccess) {
      impl->devices[i] = nullptr;
      impl->note(impl->handle_by_index.name + where(i) + ": " + impl->error_text(rc));
    }
  }
  return std::unique_ptr<Nvml>(new Nvml(std::move(impl)));
}

unsigned Nvml::count() const {
  return static_cast<unsigned>(impl_->devices.size());
}

const std::vector<std::string>& Nvml::unsupported() const {
  return impl_->notes;
}

GpuStatic Nvml::read_static(unsigned index) {
  if (index >= count()) return {};
  return impl_->read_static(index);
}

GpuDynamic Nvml::read_dynamic(unsigned index) {
  if (index >= count()) return {};
  return impl_->read_dynamic(index, true);
}

GpuDynamic Nvml::read_sample(unsigned index) {
  if (index >= count()) return {};
  return impl_->read_dynamic(index, false);
}

NvmlFacts Nvml::read_facts() {
  Impl& m = *impl_;
  NvmlFacts f;
  f.library = m.library;
  std::string buf(kSystemDriverVersionBufferSize, '\0');
  if (m.call(m.driver_version, kSystem, buf.data(), kSystemDriverVersionBufferSize)) f.driver_version = buf.c_str();
  int cuda = 0;
  if (m.call_first(m.cuda_version_v2, m.cuda_version, kSystem, &cuda))
    f.cuda_driver_version = decode_cuda_version(cuda);
  buf.assign(kSystemNvmlVersionBufferSize, '\0');
  if (m.call(m.nvml_version, kSystem, buf.data(), kSystemNvmlVersionBufferSize)) f.nvml_version = buf.c_str();

  for (unsigned i = 0; i < count(); ++i) f.gpus.push_back({m.read_static(i), m.read_dynamic(i, true)});

  // A pair refused once means the platform cannot say; the other pairs are not asked.
  for (unsigned a = 0; a < count(); ++a) {
    for (unsigned b = a + 1; b < count(); ++b) {
      if (!m.devices[a] || !m.devices[b]) continue;
      Enum level = 0;
      if (m.call(m.topology, kSystem, m.devices[a], m.devices[b], &level)) f.topology[{a, b}] = level;
    }
  }
  f.unsupported = m.notes;
  return f;
}

}  // namespace gpuplan::nvml
