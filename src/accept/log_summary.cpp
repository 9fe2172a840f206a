#include "accept/log_summary.h"

#include <algorithm>
#include <limits>

namespace gpuplan::accept {

struct LogSummariser::Acc {
  bool seen = false;
  GpuLogSummary s;
  // Least squares of memory (MiB) against time (hours since the first memory sample).
  int64_t mem_t0_ms = 0;
  double n = 0, sum_t = 0, sum_m = 0, sum_tt = 0, sum_tm = 0;
  double mem_min_t = std::numeric_limits<double>::max(), mem_max_t = std::numeric_limits<double>::lowest();
  std::optional<uint64_t> prev_corrected, prev_uncorrected;
  // Intervals between consecutive samples (ms, to 10 ms) → how many: a regular log has a few
  // keys, not one per sample, so a 72-hour log stays small.
  std::optional<int64_t> prev_ms;
  std::map<int64_t, int64_t> intervals;
};

namespace {

constexpr int64_t kIntervalStepMs = 10;
// Seconds of power readings kept open for GPUs whose lines come later (readers interleave GPUs
// within a sampling round; a round never spans this many seconds).
constexpr size_t kOpenPowerSeconds = 16;

// The lower middle value of a count of each value.
std::optional<int64_t> lower_median(const std::map<int64_t, int64_t>& counts) {
  int64_t n = 0;
  for (const auto& [value, times] : counts) n += times;
  if (n == 0) return std::nullopt;
  int64_t seen = 0;
  for (const auto& [value, times] : counts) {
    seen += times;
    if (seen > (n - 1) / 2) return value;
  }
  return std::nullopt;
}

// Closes one second of power readings into the peak: the sum over its GPUs.
void close_power_second(const std::pair<const int64_t, std::map<uint32_t, double>>& second,
                        std::optional<PowerPeak>& peak) {
  double sum = 0;
  for (const auto& [gpu, watts] : second.second) sum += watts;
  if (!peak || sum > peak->watts) peak = PowerPeak{sum, static_cast<int>(second.second.size()), second.first * 1000};
}

}  // namespace

int64_t GpuLogSummary::covered_ms() const {
  if (!median_interval_ms) return 0;
  return last_ms - first_ms + *median_interval_ms;
}

LogSummariser::LogSummariser(std::string file, double min_utilization_pct, double max_temperature_c)
    : file_(std::move(file)), min_utilization_pct_(min_utilization_pct), max_temperature_c_(max_temperature_c) {}

LogSummariser::~LogSummariser() = default;

void LogSummariser::add(const telemetry::Sample& x) {
  if (x.gpu >= acc_.size()) acc_.resize(x.gpu + 1);
  Acc& a = acc_[x.gpu];
  GpuLogSummary& s = a.s;
  if (!a.seen) {
    a.seen = true;
    s.first_ms = s.last_ms = x.time_ms;
  }
  ++s.samples;
  // A sample earlier than or at the one before (a reordered or repeated line) opens no interval.
  if (a.prev_ms && x.time_ms > *a.prev_ms) {
    const int64_t step = (x.time_ms - *a.prev_ms + kIntervalStepMs / 2) / kIntervalStepMs * kIntervalStepMs;
    ++a.intervals[step];
  }
  a.prev_ms = x.time_ms;
  s.first_ms = std::min(s.first_ms, x.time_ms);
  s.last_ms = std::max(s.last_ms, x.time_ms);
  if (x.power_w) {
    ++s.power_samples;
    const int64_t second = x.time_ms >= 0 ? x.time_ms / 1000 : (x.time_ms - 999) / 1000;
    double& w = open_power_[second][x.gpu];
    w = std::max(w, static_cast<double>(*x.power_w));
    if (open_power_.size() > kOpenPowerSeconds) {
      close_power_second(*open_power_.begin(), peak_power_);
      open_power_.erase(open_power_.begin());
    }
  }
  if (x.temperature_c) {
    double t = *x.temperature_c;
    if (!s.max_temperature_c || t > *s.max_temperature_c) {
      s.max_temperature_c = t;
      s.max_temperature_ms = x.time_ms;
    }
    if (t > max_temperature_c_) ++s.samples_above_temperature;
  }
  if (x.utilization_pct) {
    double u = *x.utilization_pct;
    if (!s.min_utilization_pct || u < *s.min_utilization_pct) {
      s.min_utilization_pct = u;
      s.min_utilization_ms = x.time_ms;
    }
    ++s.utilization_samples;
    if (u < min_utilization_pct_) ++s.samples_below_utilization;
  }
  if (x.memory_used_mib) {
    double m = *x.memory_used_mib;
    if (a.n == 0) {
      a.mem_t0_ms = x.time_ms;
      s.memory_first_mib = m;
    }
    s.memory_last_mib = m;
    double t = (x.time_ms - a.mem_t0_ms) / 3.6e6;
    a.n += 1;
    a.sum_t += t;
    a.sum_m += m;
    a.sum_tt += t * t;
    a.sum_tm += t * m;
    a.mem_min_t = std::min(a.mem_min_t, t);
    a.mem_max_t = std::max(a.mem_max_t, t);
  }
  // ECC counts are cumulative: a rise between two samples of one GPU is a new error. A fall is a
  // driver reload resetting the volatile counters, not a repair.
  auto track = [&](const std::optional<uint64_t>& v, std::optional<uint64_t>& first, std::optional<uint64_t>& last,
                   std::optional<uint64_t>& prev, std::optional<int64_t>& first_rise) {
    if (!v) return;
    if (!first) first = *v;
    last = *v;
    if (prev && *v > *prev) {
      ++s.ecc_rises;
      if (!s.ecc_first_rise_ms || x.time_ms < s.ecc_first_rise_ms) s.ecc_first_rise_ms = x.time_ms;
      if (!first_rise) first_rise = x.time_ms;
    }
    prev = *v;
  };
  track(x.ecc_corrected, s.ecc_corrected_first, s.ecc_corrected_last, a.prev_corrected, s.ecc_corrected_first_rise_ms);
  track(x.ecc_uncorrected, s.ecc_uncorrected_first, s.ecc_uncorrected_last, a.prev_uncorrected,
        s.ecc_uncorrected_first_rise_ms);
}

LogSummary LogSummariser::finish(const telemetry::GpuRegistry& gpus, const telemetry::ReadStats& stats) const {
  LogSummary out;
  out.file = file_;
  out.stats = stats;
  out.peak_power = peak_power_;
  for (const auto& second : open_power_) close_power_second(second, out.peak_power);
  for (size_t i = 0; i < acc_.size(); ++i) {
    const Acc& a = acc_[i];
    if (!a.seen) continue;
    GpuLogSummary s = a.s;
    s.median_interval_ms = lower_median(a.intervals);
    s.gpu = i < gpus.names().size() ? gpus.names()[i] : "gpu" + std::to_string(i);
    double denom = a.n * a.sum_tt - a.sum_t * a.sum_t;
    if (a.n >= 2 && a.mem_max_t > a.mem_min_t && denom > 0)
      s.memory_growth_mib_per_h = (a.n * a.sum_tm - a.sum_t * a.sum_m) / denom;
    out.gpus.push_back(std::move(s));
  }
  return out;
}

double LogSummary::hours() const {
  if (gpus.empty()) return 0;
  int64_t first = gpus.front().first_ms, last = gpus.front().last_ms;
  std::map<int64_t, int64_t> medians;
  for (const auto& g : gpus) {
    first = std::min(first, g.first_ms);
    last = std::max(last, g.last_ms);
    if (g.median_interval_ms) ++medians[*g.median_interval_ms];
  }
  const std::optional<int64_t> interval = lower_median(medians);
  if (!interval) return 0;
  return static_cast<double>(last - first + *interval) / 3.6e6;
}

Result<LogSummary> summarise_log(const std::string& path, const catalog::Catalog& catalog,
                                 const telemetry::Progress& progress) {
  telemetry::GpuRegistry registry;
  LogSummariser summariser(path, catalog.threshold("accept.soak.min_utilization_pct"),
                           catalog.threshold("accept.soak.max_temperature_c"));
  auto stats = telemetry::read_samples(path, telemetry::SourceFormat::kAuto, registry, summariser, progress);
  if (!stats) return stats.error();
  return summariser.finish(registry, *stats);
}

}  // namespace gpuplan::accept
