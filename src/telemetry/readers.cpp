#include "telemetry/readers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>

namespace gpuplan::telemetry {
namespace {

namespace fs = std::filesystem;

constexpr size_t kChunk = 1 << 20;  // read buffer; memory stays constant whatever the file size
constexpr size_t kMaxLine = 1 << 16;
constexpr size_t kKeptSkips = 20;

// --- byte sources: a plain file (optionally a byte range of it) or a gzip stream ------------

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; 0 at the end; -1 on error.
  virtual ssize_t read(char* buf, size_t n) = 0;
};

class FileRange : public ByteSource {
 public:
  FileRange(int fd, int64_t begin, int64_t end) : fd_(fd), pos_(begin), end_(end) {}
  ssize_t read(char* buf, size_t n) override {
    if (pos_ >= end_) return 0;
    n = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(n), end_ - pos_));
    ssize_t got = ::pread(fd_, buf, n, pos_);
    if (got > 0) pos_ += got;
    return got;
  }

 private:
  int fd_;
  int64_t pos_, end_;
};

class GzipSource : public ByteSource {
 public:
  explicit GzipSource(gzFile f) : f_(f) {}
  ssize_t read(char* buf, size_t n) override { return gzread(f_, buf, static_cast<unsigned>(n)); }

 private:
  gzFile f_;
};

// Calls `on_line(line, line_number, complete)` for every line of `src`, in order. A last line
// without a newline is passed with complete = false, so a truncated write can be told apart.
template <class OnLine>
bool for_each_line(ByteSource& src, OnLine&& on_line, int64_t& bytes, const Progress& progress = {}, int64_t total = 0) {
  std::vector<char> buf(kChunk + kMaxLine);
  size_t kept = 0;  // bytes of an unfinished line carried over
  int64_t line_no = 0;
  int64_t since_progress = 0;
  while (true) {
    ssize_t got = src.read(buf.data() + kept, kChunk);
    if (got < 0) return false;
    bytes += got;
    size_t filled = kept + static_cast<size_t>(got);
    if (got == 0) {
      if (kept > 0) on_line(std::string_view(buf.data(), kept), ++line_no, false);
      return true;
    }
    const char* p = buf.data();
    const char* end = buf.data() + filled;
    while (true) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!nl) break;
      size_t len = static_cast<size_t>(nl - p);
      if (len > 0 && p[len - 1] == '\r') --len;
      on_line(std::string_view(p, len), ++line_no, true);
      p = nl + 1;
    }
    kept = static_cast<size_t>(end - p);
    if (kept >= kMaxLine) {  // a "line" this long is not a log line: drop it whole
      on_line(std::string_view(p, 64), ++line_no, false);
      kept = 0;
    } else {
      std::memmove(buf.data(), p, kept);
    }
    since_progress += got;
    if (progress && since_progress > (64 << 20)) {
      progress(bytes, total);
      since_progress = 0;
    }
  }
}

// --- small parsers ---------------------------------------------------------------------------

[[gnu::always_inline]] inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Plain decimals ("45", "250.12", "-3.5") without from_chars' generality: the hot path of
// every reader. Anything else (exponents, hex) falls back to from_chars.
[[gnu::always_inline]] inline const char* parse_decimal(const char* p, const char* end, double& v) {
  const char* start = p;
  bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* digits_start = p;
  uint64_t whole = 0;
  while (p < end && *p >= '0' && *p <= '9' && p - digits_start < 18) whole = whole * 10 + static_cast<uint64_t>(*p++ - '0');
  double value = static_cast<double>(whole);
  if (p < end && *p == '.') {
    ++p;
    static constexpr double kScale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    uint64_t frac = 0;
    int digits_after = 0;
    while (p < end && *p >= '0' && *p <= '9' && digits_after < 12) frac = frac * 10 + static_cast<uint64_t>(*p++ - '0'), ++digits_after;
    value += static_cast<double>(frac) / kScale[digits_after];
  }
  if (p == digits_start || (p < end && ((*p >= '0' && *p <= '9') || *p == 'e' || *p == 'E'))) {
    auto [e, ec] = std::from_chars(start, end, v);
    return ec == std::errc() && std::isfinite(v) ? e : nullptr;
  }
  v = negative ? -value : value;
  return p;
}

// "45 %", "12345 MiB", "250.12 W", "[N/A]", "-" → the number, or nullopt. One pass, no copies:
// this runs for every value of every line.
[[gnu::always_inline]] inline bool parse_value(std::string_view s, std::optional<float>& out) {
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end && *p == ' ') ++p;
  while (end > p && end[-1] == ' ') --end;
  if (p == end || *p == '[' || (end - p == 1 && *p == '-') || (end - p == 3 && std::memcmp(p, "N/A", 3) == 0)) {
    out.reset();
    return true;
  }
  double v = 0;
  p = parse_decimal(p, end, v);
  if (!p) return false;
  while (p < end && *p == ' ') ++p;
  if (p != end) {  // a unit nvidia-smi prints: %, MiB, W, MHz, C
    const size_t n = static_cast<size_t>(end - p);
    const bool known = (n == 1 && (*p == '%' || *p == 'W' || *p == 'C')) ||
                       (n == 3 && ((p[0] == 'M' && p[1] == 'i' && p[2] == 'B') || (p[0] == 'M' && p[1] == 'H' && p[2] == 'z')));
    if (!known) return false;
  }
  out = static_cast<float>(v);
  return true;
}

int two(const char* p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
bool digits(const char* p, int n) {
  for (int i = 0; i < n; ++i)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

// nvidia-smi's "2024/05/01 12:00:00.123" (also with '-' separators, without milliseconds).
// The hour part is cached: consecutive lines almost always share it.
struct TimestampParser {
  char cached[13] = {};
  int64_t cached_hour_ms = 0;
  bool has_cache = false;

  bool parse(std::string_view s, int64_t& ms) {
    s = trim(s);
    if (s.size() < 19) return false;
    const char* p = s.data();
    if (!has_cache || std::memcmp(p, cached, 13) != 0) {
      if (!digits(p, 4) || !digits(p + 5, 2) || !digits(p + 8, 2) || !digits(p + 11, 2)) return false;
      int year = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + two(p + 2);
      int month = two(p + 5), day = two(p + 8), hour = two(p + 11);
      if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23) return false;
      cached_hour_ms = (days_from_civil(year, month, day) * 24 + hour) * 3600000LL;
      std::memcpy(cached, p, 13);
      has_cache = true;
    }
    if (p[13] != ':' || p[16] != ':' || !digits(p + 14, 2) || !digits(p + 17, 2)) return false;
    int minute = two(p + 14), second = two(p + 17);
    if (minute > 59 || second > 60) return false;
    int milli = 0;
    if (s.size() > 19) {
      if (p[19] != '.' && p[19] != ',') return false;
      int scale = 100;
      for (size_t i = 20; i < s.size() && i < 23; ++i) {
        if (p[i] < '0' || p[i] > '9') return false;
        milli += (p[i] - '0') * scale;
        scale /= 10;
      }
    }
    ms = cached_hour_ms + minute * 60000LL + second * 1000LL + milli;
    return true;
  }
};

// A GPU key → registry id, with the last hit cached (logs interleave a handful of GPUs).
class GpuLookup {
 public:
  GpuLookup(GpuRegistry& registry, std::string host) : registry_(registry), host_(std::move(host)) {}
  uint32_t id(std::string_view key) {
    // Logs cycle through the GPUs in order: try the one after the last hit first.
    if (!known_.empty()) {
      size_t next = last_ + 1 == known_.size() ? 0 : last_ + 1;
      if (known_[next].first == key) return known_[last_ = next].second;
    }
    for (size_t i = 0; i < known_.size(); ++i)
      if (known_[i].first == key) return known_[last_ = i].second;
    uint32_t v = registry_.id(host_, std::string(key));
    known_.emplace_back(std::string(key), v);
    last_ = known_.size() - 1;
    return v;
  }

 private:
  size_t last_ = 0;
  GpuRegistry& registry_;
  std::string host_;
  std::vector<std::pair<std::string, uint32_t>> known_;
};

std::string host_of(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (const char* ext : {".gz", ".csv", ".log", ".txt", ".prom"}) {
    std::string e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) name.resize(name.size() - e.size());
  }
  return name;
}

// --- nvidia-smi --query-gpu CSV ---------------------------------------------------------------

struct SmiColumns {
  int timestamp = -1, index = -1, uuid = -1, bus_id = -1, util = -1, mem_used = -1, mem_total = -1, temp = -1,
      power = -1, sm_clock = -1;
  int count = 0;
};

// "timestamp, index, utilization.gpu [%], ..." → column positions; false if not a header.
bool parse_smi_header(std::string_view line, SmiColumns& c) {
  SmiColumns cols;
  int i = 0;
  size_t start = 0;
  bool any = false;
  while (start <= line.size()) {
    size_t comma = line.find(',', start);
    std::string_view f = trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (auto bracket = f.find(" ["); bracket != std::string_view::npos) f = f.substr(0, bracket);
    if (f == "timestamp") cols.timestamp = i, any = true;
    else if (f == "index") cols.index = i;
    else if (f == "uuid") cols.uuid = i;
    else if (f == "pci.bus_id") cols.bus_id = i;
    else if (f == "utilization.gpu") cols.util = i;
    else if (f == "memory.used") cols.mem_used = i;
    else if (f == "memory.total") cols.mem_total = i;
    else if (f == "temperature.gpu") cols.temp = i;
    else if (f == "power.draw") cols.power = i;
    else if (f == "clocks.sm" || f == "clocks.current.sm") cols.sm_clock = i;
    ++i;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!any) return false;
  cols.count = i;
  c = cols;
  return true;
}

class SmiCsvParser {
 public:
  SmiCsvParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats, SmiColumns cols,
               const ReadOptions& options)
      : file_(file), gpus_(registry, host_of(file)), sink_(sink), stats_(stats), usage_only_(options.usage_metrics_only) {
    use(cols);
  }

  void line(std::string_view line, int64_t number, bool complete) {
    ++stats_.lines;
    if (line.empty()) return;
    if (line[0] < '0' || line[0] > '9') {  // a header (again, after a restart) or garbage
      SmiColumns cols;
      if (parse_smi_header(line, cols)) {
        use(cols);
      } else {
        stats_.skip(file_, number, "not a CSV row or header");
      }
      return;
    }
    if (!have_header_) {
      stats_.skip(file_, number, "row before any header (use nvidia-smi --format=csv, not noheader, or put the header first)");
      return;
    }
    // Field bounds, not string_views: an array of 32 views would be zeroed on every line.
    const char* starts[33];
    int n = 0;
    const char* p = line.data();
    const char* end = p + line.size();
    starts[0] = p;
    while (n < 32) {
      const char* comma = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
      ++n;
      if (!comma) break;
      p = comma + 1;
      starts[n] = p;
    }
    starts[n] = end + 1;  // each field ends one byte (the comma) before the next starts
    auto field = [&](int i) { return std::string_view(starts[i], static_cast<size_t>(starts[i + 1] - starts[i] - 1)); };
    if (n != cols_.count) {
      stats_.skip(file_, number, complete ? "expected " + std::to_string(cols_.count) + " fields, found " + std::to_string(n)
                                          : "truncated last line");
      return;
    }
    Sample s;
    if (!time_.parse(field(cols_.timestamp), s.time_ms)) {
      stats_.skip(file_, number, "bad timestamp '" + std::string(trim(field(cols_.timestamp)).substr(0, 40)) + "'");
      return;
    }
    int key = cols_.uuid >= 0 ? cols_.uuid : cols_.index >= 0 ? cols_.index : cols_.bus_id;
    s.gpu = gpus_.id(key >= 0 ? trim(field(key)) : std::string_view("0"));
    bool ok = true;
    auto value = [&](int col, std::optional<float>& out) {
      if (col >= 0 && !parse_value(field(col), out)) ok = false;
    };
    value(cols_.util, s.utilization_pct);
    value(cols_.mem_used, s.memory_used_mib);
    value(cols_.mem_total, s.memory_total_mib);
    value(cols_.temp, s.temperature_c);
    value(cols_.power, s.power_w);
    value(cols_.sm_clock, s.sm_clock_mhz);
    if (!ok || (s.utilization_pct && (*s.utilization_pct < 0 || *s.utilization_pct > 100))) {
      stats_.skip(file_, number, complete ? "a value is not a number in range" : "truncated last line");
      return;
    }
    ++stats_.samples;
    sink_.add(s);
  }

 private:
  void use(SmiColumns cols) {
    if (usage_only_) cols.mem_total = cols.power = cols.sm_clock = -1;
    cols_ = cols;
    have_header_ = cols.count > 0;
  }

  const std::string& file_;
  GpuLookup gpus_;
  SampleSink& sink_;
  ReadStats& stats_;
  bool usage_only_;
  SmiColumns cols_;
  bool have_header_ = false;
  TimestampParser time_;
};

// --- nvidia-smi dmon ---------------------------------------------------------------------------

class DmonParser {
 public:
  DmonParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats, const ReadOptions& options)
      : file_(file), gpus_(registry, host_of(file)), sink_(sink), stats_(stats), options_(options) {}

  void line(std::string_view line, int64_t number, bool complete) {
    ++stats_.lines;
    line = trim(line);
    if (line.empty()) return;
    std::vector<std::string_view> f = split(line[0] == '#' ? line.substr(1) : line);
    if (line[0] == '#') {
      if (!f.empty() && (f[0] == "Date" || f[0] == "gpu" || f[0] == "Time")) names_ = {f.begin(), f.end()}, columns();
      return;
    }
    if (gpu_ < 0) {
      stats_.skip(file_, number, "row before the '# gpu ...' header");
      return;
    }
    if (f.size() != names_.size()) {
      stats_.skip(file_, number, complete ? "expected " + std::to_string(names_.size()) + " columns" : "truncated last line");
      return;
    }
    Sample s;
    if (date_ < 0 || time_ < 0) {
      if (!options_.dmon_start_ms) {
        stats_.skip(file_, number, "no timestamps: record dmon with -o DT, or give the start time (--dmon-start)");
        return;
      }
      // A new round starts when a GPU comes again: one interval later.
      const std::string gpu(f[gpu_]);
      if (std::find(round_.begin(), round_.end(), gpu) != round_.end()) {
        round_.clear();
        ++rounds_;
      }
      round_.push_back(gpu);
      s.time_ms = *options_.dmon_start_ms + rounds_ * options_.dmon_interval_s * 1000LL;
      if (!values(f, s, number, complete)) return;
      ++stats_.samples;
      sink_.add(s);
      return;
    }
    std::string_view d = f[date_], t = f[time_];
    if (d.size() != 8 || !digits(d.data(), 8) || t.size() != 8 || !digits(t.data(), 2) || !digits(t.data() + 3, 2) ||
        !digits(t.data() + 6, 2)) {
      stats_.skip(file_, number, "bad date or time");
      return;
    }
    int year = (d[0] - '0') * 1000 + (d[1] - '0') * 100 + two(d.data() + 2);
    int month = two(d.data() + 4), day = two(d.data() + 6);
    if (month < 1 || month > 12 || day < 1 || day > 31) {
      stats_.skip(file_, number, "bad date");
      return;
    }
    s.time_ms = ((days_from_civil(year, month, day) * 24 + two(t.data())) * 3600 + two(t.data() + 3) * 60 + two(t.data() + 6)) * 1000LL;
    if (!values(f, s, number, complete)) return;
    ++stats_.samples;
    sink_.add(s);
  }

 private:
  // The GPU and its readings; false (and the line skipped) when a value is not a number in range.
  bool values(const std::vector<std::string_view>& f, Sample& s, int64_t number, bool complete) {
    s.gpu = gpus_.id(f[gpu_]);
    bool ok = true;
    auto value = [&](int col, std::optional<float>& out) {
      if (col >= 0 && !parse_value(f[col], out)) ok = false;
    };
    value(sm_, s.utilization_pct);
    value(fb_, s.memory_used_mib);
    value(temp_, s.temperature_c);
    value(power_, s.power_w);
    value(pclk_, s.sm_clock_mhz);
    if (!ok || (s.utilization_pct && *s.utilization_pct > 100)) {
      stats_.skip(file_, number, complete ? "a value is not a number in range" : "truncated last line");
      return false;
    }
    return true;
  }

  static std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      size_t j = i;
      while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
      if (j > i) out.push_back(s.substr(i, j - i));
      i = j;
    }
    return out;
  }

  void columns() {
    date_ = time_ = gpu_ = sm_ = fb_ = temp_ = power_ = pclk_ = -1;
    for (int i = 0; i < static_cast<int>(names_.size()); ++i) {
      const std::string& n = names_[i];
      if (n == "Date") date_ = i;
      else if (n == "Time") time_ = i;
      else if (n == "gpu") gpu_ = i;
      else if (n == "sm") sm_ = i;
      else if (n == "fb") fb_ = i;
      else if (n == "gtemp") temp_ = i;
      else if (n == "pwr") power_ = i;
      else if (n == "pclk") pclk_ = i;
    }
  }

  const std::string& file_;
  GpuLookup gpus_;
  SampleSink& sink_;
  ReadStats& stats_;
  const ReadOptions& options_;
  std::vector<std::string> names_;
  int date_ = -1, time_ = -1, gpu_ = -1, sm_ = -1, fb_ = -1, temp_ = -1, power_ = -1, pclk_ = -1;
  std::vector<std::string> round_;  // GPUs seen in the current round (dmon without -o DT)
  int64_t rounds_ = 0;
};

// --- Prometheus text format (dcgm-exporter) -------------------------------------------------

class PromParser {
 public:
  PromParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats,
             std::optional<int64_t> file_time_ms)
      : file_(file), registry_(registry), sink_(sink), stats_(stats), file_time_ms_(file_time_ms) {}

  void line(std::string_view line, int64_t number, bool complete) {
    ++stats_.lines;
    line = trim(line);
    if (line.empty() || line[0] == '#') return;
    size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos) return bad(number, complete, "no value");
    std::string_view name = line.substr(0, name_end);
    int field = metric_field(name);
    if (field < 0) return;  // a metric usage does not need
    std::string_view labels, rest = line.substr(name_end);
    if (rest[0] == '{') {
      size_t close = rest.find('}');
      if (close == std::string_view::npos) return bad(number, complete, "unclosed labels");
      labels = rest.substr(1, close - 1);
      rest = rest.substr(close + 1);
    }
    rest = trim(rest);
    size_t space = rest.find(' ');
    std::string_view value_text = rest.substr(0, space);
    double value = 0;
    auto [vend, vec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (vec != std::errc() || vend != value_text.data() + value_text.size()) return bad(number, complete, "bad value");
    if (!std::isfinite(value)) return;  // NaN: no reading
    Sample s;
    if (space != std::string_view::npos) {
      std::string_view ts = trim(rest.substr(space + 1));
      int64_t t = 0;
      auto [tend, tec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
      if (tec != std::errc() || tend != ts.data() + ts.size()) return bad(number, complete, "bad timestamp");
      s.time_ms = t;
    } else if (file_time_ms_) {
      s.time_ms = *file_time_ms_;
    } else {
      return bad(number, complete, "no timestamp on the line nor in the file name");
    }
    std::string host = label(labels, "Hostname"), gpu = label(labels, "gpu");
    if (host.empty()) host = label(labels, "instance");
    if (host.empty()) host = host_of(file_);
    if (gpu.empty()) gpu = label(labels, "UUID");
    s.gpu = registry_.id(host, gpu);
    const float v = static_cast<float>(value);
    switch (field) {
      case 0: s.utilization_pct = v; break;
      case 1: s.memory_used_mib = v; break;
      case 2: s.temperature_c = v; break;
      case 3: s.power_w = v; break;
      case 4: s.sm_clock_mhz = v; break;
    }
    ++stats_.samples;
    sink_.add(s);
  }

 private:
  static int metric_field(std::string_view name) {
    if (name == "DCGM_FI_DEV_GPU_UTIL") return 0;
    if (name == "DCGM_FI_DEV_FB_USED") return 1;
    if (name == "DCGM_FI_DEV_GPU_TEMP") return 2;
    if (name == "DCGM_FI_DEV_POWER_USAGE") return 3;
    if (name == "DCGM_FI_DEV_SM_CLOCK") return 4;
    return -1;
  }

  static std::string label(std::string_view labels, std::string_view key) {
    size_t i = 0;
    while (i < labels.size()) {
      size_t eq = labels.find('=', i);
      if (eq == std::string_view::npos || eq + 1 >= labels.size() || labels[eq + 1] != '"') return {};
      std::string_view k = trim(labels.substr(i, eq - i));
      size_t close = labels.find('"', eq + 2);
      if (close == std::string_view::npos) return {};
      if (k == key) return std::string(labels.substr(eq + 2, close - eq - 2));
      i = labels.find(',', close);
      if (i == std::string_view::npos) break;
      ++i;
    }
    return {};
  }

  void bad(int64_t number, bool complete, const char* why) { stats_.skip(file_, number, complete ? why : "truncated last line"); }

  const std::string& file_;
  GpuRegistry& registry_;
  SampleSink& sink_;
  ReadStats& stats_;
  std::optional<int64_t> file_time_ms_;
};

// A scrape file's time from the digits in its name (Unix seconds or milliseconds).
std::optional<int64_t> time_from_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::string digits_only;
  for (char c : name)
    if (c >= '0' && c <= '9') digits_only += c;
    else if (!digits_only.empty() && digits_only.size() >= 10) break;
    else digits_only.clear();
  if (digits_only.size() == 10) return std::stoll(digits_only) * 1000;
  if (digits_only.size() == 13) return std::stoll(digits_only);
  return std::nullopt;
}

struct OpenedSource {
  int fd = -1;
  gzFile gz = nullptr;
  int64_t size = 0;
  std::unique_ptr<ByteSource> source;
  ~OpenedSource() {
    if (gz) gzclose(gz);
    if (fd >= 0) ::close(fd);
  }
};

Result<std::unique_ptr<OpenedSource>> open_source(const std::string& path) {
  auto s = std::make_unique<OpenedSource>();
  s->fd = ::open(path.c_str(), O_RDONLY);
  if (s->fd < 0) return Error{path, 0, {}, std::string("cannot open: ") + std::strerror(errno)};
  struct stat st {};
  if (::fstat(s->fd, &st) == 0) s->size = st.st_size;
  if (is_gzip_file(path)) {
    s->gz = gzdopen(::dup(s->fd), "rb");
    if (!s->gz) return Error{path, 0, {}, "cannot read gzip stream"};
    gzbuffer(s->gz, 1 << 18);
    s->source = std::make_unique<GzipSource>(s->gz);
  } else {
    s->source = std::make_unique<FileRange>(s->fd, 0, s->size);
  }
  return s;
}

template <class Parser>
Result<ReadStats> run_parser(const std::string& path, Parser& parser, ReadStats& stats, OpenedSource& src,
                             const Progress& progress) {
  bool ok = for_each_line(
      *src.source, [&](std::string_view l, int64_t n, bool complete) { parser.line(l, n, complete); }, stats.bytes,
      progress, src.size);
  if (!ok) return Error{path, 0, {}, "read failed"};
  return stats;
}

}  // namespace

bool is_gzip_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  unsigned char magic[2] = {};
  bool gz = ::read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  ::close(fd);
  return gz;
}

uint32_t GpuRegistry::id(const std::string& host, const std::string& gpu) {
  std::string name = host + "/" + gpu;
  for (uint32_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  names_.push_back(name);
  return static_cast<uint32_t>(names_.size() - 1);
}

void ReadStats::skip(const std::string& file, int64_t line, std::string reason) {
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
}

Result<ReadStats> read_smi_csv_range(const std::string& path, int64_t begin, int64_t end, std::string_view header,
                                     GpuRegistry& gpus, SampleSink& sink, const ReadOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Error{path, 0, {}, std::string("cannot open: ") + std::strerror(errno)};
  ReadStats stats;
  SmiColumns cols;
  if (!parse_smi_header(header, cols)) {
    ::close(fd);
    return Error{path, 1, {}, "the first line is not an nvidia-smi CSV header"};
  }
  SmiCsvParser parser(path, gpus, sink, stats, cols, options);
  FileRange range(fd, begin, end);
  bool ok = for_each_line(range, [&](std::string_view l, int64_t n, bool complete) { parser.line(l, n, complete); }, stats.bytes);
  ::close(fd);
  if (!ok) return Error{path, 0, {}, "read failed"};
  return stats;
}

Result<SourceFormat> detect_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return SourceFormat::kPromText;
  auto src = open_source(path);
  if (!src) return src.error();
  std::vector<char> head(8192);
  ssize_t got = (*src)->source->read(head.data(), head.size());
  if (got < 0) return Error{path, 0, {}, "read failed"};
  std::string_view text(head.data(), static_cast<size_t>(got));
  if (text.find("timestamp") != std::string_view::npos && text.find(',') != std::string_view::npos) return SourceFormat::kSmiCsv;
  if (text.find("# TYPE") != std::string_view::npos || text.find("DCGM_FI_") != std::string_view::npos) return SourceFormat::kPromText;
  if (!text.empty() && text[0] == '#' && text.find("gpu") != std::string_view::npos) return SourceFormat::kDmon;
  return Error{path, 1, {}, "unknown log format: expected nvidia-smi --query-gpu CSV (with its header), nvidia-smi dmon, or Prometheus text"};
}

Result<ReadStats> read_samples(const std::string& path, SourceFormat format, GpuRegistry& gpus, SampleSink& sink,
                               const Progress& progress, const ReadOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> files;
    for (const auto& de : fs::directory_iterator(path, ec))
      if (de.is_regular_file()) files.push_back(de.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) return Error{path, 0, {}, "no scrape files in the directory"};
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
  auto src = open_source(path);
  if (!src) return src.error();
  ReadStats stats;
  switch (format) {
    case SourceFormat::kSmiCsv: {
      SmiCsvParser parser(path, gpus, sink, stats, SmiColumns{}, options);
      return run_parser(path, parser, stats, **src, progress);
    }
    case SourceFormat::kDmon: {
      DmonParser parser(path, gpus, sink, stats, options);
      return run_parser(path, parser, stats, **src, progress);
    }
    case SourceFormat::kPromText: {
      PromParser parser(path, gpus, sink, stats, time_from_name(path));
      return run_parser(path, parser, stats, **src, progress);
    }
    case SourceFormat::kAuto: break;
  }
  return Error{path, 0, {}, "unknown format"};
}

}  // namespace gpuplan::telemetry
