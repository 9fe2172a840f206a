// End to end: `lspci -vvv` attached to pcie.topology and pcie.aer (issue 26), on the clean
// 8-GPU HGX host fixture (whose own sysfs passes both checks): what lspci shows decides where it
// is worse, a paste cut below its device's header never fails, and a file that is not lspci
// output is refused, naming it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::run_gpuplan;
using testing::source_path;

const json& check(const json& report, const std::string& id) {
  for (const auto& c : report.at("checks"))
    if (c.at("id") == id) return c;
  throw std::runtime_error("no check " + id);
}

json accept_with(const std::string& attach) {
  auto r = run_gpuplan("accept --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") + " --nvml off --attach " +
                       attach + " --format json --lang en");
  EXPECT_NE(r.exit_code, 2) << r.err;
  return json::parse(r.out);
}

bool contains(const json& finding, const std::string& what) {
  return finding.dump().find(what) != std::string::npos;
}

TEST(AcceptLspciTest, TheHostAloneIsClean) {
  auto r = run_gpuplan("accept --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") +
                       " --nvml off --format json --lang en");
  const json j = json::parse(r.out);
  EXPECT_EQ(check(j, "pcie.topology").at("status"), "pass") << check(j, "pcie.topology").dump();
  EXPECT_EQ(check(j, "pcie.aer").at("status"), "pass") << check(j, "pcie.aer").dump();
}

TEST(AcceptLspciTest, AGpuTrainedToFewerLanesFails) {
  const json c = check(accept_with("pcie.topology=" + source_path("tests/fixtures/tools/lspci-vvv-a100-x8-ours.txt")),
                       "pcie.topology");
  EXPECT_EQ(c.at("status"), "fail") << c.dump();
  EXPECT_TRUE(contains(c,
                       "lspci-vvv-a100-x8-ours.txt:28: 0000:17:00.0 trained to Gen4 x8, fewer lanes than its "
                       "Gen4 x16 (LnkSta against LnkCap)"))
      << c.dump();
}

TEST(AcceptLspciTest, SpeedAloneOrAnUnnamedDeviceWarns) {
  // janhq/jan 183: Gen1 of a Gen4 link, width intact, and no header to say which device.
  const json c = check(accept_with("pcie.topology=" + source_path("tests/fixtures/tools/lspci-lnksta-4090-spaces.txt")),
                       "pcie.topology");
  EXPECT_EQ(c.at("status"), "warn") << c.dump();
  EXPECT_TRUE(contains(c, "lspci-lnksta-4090-spaces.txt:2: ? trained to Gen1 x16, below its Gen4 x16")) << c.dump();
  EXPECT_TRUE(contains(c, "starts below a device's header line")) << c.dump();
  // The Pi's Quadro: its LnkCap is above the paste, but lspci's own "(downgraded)" says the link
  // lost lanes: a warning, since the paste does not say which device it is.
  const json pi =
      check(accept_with("pcie.topology=" + source_path("tests/fixtures/tools/lspci-vvv-quadro-pi-fragment.txt")),
            "pcie.topology");
  EXPECT_EQ(pi.at("status"), "warn") << pi.dump();
  EXPECT_TRUE(contains(pi, "lspci-vvv-quadro-pi-fragment.txt:4: ? trained to Gen2 x1, which lspci marks as downgraded"))
      << pi.dump();
  EXPECT_TRUE(contains(pi, "LnkSta Gen2 x1, LnkCap ?")) << pi.dump();
}

TEST(AcceptLspciTest, ACaptureWithoutAGpuLinkSaysSo) {
  // Only a bridge: nothing to judge, said, and the host's own pass stands.
  const std::string file = testing::write_file(
      testing::temp_dir(), "bridge.txt",
      "00:01.0 PCI bridge: Intel Corporation Device 09a4\n\t\tLnkSta:\tSpeed 16GT/s (ok), Width x16 (ok)\n");
  const json c = check(accept_with("pcie.topology=" + file), "pcie.topology");
  EXPECT_EQ(c.at("status"), "pass") << c.dump();
  EXPECT_TRUE(contains(c, "bridge.txt shows no NVIDIA GPU's link (LnkSta): nothing in it was judged")) << c.dump();
}

TEST(AcceptLspciTest, AerStatusBitsWarnAndAnUncorrectableOneOnAGpuFails) {
  // gpud's H100: CESta RxErr+ BadTLP+ Timeout+ (line 42): corrected errors since reset.
  const json h100 =
      check(accept_with("pcie.aer=" + source_path("tests/fixtures/tools/lspci-vvv-h100-gpud.txt")), "pcie.aer");
  EXPECT_EQ(h100.at("status"), "warn") << h100.dump();
  EXPECT_TRUE(contains(h100,
                       "lspci-vvv-h100-gpud.txt:42: 0000:19:00.0 AER status set: uncorrectable -, correctable "
                       "RxErr BadTLP Timeout"))
      << h100.dump();
  const json a100 =
      check(accept_with("pcie.aer=" + source_path("tests/fixtures/tools/lspci-vvv-a100-x8-ours.txt")), "pcie.aer");
  EXPECT_EQ(a100.at("status"), "fail") << a100.dump();  // UESta CmpltTO+ on the GPU
}

TEST(AcceptLspciTest, AFileThatIsNotLspciIsRefused) {
  const std::string file = testing::write_file(testing::temp_dir(), "lspci.txt", "00:00.0 Host bridge: Intel\n");
  auto r = run_gpuplan("accept --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") +
                       " --nvml off --attach pcie.topology=" + file + " --lang en");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(report::error_text(Error{file, 0, "LnkSta", Phrase("error.lspci.no_link_status")}, report::Lang::kEn)),
      std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gpuplan
