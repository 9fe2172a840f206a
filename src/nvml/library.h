// The loaded libnvidia-ml behind an Nvml (Nvml::Impl): its symbol table, the GPUs it opened, and
// the call protocol every read goes through (fallback chains, NOT_SUPPORTED remembered per GPU,
// one `unsupported` line per fact that could not be read). Private to src/nvml: nvml/loader.cpp
// fills it, nvml/device_reads.cpp reads through it.
#pragma once

#include <climits>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/phrase.h"
#include "nvml/nvml.h"
#include "nvml/nvml_api.h"

namespace gpuplan::nvml {
namespace detail {

// Notes and the "probe once" cache key calls that concern no one GPU with this index.
constexpr unsigned kSystem = UINT_MAX;

template <class F>
struct Sym {
  const char* name = nullptr;
  F fn = nullptr;
};

// " (GPU 3)", " (GPU 3, volatile corrected)", or "" for a system call.
std::string where(unsigned gpu, const std::string& variant = "");

// One way to obtain a fact: a symbol (or the first of a fallback chain) and how to call it.
struct Attempt {
  const char* name;
  bool exported;
  std::function<api::Return()> run;
  // For calls with a selector argument (ECC counter, threshold, retirement cause): a GPU may
  // refuse one selector and answer another, so each is remembered on its own.
  std::string variant = "";
};

}  // namespace detail

struct Nvml::Impl {
  template <class F>
  using Sym = detail::Sym<F>;

  void* lib = nullptr;
  std::string library;
  bool initialized = false;

  // Required: without these there is nothing to read.
  Sym<api::InitFn> init;
  Sym<api::ShutdownFn> shutdown;
  Sym<api::ErrorStringFn> error_string;
  Sym<api::CountFn> get_count;
  Sym<api::HandleByIndexFn> handle_by_index;

  // Optional: each missing one costs one fact.
  Sym<api::SystemStringFn> driver_version, nvml_version;
  Sym<api::SystemIntFn> cuda_version_v2, cuda_version;
  Sym<api::DeviceStringFn> name, uuid, serial, board_part_number, vbios;
  Sym<api::PciInfoFn> pci_info_v3, pci_info_v2, pci_info;
  Sym<api::DeviceUintFn> max_link_gen, max_link_width, curr_link_gen, curr_link_width;
  Sym<api::MemoryFn> memory_info;
  Sym<api::UtilizationFn> utilization;
  Sym<api::TemperatureFn> temperature, temperature_threshold;
  Sym<api::TemperatureVFn> temperature_v;
  Sym<api::DeviceUintFn> power_usage, enforced_power_limit, pcie_replays;
  Sym<api::ClockFn> clock_info, max_clock_info;
  Sym<api::DeviceUint64Fn> clocks_event_reasons, clocks_throttle_reasons, total_energy;
  Sym<api::FieldValuesFn> field_values;
  Sym<api::NvLinkErrorCounterFn> nvlink_error_counter;
  Sym<api::EccModeFn> ecc_mode;
  Sym<api::TotalEccFn> total_ecc_errors;
  Sym<api::RetiredPagesFn> retired_pages;
  Sym<api::EnableStateFn> retired_pages_pending;
  Sym<api::RemappedRowsFn> remapped_rows;
  Sym<api::NvLinkStateFn> nvlink_state;
  Sym<api::TopologyFn> topology;
  Sym<api::ProcessesFn> processes_v3, processes_v2, processes_v1;
  size_t processes_v3_stride = sizeof(api::ProcessInfoV2);

  std::vector<api::Device> devices;  // nullptr where GetHandleByIndex failed
  // (symbol and variant, GPU) that answered NOT_SUPPORTED or FUNCTION_NOT_FOUND: never asked again,
  // so a 72-hour sampler does not repeat a failing call 260,000 times.
  std::set<std::pair<std::string, unsigned>> refused;
  std::vector<std::optional<unsigned>> nvlink_links;  // links found by the first probe, per GPU
  // GPUs that answered GPU_IS_LOST during the reading under way (set by try_in_order, cleared
  // when a reading starts): their reading is reported as lost, not as unsupported facts.
  std::vector<bool> lost;
  std::vector<std::string> notes;                     // NvmlFacts::unsupported, in the order first seen
  std::set<std::string> noted;

  // --- Loading and the call protocol (nvml/loader.cpp) ------------------------------------------

  ~Impl();
  void resolve_optional();
  std::string error_text(api::Return rc) const;
  // error.nvml.call_failed: `call` returned `rc`, with nvmlErrorString's text for it.
  Phrase call_failed(const char* call, api::Return rc) const;
  void note(const std::string& line);

  // Runs `attempts` in order until one answers. NOT_SUPPORTED and FUNCTION_NOT_FOUND move on
  // to the next (an older symbol may still work) and are remembered for `gpu`; another error
  // stops. When none answers, one line says why: the last refusal, or that none is exported.
  bool try_in_order(unsigned gpu, std::initializer_list<detail::Attempt> attempts);

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

  // --- Reads (nvml/device_reads.cpp) --------------------------------------------------------------

  std::optional<std::string> device_string(const Sym<api::DeviceStringFn>& s, unsigned gpu, unsigned size);
  std::optional<unsigned> device_uint(const Sym<api::DeviceUintFn>& s, unsigned gpu);
  // The count-query protocol: ask with *count = 0, then with room for what was asked plus
  // slack, since processes may start between the calls. Every layout starts with pid at 0
  // and usedGpuMemory at 8; only the stride differs.
  static api::Return query_processes(api::ProcessesFn fn, api::Device dev, size_t stride, std::vector<GpuProcess>& out);
  std::optional<std::vector<GpuProcess>> processes(unsigned gpu);
  // Links 0, 1, … until the driver says INVALID_ARGUMENT (past its last link); the count found
  // the first time is kept, so later readings ask exactly those links.
  std::vector<bool> nvlinks(unsigned gpu);
  GpuStatic read_static(unsigned gpu);
  // What a telemetry Sample carries; kWatch adds links, replays, aggregate ECC and NVLink states;
  // kFull adds retirement, remapping and processes. `watch_extras`: also memory temperature,
  // energy, memory clock and NVLink error counters (read_watch_extras).
  GpuDynamic read_dynamic(unsigned gpu, Depth depth, bool watch_extras = false);
  // The extra facts of a watch reading (nvml/device_reads_watch.cpp).
  void read_watch_extras(unsigned gpu, GpuDynamic& d);
  std::optional<uint64_t> nvlink_error_sum(unsigned gpu, api::Enum counter, const char* variant);
};

}  // namespace gpuplan::nvml
