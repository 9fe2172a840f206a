// sample_gpus: rounds of read_sample on every GPU on a schedule counted from the start, each
// reading turned into a telemetry Sample.
#include "nvml/sampler.h"

#include <algorithm>
#include <optional>

#include "nvml/nvml.h"

namespace gpuplan::nvml {

std::vector<telemetry::Sample> sample_gpus(Nvml& nvml, std::chrono::milliseconds duration,
                                           std::chrono::milliseconds interval, const Clock& now, const Sleep& sleep,
                                           const std::function<void(int round, int rounds)>& on_sample) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  // In 64 bits, then bounded: duration / interval can exceed an int (and the bound keeps the
  // round counter, the due times and the reservation below far from overflowing).
  const int64_t more = interval.count() > 0 && duration.count() > 0 ? duration / interval : 0;
  const int rounds = static_cast<int>(std::min<int64_t>(more, kMaxSampleRounds - 1) + 1);
  std::vector<std::optional<double>> totals;
  for (unsigned i = 0; i < nvml.count(); ++i) totals.push_back(nvml.read_static(i).memory_total_mib);

  std::vector<telemetry::Sample> out;
  // Room for a day at one round a minute at most up front; a longer run grows as it goes.
  constexpr size_t kReserveRounds = 1440;
  out.reserve(std::min<size_t>(static_cast<size_t>(rounds), kReserveRounds) * nvml.count());
  auto to_float = [](const auto& v) -> std::optional<float> {
    if (!v) return std::nullopt;
    return static_cast<float>(*v);
  };
  const auto start = now();
  for (int round = 0; round < rounds; ++round) {
    // Due times are counted from the start, so slow reads do not stretch the schedule.
    if (round > 0) {
      // round × interval <= duration, so in milliseconds it cannot overflow; added to a
      // nanosecond time_point it could, so the elapsed time is taken in milliseconds instead.
      const milliseconds due = interval * static_cast<int64_t>(round);
      auto wait = due - duration_cast<milliseconds>(now() - start);
      if (wait.count() > 0) sleep(wait);
    }
    int64_t time_ms = duration_cast<milliseconds>(now().time_since_epoch()).count();
    for (unsigned i = 0; i < nvml.count(); ++i) {
      GpuDynamic d = nvml.read_sample(i);
      telemetry::Sample s;
      s.time_ms = time_ms;
      s.gpu = i;
      s.utilization_pct = to_float(d.utilization_pct);
      s.memory_used_mib = to_float(d.memory_used_mib);
      s.memory_total_mib = to_float(totals[i]);
      s.temperature_c = to_float(d.temperature_c);
      s.power_w = to_float(d.power_w);
      s.sm_clock_mhz = to_float(d.sm_clock_mhz);
      s.ecc_corrected = d.ecc_volatile_corrected;
      s.ecc_uncorrected = d.ecc_volatile_uncorrected;
      s.clock_event_reasons = d.clock_event_reasons;
      out.push_back(s);
    }
    if (on_sample) on_sample(round + 1, rounds);
  }
  return out;
}

}  // namespace gpuplan::nvml
