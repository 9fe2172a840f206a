// The nvidia-smi dmon reader: whitespace-separated columns named by the '#' header lines (Date,
// Time, gpu, sm, fb, gtemp, pwr, pclk, sbecc, dbecc; other columns are ignored). A log recorded
// without -o DT has no time: its samples are placed from ReadOptions::dmon_start_ms, a new round
// of GPUs one dmon_interval_s after the last.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dates.h"
#include "telemetry/format_readers.h"
#include "telemetry/gpu_lookup.h"
#include "telemetry/number_parse.h"
#include "telemetry/text_scan.h"

namespace gpuplan::telemetry::detail {
namespace {

class DmonParser {
 public:
  DmonParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats,
             const ReadOptions& options)
      : file_(file), gpus_(registry, host_of(file)), sink_(sink), stats_(stats), options_(options) {}

  void line(std::string_view line, int64_t number, bool complete) {
    ++stats_.lines;
    line = trim_blanks(line);
    if (line.empty()) return;
    std::vector<std::string_view> f = split(line[0] == '#' ? line.substr(1) : line);
    if (line[0] == '#') {
      if (!f.empty() && (f[0] == "Date" || f[0] == "gpu" || f[0] == "Time")) names_ = {f.begin(), f.end()}, columns();
      return;
    }
    if (gpu_ < 0) {
      stats_.skip(file_, number, Phrase("skip.row_before_dmon_header"));
      return;
    }
    if (f.size() != names_.size()) {
      stats_.skip(file_, number,
                  complete ? Phrase("skip.column_count").fact("expected", std::to_string(names_.size()))
                           : Phrase("skip.truncated"));
      return;
    }
    Sample s;
    if (date_ < 0 || time_ < 0) {
      if (!options_.dmon_start_ms) {
        stats_.skip(file_, number, Phrase("skip.no_timestamps"));
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
      stats_.skip(file_, number, Phrase("skip.bad_date_time"));
      return;
    }
    int year = (d[0] - '0') * 1000 + (d[1] - '0') * 100 + two(d.data() + 2);
    int month = two(d.data() + 4), day = two(d.data() + 6);
    if (month < 1 || month > 12 || day < 1 || day > 31) {
      stats_.skip(file_, number, Phrase("skip.bad_date"));
      return;
    }
    s.time_ms =
        ((days_from_civil(year, month, day) * 24 + two(t.data())) * 3600 + two(t.data() + 3) * 60 + two(t.data() + 6)) *
        1000LL;
    if (!values(f, s, number, complete)) return;
    ++stats_.samples;
    sink_.add(s);
  }

 private:
  // The GPU and its readings; false (and the line skipped) when a value is not a number in range.
  bool values(const std::vector<std::string_view>& f, Sample& s, int64_t number, bool complete) {
    s.gpu = gpus_.id(f[gpu_]);
    s.line = sample_line(number);
    bool ok = true;
    auto value = [&](int col, std::optional<float>& out) {
      if (col >= 0 && !parse_value(f[col], out)) ok = false;
    };
    value(sm_, s.utilization_pct);
    value(fb_, s.memory_used_mib);
    value(temp_, s.temperature_c);
    value(power_, s.power_w);
    value(pclk_, s.sm_clock_mhz);
    if (sbecc_ >= 0 && !parse_count(f[sbecc_], s.ecc_corrected)) ok = false;
    if (dbecc_ >= 0 && !parse_count(f[dbecc_], s.ecc_uncorrected)) ok = false;
    if (!ok || (s.utilization_pct && *s.utilization_pct > 100)) {
      stats_.skip(file_, number, Phrase(complete ? "skip.value_out_of_range" : "skip.truncated"));
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
    date_ = time_ = gpu_ = sm_ = fb_ = temp_ = power_ = pclk_ = sbecc_ = dbecc_ = -1;
    for (int i = 0; i < static_cast<int>(names_.size()); ++i) {
      const std::string& n = names_[i];
      if (n == "Date")
        date_ = i;
      else if (n == "Time")
        time_ = i;
      else if (n == "gpu")
        gpu_ = i;
      else if (n == "sm")
        sm_ = i;
      else if (n == "fb")
        fb_ = i;
      else if (n == "gtemp")
        temp_ = i;
      else if (n == "pwr")
        power_ = i;
      else if (n == "pclk")
        pclk_ = i;
      else if (n == "sbecc")
        sbecc_ = i;  // -s e: single-bit (corrected) and double-bit (uncorrected) ECC errors
      else if (n == "dbecc")
        dbecc_ = i;
    }
  }

  const std::string& file_;
  GpuLookup gpus_;
  SampleSink& sink_;
  ReadStats& stats_;
  const ReadOptions& options_;
  std::vector<std::string> names_;
  int date_ = -1, time_ = -1, gpu_ = -1, sm_ = -1, fb_ = -1, temp_ = -1, power_ = -1, pclk_ = -1, sbecc_ = -1,
      dbecc_ = -1;
  std::vector<std::string> round_;  // GPUs seen in the current round (dmon without -o DT)
  int64_t rounds_ = 0;
};

}  // namespace

Result<ReadStats> read_dmon_file(const std::string& path, OpenedSource& src, GpuRegistry& gpus, SampleSink& sink,
                                 const Progress& progress, const ReadOptions& options) {
  ReadStats stats;
  DmonParser parser(path, gpus, sink, stats, options);
  return run_parser(path, parser, stats, src, progress);
}

}  // namespace gpuplan::telemetry::detail
