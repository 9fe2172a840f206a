// Demand is the GPUs held, not the GPUs busy (issue 27): a cloud bills a GPU held by a job
// whether its kernels run or not. Held = utilization above usage.held_util_above_pct or memory
// used above usage.held_memory_above_mib, as a fraction of the hour's readings; utilization is
// shown beside it as the efficiency of the held hours. Every figure is worked by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/usage_render.h"
#include "telemetry/hourly.h"
#include "test_support.h"
#include "usage/synth.h"
#include "usage/usage.h"

namespace gpuplan::usage {
namespace {

using gpuplan::testing::CliResult;
using gpuplan::testing::default_catalog;
using gpuplan::testing::run_gpuplan;
using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;
using nlohmann::json;

// The rule as `gpuplan usage` reads it from the catalog: above 0% or above 64 MiB.
telemetry::HeldRule catalog_rule() {
  const auto& cat = default_catalog();
  return {cat.threshold("usage.held_util_above_pct"), cat.threshold("usage.held_memory_above_mib")};
}

telemetry::HourlyData read(const std::string& path) {
  telemetry::ReadOptions options;
  options.held = catalog_rule();
  auto data = telemetry::read_hourly({path}, telemetry::SourceFormat::kAuto, {}, options);
  EXPECT_TRUE(data.ok()) << (data.ok() ? "" : data.error().str());
  return data.ok() ? *data : telemetry::HourlyData{};
}

Options held_options() {
  Options o;
  o.held = catalog_rule();
  return o;
}

// The case: four GPUs at 40% every reading. Each is held (40 > 0, 20,000 MiB > 64)
// every hour: 4 GPUs held, not "0 busy" (the old 50% threshold); efficiency 40%. Rent by the hour
// then costs 4 GPU-hours an hour: 4 × 26,280 h × ¥34.7 = ¥3,647,664 over the 3-year horizon.
TEST(UsageDemandTest, FourGpusAtFortyPercentAreFourGpusHeld) {
  std::string csv = "timestamp, index, utilization.gpu [%], memory.used [MiB]\n";
  for (int minute = 0; minute < 180; minute += 10)
    for (int g = 0; g < 4; ++g)
      csv += "2024/05/01 " + std::string(minute / 60 < 10 ? "0" : "") + std::to_string(minute / 60) + ":" +
             (minute % 60 < 10 ? "0" : "") + std::to_string(minute % 60) + ":00.000, " + std::to_string(g) +
             ", 40 %, 20000 MiB\n";
  const UsageResult r = analyse(read(write_file(temp_dir(), "forty.csv", csv)), held_options(), default_catalog());
  ASSERT_EQ(r.demand.size(), 3u);
  for (double d : r.demand) EXPECT_EQ(d, 4);
  EXPECT_EQ(r.held_gpu_hours, 12);
  EXPECT_DOUBLE_EQ(r.efficiency_pct, 40);
  ASSERT_TRUE(r.costs.has_value());
  for (const auto& s : r.costs->strategies) {
    if (s.id == "rent_hourly") {
      EXPECT_NEAR(s.total, 3647664, 1e-6);
    }
  }
  // 4 GPUs are not half an HGX board: owned as PCIe cards.
  EXPECT_EQ(r.owned_gpu, "a100-80gb-pcie");
}

// Real readings of an 8 × A100 node, two half an hour apart (tests/fixtures/usage/README.md):
//   GPU 0: 66% 932 MiB, then 0% 57,828 MiB: memory held both times → held 2 of 2 = 1.0
//   GPU 1: 100% 1,758 MiB, then 0% 0 MiB (idle, no process) → 1 of 2 = 0.5
//   GPUs 2–6: 77–100%, 73,539 MiB both times → 1.0 each = 5
//   GPU 7: 0% 14 MiB both times: under the 64 MiB floor → 0
// Held that hour: 1 + 0.5 + 5 + 0 = 6.5 GPUs. Utilization: hourly means 33 + 50 + 100 + 79 + 77 +
// 100 + 100 + 0 = 539 → 539 / 6.5 = 82.92% while held. Memory: (29,380 + 879 + 5 × 73,539 + 14)
// / 8 = 49,746 MiB a GPU = 60.73% of 80 GB (81,920 MiB).
TEST(UsageDemandTest, RealReadingsAreHeldByUtilizationOrMemory) {
  const UsageResult r = analyse(read(source_path("tests/fixtures/usage/smi-8xa100-held-and-free.csv")), held_options(),
                                default_catalog());
  ASSERT_EQ(r.gpus, 8);
  ASSERT_EQ(r.demand.size(), 1u);
  EXPECT_DOUBLE_EQ(r.demand[0], 6.5);
  EXPECT_NEAR(r.efficiency_pct, 539 / 6.5, 1e-9);
  EXPECT_EQ(r.memory_gib, 80);
  ASSERT_EQ(r.memory_by_day.cells.size(), 1u);
  EXPECT_NEAR(*r.memory_by_day.cells[0][10], 49746.0 / 81920 * 100, 1e-9);
  EXPECT_NEAR(*r.memory_by_weekday.cells[3][10], 49746.0 / 81920 * 100, 1e-9);  // 2026-05-14 was a Thursday

  const std::string table = report::render_usage(r, report::Format::kTable, {});
  EXPECT_NE(table.find("mean 6.5, peak 6.5; 6.5 GPU-hours held, 82.9% mean utilization while held"), std::string::npos)
      << table;
  EXPECT_NE(table.find("Day × hour: mean memory used, % of 80 GB"), std::string::npos) << table;
  const json j = json::parse(report::render_usage(r, report::Format::kJson, {}));
  EXPECT_EQ(j["demand"]["busy_gpus"][0], 6.5);
  EXPECT_EQ(j["demand"]["efficiency_pct"], 82.9231);  // 539 / 6.5 to 4 decimals
  EXPECT_EQ(j["demand"]["held_rule"]["memory_above_mib"], 64);
}

// A GPU held for half an hour of the hour is half a GPU-hour: readings every 10 minutes, three
// held (10:00, 10:10, 10:20), three free (0%, 0 MiB).
TEST(UsageDemandTest, DemandIsAFractionOfTheHour) {
  std::string csv = "timestamp, index, utilization.gpu [%], memory.used [MiB]\n";
  for (int m = 0; m < 60; m += 10)
    csv += "2024/05/01 10:" + std::string(m < 10 ? "0" : "") + std::to_string(m) + ":00.000, 0, " +
           (m < 30 ? "90 %, 30000 MiB\n" : "0 %, 0 MiB\n");
  const UsageResult r = analyse(read(write_file(temp_dir(), "half.csv", csv)), held_options(), default_catalog());
  ASSERT_EQ(r.demand.size(), 1u);
  EXPECT_DOUBLE_EQ(r.demand[0], 0.5);
  EXPECT_DOUBLE_EQ(r.efficiency_pct, 45 / 0.5);  // mean 45% over the hour, 90% while held
}

// Prometheus text puts utilization and memory on separate lines: each share is taken apart and
// the larger kept. GPU 0's two readings: 0% and 0% utilization, 30,000 and 0 MiB → utilization
// held 0 of 2, memory 1 of 2 → 0.5.
TEST(UsageDemandTest, SeparateMetricLinesAreHeldByTheLargerShare) {
  const std::string prom =
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"n\"} 0 1714557600000\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",Hostname=\"n\"} 30000 1714557600000\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"n\"} 0 1714559400000\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",Hostname=\"n\"} 0 1714559400000\n";
  const telemetry::HourlyData data = read(write_file(temp_dir(), "two.prom", prom));
  ASSERT_EQ(data.hours.size(), 1u);
  const telemetry::HourAcc& acc = data.hours.begin()->second[0];
  EXPECT_EQ(acc.util_held, 0);
  EXPECT_EQ(acc.mem_held, 1);
  EXPECT_EQ(acc.held_share(), 0.5);
}

// OpenMetrics timestamps are seconds, Prometheus text ones milliseconds: `usage synth --format
// openmetrics` reads back in 2024, on the same hours as --format prom, plain or gzip.
TEST(UsageDemandTest, OpenMetricsSecondsAndPrometheusMillisecondsEachByTheirRule) {
  SynthOptions o;
  o.pattern = SynthPattern::kNightlyPeak;
  o.gpus = 2;
  o.days = 1;
  o.interval_s = 600;
  std::ostringstream om, prom;
  o.format = SynthFormat::kOpenMetrics;
  synthesize(o, om);
  o.format = SynthFormat::kProm;
  synthesize(o, prom);
  const telemetry::HourlyData a = read(write_file(temp_dir(), "synth.om", om.str()));
  const telemetry::HourlyData b = read(write_file(temp_dir(), "synth.prom", prom.str()));
  ASSERT_EQ(a.hours.size(), 24u);
  EXPECT_EQ(a.hours.begin()->first, 1714348800 / 3600);  // 2024-04-29 00:00, not 1970
  ASSERT_EQ(b.hours.size(), 24u);
  EXPECT_EQ(b.hours.begin()->first, a.hours.begin()->first);
  for (const auto& [hour, accs] : a.hours) EXPECT_EQ(accs[0].mean_util(), b.hours.at(hour)[0].mean_util());

  // A fractional second is OpenMetrics too: 1714348800.5 s → 1714348800500 ms, hour 476208.
  const telemetry::HourlyData frac = read(write_file(
      temp_dir(), "frac.om",
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 50 1714348800.5\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 60 1714348900.25\n# EOF\n"));
  ASSERT_EQ(frac.hours.size(), 1u);
  EXPECT_EQ(frac.hours.begin()->first, 476208);
  EXPECT_EQ(frac.hours.begin()->second[0].mean_util(), 55.0);
  // Without "# EOF" the same fractional timestamp is not Prometheus text: the line is skipped.
  telemetry::ReadOptions options;
  auto text =
      telemetry::read_hourly({write_file(temp_dir(), "frac.prom", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 50 1714348800.5\n")},
                             telemetry::SourceFormat::kPromText, {}, options);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(text->hours.empty());
  EXPECT_EQ(text->stats.skipped_count, 1);
}

// Nothing to analyse is exit 2 naming what was read, never "0 hours … rent".
TEST(UsageDemandTest, NoDataAndASingleScrapeAreBadInput) {
  const std::string dir = temp_dir() + "/notes";
  std::filesystem::create_directories(dir);
  write_file(dir, "README.md", "# our GPU notes\n");
  const CliResult empty_dir = run_gpuplan("usage '" + dir + "'");
  EXPECT_EQ(empty_dir.exit_code, 2);
  EXPECT_NE(empty_dir.err.find(dir), std::string::npos) << empty_dir.err;
  EXPECT_NE(empty_dir.err.find("no GPU readings"), std::string::npos) << empty_dir.err;
  EXPECT_EQ(empty_dir.out, "");

  const CliResult readme = run_gpuplan("usage '" + dir + "/README.md'");
  EXPECT_EQ(readme.exit_code, 2);
  EXPECT_NE(readme.err.find("README.md:1"), std::string::npos) << readme.err;

  // A real dcgm-exporter scrape as curl gives it: one moment of one GPU, no timestamps.
  const std::string scrape = source_path("tests/fixtures/usage/dcgm-exporter-a100-one-scrape.prom");
  const CliResult bare = run_gpuplan("usage '" + scrape + "'");
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.err.find("one moment, not a history"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("--prometheus"), std::string::npos) << bare.err;

  // The same scrape saved with its time in the name: one reading of one GPU, a single scrape.
  std::ifstream in(scrape);
  const std::string body((std::istreambuf_iterator<char>(in)), {});
  const std::string series = temp_dir() + "/scrapes";
  std::filesystem::create_directories(series);
  const std::string first = write_file(series, "metrics-1714348800.prom", body);
  const CliResult one = run_gpuplan("usage '" + first + "'");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("single scrape"), std::string::npos) << one.err;
  const CliResult zh = run_gpuplan("usage '" + first + "' --lang zh");
  EXPECT_EQ(zh.exit_code, 2);
  EXPECT_NE(zh.err.find("这是一次抓取而不是历史"), std::string::npos) << zh.err;

  // Many timestamped scrapes are a series: the same scrape an hour later in the directory.
  write_file(series, "metrics-1714352400.prom", body);
  const CliResult two = run_gpuplan("usage '" + series + "' --format json");
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(json::parse(two.out)["hours"], 2);
}

// --busy-threshold is the utilization floor of "held": 0 is allowed, 100 is not.
TEST(UsageDemandTest, TheUtilizationFloorFlagTakesZeroAndRefusesAHundred) {
  const std::string csv = source_path("tests/fixtures/usage/smi-8xa100-held-and-free.csv");
  EXPECT_EQ(run_gpuplan("usage '" + csv + "' --busy-threshold 0 --format json").exit_code, 0);
  const CliResult hundred = run_gpuplan("usage '" + csv + "' --busy-threshold 100");
  EXPECT_EQ(hundred.exit_code, 2);
  EXPECT_NE(hundred.err.find("--busy-threshold"), std::string::npos) << hundred.err;
  // At a floor of 90%, utilization holds fewer GPUs but memory still holds them: GPU 1's
  // 100%/1,758 MiB reading is held by memory, so demand stays 6.5.
  const CliResult ninety = run_gpuplan("usage '" + csv + "' --busy-threshold 90 --format json");
  ASSERT_EQ(ninety.exit_code, 0) << ninety.err;
  EXPECT_EQ(json::parse(ninety.out)["demand"]["busy_gpus"][0], 6.5);
}

// Demand from job accounting is the same hourly demand: the real Hábrók sacct lines
// (tests/fixtures/jobs) held 4 s + 55,702 s + 41,003 s of one GPU each = 96,709 GPU-seconds =
// 26.8636 GPU-hours, at most 2 GPUs at once; priced as 2 PCIe cards (not half an HGX board).
TEST(UsageDemandTest, SacctAccountingIsTheSameHourlyDemand) {
  const CliResult r =
      run_gpuplan("usage --jobs '" + source_path("tests/fixtures/jobs/sacct-hb-jobinfo.txt") + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["demand"]["source"], "sacct");
  EXPECT_EQ(j["demand"]["held_gpu_hours"], 26.8636);
  EXPECT_EQ(j["gpus"], 2);
  EXPECT_EQ(j["hours"], 49);
  EXPECT_EQ(j["owned"]["gpu"], "a100-80gb-pcie");
  EXPECT_FALSE(j["strategies"].empty());
  const CliResult table = run_gpuplan("usage --jobs '" + source_path("tests/fixtures/jobs/sacct-hb-jobinfo.txt") + "'");
  EXPECT_NE(table.out.find("from sacct job accounting"), std::string::npos) << table.out;
  // Telemetry and accounting at once is refused: one source of demand.
  EXPECT_EQ(run_gpuplan("usage x.csv --jobs y.txt").exit_code, 2);
}

}  // namespace
}  // namespace gpuplan::usage
