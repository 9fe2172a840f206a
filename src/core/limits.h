// Resource limits: the most any input may make gpuplan hold, so that a small hostile file (or
// server answer) is refused with an error naming it instead of exhausting memory or time. One
// place for them (README "Limits"); callers compare against these and word the error with the
// limit as a fact. They are sizes of this program's working set, not facts about GPUs or prices,
// so they live here and not in the catalog.
#pragma once

#include <cstdint>

namespace gpuplan::limits {

// Distinct GPUs one read may name (host + GPU id): far above any one fleet's logs.
inline constexpr uint32_t kMaxGpus = 100'000;

// Hours between the first and the last hour of usage data: 10 years of 365.25 days.
inline constexpr int64_t kMaxSpanHours = 10 * 8766;
inline constexpr int kMaxSpanYears = 10;

// Readings one Prometheus answer may hold (series x points), checked before they are kept.
inline constexpr int64_t kMaxPromPoints = 20'000'000;

// JSON values (objects, arrays, keys, scalars) in one Prometheus answer, counted before it is
// parsed into a tree: a point [t, "v"] is three, so this is kMaxPromPoints' points with room for
// the series' labels, and no answer takes more memory to parse than the largest one kept.
inline constexpr int64_t kMaxPromJsonValues = 4 * kMaxPromPoints;

// GPU-hours of usage data held at once (GPUs x hours with data, one 40-byte accumulator each):
// 1 GB, e.g. 10,000 GPUs for 104 days or 1,000 GPUs for almost 3 years.
inline constexpr int64_t kMaxGpuHours = 25'000'000;

// Bytes of a text input read whole (configs, quotes, catalog files, tool output, firmware hashed):
// inputs larger than this are not what these files are.
inline constexpr int64_t kMaxTextFileBytes = int64_t{256} << 20;

// Bytes of one firmware image hashed for accept.
inline constexpr int64_t kMaxFirmwareBytes = int64_t{4} << 30;

}  // namespace gpuplan::limits
