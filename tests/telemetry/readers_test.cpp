// Each reader on small fixtures in the tools' real formats, and each malformed case.
#include "telemetry/readers.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "telemetry/hourly.h"
#include "test_support.h"

namespace gpuplan::telemetry {
namespace {

using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

struct Collect : SampleSink {
  std::vector<Sample> samples;
  void add(const Sample& s) override { samples.push_back(s); }
};

struct Read {
  ReadStats stats;
  std::vector<Sample> samples;
  GpuRegistry gpus;
};

Read read(const std::string& path, SourceFormat f = SourceFormat::kAuto) {
  Read r;
  Collect c;
  auto stats = read_samples(path, f, r.gpus, c);
  EXPECT_TRUE(stats.ok()) << (stats.ok() ? "" : stats.error().str());
  if (stats) r.stats = *stats;
  r.samples = c.samples;
  return r;
}

// 2024-05-01 12:00:00 is day 19,844 since 1970: (19,844 × 24 + 12) × 3,600,000 ms.
constexpr int64_t kNoonMay1 = (19844LL * 24 + 12) * 3600000;

// An nvidia-smi CSV read for hourly usage (the fast path: usage_metrics_only) or for every metric
// (the general path).
Read read_smi(const std::string& path, bool usage_only) {
  Read r;
  Collect c;
  ReadOptions options;
  options.usage_metrics_only = usage_only;
  auto stats = read_samples(path, SourceFormat::kSmiCsv, r.gpus, c, {}, options);
  EXPECT_TRUE(stats.ok()) << (stats.ok() ? "" : stats.error().str());
  if (stats) r.stats = *stats;
  r.samples = c.samples;
  return r;
}

// The fast path read what the general path read: the same readings, GPUs, lines and reports.
void expect_same_reading(const Read& fast, const Read& general) {
  ASSERT_EQ(general.samples.size(), fast.samples.size());
  for (size_t i = 0; i < fast.samples.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(fast.samples[i].time_ms, general.samples[i].time_ms);
    EXPECT_EQ(fast.samples[i].gpu, general.samples[i].gpu);
    EXPECT_EQ(fast.samples[i].utilization_pct, general.samples[i].utilization_pct);
    EXPECT_EQ(fast.samples[i].memory_used_mib, general.samples[i].memory_used_mib);
    EXPECT_EQ(fast.samples[i].temperature_c, general.samples[i].temperature_c);
  }
  EXPECT_EQ(fast.gpus.names(), general.gpus.names());
  EXPECT_EQ(fast.stats.lines, general.stats.lines);
  ASSERT_EQ(general.stats.skipped.size(), fast.stats.skipped.size());
  for (size_t i = 0; i < fast.stats.skipped.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(fast.stats.skipped[i].line, general.stats.skipped[i].line);
    EXPECT_EQ(fast.stats.skipped[i].reason, general.stats.skipped[i].reason);
  }
}

TEST(ReadersTest, SmiCsvWithUnitsNaAndInterleavedGpus) {
  std::string path = write_file(temp_dir(), "node7.csv",
                                "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu, power.draw [W]\n"
                                "2024/05/01 12:00:00.123, 0, 45 %, 12345 MiB, 61, 250.50 W\n"
                                "2024/05/01 12:00:00.125, 1, [N/A], 100 MiB, [Not Supported], 80.00 W\n"
                                "2024/05/01 12:00:01.120, 0, 47 %, 12400 MiB, 62, 251.00 W\n");
  Read r = read(path);
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.samples[0].time_ms, kNoonMay1 + 123);
  EXPECT_EQ(r.samples[0].utilization_pct, 45.0f);
  EXPECT_EQ(r.samples[0].memory_used_mib, 12345.0f);
  EXPECT_EQ(r.samples[0].power_w, 250.5f);
  EXPECT_FALSE(r.samples[1].utilization_pct.has_value());  // [N/A]
  EXPECT_FALSE(r.samples[1].temperature_c.has_value());    // [Not Supported]
  EXPECT_EQ(r.samples[2].time_ms, kNoonMay1 + 1120);
  EXPECT_EQ(r.gpus.names(), (std::vector<std::string>{"node7/0", "node7/1"}));
  EXPECT_EQ(r.stats.skipped_count, 0);
}

TEST(ReadersTest, SmiCsvNoUnitsAnyColumnOrderAndRepeatedHeader) {
  // --format=csv,nounits, columns in another order, and a restart that prints the header again.
  std::string path = write_file(temp_dir(), "h.csv",
                                "utilization.gpu [%], timestamp, uuid\n"
                                "30, 2024/05/01 12:00:00.000, GPU-aaa\n"
                                "utilization.gpu [%], timestamp, uuid\n"
                                "31, 2024/05/01 12:00:01.000, GPU-bbb\n");
  Read r = read(path, SourceFormat::kSmiCsv);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[1].utilization_pct, 31.0f);
  EXPECT_EQ(r.gpus.names()[1], "h/GPU-bbb");
}

TEST(ReadersTest, MalformedLinesAreCountedWithFileAndLine) {
  std::string path = write_file(temp_dir(), "bad.csv",
                                "timestamp, index, utilization.gpu [%]\n"
                                "2024/05/01 12:00:00.000, 0, 40 %\n"
                                "garbage line here\n"
                                "2024/13/01 12:00:00.000, 0, 40 %\n"   // month 13
                                "2024/05/01 12:00:02.000, 0, 140 %\n"  // above 100%
                                "2024/05/01 12:00:03.000, 0\n"         // a field missing
                                "2024/05/01 12:00:04.000, 0, 4");      // truncated: no newline, no unit
  Read r = read(path);
  EXPECT_EQ(r.samples.size(), 2u);  // line 2 and the truncated "4" (a valid number)
  EXPECT_EQ(r.stats.skipped_count, 4);
  ASSERT_EQ(r.stats.skipped.size(), 4u);
  EXPECT_EQ(r.stats.skipped[0].line, 3);
  EXPECT_EQ(r.stats.skipped[0].file, path);
  EXPECT_EQ(r.stats.skipped[1].line, 4);
  EXPECT_EQ(r.stats.skipped[2].line, 5);
  EXPECT_EQ(r.stats.skipped[3].line, 6);
}

TEST(ReadersTest, TruncatedLastLineIsReportedAsSuch) {
  std::string path = write_file(temp_dir(), "t.csv",
                                "timestamp, index, utilization.gpu [%]\n2024/05/01 12:00:00.000, 0, 40 %\n2024/05/01 12:0");
  Read r = read(path);
  ASSERT_EQ(r.stats.skipped.size(), 1u);
  EXPECT_EQ(r.stats.skipped[0].line, 3);
  EXPECT_EQ(r.stats.skipped[0].reason.key, "skip.truncated");
}

TEST(ReadersTest, DmonWithDateTimeAndRepeatedHeaders) {
  std::string path = write_file(temp_dir(), "dmon.log",
                                "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk     fb   bar1\n"
                                "# Idx      W      C      C      %      %      %      %    MHz    MHz     MB     MB\n"
                                "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk     fb   bar1\n"
                                "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz     MB     MB\n"
                                " 20240501   12:00:00      0    250     61      -     93     40      0      0   1593   1410  30000      2\n"
                                " 20240501   12:00:00      1     60     35      -      -      0      0      0   1593    210    500      2\n");
  Read r = read(path);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[0].time_ms, kNoonMay1);
  EXPECT_EQ(r.samples[0].utilization_pct, 93.0f);
  EXPECT_EQ(r.samples[0].memory_used_mib, 30000.0f);
  EXPECT_EQ(r.samples[0].sm_clock_mhz, 1410.0f);
  EXPECT_FALSE(r.samples[1].utilization_pct.has_value());  // "-"
}

TEST(ReadersTest, SmiCsvEccCountsAndClockEventReasons) {
  // The volatile ECC totals and the clock event reason bits (0x40 = HW thermal slowdown,
  // 0x4 = SW power cap, 0x44 = both), [N/A] on a GPU without ECC.
  std::string path = write_file(temp_dir(), "ecc.csv",
                                "timestamp, index, ecc.errors.corrected.volatile.total, "
                                "ecc.errors.uncorrected.volatile.total, clocks_event_reasons.active\n"
                                "2024/05/01 12:00:00.000, 0, 12, 0, 0x0000000000000040\n"
                                "2024/05/01 12:00:00.000, 1, [N/A], [N/A], 0x0000000000000044\n"
                                "2024/05/01 12:00:00.000, 2, 0, 3, [Not Supported]\n");
  Read r = read(path);
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.samples[0].ecc_corrected, 12u);
  EXPECT_EQ(r.samples[0].ecc_uncorrected, 0u);
  EXPECT_EQ(r.samples[0].clock_event_reasons, uint64_t{0x40});
  EXPECT_FALSE(r.samples[1].ecc_corrected.has_value());
  EXPECT_FALSE(r.samples[1].ecc_uncorrected.has_value());
  EXPECT_EQ(r.samples[1].clock_event_reasons, uint64_t{0x44});
  EXPECT_EQ(r.samples[2].ecc_uncorrected, 3u);
  EXPECT_FALSE(r.samples[2].clock_event_reasons.has_value());
  EXPECT_EQ(r.stats.skipped_count, 0);
}

TEST(ReadersTest, SmiCsvOlderThrottleReasonsHeaderAndBadHex) {
  // Drivers before R535 call the column clocks_throttle_reasons.active; a value that is not
  // 0x-prefixed hex of at most 64 bits is a malformed line.
  std::string path = write_file(temp_dir(), "old.csv",
                                "timestamp, index, clocks_throttle_reasons.active\n"
                                "2024/05/01 12:00:00.000, 0, 0x0000000000000008\n"
                                "2024/05/01 12:00:01.000, 0, 0xZZ\n"
                                "2024/05/01 12:00:02.000, 0, 0x10000000000000000\n"
                                "2024/05/01 12:00:03.000, 0, 64\n");
  Read r = read(path);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].clock_event_reasons, uint64_t{0x8});
  EXPECT_EQ(r.stats.skipped_count, 3);
}

TEST(ReadersTest, UsageMetricsOnlySkipsEccAndReasons) {
  std::string path = write_file(temp_dir(), "u.csv",
                                "timestamp, index, utilization.gpu [%], ecc.errors.corrected.volatile.total, "
                                "clocks_event_reasons.active\n"
                                "2024/05/01 12:00:00.000, 0, 40 %, 5, 0x0000000000000040\n");
  GpuRegistry gpus;
  Collect c;
  ReadOptions options;
  options.usage_metrics_only = true;
  ASSERT_TRUE(read_samples(path, SourceFormat::kSmiCsv, gpus, c, {}, options).ok());
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].utilization_pct, 40.0f);
  EXPECT_FALSE(c.samples[0].ecc_corrected.has_value());
  EXPECT_FALSE(c.samples[0].clock_event_reasons.has_value());
}

TEST(ReadersTest, DmonEccColumns) {
  // nvidia-smi dmon -s pe -o DT: sbecc / dbecc are the single- and double-bit ECC error counts.
  std::string path = write_file(temp_dir(), "ecc-dmon.log",
                                "#Date       Time        gpu    pwr  gtemp  mtemp  sbecc  dbecc    pci\n"
                                "#YYYYMMDD   HH:MM:SS    Idx      W      C      C   errs   errs   errs\n"
                                " 20240501   12:00:00      0    250     61      -      7      1      0\n"
                                " 20240501   12:00:00      1     60     35      -      -      -      0\n");
  Read r = read(path);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[0].ecc_corrected, 7u);
  EXPECT_EQ(r.samples[0].ecc_uncorrected, 1u);
  EXPECT_FALSE(r.samples[0].clock_event_reasons.has_value());  // dmon has no such column
  EXPECT_FALSE(r.samples[1].ecc_corrected.has_value());        // "-"
  EXPECT_FALSE(r.samples[1].ecc_uncorrected.has_value());
}

// The usage fast path (usage_metrics_only) parses nvidia-smi's usual lines in place and hands
// every other line to the general path: both must give the same samples and the same reports.
TEST(ReadersTest, UsageFastPathAgreesWithTheGeneralPath) {
  const std::string text =
      "timestamp, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, "
      "power.draw [W]\n"
      "2024/05/01 12:00:00.712, 0, GPU-aaaa, 93 %, 65600 MiB, 81920 MiB, 73, 376.27 W\n"
      "2024/05/01 12:00:00.712, 1, GPU-bbbb, 0 %, 500 MiB, 81920 MiB, 32, 60.29 W\n"
      "2024/05/01 12:00:01.695, 0, GPU-aaaa, [N/A], 65601 MiB, 81920 MiB, 73, 376.27 W\n"  // [N/A]
      "2024/05/01 12:00:01.695, 1, GPU-bbbb, 12.5 %, 500 MiB, 81920 MiB, 32.0, 60.29 W\n"  // decimals
      "2024/05/01 12:00:02.000, 1, GPU-bbbb, 7 %, 501 MiB, 81920 MiB, 33, 60.29 W\r\n"   // CRLF
      "2024/05/01 12:00:02.000, 0,  GPU-aaaa , 8 %, 502 MiB, 81920 MiB, 34, 60.29 W\n"  // spaces
      "2024/05/01 12:00:02.000, 2, GPU-cccc, 101 %, 1 MiB, 81920 MiB, 30, 1 W\n"        // out of range
      "2024/05/01 12:00:02.000, 2, GPU-cccc, 9 %, 1 MiB, 81920 MiB, 30\n"               // a field missing
      "2024/05/01 12:00:02.000, 2, GPU-cccc, 9 %, 1 MiB, 81920 MiB, 30, 1 W, 5\n"       // one too many
      "2024/05/01 12:00:02.000, 3, GPU-dddd, 9 %, 1 MiB, 81920 MiB, 30, 1 W, 5\n"       // a new GPU, skipped
      "2024/05/01 12:00:02.500, 7, GPU-aaaa, 6 %, 7 MiB, 81920 MiB, 35, 1 W\n"          // another index
      "2024/05/01 12:00:02.600,\t0, GPU-aaaa, 5 %, 8 MiB, 81920 MiB, 36, 1 W\n"         // a tab
      "2024/05/01 12:00:02.700, 0, GPU-aaaa, 4, 9 MiB, 81920 MiB, 37 C, 1 W\n"          // units change
      "2024/05/01 12:00:02.000, 2, GPU-cccc, 9 %%, 1 MiB, 81920 MiB, 30, 1 W\n"         // a bad unit
      "2024/05/01 12:00:02.000, 2, GPU-cccc, 123456789 %, 1 MiB, 81920 MiB, 30, 1 W\n"  // 9 digits
      "2024/05/01 12:00:03, 2, GPU-cccc, 10 %, 2 MiB, 81920 MiB, 31, 1 W\n"             // no milliseconds
      " 2024/05/01 12:00:04.000, 2, GPU-cccc, 10 %, 2 MiB, 81920 MiB, 31, 1 W\n"        // leading space
      "2024/05/01 13:00:00.001, 2, GPU-cccc, 11, 3, 81920, 32, 1\n"                     // no units
      "2024/05/01 13:00:00.001, 2, GPU-cccc, 11 %, 3 MiB, 81920 MiB, 32, 1 W";           // no newline
  const std::string path = write_file(temp_dir(), "mix.csv", text);
  Read fast = read_smi(path, true), general = read_smi(path, false);
  ASSERT_EQ(fast.samples.size(), 12u);
  expect_same_reading(fast, general);
  EXPECT_EQ(fast.gpus.names(), (std::vector<std::string>{"mix/GPU-aaaa", "mix/GPU-bbbb", "mix/GPU-cccc"}));
  EXPECT_EQ(fast.stats.lines, 20);
  ASSERT_EQ(fast.stats.skipped_count, 7);
  // Exact values of a few, worked out from the text.
  constexpr int64_t kNoon = (19844LL * 24 + 12) * 3600000;
  EXPECT_EQ(fast.samples[0].time_ms, kNoon + 712);
  EXPECT_EQ(fast.samples[0].memory_used_mib, 65600.0f);
  EXPECT_FALSE(fast.samples[2].utilization_pct.has_value());
  EXPECT_EQ(fast.samples[3].utilization_pct, 12.5f);
  EXPECT_EQ(fast.samples[4].temperature_c, 33.0f);  // the CRLF line
  EXPECT_EQ(fast.samples[5].gpu, 0u);               // " GPU-aaaa " trimmed
  EXPECT_EQ(fast.samples[6].gpu, 0u);  // GPU-aaaa whatever its index
  EXPECT_EQ(fast.samples[6].memory_used_mib, 7.0f);
  EXPECT_EQ(fast.samples[7].time_ms, kNoon + 2600);  // the tab
  EXPECT_EQ(fast.samples[7].utilization_pct, 5.0f);
  EXPECT_EQ(fast.samples[8].utilization_pct, 4.0f);  // no unit after one
  EXPECT_EQ(fast.samples[8].temperature_c, 37.0f);
  EXPECT_EQ(fast.samples[9].time_ms, kNoon + 3000);
  EXPECT_EQ(fast.samples[10].time_ms, kNoon + 3600000 + 1);
  EXPECT_EQ(fast.samples[10].memory_used_mib, 3.0f);
  EXPECT_EQ(fast.samples[11].utilization_pct, 11.0f);  // the unterminated last line
}

// The fast path remembers each GPU's "index, uuid" text as the header laid it out: after a new
// header with other columns, a line that would match it must still be read by the new header.
// Once a GPU's line has been read column by column, its next lines of the same shape are read
// by one compare of their fixed bytes. Each line marked below has GPU-aaaa's shape (the same
// length, separators and units where the shape has them) yet differs in a way the columns would
// notice: the fast path must give what the general path gives, line for line.
TEST(ReadersTest, UsageFastPathReadsLinesOfAKnownShapeAsTheColumnsWould) {
  const std::string a = "2024/05/01 12:00:00.712, 0, GPU-aaaa, 93 %, 65600 MiB, 81920 MiB, 73, 376.27 W\n";
  const std::string b = "2024/05/01 12:00:00.712, 1, GPU-bbbb, 0 %, 500 MiB, 81920 MiB, 32, 60.29 W\n";
  std::string text = "timestamp, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
                     "temperature.gpu, power.draw [W]\n" + a + b;
  const std::vector<std::string> variants = {
      "2024/05/01 12:00:01.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n",  // good: the shape
      "2024/05/01 12:00:02.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376,28 W\n",  // ',' in power
      "2024/05/01 12:00:03.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 37\n.28 W\n",  // '\n' in power
      "2024/05/01 12:00:05.000, 0, GPU-aaaa, 9x %, 65601 MiB, 81920 MiB, 74, 376.28 W\n",  // not a number
      "2024/05/01 12:00:06.000, 0, GPU-aaaa, 94 %, 656.1 MiB, 81920 MiB, 74, 376.28 W\n",  // a decimal
      "2024/05/01 12:00:07,000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n",  // ',' in the time
      "2024/05/01 12:00:0x.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n",  // a bad time
      "2024/05/01 12:00:09.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\r\n",  // CRLF, longer
      "2024/05/01 12:00:10.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.2W\r\n",  // CRLF, same length
      " 2024/05/01 12:00:11.00, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n",  // not a digit first
      "2024/05/01 12:00:12.000, 0, GPU-aaaa, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n",  // good again
  };
  for (const std::string& v : variants) text += v + b;
  // A GPU that alternates between two shapes keeps both; a third replaces the older.
  text += "2024/05/01 12:01:00.000, 0, GPU-aaaa, 100 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n" + b;
  text += "2024/05/01 12:01:01.000, 0, GPU-aaaa, 101 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n" + b;  // > 100
  text += "2024/05/01 12:01:02.000, 0, GPU-aaaa, 95 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n" + b;
  text += "2024/05/01 12:01:03.000, 0, GPU-aaaa, 99 %, 5 MiB, 81920 MiB, 74, 376.28 W\n" + b;
  // Last, as a new GPU changes the cycle the others are expected in.
  text += "2024/05/01 12:01:04.000, 0, GPU-aaab, 94 %, 65601 MiB, 81920 MiB, 74, 376.28 W\n";  // another GPU
  const std::string path = write_file(temp_dir(), "shapes.csv", text);
  Read fast = read_smi(path, true), general = read_smi(path, false);
  expect_same_reading(fast, general);
  // Worked out from the text: 2 + 2 × 11 + 2 × 4 + 1 = 33 rows, one line more for the '\n' in
  // power. Skipped: ',' in power (9 fields), ".28 W" (not a row), "9x", ',' in the time (9 fields),
  // the bad time, the leading space, 101 %: 7 lines. The new GPU GPU-aaab is read (a new key is
  // no error).
  EXPECT_EQ(fast.stats.lines, 1 + 33 + 1);
  EXPECT_EQ(fast.stats.skipped_count, 7);
  EXPECT_EQ(fast.samples.size(), 33u + 1 - 7);  // the line cut short at '\n' in power is a sample
  EXPECT_EQ(fast.gpus.names(), (std::vector<std::string>{"shapes/GPU-aaaa", "shapes/GPU-bbbb", "shapes/GPU-aaab"}));
  EXPECT_EQ(fast.samples[2].memory_used_mib, 65601.0f);  // the first good variant
  EXPECT_EQ(fast.samples.back().gpu, 2u);
  EXPECT_EQ(fast.samples[fast.samples.size() - 3].memory_used_mib, 5.0f);
}

// A log without utilization: lines of a known shape give readings without it, as the columns do.
TEST(ReadersTest, UsageFastPathReadsShapesOfALogWithoutUtilization) {
  std::string text = "timestamp, index, memory.used [MiB], temperature.gpu\n";
  char line[96];
  for (int round = 0; round < 50; ++round)
    for (int g = 0; g < 2; ++g) {
      std::snprintf(line, sizeof line, "2024/05/01 12:00:%02d.%03d, %d, %d MiB, %d\n", round, round * 7, g, 40000 + round, 60 + g);
      text += line;
    }
  const std::string path = write_file(temp_dir(), "noutil.csv", text);
  for (bool usage_only : {true, false}) {
    SCOPED_TRACE(usage_only);
    const Read r = read_smi(path, usage_only);
    ASSERT_EQ(r.samples.size(), 100u);
    const Sample& s = r.samples[77];  // round 38, GPU 1
    EXPECT_EQ(s.time_ms, kNoonMay1 + 38 * 1000 + 38 * 7);
    EXPECT_EQ(s.gpu, 1u);
    EXPECT_FALSE(s.utilization_pct.has_value());
    EXPECT_EQ(s.memory_used_mib, 40038.0f);
    EXPECT_EQ(s.temperature_c, 61.0f);
  }
}

// And one without temperature, utilization at 98 to 100 % (two and three digits, two shapes).
TEST(ReadersTest, UsageFastPathReadsShapesOfALogWithoutTemperature) {
  std::string text = "timestamp, index, utilization.gpu [%], memory.used [MiB]\n";
  char line[96];
  for (int round = 0; round < 60; ++round)
    for (int g = 0; g < 2; ++g) {
      std::snprintf(line, sizeof line, "2024/05/01 12:00:%02d.000, %d, %d %%, %d MiB\n", round, g, 98 + (round + g) % 3, 7 + g);
      text += line;
    }
  const std::string path = write_file(temp_dir(), "notemp.csv", text);
  for (bool usage_only : {true, false}) {
    SCOPED_TRACE(usage_only);
    const Read r = read_smi(path, usage_only);
    ASSERT_EQ(r.samples.size(), 120u);
    float util_sum = 0;
    for (const Sample& s : r.samples) util_sum += *s.utilization_pct;
    EXPECT_EQ(util_sum, 40 * (98 + 99 + 100));  // each value 40 times
    const Sample& s = r.samples[59];  // round 29, GPU 1: 98 + 30 % 3
    EXPECT_EQ(s.utilization_pct, 98.0f);
    EXPECT_EQ(s.memory_used_mib, 8.0f);
    EXPECT_FALSE(s.temperature_c.has_value());
  }
}

TEST(ReadersTest, UsageFastPathForgetsTheOldLayoutAtANewHeader) {
  const std::string text =
      "timestamp, index, uuid, utilization.gpu [%], memory.used [MiB]\n"
      "2024/05/01 12:00:00.000, 0, GPU-aaaa, 5 %, 6 MiB\n"
      "2024/05/01 12:00:01.000, 0, GPU-aaaa, 5 %, 6 MiB\n"
      "timestamp, uuid, utilization.gpu [%], memory.used [MiB]\n"
      "2024/05/01 12:00:02.000, 0, GPU-aaaa, 5 %, 6 MiB\n"  // a field too many for this header
      "2024/05/01 12:00:03.000, GPU-aaaa, 7 %, 8 MiB\n";
  const std::string path = write_file(temp_dir(), "relayout.csv", text);
  for (bool usage_only : {true, false}) {
    SCOPED_TRACE(usage_only);
    GpuRegistry gpus;
    Collect c;
    ReadOptions options;
    options.usage_metrics_only = usage_only;
    auto stats = read_samples(path, SourceFormat::kSmiCsv, gpus, c, {}, options);
    ASSERT_TRUE(stats.ok());
    ASSERT_EQ(c.samples.size(), 3u);
    EXPECT_EQ(c.samples[2].utilization_pct, 7.0f);
    ASSERT_EQ(stats->skipped.size(), 1u);
    EXPECT_EQ(stats->skipped[0].line, 5);
    EXPECT_EQ(stats->skipped[0].reason,
              Phrase("skip.field_count").fact("expected", "4").fact("found", "5"));
  }
}

// Lines cut by the 1 MiB read buffer: the fast path must never read a line's continuation from
// stale bytes past the data. 35,000 lines of varying length (2.3 MiB) cross two of its boundaries.
TEST(HourlyTest, UsageFastPathAcrossReadBuffers) {
  std::string text = "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, "
                     "power.draw [W]\n";
  int64_t util_sum = 0, mem_sum = 0;
  for (int i = 0; i < 35000; ++i) {  // below 36,000: every time distinct
    const int util = i * 7 % 101, mem = i * 37 % 100000;
    util_sum += util;
    mem_sum += mem;
    char line[128];
    std::snprintf(line, sizeof line, "2024/05/01 12:%02d:%02d.%03d, 0, %d %%, %d MiB, 81920 MiB, %d, %d.%02d W\n",
                  i / 600 % 60, i / 10 % 60, i % 10 * 100, util, mem, 20 + i % 70, 60 + i % 300, i % 100);
    text += line;
  }
  ASSERT_GT(text.size(), 2u << 20);
  auto data = read_hourly({write_file(temp_dir(), "cut.csv", text)}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->stats.skipped_count, 0);
  ASSERT_EQ(data->hours.size(), 1u);
  const HourAcc& a = data->hours.begin()->second.at(0);
  EXPECT_EQ(a.count, 35000u);
  EXPECT_EQ(a.util_sum, static_cast<double>(util_sum));
  EXPECT_EQ(a.mem_sum, static_cast<double>(mem_sum));
  EXPECT_EQ(a.temp_max, 89.0f);
}

// The same with GPU keys: the fast path compares each line's "index, uuid" with the same GPU's
// last line in place, and must never match across the end of the data in the buffer either.
TEST(HourlyTest, UsageFastPathWithGpuKeysAcrossReadBuffers) {
  std::string text = "timestamp, index, uuid, utilization.gpu [%], memory.used [MiB], temperature.gpu\n";
  const char* const kUuids[] = {"GPU-f62dd891-6387-443f-0000-8d024de6660f", "GPU-2846ace1-8f27-24ed-0001-121df486adba"};
  int64_t util_sum[2] = {}, mem_sum[2] = {};
  for (int i = 0; i < 30000; ++i) {  // 15,000 rounds of 2 GPUs, one every 0.2 s: all within one hour
    const int g = i % 2, round = i / 2, util = i * 7 % 101, mem = i * 37 % 100000;
    util_sum[g] += util;
    mem_sum[g] += mem;
    char line[160];
    std::snprintf(line, sizeof line, "2024/05/01 12:%02d:%02d.%03d, %d, %s, %d %%, %d MiB, %d\n", round / 300 % 60,
                  round / 5 % 60, round % 5 * 200, g, kUuids[g], util, mem, 20 + i % 70);
    text += line;
  }
  ASSERT_GT(text.size(), 2u << 20);
  auto data = read_hourly({write_file(temp_dir(), "keys.csv", text)}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->stats.skipped_count, 0);
  EXPECT_EQ(data->stats.duplicates, 0);
  ASSERT_EQ(data->gpus.size(), 2u);
  ASSERT_EQ(data->hours.size(), 1u);
  for (size_t g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    const HourAcc& a = data->hours.begin()->second.at(g);
    const size_t uuid = data->gpus[g].find(kUuids[0]) != std::string::npos ? 0 : 1;
    EXPECT_EQ(a.count, 15000u);
    EXPECT_EQ(a.util_sum, static_cast<double>(util_sum[uuid]));
    EXPECT_EQ(a.mem_sum, static_cast<double>(mem_sum[uuid]));
  }
}

TEST(ReadersTest, DmonWithoutTimestampsSaysToUseDT) {
  std::string path = write_file(temp_dir(), "plain.log",
                                "# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n"
                                "    0    250     61      -     93     40\n");
  Read r = read(path, SourceFormat::kDmon);
  EXPECT_EQ(r.samples.size(), 0u);
  ASSERT_EQ(r.stats.skipped.size(), 1u);
  EXPECT_EQ(r.stats.skipped[0].reason.key, "skip.no_timestamps");
}

TEST(ReadersTest, DmonWithoutTimestampsIsPlacedFromAGivenStart) {
  // Two rounds of two GPUs at dmon's default 1 s: 12:00:00 and 12:00:01.
  std::string path = write_file(temp_dir(), "plain.log",
                                "# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n"
                                "    0    250     61      -     93     40\n    1    240     60      -     91     40\n"
                                "    0    251     61      -     94     40\n    1    241     60      -     92     40\n");
  ReadOptions options;
  options.dmon_start_ms = kNoonMay1;
  GpuRegistry gpus;
  Collect c;
  auto stats = read_samples(path, SourceFormat::kDmon, gpus, c, {}, options);
  ASSERT_TRUE(stats.ok());
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[1].time_ms, kNoonMay1);
  EXPECT_EQ(c.samples[2].time_ms, kNoonMay1 + 1000);
  EXPECT_EQ(c.samples[3].utilization_pct, 92.0f);
}

TEST(ReadersTest, PromScrapesFromADirectoryTakeTheirTimeFromTheName) {
  std::string dir = temp_dir() + "/scrapes";
  std::filesystem::create_directories(dir);
  const std::string body =
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",Hostname=\"node1\"} 71\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",Hostname=\"node1\"} 2048\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"node1\"} NaN\n"
      "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"node1\"} 0\n";
  write_file(dir, "scrape-1714564800.prom", body);  // 2024-05-01 12:00:00 UTC
  write_file(dir, "scrape-1714564805.prom", body);
  Read r = read(dir);
  ASSERT_EQ(r.samples.size(), 4u);  // util and fb from each scrape; NaN and other metrics skipped
  EXPECT_EQ(r.samples[0].time_ms, 1714564800000);
  EXPECT_EQ(r.samples[0].utilization_pct, 71.0f);
  EXPECT_EQ(r.samples[1].memory_used_mib, 2048.0f);
  EXPECT_EQ(r.samples[2].time_ms, 1714564805000);
  EXPECT_EQ(r.gpus.names(), (std::vector<std::string>{"node1/0"}));
}

TEST(ReadersTest, GzipIsReadTransparently) {
  std::string path = temp_dir() + "/log.csv.gz";
  gzFile gz = gzopen(path.c_str(), "wb");
  const std::string text = "timestamp, index, utilization.gpu [%]\n2024/05/01 12:00:00.000, 0, 40 %\n";
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  Read r = read(path);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].utilization_pct, 40.0f);
}

TEST(ReadersTest, MissingFileAndUnknownFormatAreErrors) {
  GpuRegistry g;
  Collect c;
  auto missing = read_samples("/nonexistent/x.csv", SourceFormat::kSmiCsv, g, c);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().file, "/nonexistent/x.csv");
  EXPECT_EQ(missing.error().message.key, "error.file.cannot_open");
  EXPECT_EQ(*gpuplan::testing::fact_in(missing.error().message, "why"), "No such file or directory");
  std::string path = write_file(temp_dir(), "what.txt", "hello\nworld\n");
  auto unknown = read_samples(path, SourceFormat::kAuto, g, c);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().file, path);
  EXPECT_EQ(unknown.error().line, 1);
  EXPECT_EQ(unknown.error().message.key, "error.log.unknown_format");
  const std::string empty_dir = temp_dir();
  auto no_scrapes = read_samples(empty_dir, SourceFormat::kAuto, g, c);
  ASSERT_FALSE(no_scrapes.ok());
  EXPECT_EQ(no_scrapes.error().file, empty_dir);
  EXPECT_EQ(no_scrapes.error().message.key, "error.log.no_scrape_files");
}

TEST(HourlyTest, DuplicatesAreDroppedAndClockJumpsCounted) {
  std::string path = write_file(temp_dir(), "d.csv",
                                "timestamp, index, utilization.gpu [%]\n"
                                "2024/05/01 12:00:00.000, 0, 40 %\n"
                                "2024/05/01 12:00:00.000, 0, 40 %\n"   // duplicate
                                "2024/05/01 12:30:00.000, 0, 60 %\n"
                                "2024/05/01 12:10:00.000, 0, 50 %\n"   // clock went back
                                "2024/05/01 13:00:00.000, 0, 90 %\n");
  auto data = read_hourly({path}, SourceFormat::kAuto);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->stats.duplicates, 1);
  EXPECT_EQ(data->stats.clock_jumps, 1);
  ASSERT_EQ(data->hours.size(), 2u);
  const HourAcc& noon = data->hours.begin()->second[0];
  EXPECT_EQ(noon.count, 3u);
  EXPECT_DOUBLE_EQ(*noon.mean_util(), 50);  // (40 + 60 + 50) / 3
}

TEST(HourlyTest, LargeFilesReadInParallelGiveTheSameHours) {
  // The parallel path is chosen from 32 MiB: 760,000 rows of ≈ 45 bytes is just above it.
  std::string path = temp_dir() + "/big.csv";
  {
    std::ofstream out(path);
    out << "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\n";
    char line[128];
    int64_t rows = 0;
    for (int64_t t = 0; rows < 760000; ++t)
      for (int g = 0; g < 4; ++g, ++rows) {
        if (rows % 100000 == 99999) out << "garbage\n";  // 7 of them, in different parts
        int h = static_cast<int>(t / 3600), m = static_cast<int>(t / 60 % 60), s = static_cast<int>(t % 60);
        std::snprintf(line, sizeof line, "2024/05/%02d %02d:%02d:%02d.000, %d, %d %%, %d MiB, %d\n", 1 + h / 24, h % 24, m, s, g,
                      static_cast<int>((t + g) % 101), 1000 + g, 40 + g);
        out << line;
      }
  }
  ASSERT_GT(std::filesystem::file_size(path), 32u << 20);
  auto parallel = read_hourly({path}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(parallel.ok());
  // The same file through one thread: the gzip path never splits.
  GpuRegistry reg;
  HourlyData serial;
  HourlyAggregator agg(serial);
  auto serial_stats = read_samples(path, SourceFormat::kSmiCsv, reg, agg);
  ASSERT_TRUE(serial_stats.ok());
  serial.gpus = reg.names();
  ASSERT_EQ(parallel->hours.size(), serial.hours.size());
  EXPECT_EQ(parallel->gpus, serial.gpus);
  for (const auto& [hour, accs] : serial.hours) {
    const auto& p = parallel->hours.at(hour);
    for (size_t g = 0; g < accs.size(); ++g) {
      EXPECT_EQ(p[g].count, accs[g].count);
      EXPECT_DOUBLE_EQ(p[g].util_sum, accs[g].util_sum);
      EXPECT_EQ(p[g].temp_max, accs[g].temp_max);
    }
  }
  EXPECT_EQ(parallel->stats.samples, 760000);
  // Skipped lines keep their numbers in the whole file: the first garbage line follows the
  // header and 99,999 rows.
  ASSERT_EQ(parallel->stats.skipped.size(), 7u);
  ASSERT_EQ(serial_stats->skipped.size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(parallel->stats.skipped[i].line, serial_stats->skipped[i].line);
  EXPECT_EQ(parallel->stats.skipped[0].line, 100001);
  EXPECT_EQ(parallel->stats.skipped[6].line, 700007);
  EXPECT_EQ(parallel->stats.lines, 760008);
  EXPECT_EQ(serial_stats->lines, 760008);
}

// A log written twice into one file (a logger restarted over the same hours, say). One reader
// counts the second copy's samples as clock jumps (earlier than their GPU's latest) and the
// last round as duplicates. Parts read by separate threads each see one copy only: the parallel
// reader must notice that they overlap in time and read the file again with one thread, so the
// result is exactly the serial one.
TEST(HourlyTest, ParallelPartsThatOverlapInTimeAreReadAgainByOneThread) {
  std::string copy = "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\n";
  char line[128];
  for (int64_t t = 0; t < 100000; ++t)  // 4 GPUs, ≈ 45 bytes a line: ≈ 18 MB a copy
    for (int g = 0; g < 4; ++g) {
      const int h = static_cast<int>(t / 3600), m = static_cast<int>(t / 60 % 60), sec = static_cast<int>(t % 60);
      std::snprintf(line, sizeof line, "2024/05/%02d %02d:%02d:%02d.000, %d, %d %%, %d MiB, %d\n", 1 + h / 24, h % 24, m, sec,
                    g, static_cast<int>((t * 3 + g) % 101), 1000 + g, 40 + g);
      copy += line;
    }
  const std::string path = write_file(temp_dir(), "twice.csv", copy + copy);
  ASSERT_GT(std::filesystem::file_size(path), 32u << 20);  // read in parallel
  auto parallel = read_hourly({path}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(parallel.ok());
  GpuRegistry reg;
  HourlyData serial;
  HourlyAggregator agg(serial);
  ASSERT_TRUE(read_samples(path, SourceFormat::kSmiCsv, reg, agg).ok());
  // 400,000 rows a copy. The second copy's rows are all earlier than the first copy's last round
  // (t = 99,999) but that round itself: 399,996 clock jumps, 4 duplicates.
  EXPECT_EQ(parallel->stats.samples, 800000);
  EXPECT_EQ(serial.stats.clock_jumps, 399996);
  EXPECT_EQ(serial.stats.duplicates, 4);
  EXPECT_EQ(parallel->stats.clock_jumps, serial.stats.clock_jumps);
  EXPECT_EQ(parallel->stats.duplicates, serial.stats.duplicates);
  ASSERT_EQ(parallel->hours.size(), serial.hours.size());
  for (const auto& [hour, accs] : serial.hours)
    for (size_t g = 0; g < accs.size(); ++g) {
      EXPECT_EQ(parallel->hours.at(hour)[g].count, accs[g].count);
      EXPECT_EQ(parallel->hours.at(hour)[g].util_sum, accs[g].util_sum);
    }
  EXPECT_EQ(parallel->hours.begin()->second.at(0).count, 7200u);  // a clock jump's sample is kept
}

// A nvidia-smi log of `rounds` rounds of 8 GPUs (uuid keys, ~106-byte lines as nvidia-smi writes
// them), with a garbage line every 4,999 lines and a [N/A] utilization every 7,001: large plain
// files are read through memory-mapped windows, so lines, errors and window ends meet often.
std::string eight_gpu_log(int rounds) {
  std::string text = "timestamp, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
                     "temperature.gpu, power.draw [W]\n";
  char line[200];
  int64_t n = 0;
  for (int round = 0; round < rounds; ++round)
    for (int g = 0; g < 8; ++g) {
      if (++n % 4999 == 0) text += "garbage, not a row\n";
      const int h = round / 3600, m = round / 60 % 60, s = round % 60;
      const std::string util = n % 7001 == 0 ? "[N/A]" : std::to_string((round + g) % 101) + " %";
      std::snprintf(line, sizeof line, "2024/05/%02d %02d:%02d:%02d.%03d, %d, GPU-f62dd891-6387-443f-%04d-8d024de6660f, %s, %d MiB, 81920 MiB, %d, %d.%02d W\n",
                    1 + h / 24, h % 24, m, s, round % 1000, g, g, util.c_str(), 1000 + round % 70000, 30 + (round + g) % 60,
                    60 + round % 340, round % 100);
      text += line;
    }
  return text;
}

// The same hours, and in each the same accumulators for every GPU.
void expect_same_hours(const HourlyData& a, const HourlyData& b) {
  ASSERT_EQ(a.hours.size(), b.hours.size());
  for (const auto& [hour, accs] : b.hours) {
    SCOPED_TRACE(hour);
    ASSERT_EQ(a.hours.count(hour), 1u);
    const auto& mine = a.hours.at(hour);
    ASSERT_EQ(mine.size(), accs.size());
    for (size_t g = 0; g < accs.size(); ++g) {
      EXPECT_EQ(mine[g].count, accs[g].count);
      EXPECT_EQ(mine[g].util_count, accs[g].util_count);
      EXPECT_EQ(mine[g].util_sum, accs[g].util_sum);
      EXPECT_EQ(mine[g].mem_sum, accs[g].mem_sum);
      EXPECT_EQ(mine[g].temp_max, accs[g].temp_max);
    }
  }
}

void write_gzip(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb1");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(gz);
}

// A plain file is read through mapped windows, the same text gzip-compressed through the read
// buffer: the two must agree on every hour, every count and every skipped line's number.
TEST(HourlyTest, MappedWindowsReadWhatTheReadBufferReads) {
  const std::string text = eight_gpu_log(25000);  // 200,000 rows, ≈ 21 MB: three windows, one thread
  ASSERT_GT(text.size(), 16u << 20);
  ASSERT_LT(text.size(), 32u << 20);
  const std::string dir = temp_dir();
  const std::string plain = write_file(dir, "host.csv", text);
  write_gzip(dir + "/host.csv.gz", text);
  auto mapped = read_hourly({plain}, SourceFormat::kSmiCsv);
  auto buffered = read_hourly({dir + "/host.csv.gz"}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(mapped.ok()) << mapped.error().str();
  ASSERT_TRUE(buffered.ok()) << buffered.error().str();
  // 200,000 rows, 40 garbage lines (every 4,999th of 200,040), the header: 200,041 lines.
  EXPECT_EQ(mapped->stats.lines, 200041);
  EXPECT_EQ(mapped->stats.samples, 200000);
  EXPECT_EQ(mapped->stats.skipped_count, 40);
  EXPECT_EQ(mapped->stats.bytes, static_cast<int64_t>(text.size()));
  EXPECT_EQ(buffered->stats.lines, mapped->stats.lines);
  EXPECT_EQ(buffered->stats.samples, mapped->stats.samples);
  ASSERT_EQ(buffered->stats.skipped.size(), mapped->stats.skipped.size());
  for (size_t i = 0; i < mapped->stats.skipped.size(); ++i) {
    EXPECT_EQ(mapped->stats.skipped[i].line, buffered->stats.skipped[i].line);
    EXPECT_EQ(mapped->stats.skipped[i].reason, buffered->stats.skipped[i].reason);
  }
  EXPECT_EQ(mapped->stats.skipped.front().line, 5000);  // the header, then 4,998 rows
  expect_same_hours(*mapped, *buffered);
}

// A log with 1.5 MB of NUL bytes in it (what a crash can leave): one line, skipped, whether the
// file is read through mapped windows (the plain file) or a read buffer of 1 MiB (its gzip copy),
// and the lines after it keep their numbers in the file.
TEST(HourlyTest, ALineLongerThanTheReadBufferIsOneSkippedLine) {
  std::string rows;
  char line[96];
  for (int i = 0; i < 2000; ++i) {
    std::snprintf(line, sizeof line, "2024/05/01 12:%02d:%02d.000, 0, %d %%, 100 MiB, 40\n", i / 60 % 60, i % 60, i % 101);
    rows += line;
  }
  const std::string text = "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\n" + rows +
                           std::string(1500000, '\0') + "\n" + rows + "garbage\n";
  const std::string plain = write_file(temp_dir(), "nul.csv", text);
  write_gzip(plain + ".gz", text);
  for (const std::string& path : {plain, plain + ".gz"}) {
    SCOPED_TRACE(path);
    GpuRegistry gpus;
    Collect sink;
    auto stats = read_samples(path, SourceFormat::kSmiCsv, gpus, sink);
    ASSERT_TRUE(stats.ok());
    // The header, 2,000 rows, the NUL bytes (line 2,002), 2,000 rows, "garbage" (line 4,003).
    EXPECT_EQ(stats->lines, 4003);
    EXPECT_EQ(stats->samples, 4000);
    ASSERT_EQ(stats->skipped.size(), 2u);
    EXPECT_EQ(stats->skipped[0].line, 2002);
    EXPECT_EQ(stats->skipped[1].line, 4003);
  }
}

// Log rotation by copytruncate while a file is read: the pages a mapped window lost would raise
// SIGBUS (cut to 1 MiB, inside the first 8 MB window), or the next window finds the file short
// (cut just past the first window), or plain reads end early (cut past the last window). Each
// read ends with an error that says so, and the process lives.
TEST(HourlyTest, AFileThatShrinksWhileReadIsAnErrorNotACrash) {
  const std::string text = eight_gpu_log(25000);  // ≈ 21 MB
  for (const uintmax_t cut : {uintmax_t{1} << 20, (uintmax_t{8} << 20) + 13, uintmax_t{text.size()} - 100}) {
    SCOPED_TRACE(cut);
    const std::string path = write_file(temp_dir(), "rotated.csv", text);
    struct Truncating : SampleSink {
      std::string path;
      uintmax_t cut = 0;
      bool done = false;
      void add(const Sample&) override {}
      void add_usage_batch(std::span<const UsageReading>, UsagePresent) override {
        if (!done) std::filesystem::resize_file(path, cut);  // as copytruncate does
        done = true;
      }
    } sink;
    sink.path = path;
    sink.cut = cut;
    GpuRegistry gpus;
    ReadOptions options;
    options.usage_metrics_only = true;
    auto stats = read_samples(path, SourceFormat::kSmiCsv, gpus, sink, {}, options);
    ASSERT_TRUE(sink.done);
    ASSERT_FALSE(stats.ok());
    EXPECT_EQ(stats.error().file, path);
    EXPECT_EQ(stats.error().message.key, "error.file.shrank") << stats.error().str();
  }
}

// A large file whose lines a single reader would read differently than parts read apart: the
// parallel reader must give exactly what one thread gives (the gzip copy is read by one).
void expect_parallel_read_as_one(const std::string& name, const std::string& text) {
  const std::string dir = temp_dir();
  const std::string plain = write_file(dir, name, text);
  ASSERT_GT(text.size(), 32u << 20);  // read in parallel
  write_gzip(plain + ".gz", text);
  auto parallel = read_hourly({plain}, SourceFormat::kSmiCsv);
  auto one = read_hourly({plain + ".gz"}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(parallel.ok()) << parallel.error().str();
  ASSERT_TRUE(one.ok()) << one.error().str();
  EXPECT_EQ(parallel->stats.lines, one->stats.lines);
  EXPECT_EQ(parallel->stats.samples, one->stats.samples);
  EXPECT_EQ(parallel->stats.skipped_count, one->stats.skipped_count);
  EXPECT_EQ(parallel->gpus, one->gpus);
  expect_same_hours(*parallel, *one);
}

// Rows of 4 GPUs for `seconds` seconds from second `from` on, ≈ 50 bytes each, the values after
// the timestamp and index in `order`: "u" utilization, "m" memory used, "t" temperature.
std::string four_gpu_rows(int64_t from, int64_t seconds, const std::string& order, const char* eol) {
  std::string text;
  char line[128];
  for (int64_t t = from; t < from + seconds; ++t)
    for (int g = 0; g < 4; ++g) {
      const int h = static_cast<int>(t / 3600), m = static_cast<int>(t / 60 % 60), sec = static_cast<int>(t % 60);
      const int values[3] = {static_cast<int>((t * 7 + g) % 101), 20000 + g, 40 + g + static_cast<int>(t % 30)};
      int n = std::snprintf(line, sizeof line, "2024/05/%02d %02d:%02d:%02d.000, %d", 1 + h / 24, h % 24, m, sec, g);
      for (char c : order) {
        const int v = values[c == 'u' ? 0 : c == 'm' ? 1 : 2];
        n += std::snprintf(line + n, sizeof line - n, c == 'u' ? ", %d %%" : c == 'm' ? ", %d MiB" : ", %d", v);
      }
      text += line;
      text += eol;
    }
  return text;
}

TEST(HourlyTest, AHeaderWithOtherColumnsMidFileIsReadAsOneReaderReadsIt) {
  std::string text = "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\n";
  text += four_gpu_rows(0, 50000, "umt", "\n");
  text += "timestamp, index, temperature.gpu, utilization.gpu [%], memory.used [MiB]\n";  // a restart
  text += four_gpu_rows(50000, 150000, "tum", "\n");
  expect_parallel_read_as_one("restarted.csv", text);
}

TEST(HourlyTest, ACrlfLogIsReadInParallelAsOneReaderReadsIt) {
  // The header's last column has no unit: its '\r' must not hide it.
  std::string text = "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\r\n";
  text += four_gpu_rows(0, 190000, "umt", "\r\n");
  expect_parallel_read_as_one("crlf.csv", text);
}

TEST(HourlyTest, ALogWhoseFirstLineIsNoHeaderIsReadAsOneReaderReadsIt) {
  std::string text = "\ntimestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\n";
  text += four_gpu_rows(0, 190000, "umt", "\n");
  expect_parallel_read_as_one("blank-first.csv", text);
}

}  // namespace
}  // namespace gpuplan::telemetry
