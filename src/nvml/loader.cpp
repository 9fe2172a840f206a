// Loading libnvidia-ml: the library search, the required symbols and nvmlInit, the optional
// symbols looked up once (versioned names first, older ones as fallbacks), the call protocol
// every read goes through, and the Nvml object's lifetime (nvmlShutdown and dlclose at the end).
#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>

#include "nvml/library.h"
#include "nvml/nvml.h"
#include "nvml/nvml_api.h"

namespace gpuplan::nvml {

namespace detail {

std::string where(unsigned gpu, const std::string& variant) {
  std::string inside = gpu == kSystem ? "" : "GPU " + std::to_string(gpu);
  if (!variant.empty()) inside += (inside.empty() ? "" : ", ") + variant;
  return inside.empty() ? "" : " (" + inside + ")";
}

}  // namespace detail

namespace {

using namespace api;  // NOLINT: src/nvml is the one user of the ABI declarations
using detail::Attempt;
using detail::Sym;
using detail::where;

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

}  // namespace

Nvml::Impl::~Impl() {
  if (initialized) shutdown.fn();
  if (lib) dlclose(lib);
}

void Nvml::Impl::resolve_optional() {
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
  total_energy = find<DeviceUint64Fn>(lib, "nvmlDeviceGetTotalEnergyConsumption");
  field_values = find<FieldValuesFn>(lib, "nvmlDeviceGetFieldValues");
  nvlink_error_counter = find<NvLinkErrorCounterFn>(lib, "nvmlDeviceGetNvLinkErrorCounter");
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

std::string Nvml::Impl::error_text(Return rc) const {
  const char* text = error_string.fn(rc);
  return text ? text : "NVML error " + std::to_string(rc);
}

Phrase Nvml::Impl::call_failed(const char* call, Return rc) const {
  Phrase p("error.nvml.call_failed");
  p.fact("call", call).fact("code", std::to_string(rc));
  const char* text = error_string.fn(rc);
  return text ? p.fact("why", text) : p.fact("why", {Phrase("error.nvml.no_error_text")});
}

void Nvml::Impl::note(const std::string& line) {
  if (noted.insert(line).second) notes.push_back(line);
}

bool Nvml::Impl::try_in_order(unsigned gpu, std::initializer_list<Attempt> attempts) {
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
    // A GPU off the bus answers every call this way: the reading is lost, not the fact
    // unsupported, so nothing is noted or remembered and the next reading asks again.
    if (rc == kErrorGpuIsLost && gpu != detail::kSystem && gpu < lost.size()) {
      lost[gpu] = true;
      return false;
    }
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
  impl->lost.assign(count, false);
  for (unsigned i = 0; i < count; ++i) {
    // One GPU NVML may not open (no permission, lost) still counts; its facts stay empty.
    if (Return rc = impl->handle_by_index.fn(i, &impl->devices[i]); rc != kSuccess) {
      impl->devices[i] = nullptr;
      impl->lost[i] = rc == kErrorGpuIsLost;
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

}  // namespace gpuplan::nvml
