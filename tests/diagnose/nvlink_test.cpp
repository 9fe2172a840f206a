// H5 from what is already parsed (issue 12 item 7): `nvidia-smi nvlink --status` and NVML's link
// state say whether an SXM board's NVLinks are up (a link down is a fail finding), and a PCIe A100
// without bridges, whose links are inactive by design, is not told to use NVLink. The captures
// are tests/fixtures/tools/ (README.md there names their sources).
#include <gtest/gtest.h>

#include "core/files.h"
#include "diagnose/diagnose.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::diagnose {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::source_path;

probe::NvlinkStatus nvlink_fixture(const std::string& name) {
  auto text = read_text_file(source_path("tests/fixtures/tools/" + name));
  EXPECT_TRUE(text.ok()) << name;
  auto parsed = probe::parse_nvlink_status(text ? *text : std::string());
  EXPECT_TRUE(parsed.ok()) << parsed.error().str();
  return parsed ? *parsed : probe::NvlinkStatus{};
}

probe::GpuTopology topo_fixture(const std::string& name) {
  auto text = read_text_file(source_path("tests/fixtures/tools/" + name));
  EXPECT_TRUE(text.ok()) << name;
  auto parsed = probe::parse_topo_matrix(text ? *text : std::string());
  EXPECT_TRUE(parsed.ok()) << parsed.error().str();
  return parsed ? *parsed : probe::GpuTopology{};
}

// NVML facts for `n` GPUs named `name`, each with `links` NVLink states all set to `up`.
nvml::NvmlFacts gpus(int n, const std::string& name, size_t links, bool up) {
  nvml::NvmlFacts f;
  for (int i = 0; i < n; ++i) {
    nvml::GpuFacts g;
    g.info.index = static_cast<unsigned>(i);
    g.info.name = name;
    g.now.nvlink_active = std::vector<bool>(links, up);
    f.gpus.push_back(g);
  }
  return f;
}

std::vector<Phrase> listed(const Finding& f, const std::string& key) {
  const Fact* fact = find_fact(f.facts, key);
  return fact ? fact->phrases : std::vector<Phrase>{};
}

TEST(NvlinkTest, InactiveLinksOnAnSxmBoardFailNamingGpuAndLinks) {
  // nvlink-status-inactive.txt: GPU 0 (A100-SXM4-80GB) has links 3 and 7 <inactive>, GPU 1 all 12 up.
  DiagnoseInputs in;
  in.nvlink = nvlink_fixture("nvlink-status-inactive.txt");
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(f[0].message_key(), "diagnose.p2p/nvlink_inactive");
  EXPECT_EQ(*f[0].find_fact("gpus"), "1");
  EXPECT_EQ(listed(f[0], "links"),
            std::vector<Phrase>{Phrase("diagnose.nvlink_down").fact("gpu", "GPU0").fact("links", "3, 7")});
  EXPECT_EQ(listed(f[0], "where"), std::vector<Phrase>{Phrase("diagnose.from_nvlink_status")});
  for (auto lang : {report::Lang::kEn, report::Lang::kZh}) {
    auto words = report::localize(f[0], lang);
    EXPECT_EQ(words.detail.find('{'), std::string::npos) << words.detail;
    EXPECT_NE(words.detail.find("GPU0"), std::string::npos) << words.detail;
  }
}

TEST(NvlinkTest, AllLinksUpOnAnSxmBoardIsQuiet) {
  DiagnoseInputs in;
  in.nvlink = nvlink_fixture("nvlink-status-a100.txt");
  in.topo = topo_fixture("topo-hgx-8gpu.txt");  // every GPU pair NV12
  EXPECT_TRUE(findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p").empty());
}

TEST(NvlinkTest, SxmGpuWithEveryLinkDownFailsFromNvml) {
  // No nvlink --status capture: NVML's link state. GPU 1 has all 12 down (Fabric Manager not
  // running leaves them so), GPU 0 all up.
  DiagnoseInputs in;
  in.nvml = gpus(2, "NVIDIA A100-SXM4-80GB", 12, true);
  in.nvml->gpus[1].now.nvlink_active.assign(12, false);
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(
      listed(f[0], "links"),
      std::vector<Phrase>{
          Phrase("diagnose.nvlink_down").fact("gpu", "GPU1").fact("links", "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11")});
  EXPECT_EQ(listed(f[0], "where"), std::vector<Phrase>{Phrase("diagnose.from_nvml_nvlink")});
}

TEST(NvlinkTest, SxmGpuNvidiaSmiCallsAllInactiveFails) {
  // nvidia-smi prints "all links are inActive" and no Link lines for a GPU none of whose links is up.
  probe::NvlinkStatus status;
  status.gpus.push_back({0, "NVIDIA A100-SXM4-80GB", "GPU-0", {}});
  DiagnoseInputs in;
  in.nvlink = status;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(listed(f[0], "links"), std::vector<Phrase>{Phrase("diagnose.nvlink_all_down").fact("gpu", "GPU0")});
}

TEST(NvlinkTest, PcieA100WithoutBridgesIsNotToldToUseNvlink) {
  // Two A100 PCIe cards, no bridges: nvidia-smi says all links are inactive, NVML reports the 12
  // links disabled, topo -m shows the pairs over PCIe. That is the card's design: no finding.
  DiagnoseInputs in;
  in.nvlink = nvlink_fixture("nvlink-status-pcie-no-bridge.txt");
  in.nvml = gpus(2, "NVIDIA A100 80GB PCIe", 12, false);
  in.nvml->topology[{0, 1}] = 50;
  in.topo = topo_fixture("topo-pcie-4gpu.txt");
  EXPECT_TRUE(findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p").empty());
}

TEST(NvlinkTest, SxmModulesKnownOnlyFromThePciBusStillCount) {
  // No NVML and no names: the PCI bus shows A100 SXM4 80GB (10de:20b2, catalog form factor sxm)
  // and topo -m a pair over PCIe.
  DiagnoseInputs in;
  in.facts = probe::HostFacts{};
  probe::PciDevice gpu;
  gpu.address = "0000:03:00.0";
  gpu.kind = probe::PciKind::kGpu;
  gpu.vendor = 0x10de;
  gpu.device = 0x20b2;
  in.facts->pci.devices.push_back(gpu);
  in.topo = probe::GpuTopology{};
  in.topo->link[{"GPU0", "GPU1"}] = in.topo->link[{"GPU1", "GPU0"}] = "SYS";
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].message_key(), "diagnose.p2p/pcie_pairs");
  EXPECT_EQ(*f[0].find_fact("pairs"), "GPU0–GPU1 SYS");
  // The same bus with A100 PCIe cards (10de:20b5): quiet.
  in.facts->pci.devices[0].device = 0x20b5;
  EXPECT_TRUE(findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p").empty());
}

}  // namespace
}  // namespace gpuplan::diagnose
