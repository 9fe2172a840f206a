// The archive as a source: telemetry detects and reads it, and `usage`, `accept --archive`
// (G12 with the hourly ECC trend) and `diagnose` take it; `watch export` writes it back as
// nvidia-smi logs that read back to the same values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "archive/archive.h"
#include "archive/archive_fixture.h"
#include "archive/export.h"
#include "telemetry/readers.h"
#include "test_support.h"

namespace gpuplan::archive {
namespace {

using nlohmann::json;
using testing::archive_reading;
using testing::kArchiveT0;
using testing::run_gpuplan;

struct Collect : telemetry::SampleSink {
  std::vector<telemetry::Sample> samples;
  void add(const telemetry::Sample& s) override { samples.push_back(s); }
};

// Two GPUs every 5 s for `hours` hours; GPU 1's aggregate uncorrected count rises by
// `uncorrected_per_hour` at the start of each hour after the first (0: flat).
std::string hours_archive(const std::string& name, int hours, uint64_t uncorrected_per_hour) {
  const std::string path = testing::temp_dir() + "/" + name;
  std::vector<Reading> readings;
  for (int64_t t = 0; t < hours * 3600; t += 5) {
    for (unsigned gpu = 0; gpu < 2; ++gpu) {
      const uint64_t uncorrected = gpu == 1 ? uncorrected_per_hour * static_cast<uint64_t>(t / 3600) : 0;
      readings.push_back(archive_reading(kArchiveT0 + t * 1000, gpu, 60 + gpu, 20000, 55, 250, 0, uncorrected));
    }
  }
  testing::write_archive(path, 2, readings);
  return path;
}

TEST(ArchiveSource, TelemetryDetectsAndReadsIt) {
  const std::string path = testing::temp_dir() + "/src.db";
  Reading lost;
  lost.time_ms = kArchiveT0 + 5000;
  lost.gpu = 0;
  lost.lost = true;
  testing::write_archive(path, 2,
                         {archive_reading(kArchiveT0, 1, 75, 30000, 61, 301.5, 4, 1),
                          archive_reading(kArchiveT0, 0, 25, 1000, 40, 90, 0, 0), lost});
  auto format = telemetry::detect_format(path);
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, telemetry::SourceFormat::kArchive);
  telemetry::GpuRegistry gpus;
  Collect sink;
  auto stats = telemetry::read_samples(path, telemetry::SourceFormat::kAuto, gpus, sink);
  ASSERT_TRUE(stats.ok()) << stats.error().str();
  EXPECT_EQ(stats->lines, 3);    // every reading
  EXPECT_EQ(stats->samples, 2);  // the lost one gives no sample
  ASSERT_EQ(sink.samples.size(), 2u);
  EXPECT_EQ(gpus.names(), (std::vector<std::string>{"node-a/0", "node-a/1"}));  // the archive's host, GPU 0 first
  const telemetry::Sample& s = sink.samples[1];
  EXPECT_EQ(gpus.names()[s.gpu], "node-a/1");
  EXPECT_EQ(s.time_ms, kArchiveT0);
  EXPECT_EQ(s.utilization_pct, 75.0f);
  EXPECT_EQ(s.memory_used_mib, 30000.0f);
  EXPECT_EQ(s.memory_total_mib, 81920.0f);  // from the gpus table
  EXPECT_EQ(s.temperature_c, 61.0f);
  EXPECT_EQ(s.power_w, 301.5f);
  EXPECT_EQ(s.ecc_corrected, 4u);
  EXPECT_EQ(s.ecc_uncorrected, 1u);
}

TEST(ArchiveSource, ExportedCsvAndDmonReadBackToTheSameValues) {
  const std::string dir = testing::temp_dir();
  const std::string path = dir + "/rt.db";
  std::vector<Reading> written;
  for (int i = 0; i < 4; ++i) {
    for (unsigned gpu = 0; gpu < 2; ++gpu) {
      // Whole numbers: dmon prints whole watts and degrees, so these survive both forms exactly.
      written.push_back(archive_reading(kArchiveT0 + i * 5000, gpu, 10 * i + gpu, 1000 + i, 40 + i, 200 + gpu, i, 0));
    }
  }
  testing::write_archive(path, 2, written);
  for (const ExportFormat format : {ExportFormat::kSmiCsv, ExportFormat::kDmon}) {
    const std::string out_path = dir + (format == ExportFormat::kSmiCsv ? "/rt.csv" : "/rt.log");
    {
      std::ofstream out(out_path);
      auto lines = export_readings(path, format, INT64_MIN, INT64_MAX, out);
      ASSERT_TRUE(lines.ok());
      EXPECT_EQ(*lines, 8);
    }
    telemetry::GpuRegistry gpus;
    Collect sink;
    auto stats = telemetry::read_samples(out_path, telemetry::SourceFormat::kAuto, gpus, sink);
    ASSERT_TRUE(stats.ok()) << stats.error().str();
    EXPECT_EQ(stats->skipped_count, 0);
    ASSERT_EQ(sink.samples.size(), written.size());
    for (size_t i = 0; i < written.size(); ++i) {
      const telemetry::Sample& s = sink.samples[i];
      const nvml::GpuDynamic& v = written[i].values;
      EXPECT_EQ(s.time_ms, written[i].time_ms) << i;  // written in UTC, read with no zone
      EXPECT_EQ(gpus.names()[s.gpu].back() - '0', static_cast<int>(written[i].gpu)) << gpus.names()[s.gpu];
      EXPECT_EQ(s.utilization_pct, static_cast<float>(*v.utilization_pct)) << i;
      EXPECT_EQ(s.memory_used_mib, static_cast<float>(*v.memory_used_mib)) << i;
      EXPECT_EQ(s.temperature_c, static_cast<float>(*v.temperature_c)) << i;
      EXPECT_EQ(s.power_w, static_cast<float>(*v.power_w)) << i;
      EXPECT_EQ(s.sm_clock_mhz, 1410.0f) << i;
      if (format == ExportFormat::kSmiCsv) {
        EXPECT_EQ(s.ecc_corrected, v.ecc_volatile_corrected) << i;
        EXPECT_EQ(s.clock_event_reasons, 0u) << i;
      }
    }
  }
}

TEST(ArchiveSource, WatchExportWritesDmonToAFileAndLeavesNoFileOnFailure) {
  const std::string dir = testing::temp_dir();
  const std::string path = dir + "/cli.db";
  testing::write_archive(path, 1,
                         {archive_reading(kArchiveT0, 0, 50, 1000, 40, 200, 0, 0),
                          archive_reading(kArchiveT0 + 3'600'000, 0, 60, 1000, 40, 200, 0, 0)});
  // --format after `watch export` is the export's, not the global report format.
  auto r = run_gpuplan("watch export --format dmon --to 2026-03-02T00:30:00 " + path + " -o " + dir + "/out.log");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/out.log");
  std::string all((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(all,
            "#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk    fb  bar1\n"
            "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   MHz    MB    MB\n"
            " 20260302   00:00:00      0   200    40     -    50     -     -     -     -  1410  1000     -\n");
  auto csv = run_gpuplan("watch export " + path);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(testing::count_of(csv.out, "\n"), 3u);  // the header and both readings, on standard output
  EXPECT_EQ(csv.out.rfind("timestamp, name, pci.bus_id, index, utilization.gpu [%]", 0), 0u) << csv.out;
  auto missing = run_gpuplan("watch export " + dir + "/missing.db -o " + dir + "/never.csv");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find(dir + "/missing.db"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/never.csv"));
  size_t left = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    left += e.path().string().find(".tmp-") != std::string::npos;
  EXPECT_EQ(left, 0u);  // no temporary file left behind
  auto bad = run_gpuplan("watch export --format prom " + path);
  EXPECT_EQ(bad.exit_code, 2);
}

json check_of(const json& report, const std::string& id) {
  for (const auto& c : report.at("checks"))
    if (c.at("id") == id) return c;
  return {};
}

TEST(ArchiveSource, AcceptJudgesG12FromTheArchiveWithTheHourlyTrend) {
  const std::string root = testing::source_path("tests/fixtures/hosts/hgx-a100-8gpu");
  // GPU 1's aggregate uncorrected count: 0 in hour 0, 2 in hour 1, 4 in hour 2: it rose in 2 of
  // 3 hours, +2 each, +4 in all. Hours 0 and 1 are rolled up, hour 2 comes from the raw readings.
  const std::string rising = hours_archive("rising.db", 3, 2);
  {
    auto a = Archive::open(rising, "node-a");
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->maintain(kArchiveT0 + 2 * 3'600'000, 30LL * 24 * 3'600'000).ok());
  }
  auto r = run_gpuplan("accept --root " + root + " --nvml off --archive " + rising + " --format json --lang en");
  const json j = json::parse(r.out);
  const json g12 = check_of(j, "health.archive");
  EXPECT_EQ(g12.at("status"), "fail") << g12.dump();
  const std::string detail = g12.at("detail");
  EXPECT_NE(detail.find(testing::english(Phrase("accept.archive.trend_uncorrected")
                                             .fact("gpu", "node-a/1")
                                             .fact("hours", "2")
                                             .fact("of", "3")
                                             .fact("total", "4")
                                             .fact(list_of("rises", {"2026-03-02 01:00 +2", "2026-03-02 02:00 +2"})))),
            std::string::npos)
      << detail;
  EXPECT_EQ(detail.find("node-a/0 aggregate"), std::string::npos) << detail;  // GPU 0 stayed flat

  const std::string flat = hours_archive("flat.db", 3, 0);
  auto ok = run_gpuplan("accept --root " + root + " --nvml off --archive " + flat + " --format json --lang en");
  const json g12_flat = check_of(json::parse(ok.out), "health.archive");
  EXPECT_EQ(g12_flat.at("status"), "pass") << g12_flat.dump();
  EXPECT_EQ(g12_flat.at("detail").get<std::string>().find("aggregate"), std::string::npos);
}

TEST(ArchiveSource, UsageReadsTheArchive) {
  const std::string path = hours_archive("usage.db", 2, 0);
  auto usage = run_gpuplan("usage " + path + " --format json --lang en");
  ASSERT_EQ(usage.exit_code, 0) << usage.err;
  const json u = json::parse(usage.out);
  EXPECT_EQ(u.at("gpu_names"), json({"node-a/0", "node-a/1"}));
  EXPECT_EQ(u.at("gpu_mean_util"), json({60.0, 61.0}));  // hours_archive: 60 % on GPU 0, 61 % on GPU 1
}

TEST(ArchiveSource, DiagnoseReadsTheArchive) {
  const std::string path = testing::temp_dir() + "/hot.db";
  // GPU 1 held back by HW thermal slowdown (0x40) from minute 2 to minute 6 of ten.
  std::vector<Reading> readings;
  for (int64_t t = 0; t < 600; t += 5) {
    for (unsigned gpu = 0; gpu < 2; ++gpu) {
      Reading r = archive_reading(kArchiveT0 + t * 1000, gpu, 95, 20000, 70, 300, 0, 0);
      if (gpu == 1 && t >= 120 && t < 360) r.values.clock_event_reasons = 0x40;
      readings.push_back(r);
    }
  }
  testing::write_archive(path, 2, readings);
  auto diag = run_gpuplan("diagnose " + path + " --nvml off --format json --lang en");
  ASSERT_EQ(diag.exit_code, 0) << diag.err;
  const json d = json::parse(diag.out);
  EXPECT_EQ(d.at("host"), "node-a");  // the archive's host
  std::vector<std::string> thermal;
  for (const auto& f : d.at("findings")) {
    if (f.at("id") == "diagnose.thermal") thermal.push_back(f.dump());
  }
  ASSERT_EQ(thermal.size(), 1u) << diag.out;
  EXPECT_NE(thermal[0].find("node-a/1"), std::string::npos) << thermal[0];
}

}  // namespace
}  // namespace gpuplan::archive
