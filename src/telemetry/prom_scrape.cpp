// The Prometheus text-format reader, for scrapes of dcgm-exporter: the DCGM_FI_DEV_* gauges
// usage reads (utilization, memory used, temperature, power, SM clock) become one Sample each,
// the GPU named by its Hostname (else instance, else the file's name) and gpu (else UUID)
// labels. A line without a timestamp takes the time in the file's name. Timestamps follow each
// format's own rule: milliseconds in the Prometheus text format, seconds (a fraction allowed) in
// OpenMetrics, which a file ending in "# EOF" is.
#include <zlib.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "telemetry/format_readers.h"
#include "telemetry/gpu_lookup.h"
#include "telemetry/text_scan.h"

namespace gpuplan::telemetry::detail {
namespace {

namespace fs = std::filesystem;

class PromParser {
 public:
  PromParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats,
             std::optional<int64_t> file_time_ms, bool openmetrics)
      : file_(file),
        registry_(registry),
        sink_(sink),
        stats_(stats),
        file_time_ms_(file_time_ms),
        openmetrics_(openmetrics) {}

  void line(std::string_view line, int64_t number, bool complete) {
    ++stats_.lines;
    line = trim_blanks(line);
    if (line.empty() || line[0] == '#') return;
    size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos) return bad(number, complete, "skip.no_value");
    std::string_view name = line.substr(0, name_end);
    int field = metric_field(name);
    if (field < 0) return;  // a metric usage does not need
    std::string_view labels, rest = line.substr(name_end);
    if (rest[0] == '{') {
      size_t close = rest.find('}');
      if (close == std::string_view::npos) return bad(number, complete, "skip.unclosed_labels");
      labels = rest.substr(1, close - 1);
      rest = rest.substr(close + 1);
    }
    rest = trim_blanks(rest);
    size_t space = rest.find(' ');
    std::string_view value_text = rest.substr(0, space);
    double value = 0;
    auto [vend, vec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (vec != std::errc() || vend != value_text.data() + value_text.size())
      return bad(number, complete, "skip.bad_value");
    if (!std::isfinite(value)) return;  // NaN: no reading
    Sample s;
    if (space != std::string_view::npos) {
      std::string_view ts = trim_blanks(rest.substr(space + 1));
      auto t = openmetrics_ ? seconds_as_ms(ts) : whole_ms(ts);
      if (!t) return bad(number, complete, "skip.bad_prom_timestamp");
      s.time_ms = *t;
    } else if (file_time_ms_) {
      s.time_ms = *file_time_ms_;
    } else {
      return bad(number, complete, "skip.no_prom_timestamp");
    }
    std::string host = label(labels, "Hostname"), gpu = label(labels, "gpu");
    if (host.empty()) host = label(labels, "instance");
    if (host.empty()) host = host_of(file_);
    if (gpu.empty()) gpu = label(labels, "UUID");
    s.gpu = registry_.id(host, gpu);
    const float v = static_cast<float>(value);
    switch (field) {
      case 0:
        s.utilization_pct = v;
        break;
      case 1:
        s.memory_used_mib = v;
        break;
      case 2:
        s.temperature_c = v;
        break;
      case 3:
        s.power_w = v;
        break;
      case 4:
        s.sm_clock_mhz = v;
        break;
    }
    ++stats_.samples;
    sink_.add(s);
  }

 private:
  // Prometheus text: whole milliseconds.
  static std::optional<int64_t> whole_ms(std::string_view ts) {
    int64_t t = 0;
    auto [end, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
    if (ec != std::errc() || end != ts.data() + ts.size()) return std::nullopt;
    return t;
  }

  // OpenMetrics: seconds, "1714348800" or "1714348800.123"; beyond ±10^15 s no time is real.
  static std::optional<int64_t> seconds_as_ms(std::string_view ts) {
    double t = 0;
    auto [end, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
    if (ec != std::errc() || end != ts.data() + ts.size() || !std::isfinite(t) || std::fabs(t) > 1e15)
      return std::nullopt;
    return std::llround(t * 1000);
  }

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
      std::string_view k = trim_blanks(labels.substr(i, eq - i));
      size_t close = labels.find('"', eq + 2);
      if (close == std::string_view::npos) return {};
      if (k == key) return std::string(labels.substr(eq + 2, close - eq - 2));
      i = labels.find(',', close);
      if (i == std::string_view::npos) break;
      ++i;
    }
    return {};
  }

  void bad(int64_t number, bool complete, const char* why) {
    stats_.skip(file_, number, Phrase(complete ? why : "skip.truncated"));
  }

  const std::string& file_;
  GpuRegistry& registry_;
  SampleSink& sink_;
  ReadStats& stats_;
  std::optional<int64_t> file_time_ms_;
  bool openmetrics_;
};

// Whether the file is OpenMetrics: its last line is "# EOF", which that format requires and the
// Prometheus text format does not have. A plain file is read from its tail; a gzip one is
// decompressed to its end (scrapes are small).
bool ends_with_eof_marker(const std::string& path) {
  std::string tail;
  if (is_gzip_file(path)) {
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) return false;
    char buf[1 << 16];
    for (int got; (got = gzread(gz, buf, sizeof buf)) > 0;) {
      tail.append(buf, static_cast<size_t>(got));
      if (tail.size() > 64) tail.erase(0, tail.size() - 64);
    }
    gzclose(gz);
  } else {
    std::ifstream in(path, std::ios::binary);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (!in || size <= 0) return false;
    in.seekg(std::max<std::streamoff>(0, size - 64));
    tail.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string_view t = tail;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.remove_suffix(1);
  return t.size() >= 5 && t.substr(t.size() - 5) == "# EOF" && (t.size() == 5 || t[t.size() - 6] == '\n');
}

// A scrape file's time from the digits in its name (Unix seconds or milliseconds).
std::optional<int64_t> time_from_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::string digits_only;
  for (char c : name)
    if (c >= '0' && c <= '9')
      digits_only += c;
    else if (!digits_only.empty() && digits_only.size() >= 10)
      break;
    else
      digits_only.clear();
  if (digits_only.size() == 10) return std::stoll(digits_only) * 1000;
  if (digits_only.size() == 13) return std::stoll(digits_only);
  return std::nullopt;
}

}  // namespace

Result<ReadStats> read_prom_scrape(const std::string& path, OpenedSource& src, GpuRegistry& gpus, SampleSink& sink,
                                   const Progress& progress) {
  ReadStats stats;
  PromParser parser(path, gpus, sink, stats, time_from_name(path), ends_with_eof_marker(path));
  return run_parser(path, parser, stats, src, progress);
}

}  // namespace gpuplan::telemetry::detail
