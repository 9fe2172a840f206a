// G12 from an archive `gpuplan watch` wrote (issue 15): watch runs on the fake NVML while the test
// moves the fake clock an hour at a time, then `accept --archive ARCHIVE.db` judges
// health.archive from it: GPU 1's rising uncorrected ECC count fails it, naming the GPU and the
// hourly trend; the same GPUs with steady counts pass it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "watch/daemon_process.h"

namespace gpuplan::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Sets the fake NVML's clock to `seconds` since nvmlInit; by rename, so it never reads a half file.
void set_clock(const std::string& clock, int64_t seconds) {
  {
    std::ofstream out(clock + ".new");
    out << seconds << "\n";
  }
  fs::rename(clock + ".new", clock);
}

// Runs watch on `fixture` (tests/fixtures/nvml) as host rig-1 for four rounds of the fake clock,
// 0 h, 1 h, 2 h and 3 h, each committed to the archive before the next; the archive's path.
std::string watch_three_hours(const std::string& fixture) {
  const std::string dir = temp_dir();
  const std::string clock = dir + "/clock", archive = dir + "/archive.db", log = dir + "/watch.log";
  set_clock(clock, 0);
  // The fixture with its clock pointed at the test's file (the process helper clears the variable).
  const std::string scenario = write_file(
      dir, "scenario.yaml", read_file(source_path("tests/fixtures/nvml/" + fixture)) + "clock_file: " + clock + "\n");
  WatchProcess p({"--host", "rig-1", "--interval", "100ms", "--commit-every", "200ms", "--archive", archive, "--log",
                  log, "--kernel-log", "off", "--listen", "off"},
                 scenario);
  EXPECT_TRUE(eventually([&] { return !committed_batches(log).empty(); })) << read_file(log);
  for (int hour = 1; hour <= 3; ++hour) {
    set_clock(clock, hour * 3600);
    // The batch after the next one holds only readings taken after the clock moved.
    const size_t before = committed_batches(log).size();
    EXPECT_TRUE(eventually([&] { return committed_batches(log).size() >= before + 2; })) << read_file(log);
  }
  p.signal(SIGTERM);
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(log);
  return archive;
}

const json& health_archive(const json& report) {
  for (const auto& c : report.at("checks"))
    if (c.at("id") == "health.archive") return c;
  throw std::runtime_error("no check health.archive");
}

std::string accept_archive(const std::string& archive) {
  return "--lang en accept --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") + " --archive " + archive +
         " --format json";
}

TEST(ArchiveAccept, RisingUncorrectedEccInAWatchedArchiveFailsG12WithTheGpuAndTheHourlyTrend) {
  const std::string archive = watch_three_hours("archive-uncorrected-ecc-rising.yaml");
  auto r = run_gpuplan(accept_archive(archive));
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const json report = json::parse(r.out);
  const json& c = health_archive(report);
  EXPECT_EQ(c.at("status"), "fail") << c.dump(2);
  const std::string detail = c.at("detail");
  // 2 an hour for the 3 h the fake clock moved: 0 → 6, counted by the archive's readings and by
  // its hourly rollups (a real hour or two of the wall clock, however the rounds fell in them).
  EXPECT_NE(detail.find("rig-1/1 uncorrected ECC rose from 0 to 6"), std::string::npos) << detail;
  EXPECT_NE(detail.find("rig-1/1 aggregate uncorrected ECC rose in "), std::string::npos) << detail;
  EXPECT_NE(detail.find(", +6 in all (latest: "), std::string::npos) << detail;
  EXPECT_EQ(detail.find("rig-1/0"), std::string::npos) << "GPU 0's counts held still:\n" << detail;
}

TEST(ArchiveAccept, SteadyEccInAWatchedArchivePassesG12) {
  const std::string archive = watch_three_hours("archive-ecc-steady.yaml");
  auto r = run_gpuplan(accept_archive(archive));
  const json report = json::parse(r.out);
  const json& c = health_archive(report);
  EXPECT_EQ(c.at("status"), "pass") << c.dump(2) << r.err;
  EXPECT_NE(c.at("detail").get<std::string>().find("ECC counts steady"), std::string::npos) << c.dump(2);
}

}  // namespace
}  // namespace gpuplan::testing
