// The PCI probe on the fixture hosts (tests/fixtures/hosts/README.md has their layout) and on
// small broken trees built here: garbage in hex files, "Unknown" speeds, missing files, links
// that leave the root, bridges missing from the bus directory.
#include "probe/pci.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

namespace fs = std::filesystem;
using gpuplan::testing::source_path;

using Tree = gpuplan::testing::HostTree;

PciTopology probe(const std::string& root) {
  HostFs host(root);
  auto topo = probe_pci(host);
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().str());
  return topo.ok() ? *topo : PciTopology{};
}

PciTopology fixture(const std::string& host) {
  return probe(source_path("tests/fixtures/hosts/" + host));
}

std::vector<std::string> addresses(const std::vector<const PciDevice*>& devices) {
  std::vector<std::string> out;
  for (const auto* d : devices) out.push_back(d->address);
  return out;
}

using Strings = std::vector<std::string>;

// --- the healthy HGX ------------------------------------------------------------------------

TEST(PciTest, HgxHasEightA100sSixNvSwitchesFourHcasTwoNvmeAndTheirBridges) {
  auto topo = fixture("hgx-a100-8gpu");
  EXPECT_EQ(topo.devices.size(), 48u);
  EXPECT_EQ(addresses(topo.of_kind(PciKind::kGpu)),
            (Strings{"0000:03:00.0", "0000:04:00.0", "0000:43:00.0", "0000:44:00.0", "0000:83:00.0", "0000:84:00.0",
                     "0000:c3:00.0", "0000:c4:00.0"}));
  EXPECT_EQ(addresses(topo.of_kind(PciKind::kNvSwitch)),
            (Strings{"0000:46:00.0", "0000:47:00.0", "0000:48:00.0", "0000:c6:00.0", "0000:c7:00.0", "0000:c8:00.0"}));
  EXPECT_EQ(addresses(topo.of_kind(PciKind::kNic)),
            (Strings{"0000:05:00.0", "0000:45:00.0", "0000:85:00.0", "0000:c5:00.0"}));
  EXPECT_EQ(addresses(topo.of_kind(PciKind::kNvme)), (Strings{"0000:06:00.0", "0000:86:00.0"}));
  // 6 root ports, 4 switch upstream ports, 3 + 6 + 3 + 6 switch downstream ports.
  EXPECT_EQ(topo.of_kind(PciKind::kBridge).size(), 28u);
  EXPECT_TRUE(topo.of_kind(PciKind::kOther).empty());
  for (size_t i = 1; i < topo.devices.size(); ++i) EXPECT_LT(topo.devices[i - 1].address, topo.devices[i].address);
}

TEST(PciTest, HgxGpuSitsBehindItsSwitchPortSwitchAndRootPort) {
  auto topo = fixture("hgx-a100-8gpu");
  const PciDevice* gpu = topo.find("0000:43:00.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->sysfs_path, "/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:00.0/0000:43:00.0");
  EXPECT_EQ(gpu->vendor, 0x10de);
  EXPECT_EQ(gpu->device, 0x20b2);
  EXPECT_EQ(gpu->class_code, 0x030200u);
  EXPECT_EQ(gpu->kind, PciKind::kGpu);
  EXPECT_EQ(gpu->numa_node, 0);
  EXPECT_EQ(gpu->current.str(), "Gen4 x16");
  EXPECT_EQ(gpu->max.str(), "Gen4 x16");
  EXPECT_EQ(gpu->driver, "nvidia");
  EXPECT_EQ(gpu->iommu_group, 18);
  EXPECT_EQ(gpu->aspm, "");
  ASSERT_TRUE(gpu->aer.has_value());
  EXPECT_EQ(gpu->aer->correctable + gpu->aer->nonfatal + gpu->aer->fatal, 0u);
  EXPECT_EQ(gpu->upstream, (Strings{"0000:42:00.0", "0000:41:00.0", "0000:40:01.1"}));
  EXPECT_FALSE(gpu->root_port);

  const PciDevice* sw = topo.find("0000:41:00.0");
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->vendor, 0x1000);
  EXPECT_EQ(sw->device, 0xc010);
  EXPECT_EQ(sw->kind, PciKind::kBridge);
  EXPECT_FALSE(sw->root_port);
  EXPECT_EQ(sw->driver, "pcieport");
  EXPECT_EQ(sw->aer, std::nullopt);   // the fixture gives switch ports no AER files
  EXPECT_EQ(sw->aspm, std::nullopt);  // nor a link/ directory
  const PciDevice* rp = topo.find("0000:40:01.1");
  ASSERT_NE(rp, nullptr);
  EXPECT_TRUE(rp->root_port);
  EXPECT_TRUE(rp->upstream.empty());
  EXPECT_EQ(rp->vendor, 0x1022);
  EXPECT_EQ(rp->device, 0x1483);
}

TEST(PciTest, HgxSecondSocketGpusAreOnNumaNodeOne) {
  auto topo = fixture("hgx-a100-8gpu");
  for (const auto* gpu : topo.of_kind(PciKind::kGpu))
    EXPECT_EQ(gpu->numa_node, gpu->address < "0000:80" ? 0 : 1) << gpu->address;
}

TEST(PciTest, HgxBelowASwitchAreItsPortsTwoGpusAndTheHca) {
  auto topo = fixture("hgx-a100-8gpu");
  EXPECT_EQ(addresses(topo.below("0000:01:00.0")),
            (Strings{"0000:02:00.0", "0000:02:01.0", "0000:02:02.0", "0000:03:00.0", "0000:04:00.0", "0000:05:00.0"}));
  EXPECT_EQ(addresses(topo.below("0000:02:01.0")), Strings{"0000:04:00.0"});
  EXPECT_TRUE(topo.below("0000:03:00.0").empty());
  EXPECT_TRUE(topo.below("0000:99:00.0").empty());
  EXPECT_EQ(topo.find("0000:99:00.0"), nullptr);
}

TEST(PciTest, HgxNvmeIsDirectlyOnARootPortAtGen4x4) {
  auto topo = fixture("hgx-a100-8gpu");
  const PciDevice* nvme = topo.find("0000:86:00.0");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->upstream, Strings{"0000:80:03.1"});
  EXPECT_EQ(nvme->current.str(), "Gen4 x4");
  EXPECT_EQ(nvme->numa_node, 1);
  EXPECT_EQ(nvme->driver, "nvme");
  EXPECT_EQ(nvme->iommu_group, 33);
  EXPECT_EQ(nvme->vendor, 0x144d);
  EXPECT_EQ(nvme->device, 0xa824);
}

TEST(PciTest, HgxNvSwitchAndHcaCarryTheirDrivers) {
  auto topo = fixture("hgx-a100-8gpu");
  const PciDevice* nvswitch = topo.find("0000:c6:00.0");
  ASSERT_NE(nvswitch, nullptr);
  EXPECT_EQ(nvswitch->device, 0x1af1);
  EXPECT_EQ(nvswitch->class_code, 0x068000u);
  EXPECT_EQ(nvswitch->driver, "nvidia-nvswitch");
  EXPECT_EQ(nvswitch->current.str(), "Gen4 x2");
  EXPECT_EQ(nvswitch->upstream, (Strings{"0000:c2:03.0", "0000:c1:00.0", "0000:c0:01.1"}));
  const PciDevice* hca = topo.find("0000:85:00.0");
  ASSERT_NE(hca, nullptr);
  EXPECT_EQ(hca->vendor, 0x15b3);
  EXPECT_EQ(hca->device, 0x101b);
  EXPECT_EQ(hca->driver, "mlx5_core");
  EXPECT_EQ(hca->iommu_group, 32);
}

// --- the PLX host ---------------------------------------------------------------------------

TEST(PciTest, PlxUplinkTrainedAtGen3x8IsOnTheGpuPath) {
  auto topo = fixture("pcie-a100-4gpu-plx");
  const PciDevice* gpu = topo.find("0000:4d:00.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->upstream, (Strings{"0000:4c:08.0", "0000:4b:00.0", "0000:4a:02.0"}));
  EXPECT_EQ(gpu->current.str(), "Gen3 x16");  // the GPU's own link looks wide...
  EXPECT_EQ(gpu->max.str(), "Gen4 x16");
  const PciDevice* uplink = topo.find("0000:4b:00.0");
  ASSERT_NE(uplink, nullptr);
  EXPECT_EQ(uplink->vendor, 0x10b5);
  EXPECT_EQ(uplink->device, 0x8747);
  EXPECT_EQ(uplink->kind, PciKind::kBridge);
  EXPECT_FALSE(uplink->root_port);
  EXPECT_EQ(uplink->current.str(), "Gen3 x8");  // ...but both GPUs share this one
  EXPECT_EQ(uplink->max.str(), "Gen3 x16");
  EXPECT_NEAR(*uplink->current.gbytes_per_s(), 7.8769, 1e-4);  // 8 GT/s × 128/130 ÷ 8 × 8 lanes
  EXPECT_EQ(addresses(topo.below("0000:4b:00.0")),
            (Strings{"0000:4c:08.0", "0000:4c:10.0", "0000:4d:00.0", "0000:4e:00.0"}));
  const PciDevice* rp = topo.find("0000:4a:02.0");
  ASSERT_NE(rp, nullptr);
  EXPECT_TRUE(rp->root_port);
  EXPECT_EQ(rp->vendor, 0x8086);
  EXPECT_EQ(rp->current.str(), "Gen3 x8");
  EXPECT_EQ(rp->max.str(), "Gen4 x16");
}

TEST(PciTest, PlxCpuDirectGpuTrainedX8OfX16) {
  auto topo = fixture("pcie-a100-4gpu-plx");
  const PciDevice* gpu = topo.find("0000:31:00.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->device, 0x20b5);
  EXPECT_EQ(gpu->upstream, Strings{"0000:30:02.0"});
  EXPECT_EQ(gpu->current.speed_gts, 16.0);
  EXPECT_EQ(gpu->current.width, 8);
  EXPECT_EQ(gpu->max.width, 16);
  EXPECT_NEAR(*gpu->current.gbytes_per_s(), 15.7538, 1e-4);
  const PciDevice* fine = topo.find("0000:17:00.0");
  ASSERT_NE(fine, nullptr);
  EXPECT_EQ(fine->upstream, Strings{"0000:16:02.0"});
  EXPECT_EQ(fine->current.str(), "Gen4 x16");
}

TEST(PciTest, NumaNodeMinusOneIsNoNode) {
  auto topo = fixture("pcie-a100-4gpu-plx");
  ASSERT_EQ(topo.devices.size(), 12u);
  for (const auto& d : topo.devices) EXPECT_EQ(d.numa_node, std::nullopt) << d.address;
}

// --- AER, ASPM and IOMMU hosts ---------------------------------------------------------------

TEST(PciTest, AerTotalsComeFromTheTotalLines) {
  auto topo = fixture("aer-xid-a100");
  const PciDevice* gpu = topo.find("0000:01:00.0");
  ASSERT_NE(gpu, nullptr);
  ASSERT_TRUE(gpu->aer.has_value());
  EXPECT_EQ(gpu->aer->correctable, 12u);
  EXPECT_EQ(gpu->aer->nonfatal, 1u);
  EXPECT_EQ(gpu->aer->fatal, 0u);
  const PciDevice* nvme = topo.find("0000:02:00.0");
  ASSERT_NE(nvme, nullptr);
  ASSERT_TRUE(nvme->aer.has_value());
  EXPECT_EQ(nvme->aer->correctable, 3u);
  EXPECT_EQ(nvme->aer->nonfatal, 1u);
  const PciDevice* other = topo.find("0000:03:00.0");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->aer->correctable + other->aer->nonfatal + other->aer->fatal, 0u);
}

TEST(PciTest, AspmL1EnabledAndSharedIommuGroupAreReported) {
  auto topo = fixture("aspm-iommu-a100");
  for (const char* address : {"0000:41:00.0", "0000:42:00.0"}) {
    const PciDevice* gpu = topo.find(address);
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->aspm, "L1");
    EXPECT_EQ(gpu->iommu_group, 20);
  }
  EXPECT_EQ(topo.find("0000:41:00.0")->upstream, Strings{"0000:40:01.1"});
  EXPECT_EQ(topo.find("0000:42:00.0")->upstream, Strings{"0000:40:01.2"});
  EXPECT_EQ(topo.find("0000:40:01.1")->iommu_group, 0);
  EXPECT_EQ(topo.find("0000:40:01.2")->iommu_group, 1);
}

// --- PciLink, classification, addresses --------------------------------------------------------

TEST(PciTest, LinkGenerationFollowsTheSpeed) {
  EXPECT_EQ((PciLink{2.5, 1}.generation()), 1);
  EXPECT_EQ((PciLink{5.0, 1}.generation()), 2);
  EXPECT_EQ((PciLink{8.0, 1}.generation()), 3);
  EXPECT_EQ((PciLink{16.0, 1}.generation()), 4);
  EXPECT_EQ((PciLink{32.0, 1}.generation()), 5);
  EXPECT_EQ((PciLink{64.0, 1}.generation()), 6);
  EXPECT_EQ((PciLink{12.0, 1}.generation()), std::nullopt);
  EXPECT_EQ((PciLink{std::nullopt, 16}.generation()), std::nullopt);
}

TEST(PciTest, LinkBandwidthAfterLineCoding) {
  EXPECT_DOUBLE_EQ(*(PciLink{2.5, 1}.gbytes_per_s()), 0.25);        // 2.5 × 8/10 ÷ 8
  EXPECT_DOUBLE_EQ(*(PciLink{5.0, 4}.gbytes_per_s()), 2.0);         // 5 × 8/10 ÷ 8 × 4
  EXPECT_NEAR(*(PciLink{16.0, 16}.gbytes_per_s()), 31.5077, 1e-4);  // 16 × 128/130 ÷ 8 × 16
  EXPECT_NEAR(*(PciLink{32.0, 16}.gbytes_per_s()), 63.0154, 1e-4);
  EXPECT_DOUBLE_EQ(*(PciLink{64.0, 16}.gbytes_per_s()), 121.0);  // 64 × 242/256 ÷ 8 × 16
  EXPECT_EQ((PciLink{16.0, std::nullopt}.gbytes_per_s()), std::nullopt);
  EXPECT_EQ((PciLink{12.0, 16}.gbytes_per_s()), std::nullopt);
}

TEST(PciTest, LinkStringSaysWhatIsKnown) {
  EXPECT_EQ((PciLink{16.0, 16}.str()), "Gen4 x16");
  EXPECT_EQ((PciLink{8.0, 8}.str()), "Gen3 x8");
  EXPECT_EQ((PciLink{std::nullopt, 8}.str()), "Gen? x8");
  EXPECT_EQ((PciLink{8.0, std::nullopt}.str()), "Gen3 x?");
  EXPECT_EQ((PciLink{12.0, 4}.str()), "12 GT/s x4");
  EXPECT_EQ(PciLink{}.str(), "?");
}

TEST(PciTest, LinkSpeedParsesEveryKernelSpelling) {
  EXPECT_EQ(parse_link_speed("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(parse_link_speed("8.0 GT/s"), 8.0);
  EXPECT_EQ(parse_link_speed("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(parse_link_speed("5 GT/s"), 5.0);
  EXPECT_EQ(parse_link_speed("32.0 GT/s PCIe\n"), 32.0);
  EXPECT_EQ(parse_link_speed("Unknown"), std::nullopt);
  EXPECT_EQ(parse_link_speed("Unknown speed"), std::nullopt);
  EXPECT_EQ(parse_link_speed("16.0"), std::nullopt);
  EXPECT_EQ(parse_link_speed("16.0 Gb/s"), std::nullopt);
  EXPECT_EQ(parse_link_speed("-8.0 GT/s"), std::nullopt);
  EXPECT_EQ(parse_link_speed(""), std::nullopt);
}

TEST(PciTest, KindFollowsVendorAndClass) {
  EXPECT_EQ(classify_pci(0x10de, 0x030200), PciKind::kGpu);
  EXPECT_EQ(classify_pci(0x10de, 0x030000), PciKind::kGpu);
  EXPECT_EQ(classify_pci(0x10de, 0x068000), PciKind::kNvSwitch);
  EXPECT_EQ(classify_pci(0x10de, 0x040300), PciKind::kOther);  // the HDMI audio function
  EXPECT_EQ(classify_pci(0x1002, 0x030000), PciKind::kOther);  // a BMC's or AMD's VGA is no GPU here
  EXPECT_EQ(classify_pci(0x1022, 0x068000), PciKind::kOther);  // "other bridge" is NVSwitch only from NVIDIA
  EXPECT_EQ(classify_pci(0x15b3, 0x020700), PciKind::kNic);
  EXPECT_EQ(classify_pci(0x8086, 0x020000), PciKind::kNic);
  EXPECT_EQ(classify_pci(0x144d, 0x010802), PciKind::kNvme);
  EXPECT_EQ(classify_pci(0x8086, 0x010601), PciKind::kOther);  // AHCI SATA
  EXPECT_EQ(classify_pci(0x10b5, 0x060400), PciKind::kBridge);
  EXPECT_EQ(classify_pci(0x8086, 0x060401), PciKind::kBridge);  // subtractive decode
  EXPECT_EQ(classify_pci(0x1022, 0x060000), PciKind::kOther);   // host bridge
  EXPECT_EQ(classify_pci(0, 0), PciKind::kOther);
}

TEST(PciTest, KindNames) {
  EXPECT_STREQ(pci_kind_name(PciKind::kGpu), "gpu");
  EXPECT_STREQ(pci_kind_name(PciKind::kNvSwitch), "nvswitch");
  EXPECT_STREQ(pci_kind_name(PciKind::kNic), "nic");
  EXPECT_STREQ(pci_kind_name(PciKind::kNvme), "nvme");
  EXPECT_STREQ(pci_kind_name(PciKind::kBridge), "bridge");
  EXPECT_STREQ(pci_kind_name(PciKind::kOther), "other");
}

TEST(PciTest, AddressShape) {
  EXPECT_TRUE(is_pci_address("0000:17:00.0"));
  EXPECT_TRUE(is_pci_address("10000:e1:00.7"));  // an Intel VMD domain
  EXPECT_FALSE(is_pci_address("0000:17:00.8"));
  EXPECT_FALSE(is_pci_address("0000:17:00"));
  EXPECT_FALSE(is_pci_address("0000:1g:00.0"));
  EXPECT_FALSE(is_pci_address("pci0000:16"));
  EXPECT_FALSE(is_pci_address("00:17:00.0"));
  EXPECT_FALSE(is_pci_address(""));
}

// --- malformed trees --------------------------------------------------------------------------

TEST(PciTest, NoPciDirectoryIsAnError) {
  Tree t;
  t.file("/etc/hostname", "not-linux\n");
  HostFs host(t.root());
  auto topo = probe_pci(host);
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.error().file, t.root() + "/sys/bus/pci/devices");
  EXPECT_EQ(topo.error().message.key, "error.pci.no_devices");
}

TEST(PciTest, EmptyPciDirectoryIsNoDevices) {
  Tree t;
  t.file("/sys/bus/pci/devices/.keep", "");
  auto topo = probe(t.root());
  EXPECT_TRUE(topo.devices.empty());  // ".keep" is not an address
}

TEST(PciTest, GarbageInHexFilesReadsAsZeroAndOtherButTheRestIsKept) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", {{"vendor", "0xzz10\n"},
                                                                 {"device", "\n"},
                                                                 {"class", "0x0302000000\n"},
                                                                 {"numa_node", "0\n"},
                                                                 {"current_link_speed", "16.0 GT/s PCIe\n"},
                                                                 {"current_link_width", "16\n"}});
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->vendor, 0);
  EXPECT_EQ(d->device, 0);
  EXPECT_EQ(d->class_code, 0u);
  EXPECT_EQ(d->kind, PciKind::kOther);
  EXPECT_EQ(d->numa_node, 0);
  EXPECT_EQ(d->current.str(), "Gen4 x16");
}

TEST(PciTest, HexWithoutPrefixAndWithSpacesIsAccepted) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
           {{"vendor", "10de\n"}, {"device", " 0x20B5 \n"}, {"class", "0x030200\n"}});
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->vendor, 0x10de);
  EXPECT_EQ(d->device, 0x20b5);
  EXPECT_EQ(d->kind, PciKind::kGpu);
}

TEST(PciTest, UnknownSpeedAndZeroWidthAreNotALink) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", {{"vendor", "0x10de\n"},
                                                                 {"class", "0x030200\n"},
                                                                 {"current_link_speed", "Unknown\n"},
                                                                 {"current_link_width", "0\n"},
                                                                 {"max_link_speed", "16.0 GT/s PCIe\n"},
                                                                 {"max_link_width", "x16\n"},
                                                                 {"numa_node", "-1\n"}});
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->current.speed_gts, std::nullopt);
  EXPECT_EQ(d->current.width, std::nullopt);
  EXPECT_EQ(d->current.str(), "?");
  EXPECT_EQ(d->max.speed_gts, 16.0);
  EXPECT_EQ(d->max.width, std::nullopt);  // "x16" is not what sysfs writes
  EXPECT_EQ(d->numa_node, std::nullopt);
}

TEST(PciTest, MissingFilesLeaveEveryFieldEmpty) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", {{"vendor", "0x10de\n"}});
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->vendor, 0x10de);
  EXPECT_EQ(d->class_code, 0u);
  EXPECT_EQ(d->kind, PciKind::kOther);
  EXPECT_EQ(d->numa_node, std::nullopt);
  EXPECT_EQ(d->current.str(), "?");
  EXPECT_EQ(d->max.str(), "?");
  EXPECT_EQ(d->aer, std::nullopt);
  EXPECT_EQ(d->driver, "");
  EXPECT_EQ(d->iommu_group, std::nullopt);
  EXPECT_EQ(d->aspm, std::nullopt);
}

TEST(PciTest, AerWithoutTotalLineSumsTheCountersAndMissingFilesCountZero) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
           {{"aer_dev_correctable", "RxErr 2\nBadTLP 1\ngarbage\nBadDLLP x\n"},
            {"aer_dev_fatal", "DLP 0\nTOTAL_ERR_FATAL 4\n"}});
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->aer.has_value());
  EXPECT_EQ(d->aer->correctable, 3u);
  EXPECT_EQ(d->aer->nonfatal, 0u);
  EXPECT_EQ(d->aer->fatal, 4u);
}

TEST(PciTest, AspmStatesFromTheLinkDirectory) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", {{"link/l0s_aspm", "1\n"}, {"link/l1_aspm", "1\n"}});
  t.device("/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0", {{"link/l0s_aspm", "1\n"}, {"link/l1_aspm", "0\n"}});
  t.device("/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0", {{"link/l1_aspm", "0\n"}});
  auto topo = probe(t.root());
  EXPECT_EQ(topo.find("0000:01:00.0")->aspm, "L0s L1");
  EXPECT_EQ(topo.find("0000:02:00.0")->aspm, "L0s");
  EXPECT_EQ(topo.find("0000:03:00.0")->aspm, "");
}

TEST(PciTest, DeviceLinkLeavingTheRootIsKeptWithItsAddressOnly) {
  Tree t;
  t.link("/sys/bus/pci/devices/0000:01:00.0", "../../../../../../../../../../../../sys/devices/pci0000:00/x");
  auto topo = probe(t.root());
  ASSERT_EQ(topo.devices.size(), 1u);
  const PciDevice& d = topo.devices[0];
  EXPECT_EQ(d.address, "0000:01:00.0");
  EXPECT_EQ(d.sysfs_path, "");
  EXPECT_EQ(d.vendor, 0);
  EXPECT_TRUE(d.upstream.empty());
  EXPECT_FALSE(d.aer.has_value());
}

TEST(PciTest, DriverAndIommuLinksLeavingTheRootAreIgnored) {
  Tree t;
  std::string dir = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
  t.device(dir, {{"vendor", "0x10de\n"}});
  t.link(dir + "/driver", "../../../../../../../../../../../../../usr/lib/nvidia");
  t.link(dir + "/iommu_group", "/sys/kernel/iommu_groups/not-a-number");
  t.file("/sys/kernel/iommu_groups/not-a-number/type", "identity\n");
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->driver, "");
  EXPECT_EQ(d->iommu_group, std::nullopt);
}

TEST(PciTest, AbsoluteLinksOfACopiedSnapshotResolveInsideIt) {
  Tree t;
  std::string dir = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
  t.file(dir + "/vendor", "0x10de\n");
  t.file("/sys/devices/pci0000:00/0000:00:01.0/class", "0x060400\n");
  t.file("/sys/kernel/iommu_groups/7/type", "identity\n");
  t.link("/sys/bus/pci/devices/0000:01:00.0", dir);
  t.link("/sys/bus/pci/devices/0000:00:01.0", "/sys/devices/pci0000:00/0000:00:01.0");
  t.link(dir + "/iommu_group", "/sys/kernel/iommu_groups/7");
  auto topo = probe(t.root());
  const PciDevice* d = topo.find("0000:01:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->sysfs_path, dir);
  EXPECT_EQ(d->vendor, 0x10de);
  EXPECT_EQ(d->upstream, Strings{"0000:00:01.0"});
  EXPECT_EQ(d->iommu_group, 7);
  EXPECT_TRUE(topo.find("0000:00:01.0")->root_port);
}

TEST(PciTest, BridgeMissingFromTheBusDirectoryIsReadFromThePath) {
  Tree t;
  t.device("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0",
           {{"vendor", "0x10de\n"}, {"class", "0x030200\n"}});
  t.file("/sys/devices/pci0000:00/0000:00:01.0/class", "0x060400\n");
  t.file("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/class", "0x060400\n");
  t.file("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_speed", "8.0 GT/s PCIe\n");
  t.file("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "8\n");
  t.file("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/class", "0x060400\n");
  auto topo = probe(t.root());
  EXPECT_EQ(topo.devices.size(), 4u);
  const PciDevice* uplink = topo.find("0000:01:00.0");
  ASSERT_NE(uplink, nullptr);
  EXPECT_EQ(uplink->sysfs_path, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
  EXPECT_EQ(uplink->kind, PciKind::kBridge);
  EXPECT_EQ(uplink->current.str(), "Gen3 x8");
  EXPECT_EQ(uplink->upstream, Strings{"0000:00:01.0"});
  ASSERT_NE(topo.find("0000:00:01.0"), nullptr);
  EXPECT_TRUE(topo.find("0000:00:01.0")->root_port);
  EXPECT_EQ(addresses(topo.below("0000:00:01.0")), (Strings{"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}));
}

}  // namespace
}  // namespace gpuplan::probe
