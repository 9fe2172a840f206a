// LineShape: what the nvidia-smi CSV fast path remembers of a GPU's last lines (private to
// telemetry/), so that a line in a shape seen before is checked and read in a few block compares.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuplan::telemetry::detail {

// The shape of a line of a GPU that the fast path read column by column: its bytes, and which of
// them may change from line to line (the timestamp, the digits of the values read, the columns
// stepped over). A GPU's next line usually has one of the shapes of its last lines (the same key,
// units and separators at the same places, values of the same lengths): then seven or eight
// 16-byte compares check every fixed byte at once, and the values are read where they stand.
struct LineShape {
  static constexpr size_t kMax = 128;  // longer lines are always read column by column
  static constexpr int kMaxStepped = 8;
  // A value read at `at`: its digits put at the top of a word by `shift` (64 - 8 digits); where
  // non_digits must find none, `checked` (0x80 in each digit's byte). A column the log lacks is
  // read all the same, unchecked, from the line's first byte: no test per line, and the reading
  // it gives is never looked at (UsagePresent).
  struct Number {
    uint8_t at = 0, shift = 56;
    uint64_t checked = 0;
  };
  struct Field {
    uint8_t at = 0, size = 0;
  };
  // 16 bytes at `at`, of which those of the set bits of `bytes` are a column stepped over.
  struct Stepped {
    uint8_t at = 0;
    uint16_t bytes = 0;
  };
  // The line; 0xFF where it may vary, and past its end (bytes of the next line).
  alignas(16) unsigned char text[kMax];
  // 0xFF where it may vary and past its end, 0 elsewhere: a line OR'ed with it equals `text`.
  alignas(16) unsigned char vary[kMax];
  uint8_t size = 0;         // with the newline; 0: no shape
  Field time;               // up to 32 bytes
  uint32_t time_bytes = 0;  // the low time.size bits set
  Number util, mem, temp;
  Stepped stepped[kMaxStepped];  // columns stepped over: anything but a separator
  uint8_t stepped_count = 0;
};

}  // namespace gpuplan::telemetry::detail
