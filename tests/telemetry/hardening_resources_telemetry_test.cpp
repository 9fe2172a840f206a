// Bounded resources in the telemetry readers (issue 16): GPU names found by hashing (40,000 GPUs
// in seconds), at most limits::kMaxGpus GPUs and limits::kMaxSpanHours of data (an error naming
// the file and line), and logs that are not regular files (a FIFO without a writer, /dev/zero)
// refused up front. Lines are as nvidia-smi writes them with
// `--query-gpu=timestamp,index,utilization.gpu --format=csv` (its header and "2024/05/01
// 10:00:00.000, 0, 50 %" rows); the volumes and dates are the hostile part.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "core/limits.h"
#include "telemetry/hourly.h"
#include "telemetry/readers.h"
#include "test_support.h"

namespace gpuplan::telemetry {
namespace {

using gpuplan::testing::fact_in;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

const char* const kHeader = "timestamp, index, utilization.gpu [%]\n";

// One row per GPU, GPUs 0 .. n-1, all in one hour.
std::string one_row_per_gpu(uint32_t n) {
  std::string text = kHeader;
  for (uint32_t g = 0; g < n; ++g) text += "2024/05/01 10:00:00.000, " + std::to_string(g) + ", 50 %\n";
  return text;
}

class CountingSink : public SampleSink {
 public:
  void add(const Sample&) override { ++samples; }
  int64_t samples = 0;
};

TEST(HardeningResourcesTelemetry, FortyThousandGpusAreReadWithinSeconds) {
  // 40,000 distinct GPU indices (1.3 MB): with a linear search per new name this took 23 s.
  const std::string path = write_file(temp_dir(), "fleet.csv", one_row_per_gpu(40'000));
  const auto start = std::chrono::steady_clock::now();
  auto data = read_hourly({path}, SourceFormat::kSmiCsv);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(data.ok()) << data.error().str();
  EXPECT_EQ(data->gpus.size(), 40'000u);
  EXPECT_EQ(data->gpus[39'999], "fleet/39999");  // host from the file name, ids in order first seen
  ASSERT_EQ(data->hours.size(), 1u);
  EXPECT_EQ(data->hours.begin()->second.size(), 40'000u);
  EXPECT_LT(seconds, 5.0);
}

TEST(HardeningResourcesTelemetry, OneGpuBeyondTheLimitIsAnErrorNamingItsLine) {
  // kMaxGpus GPUs fit; the next one (its row is line kMaxGpus + 2, after the header) does not.
  std::string text = one_row_per_gpu(limits::kMaxGpus + 1);
  text += "2024/05/01 10:00:01.000, 5, 50 %\n";  // a GPU already known after it: no new error line
  const std::string path = write_file(temp_dir(), "many.csv", text);
  for (bool usage_only : {false, true}) {
    GpuRegistry gpus;
    CountingSink sink;
    ReadOptions options;
    options.usage_metrics_only = usage_only;  // the fast path hands over no lines: found again
    auto stats = read_samples(path, SourceFormat::kSmiCsv, gpus, sink, {}, options);
    ASSERT_FALSE(stats.ok());
    EXPECT_EQ(stats.error().file, path);
    EXPECT_EQ(stats.error().line, static_cast<int>(limits::kMaxGpus) + 2);
    EXPECT_EQ(stats.error().message.key, "error.log.too_many_gpus");
    ASSERT_NE(fact_in(stats.error().message, "gpu"), nullptr);
    EXPECT_EQ(*fact_in(stats.error().message, "gpu"), "many/100000");
    EXPECT_EQ(*fact_in(stats.error().message, "limit"), "100000");
    EXPECT_EQ(gpus.names().size(), limits::kMaxGpus);
  }
}

TEST(HardeningResourcesTelemetry, TheGpuLimitCountsAcrossFilesReadInParallel) {
  // 60,000 GPUs in a.csv, then 60,000 others in b.csv, which is over 32 MiB (hourly.cpp's
  // kParallelFrom) so that several threads read it: together 120,000. b's GPU 40,000 is the
  // 100,001st, on its line 40,002 (after the header).
  const std::string dir = temp_dir();
  const std::string a = write_file(dir, "a.csv", one_row_per_gpu(60'000));
  std::string rows = one_row_per_gpu(60'000);
  rows.reserve(33u << 20);
  // Then GPU 0 once a second from 10:00:01 on: each thread's part starts after the one before.
  char row[64];
  for (int t = 10 * 3600 + 1; rows.size() <= (33u << 20); ++t) {
    std::snprintf(row, sizeof row, "2024/05/%02d %02d:%02d:%02d.000, 0, 50 %%\n", 1 + t / 86400, t / 3600 % 24,
                  t / 60 % 60, t % 60);
    rows += row;
  }
  const std::string b = write_file(dir, "b.csv", rows);
  auto data = read_hourly({a, b}, SourceFormat::kSmiCsv);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().file, b);
  EXPECT_EQ(data.error().line, 40'002);
  EXPECT_EQ(data.error().message.key, "error.log.too_many_gpus");
  EXPECT_EQ(*fact_in(data.error().message, "gpu"), "b/40000");  // a's 60,000 counted first
}

TEST(HardeningResourcesTelemetry, AHighGpuIdInManyHoursIsAnErrorNotGigabytes) {
  // 20,000 GPUs in the first hour, then GPU 19,999 alone in each of 2,000 hours (803 KB): each
  // hour's row is 20,000 accumulators long, 40,020,000 in all (3.2 GB before). Hour k brings the
  // count to 20,000 + k x 20,000, past 25,000,000 (limits::kMaxGpuHours) at k = 1,250: its line
  // is 1 (header) + 20,000 + 1,250.
  std::string text = one_row_per_gpu(20'000);
  char row[64];
  for (int k = 1; k <= 2'000; ++k) {
    const time_t t = 1714521600 + (10 + k) * 3600;  // 2024-05-01 00:00 UTC, then 10 + k hours
    std::tm utc{};
    gmtime_r(&t, &utc);
    std::strftime(row, sizeof row, "%Y/%m/%d %H:%M:%S.000, 19999, 50 %%\n", &utc);
    text += row;
  }
  const std::string path = write_file(temp_dir(), "wide.csv", text);
  auto data = read_hourly({path}, SourceFormat::kSmiCsv);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().file, path);
  EXPECT_EQ(data.error().line, 21'251);
  EXPECT_EQ(data.error().message.key, "error.log.too_many_gpu_hours");
  EXPECT_EQ(*fact_in(data.error().message, "limit"), "25000000");
}

TEST(HardeningResourcesTelemetry, TheAggregatorStopsAtItsAccumulatorsAndAMergeIsAllOrNothing) {
  HourlyData out;
  std::atomic<int64_t> left{3};
  HourlyAggregator aggregator(out, &left);
  Sample s;
  s.utilization_pct = 50;
  s.time_ms = 0;  // hour 0: GPU 0, then GPU 1 (2 accumulators)
  aggregator.add(s);
  s.gpu = 1;
  aggregator.add(s);
  EXPECT_FALSE(aggregator.full());
  s.time_ms = 3'600'000;  // hour 1: GPU 5 needs a row of 6, with 1 left
  s.gpu = 5;
  aggregator.add(s);
  EXPECT_TRUE(aggregator.full());
  EXPECT_EQ(left.load(), 1);
  EXPECT_EQ(out.cells(), 2);

  // Merging {b: hour 7} into {a: hour 7} makes hour 7's row 2 long (b is GPU 1 here): 1 more.
  HourlyData a, b;
  a.gpus = {"h/a"};
  a.hours[7] = {HourAcc{1, 1, 0, 50, 0, 0, 0, {}}};
  b.gpus = {"h/b"};
  b.hours[7] = {HourAcc{1, 1, 0, 70, 0, 0, 0, {}}};
  int64_t none = 0;
  EXPECT_FALSE(a.merge(b, none));
  EXPECT_EQ(a.gpus.size(), 1u);  // unchanged
  EXPECT_EQ(a.cells(), 1);
  int64_t one = 1;
  EXPECT_TRUE(a.merge(b, one));
  EXPECT_EQ(one, 0);
  EXPECT_EQ(a.gpus, (std::vector<std::string>{"h/a", "h/b"}));
  EXPECT_EQ(a.hours[7][1].util_sum, 70);
}

TEST(HardeningResourcesTelemetry, YearsOneAndNineThousandAreAnErrorNotGigabytes) {
  // The 336-byte CSV of the issue: year 0001 then 9999 made usage allocate 3.9 GB of hours.
  const std::string path = write_file(temp_dir(), "clock.csv",
                                      std::string(kHeader) +
                                          "0001/01/01 00:00:00.000, 0, 50 %\n"
                                          "2024/05/01 10:00:00.000, 0, 50 %\n"
                                          "9999/12/31 23:00:00.000, 0, 50 %\n");
  auto data = read_hourly({path}, SourceFormat::kSmiCsv);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().file, path);
  EXPECT_EQ(data.error().line, 3);  // 2024 is more than 10 years after 0001: the first line too far
  EXPECT_EQ(data.error().message.key, "error.log.span_too_long");
  EXPECT_EQ(*fact_in(data.error().message, "first"), "0001-01-01");
  EXPECT_EQ(*fact_in(data.error().message, "last"), "0001-01-01");
  EXPECT_EQ(*fact_in(data.error().message, "time"), "2024-05-01 10:00:00");
  EXPECT_EQ(*fact_in(data.error().message, "years"), "10");
}

TEST(HardeningResourcesTelemetry, TheSpanLimitCountsAcrossFiles) {
  // Ten years less an hour in two files is read; one more hour in a third is refused at its line.
  // 2014-01-01 00:00 is hour 385,704 since 1970; + 87,660 hours = 2024-01-01 12:00 (2014..2023
  // hold 2 leap days: 3,652 days = 87,648 h, + 12 h).
  const std::string dir = temp_dir();
  const std::string a = write_file(dir, "a.csv", std::string(kHeader) + "2014/01/01 00:00:00.000, 0, 10 %\n");
  const std::string b = write_file(dir, "b.csv", std::string(kHeader) + "2024/01/01 12:59:59.000, 0, 20 %\n");
  const std::string c = write_file(
      dir, "c.csv", std::string(kHeader) + "2024/01/01 12:00:00.000, 0, 30 %\n" + "2024/01/01 13:00:00.000, 0, 30 %\n");
  auto ok = read_hourly({a, b}, SourceFormat::kSmiCsv);
  ASSERT_TRUE(ok.ok()) << ok.error().str();
  EXPECT_EQ(ok->hours.rbegin()->first - ok->hours.begin()->first, limits::kMaxSpanHours);
  auto data = read_hourly({a, b, c}, SourceFormat::kSmiCsv);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().file, c);
  EXPECT_EQ(data.error().line, 3);
  EXPECT_EQ(data.error().message.key, "error.log.span_too_long");
}

// A read of a path that is not a regular file: refused up front, whatever the reader.
void expect_refused(const std::string& path, const std::string& kind) {
  GpuRegistry gpus;
  CountingSink sink;
  for (SourceFormat f : {SourceFormat::kAuto, SourceFormat::kSmiCsv, SourceFormat::kDmon}) {
    auto stats = read_samples(path, f, gpus, sink);
    ASSERT_FALSE(stats.ok()) << path;
    EXPECT_EQ(stats.error().file, path);
    EXPECT_EQ(stats.error().message.key, "error.file.not_regular");
    EXPECT_EQ(testing::english(stats.error().message).find(kind) != std::string::npos, true)
        << testing::english(stats.error().message);
  }
  auto data = read_hourly({path}, SourceFormat::kSmiCsv);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().message.key, "error.file.not_regular");
  EXPECT_EQ(sink.samples, 0);
}

TEST(HardeningResourcesTelemetry, AFifoWithoutAWriterIsRefusedNotWaitedOn) {
  const std::string path = temp_dir() + "/pipe.csv";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  expect_refused(path, "FIFO");
}

TEST(HardeningResourcesTelemetry, DevZeroIsRefusedNotReadUntilMemoryRunsOut) {
  expect_refused("/dev/zero", "character device");
}

}  // namespace
}  // namespace gpuplan::telemetry
