// Hourly data: samples folded into one accumulator per GPU per wall-clock hour. Files are
// read into it through HourlyAggregator; Prometheus answers with it directly (the server does
// the hourly aggregation), so usage analysis reads one shape whatever the source.
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "telemetry/readers.h"

namespace gpuplan::telemetry {

// Per GPU per hour: what the samples of that hour add up to.
struct HourAcc {
  uint32_t count = 0;
  uint32_t util_count = 0;
  uint32_t mem_count = 0;
  double util_sum = 0;
  double mem_sum = 0;
  // Readings that showed the GPU held (HeldRule), of util_count and of mem_count. From
  // Prometheus, the hour's share of held readings against a count of one.
  double util_held = 0;
  double mem_held = 0;
  std::optional<float> temp_max;

  void merge(const HourAcc& o);
  std::optional<double> mean_util() const { return util_count ? std::optional(util_sum / util_count) : std::nullopt; }
  std::optional<double> mean_mem() const { return mem_count ? std::optional(mem_sum / mem_count) : std::nullopt; }
  // The share of the hour the GPU was held. Utilization and memory may come on separate lines
  // (Prometheus text), so the shares are taken apart and the larger kept: exact when a GPU
  // running kernels also holds memory, which a CUDA process always does.
  std::optional<double> held_share() const {
    std::optional<double> share;
    if (util_count) share = util_held / util_count;
    if (mem_count) share = std::max(share.value_or(0), mem_held / mem_count);
    return share;
  }
};

// Hourly accumulators of every GPU: hour (hours since 1970, wall clock) → one HourAcc per GPU.
struct HourlyData {
  std::vector<std::string> gpus;             // names, index = GPU id
  std::map<int64_t, std::vector<HourAcc>> hours;
  ReadStats stats;

  // Folds `other` in, GPUs matched by name. False, with this data unchanged, when its rows would
  // grow by more than `cells_left` accumulators (which the growth is taken from).
  bool merge(const HourlyData& other, int64_t& cells_left);
  void merge(const HourlyData& other);
  // Accumulators held: the rows' lengths added up (a row is as long as its largest GPU id + 1).
  int64_t cells() const;
};

// A SampleSink that accumulates hourly means; fast on ordered input (caches the current hour).
class HourlyAggregator : public SampleSink {
 public:
  // With `cells_left`, the accumulators it may add (limits::kMaxGpuHours across a read, shared by
  // the aggregators of one file's parts): a reading that would need more is dropped and full()
  // says so. A row is as long as the largest GPU id in its hour, so a few lines naming a high id
  // in many hours would otherwise take gigabytes.
  explicit HourlyAggregator(HourlyData& out, std::atomic<int64_t>* cells_left = nullptr, HeldRule held = {})
      : out_(out), cells_left_(cells_left), held_(held) {}
  void add(const Sample& s) override;
  void add_batch(std::span<const Sample> samples) override;
  void add_usage_batch(std::span<const UsageReading> readings, UsagePresent present) override;

  // The times of the first sample of `gpu` folded here and of its latest, if it had any: parts
  // of one log aggregated apart add up to the whole when each GPU's first time in a part is
  // later than its latest before it.
  struct Span {
    int64_t first, latest;
  };
  std::optional<Span> span(uint32_t gpu) const;
  bool full() const { return full_; }

 private:
  // last_time_ of a GPU before its first sample: above any time, so that sample takes fold's way.
  static constexpr int64_t kUnseen = INT64_MAX;
  void fold(const Sample& s);
  template <bool kUtil, bool kMem, bool kTemp>
  void fold_usage(std::span<const UsageReading> readings);
  void enter_hour(int64_t time_ms);
  bool widen(uint32_t gpu);  // the current hour's row made long enough for `gpu`; false when full

  HourlyData& out_;
  // The hour being filled, [begin, end) in ms: one comparison per sample while the hour lasts.
  int64_t current_begin_ms_ = INT64_MAX;
  int64_t current_end_ms_ = INT64_MIN;
  std::vector<HourAcc>* current_ = nullptr;
  std::vector<int64_t> last_time_;   // per GPU, the latest time: for duplicates and clock jumps
  std::vector<int64_t> first_time_;  // per GPU
  std::atomic<int64_t>* cells_left_;
  HeldRule held_;
  bool full_ = false;
};

// Reads every path (files, directories, gzip) into hourly data, in order.
Result<HourlyData> read_hourly(const std::vector<std::string>& paths, SourceFormat format,
                               const Progress& progress = {}, const ReadOptions& options = {});

}  // namespace gpuplan::telemetry
