#include "telemetry/readers.h"

#include "telemetry/byte_source.h"
#include "telemetry/csv_row.h"
#include "telemetry/format_readers.h"
#include "telemetry/gpu_lookup.h"
#include "telemetry/number_parse.h"
#include "telemetry/smi_timestamp.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>  // in the x86-64 baseline: no -march flag needed
#endif

namespace gpuplan::telemetry {
namespace {

using namespace detail;
namespace fs = std::filesystem;

constexpr size_t kKeptSkips = 20;

struct SmiColumns {
  int timestamp = -1, index = -1, uuid = -1, bus_id = -1, util = -1, mem_used = -1, mem_total = -1, temp = -1,
      power = -1, sm_clock = -1, ecc_corrected = -1, ecc_uncorrected = -1, clock_event_reasons = -1;
  int count = 0;
  bool operator==(const SmiColumns&) const = default;
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
    else if (f == "ecc.errors.corrected.volatile.total") cols.ecc_corrected = i;
    else if (f == "ecc.errors.uncorrected.volatile.total") cols.ecc_uncorrected = i;
    // The driver renamed "throttle" to "event" (R535); logs of either age are read.
    else if (f == "clocks_event_reasons.active" || f == "clocks_throttle_reasons.active") cols.clock_event_reasons = i;
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
      : file_(file),
        gpus_(registry, host_of(file)),
        sink_(sink),
        stats_(stats),
        usage_only_(options.usage_metrics_only),
        batch_(kBatch),
        usage_batch_(kBatch) {
    use(cols);
  }

  [[gnu::always_inline]] void row(const CsvRow& r, int64_t number, bool complete) {
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
    s.gpu = gpus_.id(key_ >= 0 ? trim(r.field(key_)) : std::string_view("0"));
    bool ok = value(r, cols_.util, s.utilization_pct) & value(r, cols_.mem_used, s.memory_used_mib) &
              value(r, cols_.temp, s.temperature_c);
    if (!usage_only_) {  // the rest only when asked for: a branch per line, not per column
      ok = ok & value(r, cols_.mem_total, s.memory_total_mib) & value(r, cols_.power, s.power_w) &
           value(r, cols_.sm_clock, s.sm_clock_mhz) & value(r, cols_.ecc_corrected, s.ecc_corrected) &
           value(r, cols_.ecc_uncorrected, s.ecc_uncorrected);
      if (cols_.clock_event_reasons >= 0 && !parse_hex(r.field(cols_.clock_event_reasons), s.clock_event_reasons)) ok = false;
    }
    if (!ok || (s.utilization_pct && (*s.utilization_pct < 0 || *s.utilization_pct > 100))) {
      stats_.skip(file_, number, Phrase(complete ? "skip.value_out_of_range" : "skip.truncated"));
      return;
    }
    ++stats_.samples;
    if (++batched_ == kBatch) flush_samples();
  }

  // Lines in nvidia-smi's usual form, read in place from p on, for as long as they come: those
  // in a shape seen before by shaped_rows, the others column by column in the order the header
  // planned (fast_plan_), each value checked up to its separator, the columns usage does not
  // read stepped over unparsed (and the line's shape kept for its GPU). Returns the start of the
  // first line it leaves to row() (or `end`), having counted the lines it read in `line_no`. A
  // line is left to row() whole, nothing of it counted, when it differs in any way from that
  // form (another number format, [N/A], a field too many or too few, a header, garbage, a GPU not
  // seen before, the end of the data): row() gives the same result or the same report as for
  // any line. A '\0' must stand at `end`: every check below rejects it, so a line cut by the end
  // of the data is never taken for a whole one; or `end` follows a newline (no line is cut there).
  // The bytes after `end` are readable (the slack).
  // Out of line: GCC inlines no function with a computed goto, and one call reads many lines.
  [[gnu::noinline]] const char* fast_rows(const char* p, const char* const end, int64_t& line_no) {
    if (fast_plan_.empty()) return p;
    if (batched_ > 0) flush_samples();  // row()'s samples came first
    // One handler per kind of step, each jumping straight to the next step's (labels as values,
    // a GNU extension GCC and Clang have): no loop and no switch per column.
    static const void* const kCode[] = {&&time, &&key, &&util, &&mem, &&temp, &&skip, &&skip_last, &&span, &&done};
    static_assert(std::size(kCode) == static_cast<size_t>(FastColumn::kDone) + 1);
    if (!fast_plan_.front().code)  // each step learns its handler's address once per plan
      for (FastStep& st : fast_plan_) st.code = kCode[static_cast<int>(st.column)];
    // Locals, not members, on the hot path: the compiler must assume that a store through `r`
    // could change a member, and would load them again after each.
    UsageReading* r = usage_batch_.data() + usage_batched_;
    UsageReading* const r_end = usage_batch_.data() + kBatch;
    FastStep* const plan = fast_plan_.data();
    FastStep* step;
    const char* line;
    const char* span_start;  // where the identity span began, when it was read column by column
    const char* span_end = nullptr;
    int64_t lines = 0;
  next_line:
    {  // first the lines in a shape seen before: most of them
      UsageReading* const before = r;
      p = shaped_rows(p, end, r, r_end);
      lines += r - before;
      if (r == r_end) {
        usage_batched_ = kBatch;
        flush_usage();
        r = usage_batch_.data();
        if (p < end) goto next_line;
      }
    }
    line = p;
    if (p == end || static_cast<unsigned>(*p - '0') > 9) goto stop;  // row() wants a digit first
    step = plan;
    span_start = nullptr;
    goto* step->code;
  time:
    step->start = p;
    p = fast_time(p, end, step->sep, r->time_ms);
    if (!p) goto stop;
    goto*(++step)->code;
  span:
    step->start = p;
    // The same text as the expected GPU's last line from here through its key: the same GPU,
    // and the columns stepped over would pass again. One compare instead of a step per column.
    if (const GpuLookup::Known* k = gpus_.expected();
        k && !k->span.empty() && bytes_equal(p, k->span.data(), k->span.size())) {
      r->gpu = gpus_.take_expected();
      p += k->span.size();
      step += step->span_steps + 1;
    } else {
      span_start = p;
      ++step;
    }
    goto* step->code;
  key:
    p = fast_key(p, end, step->sep, r->gpu);
    if (!p) goto stop;
    span_end = p;
    goto*(++step)->code;
  util:
    step->start = p;
    p = fast_value(p, *step, r->utilization_pct);
    if (!p || r->utilization_pct > 100) goto stop;  // no sign: never below 0
    goto*(++step)->code;
  mem:
    step->start = p;
    p = fast_value(p, *step, r->memory_used_mib);
    if (!p) goto stop;
    goto*(++step)->code;
  temp:
    step->start = p;
    p = fast_value(p, *step, r->temperature_c);
    if (!p) goto stop;
    goto*(++step)->code;
  skip:
    step->start = p;
    p = field_end(p, ',');
    if (!p) goto stop;
    goto*(++step)->code;
  skip_last:
    step->start = p;
    p = field_end(p, '\n');
    if (!p) goto stop;
    goto*(++step)->code;
  done:
    step->start = p;
    if (key_ < 0) r->gpu = gpus_.id(std::string_view("0"));
    if (span_start) gpus_.remember_span(span_start, static_cast<size_t>(span_end - span_start));
    remember_shape(line, gpus_.new_shape());
    ++lines;
    if (++r == r_end) {
      usage_batched_ = kBatch;
      flush_usage();
      r = usage_batch_.data();
    }
    if (p < end) goto next_line;
    line = p;
  stop:
    usage_batched_ = static_cast<size_t>(r - usage_batch_.data());
    line_no += lines;
    return line;
  }

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
    const void* code = nullptr;  // the handler in fast_rows (its label's address), set there
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

  void use(SmiColumns cols) {
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

  static constexpr uintptr_t kPrefetchAhead = 32 << 10;  // ≈ 300 lines; 16 to 64 KiB measured alike

  // Lines of the GPUs in their usual order, each in one of the shapes of its GPU's last lines (see
  // LineShape), read from p on for as long as they come and `r` has room: one reading each, `r`
  // advanced past them. Returns the start of the first line it leaves to fast_rows' steps. The
  // newline where a shape has it picks the shape to try. Its own loop, out of line: the steps'
  // computed gotos would leave it few registers.
  [[gnu::noinline]] const char* shaped_rows(const char* p, const char* const end, UsageReading*& r,
                                            UsageReading* const r_end) {
    GpuLookup::Known* const gpus = gpus_.cycle();
    const size_t count = gpus_.cycle_size();
    if (count == 0) return p;
    size_t next = gpus_.cycle_next(), found = count;
    UsageReading* out = r;
    // A line that starts with anything but a digit is row()'s to judge (a header, or garbage).
    while (out < r_end && static_cast<unsigned>(*p - '0') <= 9) {
      // The input comes from memory, not cache (mapped page cache): asked for well ahead, it is
      // there when its line is read, page boundaries included, where the hardware's own
      // prefetching stops. A hint only, on an address (no pointer past the data is formed), and
      // one past the data is never read.
      __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + kPrefetchAhead));
      GpuLookup::Known& gpu = gpus[next];
      const size_t left = static_cast<size_t>(end - p);
      // A shape of size 0 (none) wraps to the largest size_t: it never fits.
      auto fits = [&](const LineShape& shape) { return size_t{shape.size} - 1 < left && p[shape.size - 1] == '\n'; };
      const LineShape* shape = &gpu.shapes[gpu.recent];
      if (!fits(*shape)) {
        shape = &gpu.shapes[1 - gpu.recent];
        if (!fits(*shape)) break;
        gpu.recent = 1 - gpu.recent;
      }
      if (!read_shaped(p, *shape, *out)) break;
      out->gpu = gpu.id;
      ++out;
      p += shape->size;
      found = next;
      next = next + 1 == count ? 0 : next + 1;
    }
    if (found != count) gpus_.cycle_found(found);
    r = out;
    return p;
  }

  // Remembers the shape of the line at `line` just read column by column (each step's start is
  // where its column began; kDone's, one past the newline) for the line's GPU. The identity span
  // (the key and the columns before it) stays fixed: it names the GPU.
  void remember_shape(const char* line, LineShape& shape) const {
    const FastStep* const plan = fast_plan_.data();
    const size_t size = static_cast<size_t>(fast_plan_.back().start - line);
    shape.size = 0;
    if (size > LineShape::kMax) return;
    std::memcpy(shape.text, line, size);
    std::memset(shape.text + size, 0xFF, LineShape::kMax - size);
    std::memset(shape.vary, 0, size);
    std::memset(shape.vary + size, 0xFF, LineShape::kMax - size);
    auto varies = [&](const char* from, size_t n) {
      const size_t at = static_cast<size_t>(from - line);
      std::memset(shape.text + at, 0xFF, n);
      std::memset(shape.vary + at, 0xFF, n);
      return LineShape::Field{static_cast<uint8_t>(at), static_cast<uint8_t>(n)};
    };
    auto number = [&](const char* field) {
      const char* digits = field + (*field == ' ');
      uint32_t unused = 0;
      const int n = leading_digits(digits, unused);  // 1 to 8: the step read it
      varies(digits, static_cast<size_t>(n));
      return LineShape::Number{static_cast<uint8_t>(digits - line), static_cast<uint8_t>(64 - 8 * n),
                               0x8080808080808080 >> (64 - 8 * n)};
    };
    shape.util = shape.mem = shape.temp = {};
    shape.stepped_count = 0;
    for (const FastStep* st = plan; st->column != FastColumn::kDone; ++st) {
      // Outside the identity span every step ran on this line, the next one too (kDone's start
      // is past the newline): a column ends one byte before the next begins.
      const char* const field = st->start;
      auto field_size = [&] { return static_cast<size_t>(st[1].start - 1 - field); };
      switch (st->column) {
        case FastColumn::kSpan: st += st->span_steps; break;  // fixed: the GPU's identity
        case FastColumn::kTime: {
          const char* t = field + (*field == ' ');
          const size_t n = field_size() - static_cast<size_t>(t - field);
          if (n > 32) return;  // no shape
          shape.time = varies(t, n);
          shape.time_bytes = n == 32 ? ~uint32_t{0} : (uint32_t{1} << n) - 1;
          break;
        }
        case FastColumn::kUtil: shape.util = number(field); break;
        case FastColumn::kMem: shape.mem = number(field); break;
        case FastColumn::kTemp: shape.temp = number(field); break;
        case FastColumn::kSkip:
        case FastColumn::kSkipLast: {
          const size_t size = field_size();
          varies(field, size);
          for (size_t done = 0; done < size; done += 16) {  // in pieces of up to 16 bytes
            if (shape.stepped_count == LineShape::kMaxStepped) return;  // too many to check: no shape
            const size_t piece = std::min<size_t>(16, size - done);
            shape.stepped[shape.stepped_count++] = {static_cast<uint8_t>(field - line + done),
                                                    static_cast<uint16_t>((1u << piece) - 1)};
          }
          break;
        }
        case FastColumn::kKey:
        case FastColumn::kDone: break;
      }
    }
    // Utilization and temperature are read together, each in half a word: up to 4 digits.
    if (shape.util.shift < 32 || shape.temp.shift < 32) return;
    shape.size = static_cast<uint8_t>(size);
  }

  // Reads the line at p into r if it has `shape`: its fixed bytes are the shape's, the columns
  // stepped over hold no separator, the values are whole numbers of the same lengths and the
  // timestamp parses. Then it is the line fast_rows' steps would read, with the same values.
  // Reads LineShape::kMax bytes at p (the slack covers them).
  [[gnu::always_inline]] bool read_shaped(const char* p, const LineShape& shape, UsageReading& r) {
    static_assert(kSlack >= LineShape::kMax);
#if defined(__SSE2__)
    auto block = [&](size_t i) {
      const __m128i masked = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)),
                                          _mm_load_si128(reinterpret_cast<const __m128i*>(shape.vary + i)));
      return _mm_cmpeq_epi8(masked, _mm_load_si128(reinterpret_cast<const __m128i*>(shape.text + i)));
    };
    static_assert(LineShape::kMax == 128);  // seven or eight blocks, no loop
    __m128i same = _mm_and_si128(_mm_and_si128(_mm_and_si128(block(0), block(16)), _mm_and_si128(block(32), block(48))),
                                 _mm_and_si128(_mm_and_si128(block(64), block(80)), block(96)));
    if (shape.size > 112) same = _mm_and_si128(same, block(112));
    if (_mm_movemask_epi8(same) != 0xFFFF) return false;
#else
    for (size_t i = 0; i < shape.size; ++i)
      if ((static_cast<unsigned char>(p[i]) | shape.vary[i]) != shape.text[i]) return false;
#endif
    for (uint8_t i = 0; i < shape.stepped_count; ++i)
      if (separators16(p + shape.stepped[i].at) & shape.stepped[i].bytes) return false;
    const char* t = p + shape.time.at;
    if (shape.time.size == time_.last_size && bytes_equal(t, time_.last, shape.time.size)) {
      r.time_ms = time_.last_ms;  // the last one the steps or this read: no separator in it
    } else if (((separators16(t) | separators16(t + 16) << 16) & shape.time_bytes) != 0 ||
               !time_.parse(std::string_view(t, shape.time.size), r.time_ms)) {
      return false;  // a ',' would be a decimal mark to the parser, but it cuts the column
    }
    if (!shaped_number(p, shape.mem, r.memory_used_mib)) return false;
    // Utilization and temperature (up to 4 digits each) in one word, combined at once: each set
    // at the top of its half, the pairs of digits combined, then each half's two pairs by one
    // multiply (what spills from the low half into the high one stays below its result's bits).
    const uint64_t util = digit_values(p + shape.util.at), temp = digit_values(p + shape.temp.at);
    if (((non_digits(util) & shape.util.checked) | (non_digits(temp) & shape.temp.checked)) != 0) return false;
    uint64_t both = ((util << shape.util.shift) >> 32) | ((temp << shape.temp.shift) & 0xFFFFFFFF00000000);
    both = both * 10 + (both >> 8);
    both = (both & 0x00FF00FF00FF00FF) * (1 + (100 << 16));
    r.utilization_pct = static_cast<float>((both >> 16) & 0xFFFF);
    r.temperature_c = static_cast<float>(both >> 48);
    return r.utilization_pct <= 100;  // an absent utilization reads as one digit: never above
  }

  // The whole number n stands for at p + n.at, if its digits are all digits.
  [[gnu::always_inline]] static bool shaped_number(const char* p, const LineShape::Number& n, float& out) {
    const uint64_t values = digit_values(p + n.at);
    if ((non_digits(values) & n.checked) != 0) return false;
    out = static_cast<float>(combine_digits(values << n.shift));
    return true;
  }

  // One past the separator that ends the field at p, if it is `sep` (the '\0' after the data is
  // none). A '\r' before the newline is left to row(), which drops it from the line.
  [[gnu::always_inline]] static const char* field_end(const char* p, char sep) {
    const char* q = next_separator(p);
    if (*q != sep || (sep == '\n' && q > p && q[-1] == '\r')) return nullptr;
    return q + 1;
  }

  // A whole number as parse_value's inline case reads it (one optional space, up to 8 digits, no
  // unit or " %", " W", " C", " MiB", " MHz"), then the step's separator. One past it, or nullptr.
  [[gnu::always_inline]] static const char* fast_value(const char* p, FastStep& step, float& out) {
    if constexpr (std::endian::native != std::endian::little) {
      return nullptr;
    } else {
      const char* digits = p + (*p == ' ');
      uint32_t v = 0;
      const int n = leading_digits(digits, v);
      if (n == 0) return nullptr;
      const char* u = digits + n;
      const char* after = nullptr;
      if ((load64(u) & step.unit_mask) == step.unit_text) {
        after = u + step.unit_size;
      } else {
        after = unit_and_separator(u, step.sep);
        if (!after) return nullptr;
        step.unit_size = static_cast<uint8_t>(after - u);  // 1, 3 or 5: a mask below 64 bits
        step.unit_mask = (uint64_t{1} << (8 * step.unit_size)) - 1;
        step.unit_text = load64(u) & step.unit_mask;
      }
      out = static_cast<float>(v);
      return after;
    }
  }

  // One past `sep` after nothing or one of the units parse_value's inline case accepts, or nullptr.
  static const char* unit_and_separator(const char* u, char sep) {
    if (u[0] == sep) return u + 1;
    if (u[0] == ' ' && (u[1] == '%' || u[1] == 'W' || u[1] == 'C') && u[2] == sep) return u + 3;
    uint32_t unit;
    std::memcpy(&unit, u, 4);
    constexpr uint32_t kMiB = ' ' | 'M' << 8 | 'i' << 16 | 'B' << 24, kMHz = ' ' | 'M' << 8 | 'H' << 16 | 'z' << 24;
    return (unit == kMiB || unit == kMHz) && u[4] == sep ? u + 5 : nullptr;
  }

  // The timestamp: the same text as the previous line's (a compare), else parsed.
  [[gnu::always_inline]] const char* fast_time(const char* p, const char* end, char sep, int64_t& ms) {
    const char* t = p + (*p == ' ');  // not the first column: after ", "
    const size_t n = time_.last_size;
    if (n != 0 && t + n < end && t[n] == sep && bytes_equal(t, time_.last, n)) {  // n <= 32: within the slack
      ms = time_.last_ms;
      return t + n + 1;
    }
    const char* after = field_end(p, sep);
    if (!after || !time_.parse(std::string_view(p, static_cast<size_t>(after - 1 - p)), ms)) return nullptr;
    return after;
  }

  // The GPU: the key expected next in the cycle (a compare in place), else one seen before. A GPU
  // not seen before is left to row(), so that it is registered only when its line is read.
  [[gnu::always_inline]] const char* fast_key(const char* p, const char* end, char sep, uint32_t& gpu) {
    const char* after = nullptr;
    if (gpus_.next_is(p + (*p == ' '), end, sep, gpu, after)) return after;
    after = field_end(p, sep);
    if (after && !gpus_.find(trim(std::string_view(p, static_cast<size_t>(after - 1 - p))), gpu)) return nullptr;
    return after;
  }

  void header_or_garbage(std::string_view line, int64_t number) {  // a header (again, after a restart) or garbage
    SmiColumns cols;
    if (parse_smi_header(line, cols)) {
      if (have_header_ && !(cols == cols_)) ++stats_.header_changes;
      use(cols);
    } else {
      stats_.skip(file_, number, Phrase("skip.not_csv"));
    }
  }

  void wrong_field_count(int fields, int64_t number, bool complete) {
    stats_.skip(file_, number, complete ? Phrase("skip.field_count")
                                              .fact("expected", std::to_string(cols_.count))
                                              .fact("found", std::to_string(fields))
                                        : Phrase("skip.truncated"));
  }

  void bad_timestamp(std::string_view text, int64_t number) {
    stats_.skip(file_, number, Phrase("skip.bad_timestamp").fact("text", std::string(trim(text).substr(0, 40))));
  }

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
  UsagePresent present_;  // which of them the columns give
  std::vector<FastStep> fast_plan_;  // per column, then kDone; empty: every line goes through row()
};

// Reads nvidia-smi CSV from `src` through `parser`, and hands over the last samples.
bool read_smi_csv(ByteSource& src, SmiCsvParser& parser, int64_t& bytes, const Progress& progress = {}, int64_t total = 0) {
  const bool ok = for_each_csv_row(src, parser, bytes, progress, total);
  parser.flush();
  return ok;
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

bool is_smi_csv_header(std::string_view line) {
  SmiColumns unused;
  return parse_smi_header(line, unused);
}

Result<ReadStats> read_smi_csv_range(const std::string& path, int64_t begin, int64_t end, std::string_view header,
                                     GpuRegistry& gpus, SampleSink& sink, const ReadOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Error{path, 0, {}, Phrase("error.file.cannot_open").fact("why", std::strerror(errno))};
  ReadStats stats;
  SmiColumns cols;
  if (!parse_smi_header(header, cols)) {
    ::close(fd);
    return Error{path, 1, {}, Phrase("error.smi.no_header")};
  }
  SmiCsvParser parser(path, gpus, sink, stats, cols, options);
  FileRange range(fd, begin, end);
  const bool ok = read_smi_csv(range, parser, stats.bytes);
  ::close(fd);
  if (!ok) return Error{path, 0, {}, read_failure(range)};
  return stats;
}

Result<SourceFormat> detect_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return SourceFormat::kPromText;
  auto src = open_source(path);
  if (!src) return src.error();
  std::vector<char> head(8192);
  ssize_t got = (*src)->source->read(head.data(), head.size());
  if (got < 0) return Error{path, 0, {}, Phrase("error.file.read_failed")};
  std::string_view text(head.data(), static_cast<size_t>(got));
  if (text.find("timestamp") != std::string_view::npos && text.find(',') != std::string_view::npos) return SourceFormat::kSmiCsv;
  if (text.find("# TYPE") != std::string_view::npos || text.find("DCGM_FI_") != std::string_view::npos) return SourceFormat::kPromText;
  if (!text.empty() && text[0] == '#' && text.find("gpu") != std::string_view::npos) return SourceFormat::kDmon;
  return Error{path, 1, {}, Phrase("error.log.unknown_format")};
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
  auto src = open_source(path);
  if (!src) return src.error();
  ReadStats stats;
  switch (format) {
    case SourceFormat::kSmiCsv: {
      SmiCsvParser parser(path, gpus, sink, stats, SmiColumns{}, options);
      if (!read_smi_csv(*(*src)->source, parser, stats.bytes, progress, (*src)->size))
        return Error{path, 0, {}, read_failure(*(*src)->source)};
      return stats;
    }
    case SourceFormat::kDmon: return read_dmon_file(path, **src, gpus, sink, progress, options);
    case SourceFormat::kPromText: return read_prom_scrape(path, **src, gpus, sink, progress);
    case SourceFormat::kAuto: break;
  }
  return Error{path, 0, {}, Phrase("error.log.unknown_format")};
}

}  // namespace gpuplan::telemetry
