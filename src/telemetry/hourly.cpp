#include "telemetry/hourly.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "core/dates.h"
#include "core/limits.h"
#include "telemetry/format_readers.h"

namespace gpuplan::telemetry {
namespace {

constexpr int64_t kMsPerHour = 3600000;
constexpr int64_t kParallelFrom = 32 << 20;  // files smaller than this are read by one thread

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The reader's counts, plus the duplicates and clock jumps the aggregator found.
void keep_aggregator_counts(ReadStats& aggregated, const ReadStats& read) {
  ReadStats s = read;
  s.duplicates += aggregated.duplicates;
  s.clock_jumps += aggregated.clock_jumps;
  aggregated = s;
}

// The first line of a file, and the offset of the next line start at or after `from`.
std::string first_line(int fd) {
  std::string line(65536, '\0');
  ssize_t got = ::pread(fd, line.data(), line.size(), 0);
  line.resize(got > 0 ? static_cast<size_t>(got) : 0);
  auto nl = line.find('\n');
  if (nl == std::string::npos) return {};
  if (nl > 0 && line[nl - 1] == '\r') --nl;
  return line.substr(0, nl);
}

int64_t next_line_start(int fd, int64_t from, int64_t size) {
  char buf[65536];
  while (from < size) {
    ssize_t got = ::pread(fd, buf, sizeof buf, from);
    if (got <= 0) return size;
    if (const void* nl = std::memchr(buf, '\n', static_cast<size_t>(got))) return from + (static_cast<const char*>(nl) - buf) + 1;
    from += got;
  }
  return size;
}

// Whether `one` (the hours of `path`) added to `all` keeps the data within limits::kMaxSpanHours;
// else an Error naming the line of the first sample that took the span past it, found by reading
// the file again (only then: the hours are kept sparse, so the fast read itself stays small).
Result<void> check_span(const HourlyData& all, const HourlyData& one, const std::string& path, SourceFormat format,
                        GpuRegistry& registry, const ReadOptions& options) {
  if (one.hours.empty()) return {};
  int64_t low = one.hours.begin()->first, high = one.hours.rbegin()->first;
  if (!all.hours.empty()) {
    low = std::min(low, all.hours.begin()->first);
    high = std::max(high, all.hours.rbegin()->first);
  }
  if (high - low <= limits::kMaxSpanHours) return {};
  // In reading order, the first sample whose hour stretches the span (from the files before) past the limit.
  std::optional<int64_t> first, last;
  if (!all.hours.empty()) first = all.hours.begin()->first, last = all.hours.rbegin()->first;
  int64_t culprit_ms = 0;
  auto stretches = [&](const Sample& s) {
    const int64_t hour = floor_div(s.time_ms, kMsPerHour);
    const int64_t lo = first ? std::min(*first, hour) : hour, hi = last ? std::max(*last, hour) : hour;
    if (hi - lo > limits::kMaxSpanHours) {
      culprit_ms = s.time_ms;
      return true;
    }
    first = lo, last = hi;
    return false;
  };
  const int line = detail::first_line_where(path, format, registry, options, stretches);
  auto date = [](int64_t hour) { return civil_from_days(floor_div(hour, 24)).date(); };
  return Error{path, line, {},
               Phrase("error.log.span_too_long")
                   .fact("time", civil_from_ms(culprit_ms).date_time())
                   .fact("years", std::to_string(limits::kMaxSpanYears))
                   .fact("first", date(first.value_or(low)))
                   .fact("last", date(last.value_or(high)))};
}

// The error for a file whose accumulators, with the `held` of the files before it, pass
// limits::kMaxGpuHours: at the line of the first reading that needed one more, found by folding
// row lengths as HourlyAggregator does.
Error too_many_gpu_hours(const std::string& path, SourceFormat format, GpuRegistry& registry,
                         const ReadOptions& options, int64_t held) {
  std::unordered_map<int64_t, uint32_t> row_length;  // per hour
  int64_t cells = held;
  auto needs_one_more = [&](const Sample& s) {
    uint32_t& length = row_length[floor_div(s.time_ms, kMsPerHour)];
    if (s.gpu < length) return false;
    cells += s.gpu + 1 - length;
    length = s.gpu + 1;
    return cells > limits::kMaxGpuHours;
  };
  const int line = detail::first_line_where(path, format, registry, options, needs_one_more);
  return Error{path, line, {}, Phrase("error.log.too_many_gpu_hours").fact("limit", std::to_string(limits::kMaxGpuHours))};
}

// Reads a large plain nvidia-smi CSV with one thread per core, each taking the next of many byte
// ranges cut at line starts (a core slowed by other work takes fewer), and merges the parts in
// file order. Each part is read with the file's first line as its header. nullopt when the
// parts may not add up to what one reader gives: the first line is no header, a part met a
// header naming other columns (the parts after it would read their lines by the wrong ones),
// or a GPU's sample in a part is no later than one of its samples before it (a duplicate or a
// clock jump across a cut). The sums of non-integer values may differ from one reader's in the
// last bit (added in another order); nvidia-smi writes whole numbers. Also nullopt when the parts
// and their merge would hold more than `cells_left` accumulators: one reader, which counts them
// once, says whether the file is within the limit, and where not.
Result<std::optional<HourlyData>> read_smi_parallel(const std::string& path, int64_t size, unsigned threads,
                                                    const Progress& progress, const ReadOptions& options,
                                                    std::atomic<int64_t>& cells_left) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Error{path, 0, {}, Phrase("error.file.cannot_open").fact("why", std::strerror(errno))};
  const std::string header = first_line(fd);
  if (!is_smi_csv_header(header)) {
    ::close(fd);
    return std::optional<HourlyData>();
  }
  std::vector<int64_t> cuts{next_line_start(fd, 0, size)};
  // About four parts a thread, so that a thread slowed by other work leaves more to the others.
  const int64_t part_bytes = std::clamp<int64_t>(size / (threads * 4), 8 << 20, 64 << 20);
  for (int64_t at = part_bytes; at < size; at += part_bytes) cuts.push_back(std::max(cuts.back(), next_line_start(fd, at, size)));
  cuts.push_back(size);
  ::close(fd);

  struct Part {
    GpuRegistry registry;
    HourlyData data;
    Result<ReadStats> stats = ReadStats{};
    std::vector<std::optional<HourlyAggregator::Span>> spans;  // per GPU of the registry
    bool full = false;  // the accumulators ran out while it was read
  };
  std::vector<Part> parts(cuts.size() - 1);
  std::atomic<size_t> next_part{0};
  std::atomic<int64_t> bytes_done{0};
  auto work = [&](bool reports_progress) {
    for (size_t i; (i = next_part++) < parts.size();) {
      Part& part = parts[i];
      HourlyAggregator aggregator(part.data, &cells_left, options.held);
      part.stats = read_smi_csv_range(path, cuts[i], cuts[i + 1], header, part.registry, aggregator, options);
      if (aggregator.full()) part.full = true;
      for (uint32_t g = 0; g < part.registry.names().size(); ++g) part.spans.push_back(aggregator.span(g));
      bytes_done += cuts[i + 1] - cuts[i];
      if (reports_progress && progress) progress(bytes_done, size);  // the caller's thread only
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work, false);
  work(true);
  for (auto& w : workers) w.join();
  if (progress) progress(size, size);

  HourlyData out;
  int64_t merge_cells_left = cells_left;  // the parts are counted; their merge is counted again
  std::map<std::string, int64_t> latest;  // per GPU name, over the parts merged so far
  int64_t lines_before = 1;               // the header
  for (Part& p : parts) {
    // A part past the GPU limit: one reader reads the file again, to name the line.
    if (!p.registry.overflow().empty() || p.full) return std::optional<HourlyData>();
    if (!p.stats) return p.stats.error();
    if (p.stats->header_changes > 0) return std::optional<HourlyData>();
    const std::vector<std::string>& names = p.registry.names();
    for (size_t g = 0; g < names.size(); ++g) {
      if (!p.spans[g]) continue;
      auto [it, first_seen] = latest.try_emplace(names[g], p.spans[g]->latest);
      if (!first_seen && p.spans[g]->first <= it->second) return std::optional<HourlyData>();
      it->second = std::max(it->second, p.spans[g]->latest);
    }
    ReadStats& s = *p.stats;
    for (auto& skip : s.skipped) skip.line += lines_before;
    lines_before += s.lines;
    p.data.gpus = names;
    keep_aggregator_counts(p.data.stats, s);
    if (!out.merge(p.data, merge_cells_left)) return std::optional<HourlyData>();
  }
  if (out.gpus.size() > limits::kMaxGpus) return std::optional<HourlyData>();  // as a part past the limit
  out.stats.lines += 1;
  out.stats.bytes = size;
  return std::optional<HourlyData>(std::move(out));
}

// Whether the GPUs of `all` and `more` together are within limits::kMaxGpus.
bool within_gpu_limit(const HourlyData& all, const HourlyData& more) {
  std::unordered_set<std::string_view> names(all.gpus.begin(), all.gpus.end());
  size_t count = names.size();
  for (const std::string& name : more.gpus)
    if (!names.count(name) && ++count > limits::kMaxGpus) return false;
  return true;
}

}  // namespace

void HourAcc::merge(const HourAcc& o) {
  count += o.count;
  util_count += o.util_count;
  mem_count += o.mem_count;
  util_sum += o.util_sum;
  mem_sum += o.mem_sum;
  util_held += o.util_held;
  mem_held += o.mem_held;
  if (o.temp_max && (!temp_max || *o.temp_max > *temp_max)) temp_max = o.temp_max;
}

int64_t HourlyData::cells() const {
  int64_t n = 0;
  for (const auto& [hour, row] : hours) n += static_cast<int64_t>(row.size());
  return n;
}

void HourlyData::merge(const HourlyData& other) {
  int64_t unlimited = INT64_MAX;
  (void)merge(other, unlimited);
}

bool HourlyData::merge(const HourlyData& other, int64_t& cells_left) {
  // GPUs are matched by name, so parts read with their own registries line up; a name new here
  // gets the next id.
  std::unordered_map<std::string_view, uint32_t> index;  // hashed: tens of thousands of GPUs merge in linear time
  index.reserve(gpus.size() + other.gpus.size());
  for (uint32_t g = 0; g < gpus.size(); ++g) index.emplace(gpus[g], g);
  std::vector<uint32_t> remap;
  std::vector<const std::string*> added;
  for (const std::string& name : other.gpus) {
    auto [it, is_new] = index.emplace(name, static_cast<uint32_t>(gpus.size() + added.size()));
    if (is_new) added.push_back(&name);
    remap.push_back(it->second);
  }
  // What the rows would grow by, before anything changes: refused whole or merged whole.
  int64_t growth = 0;
  for (const auto& [hour, accs] : other.hours) {
    const auto mine = hours.find(hour);
    size_t length = mine == hours.end() ? 0 : mine->second.size();
    for (uint32_t g = 0; g < accs.size(); ++g)
      if (accs[g].count != 0) length = std::max<size_t>(length, remap[g] + 1);
    growth += static_cast<int64_t>(length) - (mine == hours.end() ? 0 : static_cast<int64_t>(mine->second.size()));
  }
  if (growth > cells_left) return false;
  cells_left -= growth;
  for (const std::string* name : added) gpus.push_back(*name);
  for (const auto& [hour, accs] : other.hours) {
    auto& mine = hours[hour];
    for (uint32_t g = 0; g < accs.size(); ++g) {
      if (accs[g].count == 0) continue;
      if (mine.size() <= remap[g]) mine.resize(remap[g] + 1);
      mine[remap[g]].merge(accs[g]);
    }
  }
  stats.merge(other.stats);
  return true;
}

// The hour of `time_ms` becomes the current one.
void HourlyAggregator::enter_hour(int64_t time_ms) {
  const int64_t hour = floor_div(time_ms, kMsPerHour);
  current_begin_ms_ = hour * kMsPerHour;
  // Saturated: a garbage time near INT64_MAX must not overflow (it just misses the cache).
  current_end_ms_ = current_begin_ms_ > INT64_MAX - kMsPerHour ? INT64_MAX : current_begin_ms_ + kMsPerHour;
  current_ = &out_.hours[hour];
}

bool HourlyAggregator::widen(uint32_t gpu) {
  const auto growth = static_cast<int64_t>(gpu + 1 - current_->size());
  if (cells_left_ && cells_left_->fetch_sub(growth) < growth) {
    cells_left_->fetch_add(growth);
    full_ = true;
    return false;
  }
  current_->resize(gpu + 1);
  return true;
}

// Inline in add and add_batch: on the batch path the loop pays no call per sample.
inline void HourlyAggregator::fold(const Sample& s) {
  if (s.gpu >= last_time_.size()) last_time_.resize(s.gpu + 1, kUnseen);
  int64_t& last = last_time_[s.gpu];
  if (last == kUnseen) {
    if (s.gpu >= first_time_.size()) first_time_.resize(s.gpu + 1);
    first_time_[s.gpu] = s.time_ms;
    last = INT64_MIN;
  }
  // One source may give one metric per line (Prometheus text): only a repeated utilization
  // reading at the same time is a duplicate.
  if (s.time_ms == last && s.utilization_pct) {
    ++out_.stats.duplicates;
    return;
  }
  if (s.time_ms < last) ++out_.stats.clock_jumps;
  if (s.utilization_pct || s.time_ms > last) last = std::max(last, s.time_ms);
  if (s.time_ms < current_begin_ms_ || s.time_ms >= current_end_ms_) enter_hour(s.time_ms);
  if (current_->size() <= s.gpu && !widen(s.gpu)) return;
  HourAcc& a = (*current_)[s.gpu];
  ++a.count;
  if (s.utilization_pct) {
    ++a.util_count;
    a.util_sum += *s.utilization_pct;
    a.util_held += *s.utilization_pct > held_.util_above_pct;
  }
  if (s.memory_used_mib) {
    ++a.mem_count;
    a.mem_sum += *s.memory_used_mib;
    a.mem_held += *s.memory_used_mib > held_.memory_above_mib;
  }
  if (s.temperature_c && (!a.temp_max || *s.temperature_c > *a.temp_max)) a.temp_max = s.temperature_c;
}

void HourlyAggregator::add(const Sample& s) { fold(s); }

std::optional<HourlyAggregator::Span> HourlyAggregator::span(uint32_t gpu) const {
  if (gpu >= last_time_.size() || last_time_[gpu] == kUnseen) return std::nullopt;
  return Span{first_time_[gpu], last_time_[gpu]};
}

void HourlyAggregator::add_batch(std::span<const Sample> samples) {
  for (const Sample& s : samples) fold(s);
}

// What fold does, for readings that all have the same metrics and no missing value: the usual
// case, a time later than the GPU's last, is folded here; any other goes through fold, which
// counts it as a duplicate or a clock jump. The vectors' data and sizes are held in locals (a
// store to an accumulator could otherwise be one to a vector's bounds, to be loaded again), and
// the metrics present are template arguments: no test per reading for a column the log lacks.
template <bool kUtil, bool kMem, bool kTemp>
void HourlyAggregator::fold_usage(std::span<const UsageReading> readings) {
  int64_t* last_time = last_time_.data();
  size_t gpus_timed = last_time_.size();
  HourAcc* accs = current_ ? current_->data() : nullptr;
  size_t gpus_in_hour = current_ ? current_->size() : 0;
  for (const UsageReading& r : readings) {
    if (r.gpu >= gpus_timed) {
      last_time_.resize(r.gpu + 1, kUnseen);
      last_time = last_time_.data();
      gpus_timed = last_time_.size();
    }
    if (r.time_ms <= last_time[r.gpu]) {
      Sample s;
      s.time_ms = r.time_ms;
      s.gpu = r.gpu;
      if (kUtil) s.utilization_pct = r.utilization_pct;
      if (kMem) s.memory_used_mib = r.memory_used_mib;
      if (kTemp) s.temperature_c = r.temperature_c;
      fold(s);
      accs = current_->data();  // fold may have changed the hour, or grown it
      gpus_in_hour = current_->size();
      continue;
    }
    last_time[r.gpu] = r.time_ms;
    if (r.time_ms < current_begin_ms_ || r.time_ms >= current_end_ms_) {
      enter_hour(r.time_ms);
      accs = current_->data();
      gpus_in_hour = current_->size();
    }
    if (r.gpu >= gpus_in_hour) {
      if (!widen(r.gpu)) continue;
      accs = current_->data();
      gpus_in_hour = current_->size();
    }
    HourAcc& a = accs[r.gpu];
    ++a.count;
    if (kUtil) {
      ++a.util_count;
      a.util_sum += r.utilization_pct;
      a.util_held += r.utilization_pct > held_.util_above_pct;
    }
    if (kMem) {
      ++a.mem_count;
      a.mem_sum += r.memory_used_mib;
      a.mem_held += r.memory_used_mib > held_.memory_above_mib;
    }
    if (kTemp && (!a.temp_max || r.temperature_c > *a.temp_max)) a.temp_max = r.temperature_c;
  }
}

void HourlyAggregator::add_usage_batch(std::span<const UsageReading> readings, UsagePresent present) {
  // One specialised fold per combination of columns. A switch, not a table of member-function
  // pointers: GCC 12's bounds sanitizer misreads an index into such a table.
  switch (present.utilization * 4 + present.memory_used * 2 + present.temperature) {
    case 0: return fold_usage<false, false, false>(readings);
    case 1: return fold_usage<false, false, true>(readings);
    case 2: return fold_usage<false, true, false>(readings);
    case 3: return fold_usage<false, true, true>(readings);
    case 4: return fold_usage<true, false, false>(readings);
    case 5: return fold_usage<true, false, true>(readings);
    case 6: return fold_usage<true, true, false>(readings);
    default: return fold_usage<true, true, true>(readings);
  }
}

Result<HourlyData> read_hourly(const std::vector<std::string>& paths, SourceFormat format, const Progress& progress,
                               const ReadOptions& options) {
  HourlyData all;
  GpuRegistry registry;
  ReadOptions usage_options = options;  // the aggregator reads utilization, memory and temperature only
  usage_options.usage_metrics_only = true;
  std::atomic<int64_t> cells_left{0};  // of limits::kMaxGpuHours, while a file is read
  for (const std::string& path : paths) {
    SourceFormat f = format;
    if (f == SourceFormat::kAuto) {
      auto detected = detect_format(path);
      if (!detected) return detected.error();
      f = *detected;
    }
    struct stat st {};
    const bool plain_file = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && !is_gzip_file(path);
    const unsigned cores = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    const int64_t held = all.cells();
    if (f == SourceFormat::kSmiCsv && plain_file && st.st_size >= kParallelFrom && cores > 1) {
      cells_left = limits::kMaxGpuHours - held;
      auto parallel = read_smi_parallel(path, st.st_size, cores, progress, usage_options, cells_left);
      if (!parallel) return parallel.error();
      // Its GPUs or GPU-hours with the earlier files' past a limit: one thread reads it, to name
      // the line.
      if (*parallel && within_gpu_limit(all, **parallel)) {
        if (auto too_long = check_span(all, **parallel, path, f, registry, usage_options); !too_long)
          return too_long.error();
        if (int64_t merge_left = limits::kMaxGpuHours - held; all.merge(**parallel, merge_left)) {
          // The files after this one count its GPUs too.
          for (const std::string& name : all.gpus) {
            const size_t slash = name.find('/');
            (void)registry.id(name.substr(0, slash), name.substr(slash + 1));
          }
          continue;
        }
      }  // else the parts may not add up to the whole (see read_smi_parallel): one thread reads it
    }
    cells_left = limits::kMaxGpuHours - held;
    HourlyData one;
    HourlyAggregator aggregator(one, &cells_left, options.held);
    auto stats = read_samples(path, f, registry, aggregator, progress, usage_options);
    if (!stats) return stats.error();
    if (aggregator.full()) return too_many_gpu_hours(path, f, registry, usage_options, held);
    one.gpus = registry.names();
    keep_aggregator_counts(one.stats, *stats);
    if (auto too_long = check_span(all, one, path, f, registry, usage_options); !too_long) return too_long.error();
    all.merge(one);  // the same GPU ids: grows by one's accumulators at most, which were counted
  }
  return all;
}

}  // namespace gpuplan::telemetry
