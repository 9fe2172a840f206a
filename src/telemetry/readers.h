// Readers: nvidia-smi --query-gpu CSV logs, nvidia-smi dmon logs, directories of Prometheus
// text-format scrapes (dcgm-exporter) and gpuplan's health archive (SQLite, archive/) become
// one stream of Samples. Files may be
// gzip-compressed (read transparently). Reading streams through fixed-size buffers or mapped
// windows (memory stays bounded whatever the file size). Malformed lines are counted and
// reported with file:line, never a crash and never a silently wrong number.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/phrase.h"
#include "telemetry/sample.h"

namespace gpuplan::telemetry {

// GPUs seen so far: "host/gpu-id" → index, found by hashing. A source without a host uses the
// file's name. At most limits::kMaxGpus GPUs get their own id: every GPU named beyond shares
// kOverflow (so a sink's per-GPU memory stays bounded while the read ends), the first such name
// is kept in overflow(), and read_samples refuses the file naming it.
class GpuRegistry {
 public:
  static constexpr uint32_t kOverflow = limits::kMaxGpus;
  uint32_t id(const std::string& host, const std::string& gpu);
  const std::vector<std::string>& names() const { return names_; }  // "host/gpu"
  const std::string& overflow() const { return overflow_; }         // empty while within the limit

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::string overflow_;
};

struct Skipped {
  std::string file;
  int64_t line = 0;
  Phrase reason;  // "skip.*" (report/messages)
};

struct ReadStats {
  int64_t lines = 0;
  int64_t samples = 0;
  int64_t bytes = 0;
  int64_t skipped_count = 0;
  std::vector<Skipped> skipped;  // the first few, for the report
  int64_t duplicates = 0;        // same GPU and time seen again
  int64_t clock_jumps = 0;       // time went backwards within a GPU's stream
  int64_t header_changes = 0;    // CSV headers naming other columns than the one before

  void skip(const std::string& file, int64_t line, Phrase reason);
  void merge(const ReadStats& other);
};

// kArchive: a gpuplan health archive (SQLite), its raw readings, GPUs named "<host>/<index>".
enum class SourceFormat { kAuto, kSmiCsv, kDmon, kPromText, kArchive };

// The readings hourly usage needs of one sample, as the nvidia-smi CSV reader's fast path hands
// them over (ReadOptions::usage_metrics_only): a Sample less everything else, 24 bytes not 88.
struct UsageReading {
  int64_t time_ms = 0;
  uint32_t gpu = 0;
  float utilization_pct = 0, memory_used_mib = 0, temperature_c = 0;
};

// Which of a batch's UsageReadings hold a value: the same for every reading of a batch (a column
// the log has); the others are nullopt in the Samples they stand for.
struct UsagePresent {
  bool utilization = false, memory_used = false, temperature = false;
};

class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void add(const Sample& s) = 0;
  // Samples in reading order, several at a time: readers hand them over in batches so that a
  // sink on a hot path (the hourly aggregator) pays one virtual call per batch, not per line.
  virtual void add_batch(std::span<const Sample> samples) {
    for (const Sample& s : samples) add(s);
  }
  // The same as add_batch of the Samples these readings stand for (this default does just that),
  // in reading order with the Samples of add and add_batch.
  virtual void add_usage_batch(std::span<const UsageReading> readings, UsagePresent present);
};

// What a log cannot say about itself. dmon without -o DT prints no time: its samples are
// placed from `dmon_start_ms`, one `dmon_interval_s` per round of GPUs.
// When a reading shows its GPU held by a job (usage's demand: a cloud bills the GPUs held, busy
// or not): utilization above `util_above_pct`, or memory used above `memory_above_mib` (a
// process's CUDA context holds memory even while its kernels are idle). The caller sets both
// from the catalog (usage.held_*); {0, 0} counts any reading above zero.
struct HeldRule {
  double util_above_pct = 0;
  double memory_above_mib = 0;
};

struct ReadOptions {
  std::optional<int64_t> dmon_start_ms;
  int dmon_interval_s = 1;
  // Parse only utilization, memory used and temperature (what hourly usage reads): the other
  // values of a CSV row (power, clocks, ECC counts, clock event reasons) stay nullopt and are
  // not even looked at. Saves a third of the parsing on large logs.
  bool usage_metrics_only = false;
  HeldRule held;  // for the hourly aggregator (telemetry/hourly.h)
};

// Called with (bytes done, bytes total) now and then, for a progress bar.
using Progress = std::function<void(int64_t, int64_t)>;

// Reads one file (or, for kPromText/kAuto on a directory, every scrape in it) into `sink`.
// Errors are only for what stops the whole read (missing file, unknown format).
Result<ReadStats> read_samples(const std::string& path, SourceFormat format, GpuRegistry& gpus, SampleSink& sink,
                               const Progress& progress = {}, const ReadOptions& options = {});

// Reads the byte range [begin, end) of a plain (not gzip) nvidia-smi CSV file as if `header`
// came first; lines are numbered from 1 within the range. The range must start at a line start.
// Lets a caller read one large file with several threads.
Result<ReadStats> read_smi_csv_range(const std::string& path, int64_t begin, int64_t end, std::string_view header,
                                     GpuRegistry& gpus, SampleSink& sink, const ReadOptions& options = {});

// Whether a line is an nvidia-smi CSV header ("timestamp, index, utilization.gpu [%], ...").
bool is_smi_csv_header(std::string_view line);

// Whether a file starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path);

// Guesses the format from the first lines (and gzip and SQLite magic); a directory is kPromText.
Result<SourceFormat> detect_format(const std::string& path);

}  // namespace gpuplan::telemetry
