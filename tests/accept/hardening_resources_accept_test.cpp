// accept on an empty host and on inputs that are not files (issue 16): a host with no GPUs found
// and no evidence never passes (needs-evidence naming what is missing, or fail when the PCI bus
// was read and holds no GPU); --root /dev/zero or a FIFO, and --firmware /dev/zero (hashed forever
// before), are refused with exit 2 naming the path, within seconds.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace gpuplan {
namespace {

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::temp_dir;
using json = nlohmann::json;

// Every run is stopped after 30 s: a hang is a failure, not a stuck test binary.
testing::CliResult accept(const std::string& args) {
  return run_gpuplan("accept --nvml off " + args, "timeout 30");
}

// The status of each check of a JSON report, by id.
std::map<std::string, std::string> severities(const json& report) {
  std::map<std::string, std::string> out;
  for (const json& c : report.at("checks")) out[c.at("id").get<std::string>()] = c.at("status").get<std::string>();
  return out;
}

void expect_nothing_passes(const testing::CliResult& r) {
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report.at("verdict"), "incomplete");
  const auto checks = severities(report);
  EXPECT_EQ(checks.size(), 15u);
  for (const auto& [id, status] : checks) EXPECT_EQ(status, "needs-evidence") << id;
  EXPECT_NE(r.out.find("Neither the PCI bus nor NVML was read"), std::string::npos);  // what is missing
}

TEST(HardeningResourcesAccept, AnEmptyRootDirectoryNeverPasses) {
  const std::string root = temp_dir();
  expect_nothing_passes(accept("--root " + root + " --format json --lang en"));
  // A pipeline that needs a complete acceptance refuses it.
  EXPECT_EQ(accept("--root " + root + " --require-complete --format json").exit_code, 1);
}

TEST(HardeningResourcesAccept, AnEmptyTarballNeverPasses) {
  const std::string dir = temp_dir();
  ASSERT_EQ(std::system(("tar cf " + dir + "/empty.tar -T /dev/null").c_str()), 0);
  expect_nothing_passes(accept("--root " + dir + "/empty.tar --format json --lang en"));
}

TEST(HardeningResourcesAccept, AHostWhosePciBusHoldsNoGpuFails) {
  const std::string root = temp_dir();
  std::filesystem::create_directories(root + "/sys/bus/pci/devices");
  auto r = accept("--root " + root + " --format json --lang en");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report.at("verdict"), "fail");
  EXPECT_EQ(severities(report).at("gpu.count"), "fail");
}

TEST(HardeningResourcesAccept, DevZeroOrAFifoAsRootIsRefused) {
  auto zero = accept("--root /dev/zero --lang en");
  EXPECT_EQ(zero.exit_code, 2) << zero.out;
  EXPECT_NE(zero.err.find("/dev/zero"), std::string::npos) << zero.err;
  EXPECT_NE(zero.err.find("character device"), std::string::npos) << zero.err;
  const std::string fifo = temp_dir() + "/snapshot.tar";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = accept("--root " + fifo + " --lang en");
  EXPECT_EQ(pipe.exit_code, 2) << pipe.out;  // 124 would be the timeout: it waited on the FIFO
  EXPECT_NE(pipe.err.find("FIFO"), std::string::npos) << pipe.err;
}

TEST(HardeningResourcesAccept, DevZeroAsFirmwareIsRefusedNotHashedForever) {
  auto r = accept("--root " + temp_dir() + " --firmware /dev/zero --lang en");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("/dev/zero"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--firmware"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("character device"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
