// SmiCsvParser's fast path (see smi_csv_parser.h): rows in nvidia-smi's usual form read in place
// for hourly usage, first by the shapes of each GPU's last rows, else column by column in the
// order the header planned. Any row it cannot read exactly as row() would is left to row().
#include <bit>
#include <cstring>
#include <iterator>

#include "telemetry/smi_csv_parser.h"

#if defined(__SSE2__)
#include <emmintrin.h>  // in the x86-64 baseline: no -march flag needed
#endif

namespace gpuplan::telemetry::detail {

const char* SmiCsvParser::fast_rows(const char* p, const char* const end, int64_t& line_no) {
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
  // Left as written: clang-format would join the block to its label's line.
  // clang-format off
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
  // clang-format on
  line = p;
  if (p == end || static_cast<unsigned>(*p - '0') > 9) goto stop;  // row() wants a digit first
  step = plan;
  span_start = nullptr;
  goto * step->code;
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
  goto * step->code;
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

const char* SmiCsvParser::shaped_rows(const char* p, const char* const end, UsageReading*& r,
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

void SmiCsvParser::remember_shape(const char* line, LineShape& shape) const {
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
      case FastColumn::kSpan:
        st += st->span_steps;
        break;  // fixed: the GPU's identity
      case FastColumn::kTime: {
        const char* t = field + (*field == ' ');
        const size_t n = field_size() - static_cast<size_t>(t - field);
        if (n > 32) return;  // no shape
        shape.time = varies(t, n);
        shape.time_bytes = n == 32 ? ~uint32_t{0} : (uint32_t{1} << n) - 1;
        break;
      }
      case FastColumn::kUtil:
        shape.util = number(field);
        break;
      case FastColumn::kMem:
        shape.mem = number(field);
        break;
      case FastColumn::kTemp:
        shape.temp = number(field);
        break;
      case FastColumn::kSkip:
      case FastColumn::kSkipLast: {
        const size_t size = field_size();
        varies(field, size);
        for (size_t done = 0; done < size; done += 16) {              // in pieces of up to 16 bytes
          if (shape.stepped_count == LineShape::kMaxStepped) return;  // too many to check: no shape
          const size_t piece = std::min<size_t>(16, size - done);
          shape.stepped[shape.stepped_count++] = {static_cast<uint8_t>(field - line + done),
                                                  static_cast<uint16_t>((1u << piece) - 1)};
        }
        break;
      }
      case FastColumn::kKey:
      case FastColumn::kDone:
        break;
    }
  }
  // Utilization and temperature are read together, each in half a word: up to 4 digits.
  if (shape.util.shift < 32 || shape.temp.shift < 32) return;
  shape.size = static_cast<uint8_t>(size);
}

bool SmiCsvParser::read_shaped(const char* p, const LineShape& shape, UsageReading& r) {
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

bool SmiCsvParser::shaped_number(const char* p, const LineShape::Number& n, float& out) {
  const uint64_t values = digit_values(p + n.at);
  if ((non_digits(values) & n.checked) != 0) return false;
  out = static_cast<float>(combine_digits(values << n.shift));
  return true;
}

const char* SmiCsvParser::field_end(const char* p, char sep) {
  const char* q = next_separator(p);
  if (*q != sep || (sep == '\n' && q > p && q[-1] == '\r')) return nullptr;
  return q + 1;
}

const char* SmiCsvParser::fast_value(const char* p, FastStep& step, float& out) {
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

const char* SmiCsvParser::unit_and_separator(const char* u, char sep) {
  if (u[0] == sep) return u + 1;
  if (u[0] == ' ' && (u[1] == '%' || u[1] == 'W' || u[1] == 'C') && u[2] == sep) return u + 3;
  uint32_t unit;
  std::memcpy(&unit, u, 4);
  constexpr uint32_t kMiB = ' ' | 'M' << 8 | 'i' << 16 | 'B' << 24, kMHz = ' ' | 'M' << 8 | 'H' << 16 | 'z' << 24;
  return (unit == kMiB || unit == kMHz) && u[4] == sep ? u + 5 : nullptr;
}

const char* SmiCsvParser::fast_time(const char* p, const char* end, char sep, int64_t& ms) {
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

const char* SmiCsvParser::fast_key(const char* p, const char* end, char sep, uint32_t& gpu) {
  const char* after = nullptr;
  if (gpus_.next_is(p + (*p == ' '), end, sep, gpu, after)) return after;
  after = field_end(p, sep);
  if (after && !gpus_.find(trim_blanks(std::string_view(p, static_cast<size_t>(after - 1 - p))), gpu)) return nullptr;
  return after;
}
}  // namespace gpuplan::telemetry::detail
