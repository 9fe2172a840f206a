// The nvidia-smi CSV reader's general path (see smi_csv_parser.h): the header, row() and its
// skips, and the entry points: read_samples' reader, and readers.h's read_smi_csv_range and
// is_smi_csv_header.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "telemetry/byte_source.h"
#include "telemetry/format_readers.h"
#include "telemetry/smi_csv_parser.h"

namespace gpuplan::telemetry {
namespace detail {

std::optional<SmiColumns> parse_smi_header(std::string_view line) {
  SmiColumns cols;
  int i = 0;
  size_t start = 0;
  bool any = false;
  while (start <= line.size()) {
    size_t comma = line.find(',', start);
    std::string_view f =
        trim_blanks(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (auto bracket = f.find(" ["); bracket != std::string_view::npos) f = f.substr(0, bracket);
    if (f == "timestamp")
      cols.timestamp = i, any = true;
    else if (f == "index")
      cols.index = i;
    else if (f == "uuid")
      cols.uuid = i;
    else if (f == "pci.bus_id")
      cols.bus_id = i;
    else if (f == "utilization.gpu")
      cols.util = i;
    else if (f == "memory.used")
      cols.mem_used = i;
    else if (f == "memory.total")
      cols.mem_total = i;
    else if (f == "temperature.gpu")
      cols.temp = i;
    else if (f == "power.draw")
      cols.power = i;
    // power.limit is the limit software set; enforced.power.limit the one in force (the lower of
    // the software and board limits): either bounds power.draw.
    else if (f == "power.limit" || (f == "enforced.power.limit" && cols.power_limit < 0))
      cols.power_limit = i;
    else if (f == "clocks.sm" || f == "clocks.current.sm")
      cols.sm_clock = i;
    else if (f == "ecc.errors.corrected.volatile.total")
      cols.ecc_corrected = i;
    else if (f == "ecc.errors.uncorrected.volatile.total")
      cols.ecc_uncorrected = i;
    // The driver renamed "throttle" to "event" (R535); logs of either age are read.
    else if (f == "clocks_event_reasons.active" || f == "clocks_throttle_reasons.active")
      cols.clock_event_reasons = i;
    ++i;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!any) return std::nullopt;
  cols.count = i;
  return cols;
}

SmiCsvParser::SmiCsvParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats,
                           SmiColumns cols, const ReadOptions& options)
    : file_(file),
      gpus_(registry, host_of(file)),
      sink_(sink),
      stats_(stats),
      usage_only_(options.usage_metrics_only),
      batch_(kBatch),
      usage_batch_(kBatch) {
  use(cols);
}

void SmiCsvParser::row(const CsvRow& r, int64_t number, bool complete) {
  if (usage_batched_ > 0) flush_usage();  // the fast path's readings came first
  ++stats_.lines;
  const std::string_view line = r.line();
  if (line.empty()) return;
  if (line[0] < '0' || line[0] > '9') return header_or_garbage(line, number);
  if (!have_header_) {
    stats_.skip(file_, number, Phrase("skip.row_before_header"));
    return;
  }
  if (r.fields != cols_.count || r.fields > kMaxFields) return wrong_field_count(r.fields, number, complete);
  Sample& s = batch_[batched_];
  s = Sample{};
  if (!time_.parse(r.field(cols_.timestamp), s.time_ms)) return bad_timestamp(r.field(cols_.timestamp), number);
  s.gpu = gpus_.id(key_ >= 0 ? trim_blanks(r.field(key_)) : std::string_view("0"));
  s.line = sample_line(number);
  // Every column is read even after one fails (&=, not &&): no branch per column.
  bool ok = value(r, cols_.util, s.utilization_pct);
  ok &= value(r, cols_.mem_used, s.memory_used_mib);
  ok &= value(r, cols_.temp, s.temperature_c);
  if (!usage_only_) {  // the rest only when asked for: a branch per line, not per column
    ok &= value(r, cols_.mem_total, s.memory_total_mib);
    ok &= value(r, cols_.power, s.power_w);
    ok &= value(r, cols_.power_limit, s.power_limit_w);
    ok &= value(r, cols_.sm_clock, s.sm_clock_mhz);
    ok &= value(r, cols_.ecc_corrected, s.ecc_corrected);
    ok &= value(r, cols_.ecc_uncorrected, s.ecc_uncorrected);
    if (cols_.clock_event_reasons >= 0 && !parse_hex(r.field(cols_.clock_event_reasons), s.clock_event_reasons))
      ok = false;
  }
  if (!ok || (s.utilization_pct && (*s.utilization_pct < 0 || *s.utilization_pct > 100))) {
    stats_.skip(file_, number, Phrase(complete ? "skip.value_out_of_range" : "skip.truncated"));
    return;
  }
  ++stats_.samples;
  if (++batched_ == kBatch) flush_samples();
}

void SmiCsvParser::use(SmiColumns cols) {
  flush_usage();  // readings of the old plan carry its columns
  cols_ = cols;
  key_ = cols.uuid >= 0 ? cols.uuid : cols.index >= 0 ? cols.index : cols.bus_id;
  have_header_ = cols.count > 0;
  present_ = {cols.util >= 0, cols.mem_used >= 0, cols.temp >= 0};
  gpus_.forget_layouts();
  // The fast path reads what hourly usage needs; the other modes go through row().
  fast_plan_.clear();
  if (!usage_only_ || !have_header_ || cols.count > kMaxFields) return;
  auto kind = [&](int c) {
    return c == cols.timestamp  ? FastColumn::kTime
           : c == key_          ? FastColumn::kKey
           : c == cols.util     ? FastColumn::kUtil
           : c == cols.mem_used ? FastColumn::kMem
           : c == cols.temp     ? FastColumn::kTemp
                                : FastColumn::kSkip;
  };
  // The identity span: the key and the columns stepped over right before it ("index, uuid").
  int span_first = key_;
  while (span_first > 0 && kind(span_first - 1) == FastColumn::kSkip) --span_first;
  for (int c = 0; c < cols.count; ++c) {
    if (key_ >= 0 && c == span_first)
      fast_plan_.push_back({FastColumn::kSpan, ',', static_cast<uint8_t>(key_ - span_first + 1)});
    const char sep = c + 1 == cols.count ? '\n' : ',';
    const FastColumn k = kind(c);
    fast_plan_.push_back({k == FastColumn::kSkip && sep == '\n' ? FastColumn::kSkipLast : k, sep});
    fast_plan_.back().unit_text = static_cast<unsigned char>(sep);  // until a unit is seen: none
  }
  fast_plan_.push_back({FastColumn::kDone, '\n'});
}

void SmiCsvParser::header_or_garbage(std::string_view line, int64_t number) {
  if (const std::optional<SmiColumns> cols = parse_smi_header(line)) {
    if (have_header_ && !(*cols == cols_)) ++stats_.header_changes;
    use(*cols);
  } else {
    stats_.skip(file_, number, Phrase("skip.not_csv"));
  }
}

void SmiCsvParser::wrong_field_count(int fields, int64_t number, bool complete) {
  stats_.skip(file_, number,
              complete ? Phrase("skip.field_count")
                             .fact("expected", std::to_string(cols_.count))
                             .fact("found", std::to_string(fields))
                       : Phrase("skip.truncated"));
}

void SmiCsvParser::bad_timestamp(std::string_view text, int64_t number) {
  stats_.skip(file_, number, Phrase("skip.bad_timestamp").fact("text", std::string(trim_blanks(text).substr(0, 40))));
}
namespace {

// Reads nvidia-smi CSV from `src` through `parser`, and hands over the last samples.
bool read_smi_csv(ByteSource& src, SmiCsvParser& parser, int64_t& bytes, const Progress& progress = {},
                  int64_t total = 0) {
  const bool ok = for_each_csv_row(src, parser, bytes, progress, total);
  parser.flush();
  return ok;
}

}  // namespace

Result<ReadStats> read_smi_csv_file(const std::string& path, OpenedSource& src, GpuRegistry& gpus, SampleSink& sink,
                                    const Progress& progress, const ReadOptions& options) {
  ReadStats stats;
  SmiCsvParser parser(path, gpus, sink, stats, SmiColumns{}, options);
  if (!read_smi_csv(*src.source, parser, stats.bytes, progress, src.size))
    return Error{path, 0, {}, read_failure(*src.source)};
  return stats;
}

}  // namespace detail

bool is_smi_csv_header(std::string_view line) {
  return detail::parse_smi_header(line).has_value();
}

Result<ReadStats> read_smi_csv_range(const std::string& path, int64_t begin, int64_t end, std::string_view header,
                                     GpuRegistry& gpus, SampleSink& sink, const ReadOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Error{path, 0, {}, Phrase("error.file.cannot_open").fact("why", std::strerror(errno))};
  ReadStats stats;
  const std::optional<detail::SmiColumns> cols = detail::parse_smi_header(header);
  if (!cols) {
    ::close(fd);
    return Error{path, 1, {}, Phrase("error.smi.no_header")};
  }
  detail::SmiCsvParser parser(path, gpus, sink, stats, *cols, options);
  detail::FileRange range(fd, begin, end);
  const bool ok = detail::read_smi_csv(range, parser, stats.bytes);
  ::close(fd);
  if (!ok) return Error{path, 0, {}, detail::read_failure(range)};
  return stats;
}

}  // namespace gpuplan::telemetry
