// Reading GPU facts through a loaded libnvidia-ml: the static facts of a GPU, a full or a
// sample-sized dynamic reading (temperature, ECC, retirement, remapping, NVLink, processes),
// and read_facts, which adds the driver versions and the GPU-pair topology. Every call goes
// through Nvml::Impl's protocol, so a fact NVML cannot give is nullopt plus one note.
#include <algorithm>
#include <cstring>

#include "nvml/library.h"
#include "nvml/nvml.h"
#include "nvml/nvml_api.h"

namespace gpuplan::nvml {
namespace {

using namespace api;  // NOLINT: src/nvml is the one user of the ABI declarations
using detail::kSystem;
using detail::where;

double bytes_to_mib(unsigned long long bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// cuDriverGetVersion style: 12020 -> "12.2" (NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR).
std::string decode_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

std::optional<std::string> Nvml::Impl::device_string(const Sym<DeviceStringFn>& s, unsigned gpu, unsigned size) {
  std::string buf(size, '\0');
  if (!call(s, gpu, devices[gpu], buf.data(), size)) return std::nullopt;
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

std::optional<unsigned> Nvml::Impl::device_uint(const Sym<DeviceUintFn>& s, unsigned gpu) {
  unsigned v = 0;
  if (!call(s, gpu, devices[gpu], &v)) return std::nullopt;
  return v;
}

Return Nvml::Impl::query_processes(ProcessesFn fn, Device dev, size_t stride, std::vector<GpuProcess>& out) {
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
    // pid 0 is the kernel's, never a CUDA process: a zeroed slot is an entry the driver did not fill.
    if (pid == 0) continue;
    GpuProcess p;
    p.pid = pid;
    if (used != kValueNotAvailable) p.used_mib = bytes_to_mib(used);
    out.push_back(p);
  }
  return kSuccess;
}

std::optional<std::vector<GpuProcess>> Nvml::Impl::processes(unsigned gpu) {
  std::vector<GpuProcess> out;
  Device dev = devices[gpu];
  // _v2 first: its 24-byte entry is the same in every header and driver, while the stride
  // _v3 writes depends on the driver build (see resolve_optional, nvml/loader.cpp). _v3 only where _v2 is gone.
  bool ok = try_in_order(gpu, {{processes_v2.name, processes_v2.fn != nullptr,
                                [&] { return query_processes(processes_v2.fn, dev, sizeof(ProcessInfoV2), out); }},
                               {processes_v3.name, processes_v3.fn != nullptr,
                                [&] { return query_processes(processes_v3.fn, dev, processes_v3_stride, out); }},
                               {processes_v1.name, processes_v1.fn != nullptr,
                                [&] { return query_processes(processes_v1.fn, dev, sizeof(ProcessInfoV1), out); }}});
  if (!ok) return std::nullopt;
  return out;
}

std::vector<bool> Nvml::Impl::nvlinks(unsigned gpu) {
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

GpuStatic Nvml::Impl::read_static(unsigned gpu) {
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

GpuDynamic Nvml::Impl::read_dynamic(unsigned gpu, Depth depth, bool watch_extras) {
  const bool full = depth != Depth::kSample;
  GpuDynamic d;
  Device dev = devices[gpu];
  lost[gpu] = false;
  if (!dev) return d;
  Utilization util{};
  if (call(utilization, gpu, dev, &util)) {
    d.utilization_pct = util.gpu;
    d.memory_copy_utilization_pct = util.memory;
  }
  if (lost[gpu]) return d;  // off the bus: the other calls would answer the same
  Memory mem{};
  if (call(memory_info, gpu, dev, &mem)) {
    d.memory_used_mib = bytes_to_mib(mem.used);
    d.memory_free_mib = bytes_to_mib(mem.free);
  }
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
  // Only watch asks the extras: a snapshot's unsupported list stays what it was before watch.
  if (depth == Depth::kWatch) {
    d.nvlink_active = nvlinks(gpu);
    if (watch_extras) read_watch_extras(gpu, d);
    return d;
  }
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
  if (watch_extras) read_watch_extras(gpu, d);
  d.processes = processes(gpu);
  return d;
}

GpuStatic Nvml::read_static(unsigned index) {
  if (index >= count()) return {};
  return impl_->read_static(index);
}

GpuDynamic Nvml::read_dynamic(unsigned index) {
  if (index >= count()) return {};
  return impl_->read_dynamic(index, Depth::kFull);
}

GpuDynamic Nvml::read_sample(unsigned index) {
  if (index >= count()) return {};
  return impl_->read_dynamic(index, Depth::kSample);
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

  for (unsigned i = 0; i < count(); ++i) f.gpus.push_back({m.read_static(i), m.read_dynamic(i, Depth::kFull)});

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
