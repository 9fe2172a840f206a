// ECC error counts are whole 64-bit integers from the log line to the acceptance verdict (issue 12
// item 7): a float holds integers exactly only up to 2^24 = 16,777,216, so one more error on a GPU
// that has logged that many would vanish, and a rise between two samples go unseen.
#include <gtest/gtest.h>

#include "accept/log_summary.h"
#include "telemetry/readers.h"
#include "test_support.h"

namespace gpuplan::telemetry {
namespace {

using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

class Keep : public SampleSink {
 public:
  void add(const Sample& s) override { samples.push_back(s); }
  std::vector<Sample> samples;
};

struct Read {
  std::vector<Sample> samples;
  int64_t skipped = 0;
};

Read read(const std::string& name, const std::string& text) {
  GpuRegistry gpus;
  Keep keep;
  auto stats = read_samples(write_file(temp_dir(), name, text), SourceFormat::kAuto, gpus, keep);
  EXPECT_TRUE(stats.ok()) << stats.error().str();
  return {keep.samples, stats ? stats->skipped_count : -1};
}

TEST(EccCountTest, SmiCsvCountsAboveTwoToThe24AreExact) {
  // 2^24 + 1 and 2^53 + 1 = 9,007,199,254,740,993 (beyond a double too).
  Read r = read("ecc.csv",
                "timestamp, index, ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total\n"
                "2024/05/01 12:00:00.000, 0, 16777217, 9007199254740993\n"
                "2024/05/01 12:00:01.000, 0, 1.5, 0\n");  // a count is never a fraction: skipped
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].ecc_corrected, uint64_t{16'777'217});
  EXPECT_EQ(r.samples[0].ecc_uncorrected, uint64_t{9'007'199'254'740'993});
  EXPECT_EQ(r.skipped, 1);
}

TEST(EccCountTest, DmonSbeccAndDbeccAreExact) {
  Read r = read("dmon.log",
                "#Date       Time        gpu    pwr  gtemp  mtemp  sbecc  dbecc    sm\n"
                "#YYYYMMDD   HH:MM:SS    Idx      W      C      C   errs   errs     %\n"
                " 20240501   12:00:00      0    250     61      -  16777217   3     99\n");
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].ecc_corrected, uint64_t{16'777'217});
  EXPECT_EQ(r.samples[0].ecc_uncorrected, uint64_t{3});
}

TEST(EccCountTest, OneMoreErrorAfterTwoToThe24IsARise) {
  // 16,777,216 then 16,777,217: as floats both are 16,777,216 and no rise is seen.
  accept::LogSummariser summariser{"soak.csv", 95, 85};
  GpuRegistry gpus;
  Sample s;
  s.gpu = gpus.id("gpu01", "0");
  s.ecc_corrected = 16'777'216;
  summariser.add(s);
  s.time_ms = 60'000;
  s.ecc_corrected = 16'777'217;
  summariser.add(s);
  accept::LogSummary summary = summariser.finish(gpus, ReadStats{});
  ASSERT_EQ(summary.gpus.size(), 1u);
  EXPECT_EQ(summary.gpus[0].ecc_rises, 1);
  EXPECT_EQ(summary.gpus[0].ecc_corrected_first, uint64_t{16'777'216});
  EXPECT_EQ(summary.gpus[0].ecc_corrected_last, uint64_t{16'777'217});
  EXPECT_EQ(summary.gpus[0].ecc_corrected_first_rise_ms, int64_t{60'000});
}

}  // namespace
}  // namespace gpuplan::telemetry
