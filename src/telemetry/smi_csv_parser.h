// The nvidia-smi --query-gpu CSV parser (private to telemetry/; readers.h is the public
// interface). A header line names the columns (SmiColumns); row() turns a row into a Sample,
// reading every form nvidia-smi writes and reporting what it skips. For hourly usage
// (ReadOptions::usage_metrics_only) fast_rows() reads rows in nvidia-smi's usual form in place,
// into UsageReadings, a row in a shape seen before in a few block compares, and leaves any other
// row to row(). row() and the header handling are in smi_csv.cpp; fast_rows() and its steps in
// smi_csv_fast.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/csv_row.h"
#include "telemetry/gpu_lookup.h"
#include "telemetry/line_shape.h"
#include "telemetry/number_parse.h"
#include "telemetry/readers.h"
#include "telemetry/sample.h"
#include "telemetry/smi_timestamp.h"

namespace gpuplan::telemetry::detail {

struct SmiColumns {
  int timestamp = -1, index = -1, uuid = -1, bus_id = -1, util = -1, mem_used = -1, mem_total = -1, temp = -1,
      power = -1, power_limit = -1, sm_clock = -1, ecc_corrected = -1, ecc_uncorrected = -1, clock_event_reasons = -1;
  int count = 0;
  bool operator==(const SmiColumns&) const = default;
};

// "timestamp, index, utilization.gpu [%], ..." → column positions; nullopt if not a header.
std::optional<SmiColumns> parse_smi_header(std::string_view line);

class SmiCsvParser {
 public:
  SmiCsvParser(const std::string& file, GpuRegistry& registry, SampleSink& sink, ReadStats& stats, SmiColumns cols,
               const ReadOptions& options);

  // One line cut into fields, numbered `number`; complete: it ended with a newline (a last line
  // without one may be a truncated write).
  [[gnu::always_inline]] inline void row(const CsvRow& r, int64_t number, bool complete);

  // Lines in nvidia-smi's usual form, read in place from p on, for as long as they come: those
  // in a shape seen before by shaped_rows, the others column by column in the order the header
  // planned (fast_plan_), each value checked up to its separator, the columns usage does not
  // read stepped over unparsed (and the line's shape kept for its GPU). Returns the start of the
  // first line it leaves to row() (or `end`), having counted the lines it read in `line_no`. A
  // line is left to row() whole, nothing of it counted, when it differs in any way from that
  // form (another number format, [N/A], a field too many or too few, a header, garbage, a GPU not
  // seen before, the end of the data): row() gives the same result or the same report as for
  // any line. A '\0' must stand at `end`: every step's check rejects it, so a line cut by the end
  // of the data is never taken for a whole one; or `end` follows a newline (no line is cut there).
  // The bytes after `end` are readable (the slack).
  // Out of line: GCC inlines no function with a computed goto, and one call reads many lines.
  [[gnu::noinline]] const char* fast_rows(const char* p, const char* const end, int64_t& line_no);

  // Hands the samples read so far to the sink; called at the end of the input.
  void flush() {
    flush_usage();
    flush_samples();
  }

 private:
  static constexpr size_t kBatch = 256;  // samples handed to the sink at once (stay in L1/L2)

  // A step of the fast path: a column (kTime … kSkipLast, the last column when stepped over);
  // kSpan before the identity span, the key and the columns stepped over right before it,
  // compared whole with the same GPU's last line; kDone after the last column.
  enum class FastColumn : uint8_t { kTime, kKey, kUtil, kMem, kTemp, kSkip, kSkipLast, kSpan, kDone };
  struct FastStep {
    FastColumn column;
    char sep;                // what ends the field: ',' or, for the last, '\n'
    uint8_t span_steps = 0;  // kSpan: the columns it stands for, passed over when it matches
    // A value's unit and separator as on the last line (" %,", " MiB,", "," …): the next line's
    // usually match, one masked compare of a word instead of a test per unit.
    uint8_t unit_size = 1;
    uint64_t unit_text = 0, unit_mask = 0xFF;
    const void* code = nullptr;   // the handler in fast_rows (its label's address), set there
    const char* start = nullptr;  // where the column began on the line being read
  };

  void flush_samples() {
    if (batched_ > 0) sink_.add_batch(std::span<const Sample>(batch_.data(), batched_));
    batched_ = 0;
  }

  // The fast path counts its lines and samples here, a batch at a time.
  void flush_usage() {
    if (usage_batched_ == 0) return;
    stats_.lines += static_cast<int64_t>(usage_batched_);
    stats_.samples += static_cast<int64_t>(usage_batched_);
    sink_.add_usage_batch(std::span<const UsageReading>(usage_batch_.data(), usage_batched_), present_);
    usage_batched_ = 0;
  }

  // Column `col` (none when negative) into `out`; false when it is not a number.
  [[gnu::always_inline]] static bool value(const CsvRow& r, int col, std::optional<float>& out) {
    return col < 0 || parse_value(r.field(col), out);
  }
  static bool value(const CsvRow& r, int col, std::optional<uint64_t>& out) {
    return col < 0 || parse_count(r.field(col), out);
  }

  // Takes the columns of a header: which one names the GPU, and the fast path's plan.
  void use(SmiColumns cols);

  static constexpr uintptr_t kPrefetchAhead = 32 << 10;  // ≈ 300 lines; 16 to 64 KiB measured alike

  // Lines of the GPUs in their usual order, each in one of the shapes of its GPU's last lines (see
  // LineShape), read from p on for as long as they come and `r` has room: one reading each, `r`
  // advanced past them. Returns the start of the first line it leaves to fast_rows' steps. The
  // newline where a shape has it picks the shape to try. Its own loop, out of line: the steps'
  // computed gotos would leave it few registers.
  [[gnu::noinline]] const char* shaped_rows(const char* p, const char* const end, UsageReading*& r,
                                            UsageReading* const r_end);

  // Remembers the shape of the line at `line` just read column by column (each step's start is
  // where its column began; kDone's, one past the newline) for the line's GPU. The identity span
  // (the key and the columns before it) stays fixed: it names the GPU.
  inline void remember_shape(const char* line, LineShape& shape) const;

  // Reads the line at p into r if it has `shape`: its fixed bytes are the shape's, the columns
  // stepped over hold no separator, the values are whole numbers of the same lengths and the
  // timestamp parses. Then it is the line fast_rows' steps would read, with the same values.
  // Reads LineShape::kMax bytes at p (the slack covers them).
  [[gnu::always_inline]] inline bool read_shaped(const char* p, const LineShape& shape, UsageReading& r);

  // The whole number n stands for at p + n.at, if its digits are all digits.
  [[gnu::always_inline]] static inline bool shaped_number(const char* p, const LineShape::Number& n, float& out);

  // One past the separator that ends the field at p, if it is `sep` (the '\0' after the data is
  // none). A '\r' before the newline is left to row(), which drops it from the line.
  [[gnu::always_inline]] static inline const char* field_end(const char* p, char sep);

  // A whole number as parse_value's inline case reads it (one optional space, up to 8 digits, no
  // unit or " %", " W", " C", " MiB", " MHz"), then the step's separator. One past it, or nullptr.
  [[gnu::always_inline]] static inline const char* fast_value(const char* p, FastStep& step, float& out);

  // One past `sep` after nothing or one of the units parse_value's inline case accepts, or nullptr.
  static inline const char* unit_and_separator(const char* u, char sep);

  // The timestamp: the same text as the previous line's (a compare), else parsed.
  [[gnu::always_inline]] inline const char* fast_time(const char* p, const char* end, char sep, int64_t& ms);

  // The GPU: the key expected next in the cycle (a compare in place), else one seen before. A GPU
  // not seen before is left to row(), so that it is registered only when its line is read.
  [[gnu::always_inline]] inline const char* fast_key(const char* p, const char* end, char sep, uint32_t& gpu);

  // A header (again, after a restart) or garbage.
  void header_or_garbage(std::string_view line, int64_t number);

  // The line numbered `number` skipped, and why.
  void wrong_field_count(int fields, int64_t number, bool complete);
  void bad_timestamp(std::string_view text, int64_t number);

  const std::string& file_;
  GpuLookup gpus_;
  SampleSink& sink_;
  ReadStats& stats_;
  bool usage_only_;
  SmiColumns cols_;
  int key_ = -1;  // the column that names the GPU: uuid, else index, else pci.bus_id
  bool have_header_ = false;
  TimestampParser time_;
  std::vector<Sample> batch_;  // row()'s samples
  size_t batched_ = 0;
  std::vector<UsageReading> usage_batch_;  // fast_rows()'s readings
  size_t usage_batched_ = 0;
  UsagePresent present_;             // which of them the columns give
  std::vector<FastStep> fast_plan_;  // per column, then kDone; empty: every line goes through row()
};

}  // namespace gpuplan::telemetry::detail
