// Primitives for reading log text in place (private to telemetry/): trimming a field's blanks,
// loading a word, comparing bytes without a memcmp call. They read whole words and 16-byte blocks,
// so the text must lie in a buffer with slack after it (byte_source.h's kSlack).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>  // in the x86-64 baseline: no -march flag needed
#endif

namespace gpuplan::telemetry::detail {

// A field without spaces and tabs at either end. Not core/text.h's trim: the readers call it on
// every field of every line, so it is inlined with its two characters fixed, and a '\r' or other
// control byte stays in the field (and fails its parse), as the readers have always done.
[[gnu::always_inline]] inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[gnu::always_inline]] inline uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Whether n bytes at a and b are equal, without a memcmp call (it would cost more than the
// comparison): GPU keys (40-byte UUIDs) and timestamps are compared on every line. SSE2 compares
// 16 bytes at once: the first 16 and the last 16 (overlapping), then any in between, so a
// timestamp (19 to 32 bytes) costs two compares and no loop.
[[gnu::always_inline]] inline bool bytes_equal(const char* a, const char* b, size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    auto same16 = [&](size_t i) {
      return _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    };
    __m128i equal = _mm_and_si128(same16(0), same16(n - 16));
    if (n > 32) equal = _mm_and_si128(equal, same16(16));  // a UUID key (40 bytes): three compares
    for (size_t i = 32; i + 16 < n; i += 16) equal = _mm_and_si128(equal, same16(i));
    return _mm_movemask_epi8(equal) == 0xFFFF;
  }
#endif
  uint64_t diff = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) diff |= load64(a + i) ^ load64(b + i);
  if (i < n) {
    if (n >= 8) {
      diff |= load64(a + n - 8) ^ load64(b + n - 8);
    } else {
      for (; i < n; ++i) diff |= static_cast<uint8_t>(a[i] ^ b[i]);
    }
  }
  return diff == 0;
}

}  // namespace gpuplan::telemetry::detail
