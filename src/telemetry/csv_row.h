// CSV lines cut at their commas, in place (private to telemetry/): CsvRow holds a line's field
// bounds; split_line finds them 64 bytes at a time (SSE2 where the target has it), next_separator
// the end of one field 16 at a time; for_each_csv_row reads a ByteSource through a parser's fast
// path and, line by line, its general path. They read whole blocks past a line's end, which the
// buffers' slack (byte_source.h's kSlack) makes safe.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>  // in the x86-64 baseline: no -march flag needed
#endif

#include "telemetry/byte_source.h"
#include "telemetry/readers.h"

namespace gpuplan::telemetry::detail {

constexpr int kMaxFields = 128;  // a row with more is skipped (nvidia-smi logs have a dozen or so)

// One CSV line cut at its commas. Field i is [starts[i], starts[i + 1] - 1): each field ends one
// byte (its comma) before the next starts, and starts[fields] is one past the line's end + 1.
// Only bounds, no string_views: an array of views would be written twice per field.
struct CsvRow {
  const char* starts[kMaxFields + 1];
  const char* end = nullptr;  // the line's end, without the newline (and '\r')
  int fields = 0;             // how many the line has; only the first kMaxFields are located

  std::string_view line() const { return {starts[0], static_cast<size_t>(end - starts[0])}; }
  [[gnu::always_inline]] std::string_view field(int i) const {
    return {starts[i], static_cast<size_t>(starts[i + 1] - starts[i] - 1)};
  }
};

// Cuts one line (the unfinished last one of a file, rare) at its commas.
void split_row(std::string_view line, CsvRow& row);

// Bit i of `commas` / `newlines` is set when p[i] is ',' / '\n', for the 64 bytes at p.
struct SeparatorBits {
  uint64_t commas, newlines;
};

// Out of line on purpose: inlined into the row loop, GCC 12 copies the four vectors through the
// stack before each destructive SSE2 compare.
[[gnu::noinline]] inline SeparatorBits separators64(const char* p) {
#if defined(__SSE2__)
  // One compare tests 16 bytes and movemask packs its 16 results into bits: the separators of
  // a 110-byte line cost 14 compares instead of a memchr call per field.
  const __m128i comma = _mm_set1_epi8(','), newline = _mm_set1_epi8('\n');
  const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
  const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48));
  auto bits = [](__m128i a, __m128i b, __m128i c, __m128i d, __m128i what) {
    const uint32_t low = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(what, a))) |
                         static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(what, b))) << 16;
    const uint32_t high = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(what, c))) |
                          static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(what, d))) << 16;
    return static_cast<uint64_t>(high) << 32 | low;
  };
  return {bits(v0, v1, v2, v3, comma), bits(v0, v1, v2, v3, newline)};
#else
  uint64_t commas = 0, newlines = 0;
  for (int i = 0; i < 64; ++i) {
    commas |= static_cast<uint64_t>(p[i] == ',') << i;
    newlines |= static_cast<uint64_t>(p[i] == '\n') << i;
  }
  return {commas, newlines};
#endif
}

// Cuts the line at p into fields, 64 bytes at a time: the commas below the first newline are its
// separators. Returns the newline, or nullptr when there is none before `end`.
[[gnu::always_inline]] inline const char* split_line(const char* p, const char* end, CsvRow& row) {
  constexpr ptrdiff_t kBlock = 64;
  int commas = 0;
  row.starts[0] = p;
  for (const char* block = p; block < end; block += kBlock) {
    auto [comma_bits, newline_bits] = separators64(block);
    if (end - block < kBlock) {  // bytes past the data are stale: their bits are cleared
      const uint64_t in_data = (uint64_t{1} << (end - block)) - 1;
      comma_bits &= in_data;
      newline_bits &= in_data;
    }
    const uint64_t before_newline = newline_bits ? (newline_bits & (~newline_bits + 1)) - 1 : ~uint64_t{0};
    for (uint64_t bits = comma_bits & before_newline; bits != 0; bits &= bits - 1)
      row.starts[std::min(++commas, kMaxFields)] = block + std::countr_zero(bits) + 1;  // min: too wide is skipped
    if (newline_bits != 0) {
      const char* newline = block + std::countr_zero(newline_bits);
      row.end = newline > p && newline[-1] == '\r' ? newline - 1 : newline;
      row.fields = commas + 1;
      row.starts[std::min(commas + 1, kMaxFields)] = row.end + 1;
      return newline;
    }
  }
  return nullptr;
}

// Reads every line of `src` into `parser`, in order: for_each_line for CSV. A line goes first to
// parser.fast_rows (nvidia-smi's usual form, parsed in place); when that declines, it is cut into
// fields and given to parser.row with its number. A last line without a newline comes with
// complete = false, so a truncated write can be told apart. Whole lines the source can map are
// parsed where they lie; the rest is read into a buffer.
template <class Parser>
bool for_each_csv_row(ByteSource& src, Parser& parser, int64_t& bytes, const Progress& progress = {},
                      int64_t total = 0) {
  CsvRow row;
  int64_t line_no = 0;
  // Lines in [p, end), the last one unfinished unless a newline ends the data; returns its start.
  auto whole = [&](const char* p, const char* const end) {
    while (p < end) {
      p = parser.fast_rows(p, end, line_no);
      if (p == end) break;
      const char* newline = split_line(p, end, row);
      if (!newline) break;
      parser.row(row, ++line_no, true);
      p = newline + 1;
    }
    return p;
  };
  int64_t since_progress = 0;
  for (std::string_view lines = src.map_lines(); !lines.empty(); lines = src.map_lines()) {
    whole(lines.data(), lines.data() + lines.size());
    bytes += static_cast<int64_t>(lines.size());
    since_progress += static_cast<int64_t>(lines.size());
    if (progress && since_progress > (64 << 20)) {
      progress(bytes, total);
      since_progress = 0;
    }
  }
  auto unfinished = [&](std::string_view text) {
    split_row(text, row);
    parser.row(row, ++line_no, false);
  };
  return for_each_chunk(src, bytes, progress, total, whole, unfinished) && !src.failure();
}

// Bit i set when p[i] is ',' or a byte up to '\n' (what ends a field for next_separator), for
// the 16 bytes at p.
[[gnu::always_inline]] inline uint32_t separators16(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i hits =
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')), _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8('\n')), v));
  return static_cast<uint32_t>(_mm_movemask_epi8(hits));
#else
  uint32_t bits = 0;
  for (int i = 0; i < 16; ++i)
    bits |= static_cast<uint32_t>(p[i] == ',' || static_cast<unsigned char>(p[i]) <= '\n') << i;
  return bits;
#endif
}

// The first ',' or byte up to '\n' (0x0A: '\n', '\0', '\t', other controls) at or after p, 16 bytes
// at a time (reads whole blocks: the buffers have slack). The '\0' that for_each_csv_row puts
// after the data ends the search there. A field with a control byte other than '\n' is thus cut
// short, and its line left to the general path.
[[gnu::always_inline]] inline const char* next_separator(const char* p) {
  for (;; p += 16)
    if (const uint32_t bits = separators16(p)) return p + std::countr_zero(bits);
}

}  // namespace gpuplan::telemetry::detail
