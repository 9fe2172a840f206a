// The reads only `gpuplan watch` asks for: memory (HBM) temperature through the field-value
// call, total energy, the memory clock and the NVLink error counters summed over the GPU's
// links; and Nvml::read_watch, which says whether the GPU answered at all (lost or not).
#include "nvml/library.h"
#include "nvml/nvml.h"
#include "nvml/nvml_api.h"

namespace gpuplan::nvml {
namespace {

using namespace api;  // NOLINT: src/nvml is the one user of the ABI declarations

// A field value as a number, whatever type NVML chose to answer in.
std::optional<double> field_number(const FieldValue& f) {
  switch (f.value_type) {
    case kValueTypeDouble:
      return f.value.d;
    case kValueTypeUnsignedInt:
      return static_cast<double>(f.value.ui);
    case kValueTypeUnsignedLong:
      return static_cast<double>(f.value.ul);
    case kValueTypeUnsignedLongLong:
      return static_cast<double>(f.value.ull);
    case kValueTypeSignedLongLong:
      return static_cast<double>(f.value.sll);
    case kValueTypeSignedInt:
      return static_cast<double>(f.value.si);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> Nvml::Impl::nvlink_error_sum(unsigned gpu, Enum counter, const char* variant) {
  // The links nvlinks() found; a GPU without NVLink has no counters to sum.
  if (!nvlink_links[gpu] || *nvlink_links[gpu] == 0) return std::nullopt;
  Device dev = devices[gpu];
  uint64_t sum = 0;
  unsigned long long n = 0;
  // Link 0 goes through the protocol (a refusal is remembered); the rest are asked directly.
  if (!call_variant(nvlink_error_counter, variant, gpu, dev, 0u, counter, &n)) return std::nullopt;
  sum += n;
  for (unsigned link = 1; link < *nvlink_links[gpu]; ++link) {
    n = 0;
    if (Return rc = nvlink_error_counter.fn(dev, link, counter, &n); rc != kSuccess) {
      if (rc == kErrorGpuIsLost) lost[gpu] = true;
      return std::nullopt;  // a partial sum would read as a counter that went down
    }
    sum += n;
  }
  return sum;
}

void Nvml::Impl::read_watch_extras(unsigned gpu, GpuDynamic& d) {
  Device dev = devices[gpu];
  FieldValue field{};
  field.field_id = kFieldMemoryTemp;
  // The call can succeed while the one field it was asked fails: that answer is the field's own.
  Return field_rc = kSuccess;
  if (try_in_order(gpu, {{field_values.name, field_values.fn != nullptr,
                          [&] {
                            Return rc = field_values.fn(dev, 1, &field);
                            field_rc = rc == kSuccess ? field.nvml_return : rc;
                            return field_rc;
                          },
                          "memory temperature"}})) {
    d.memory_temperature_c = field_number(field);
  }
  unsigned long long mj = 0;
  if (call(total_energy, gpu, dev, &mj)) d.energy_mj = mj;
  unsigned clock = 0;
  if (call_variant(clock_info, "memory", gpu, dev, kClockMem, &clock)) d.memory_clock_mhz = clock;
  d.nvlink_replay_errors = nvlink_error_sum(gpu, kNvLinkErrorDlReplay, "replay");
  d.nvlink_recovery_errors = nvlink_error_sum(gpu, kNvLinkErrorDlRecovery, "recovery");
  d.nvlink_crc_flit_errors = nvlink_error_sum(gpu, kNvLinkErrorDlCrcFlit, "crc flit");
  d.nvlink_crc_data_errors = nvlink_error_sum(gpu, kNvLinkErrorDlCrcData, "crc data");
}

WatchReading Nvml::read_watch(unsigned index, bool full) {
  WatchReading r;
  if (index >= count()) return r;
  Impl& m = *impl_;
  // A GPU NVML could not open (lost at start) is opened again, so its return is seen.
  if (!m.devices[index]) {
    Return rc = m.handle_by_index.fn(index, &m.devices[index]);
    if (rc != kSuccess) {
      m.devices[index] = nullptr;
      r.lost = rc == kErrorGpuIsLost;
      return r;
    }
  }
  r.values = m.read_dynamic(index, full ? Depth::kFull : Depth::kWatch, true);
  if (m.lost[index]) {
    r.lost = true;
    r.values = GpuDynamic{};
  }
  return r;
}

}  // namespace gpuplan::nvml
