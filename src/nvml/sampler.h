// The sampler: every GPU read through an open Nvml at a fixed interval for a duration, as
// telemetry Samples, so a live reading is judged by the same telemetry checks as a log.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "telemetry/sample.h"

namespace gpuplan::nvml {

class Nvml;

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
                                           std::chrono::milliseconds interval, const Clock& now, const Sleep& sleep,
                                           const std::function<void(int round, int rounds)>& on_sample = {});

}  // namespace gpuplan::nvml
