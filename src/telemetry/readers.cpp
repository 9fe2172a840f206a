#include "telemetry/readers.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "archive/archive.h"
#include "core/files.h"
#include "telemetry/archive_source.h"
#include "telemetry/byte_source.h"
#include "telemetry/format_readers.h"

namespace gpuplan::telemetry {
namespace {

namespace fs = std::filesystem;

constexpr size_t kKeptSkips = 20;

// A log is a regular file (or a directory of scrapes, handled before): a FIFO or a device is
// refused before anything opens it blocking or reads it without end.
Result<void> require_regular_file(const std::string& path) {
  auto file = open_regular_file(path);
  if (!file) return file.error();
  ::close(file->fd);
  return {};
}

}  // namespace

void SampleSink::add_usage_batch(std::span<const UsageReading> readings, UsagePresent present) {
  Sample samples[64];
  size_t n = 0;
  for (const UsageReading& r : readings) {
    Sample& s = samples[n] = Sample{};
    s.time_ms = r.time_ms;
    s.gpu = r.gpu;
    if (present.utilization) s.utilization_pct = r.utilization_pct;
    if (present.memory_used) s.memory_used_mib = r.memory_used_mib;
    if (present.temperature) s.temperature_c = r.temperature_c;
    if (++n == std::size(samples)) {
      add_batch(std::span<const Sample>(samples, n));
      n = 0;
    }
  }
  if (n > 0) add_batch(std::span<const Sample>(samples, n));
}

void ReadStats::skip(const std::string& file, int64_t line, Phrase reason) {
  ++skipped_count;
  if (skipped.size() < kKeptSkips) skipped.push_back({file, line, std::move(reason)});
}

void ReadStats::merge(const ReadStats& o) {
  lines += o.lines;
  samples += o.samples;
  bytes += o.bytes;
  skipped_count += o.skipped_count;
  for (const auto& s : o.skipped)
    if (skipped.size() < kKeptSkips) skipped.push_back(s);
  duplicates += o.duplicates;
  clock_jumps += o.clock_jumps;
  header_changes += o.header_changes;
}

Result<SourceFormat> detect_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return SourceFormat::kPromText;
  if (auto regular = require_regular_file(path); !regular) return regular.error();
  if (archive::is_sqlite_file(path)) return SourceFormat::kArchive;
  auto src = detail::open_source(path);
  if (!src) return src.error();
  std::vector<char> head(8192);
  ssize_t got = (*src)->source->read(head.data(), head.size());
  if (got < 0) return Error{path, 0, {}, detail::read_failure(*(*src)->source)};
  std::string_view text(head.data(), static_cast<size_t>(got));
  if (text.find("timestamp") != std::string_view::npos && text.find(',') != std::string_view::npos)
    return SourceFormat::kSmiCsv;
  if (text.find("# TYPE") != std::string_view::npos || text.find("DCGM_FI_") != std::string_view::npos)
    return SourceFormat::kPromText;
  if (!text.empty() && text[0] == '#' && text.find("gpu") != std::string_view::npos) return SourceFormat::kDmon;
  return Error{path, 1, {}, Phrase("error.log.unknown_format")};
}

namespace {

// One file of a known format (not a directory) into `sink`.
Result<ReadStats> read_one(const std::string& path, SourceFormat format, GpuRegistry& gpus, SampleSink& sink,
                           const Progress& progress, const ReadOptions& options) {
  if (auto regular = require_regular_file(path); !regular) return regular.error();
  // The archive is a database, read through SQLite, not a byte stream.
  if (format == SourceFormat::kArchive) return detail::read_archive(path, gpus, sink, progress);
  auto src = detail::open_source(path);
  if (!src) return src.error();
  switch (format) {
    case SourceFormat::kSmiCsv:
      return detail::read_smi_csv_file(path, **src, gpus, sink, progress, options);
    case SourceFormat::kDmon:
      return detail::read_dmon_file(path, **src, gpus, sink, progress, options);
    case SourceFormat::kPromText:
      return detail::read_prom_scrape(path, **src, gpus, sink, progress);
    case SourceFormat::kAuto:
    case SourceFormat::kArchive:
      break;
  }
  return Error{path, 0, {}, Phrase("error.log.unknown_format")};
}

// Picks nothing but remembers the line of the first sample `pick` picks.
class FirstLineSink : public SampleSink {
 public:
  explicit FirstLineSink(const std::function<bool(const Sample&)>& pick) : pick_(pick) {}
  void add(const Sample& s) override {
    if (line_ < 0 && pick_(s)) line_ = s.line;
  }
  int line() const { return line_ < 0 ? 0 : static_cast<int>(std::min<int64_t>(line_, INT32_MAX)); }

 private:
  const std::function<bool(const Sample&)>& pick_;
  int64_t line_ = -1;
};

}  // namespace

int detail::first_line_where(const std::string& path, SourceFormat format, GpuRegistry& gpus,
                             const ReadOptions& options, const std::function<bool(const Sample&)>& pick) {
  FirstLineSink sink(pick);
  ReadOptions every_value = options;
  every_value.usage_metrics_only = false;  // the fast path hands over no lines
  (void)read_one(path, format, gpus, sink, {}, every_value);  // read once already: only the line is wanted
  return sink.line();
}

Result<ReadStats> read_samples(const std::string& path, SourceFormat format, GpuRegistry& gpus, SampleSink& sink,
                               const Progress& progress, const ReadOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> files;
    for (const auto& de : fs::directory_iterator(path, ec))
      if (de.is_regular_file()) files.push_back(de.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) return Error{path, 0, {}, Phrase("error.log.no_scrape_files")};
    ReadStats total;
    for (const auto& f : files) {
      auto one = read_samples(f, SourceFormat::kPromText, gpus, sink, progress, options);
      if (!one) return one.error();
      total.merge(*one);
    }
    return total;
  }
  if (format == SourceFormat::kAuto) {
    auto detected = detect_format(path);
    if (!detected) return detected.error();
    format = *detected;
  }
  auto stats = read_one(path, format, gpus, sink, progress, options);
  if (stats && !gpus.overflow().empty()) {
    const int line = detail::first_line_where(path, format, gpus, options,
                                              [](const Sample& s) { return s.gpu == GpuRegistry::kOverflow; });
    return Error{path, line, {},
                 Phrase("error.log.too_many_gpus").fact("limit", std::to_string(limits::kMaxGpus)).fact("gpu", gpus.overflow())};
  }
  return stats;
}

}  // namespace gpuplan::telemetry
