// probe_host on the four fixture hosts (tests/fixtures/hosts/README.md) and on small trees with
// what real hosts get wrong: missing files, no brackets in the ASPM policy, a driver file
// without a version, IB ports that are down and class devices without a `device` link.
#include "probe/host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

namespace fs = std::filesystem;
using gpuplan::testing::source_path;
using Strings = std::vector<std::string>;

// Every tree here is a host with a (possibly empty) PCI bus.
struct Tree : gpuplan::testing::HostTree {
  Tree() { file("/sys/bus/pci/devices/.keep", ""); }
};

HostFacts probe(const std::string& root) {
  HostFs host(root);
  auto facts = probe_host(host);
  EXPECT_TRUE(facts.ok()) << (facts.ok() ? "" : facts.error().str());
  return facts.ok() ? *facts : HostFacts{};
}

HostFacts fixture(const std::string& name) {
  return probe(source_path("tests/fixtures/hosts/" + name));
}

const std::string kCmdline =
    "BOOT_IMAGE=/boot/vmlinuz-5.15.0-91-generic root=UUID=6c1f2a9e-3b7d-4f0a-9d2e-81c4b5a7e0f3 ro";

TEST(HostTest, HgxHostFacts) {
  auto f = fixture("hgx-a100-8gpu");
  EXPECT_EQ(f.hostname, "hgx-a100-8gpu");
  EXPECT_EQ(f.pci.devices.size(), 48u);
  EXPECT_EQ(f.aspm_policy, "performance");
  EXPECT_EQ(f.kernel_cmdline, kCmdline + " amd_iommu=on iommu=pt quiet");
  ASSERT_TRUE(f.driver.has_value());
  EXPECT_EQ(f.driver->version, "535.129.03");
  EXPECT_EQ(f.driver->line, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023");
}

TEST(HostTest, HgxEveryGpuIsAloneInItsIommuGroup) {
  auto f = fixture("hgx-a100-8gpu");
  EXPECT_EQ(f.iommu_groups.size(), 48u);  // one per function, numbered 0-47 in address order
  EXPECT_EQ(f.iommu_groups.at(6), Strings{"0000:03:00.0"});
  EXPECT_EQ(f.iommu_groups.at(43), Strings{"0000:c4:00.0"});
  for (const auto* gpu : f.pci.of_kind(PciKind::kGpu)) {
    ASSERT_TRUE(gpu->iommu_group.has_value());
    EXPECT_EQ(f.iommu_groups.at(*gpu->iommu_group), Strings{gpu->address});
  }
}

TEST(HostTest, HgxFourHdrPortsActiveOnTheirHcas) {
  auto f = fixture("hgx-a100-8gpu");
  ASSERT_EQ(f.ib_ports.size(), 4u);
  const IbPort& p = f.ib_ports[0];
  EXPECT_EQ(p.device, "mlx5_0");
  EXPECT_EQ(p.port, 1);
  EXPECT_EQ(p.state, "4: ACTIVE");
  EXPECT_EQ(p.phys_state, "5: LinkUp");
  EXPECT_EQ(p.rate, "200 Gb/sec (4X HDR)");
  EXPECT_EQ(p.link_layer, "InfiniBand");
  EXPECT_TRUE(p.active());
  Strings hcas;
  for (const auto& port : f.ib_ports) {
    EXPECT_TRUE(port.active()) << port.device;
    hcas.push_back(port.device + "=" + port.pci_address);
  }
  EXPECT_EQ(hcas,
            (Strings{"mlx5_0=0000:05:00.0", "mlx5_1=0000:45:00.0", "mlx5_2=0000:85:00.0", "mlx5_3=0000:c5:00.0"}));
}

TEST(HostTest, HgxNvmeModelSerialFirmwareWithoutPadding) {
  auto f = fixture("hgx-a100-8gpu");
  ASSERT_EQ(f.nvme.size(), 2u);
  EXPECT_EQ(f.nvme[0].name, "nvme0");
  EXPECT_EQ(f.nvme[0].model, "SAMSUNG MZWLJ3T8HBLS-00007");
  EXPECT_EQ(f.nvme[0].serial, "S4YNNE0N800001");
  EXPECT_EQ(f.nvme[0].firmware, "EPK9CB5Q");
  EXPECT_EQ(f.nvme[0].pci_address, "0000:06:00.0");
  EXPECT_EQ(f.nvme[1].name, "nvme1");
  EXPECT_EQ(f.nvme[1].serial, "S4YNNE0N800002");
  EXPECT_EQ(f.nvme[1].pci_address, "0000:86:00.0");
}

TEST(HostTest, HgxProbeRemembersWhatASnapshotMustKeep) {
  HostFs host(source_path("tests/fixtures/hosts/hgx-a100-8gpu"));
  ASSERT_TRUE(probe_host(host).ok());
  const auto& files = host.files_read();
  auto has = [&](const std::string& p) { return std::find(files.begin(), files.end(), p) != files.end(); };
  EXPECT_TRUE(has("/etc/hostname"));
  EXPECT_TRUE(has("/proc/cmdline"));
  EXPECT_TRUE(has("/proc/driver/nvidia/version"));
  EXPECT_TRUE(has("/sys/module/pcie_aspm/parameters/policy"));
  EXPECT_TRUE(has("/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/aer_dev_correctable"));
  EXPECT_TRUE(has(
      "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:02.0/0000:05:00.0/infiniband/mlx5_0/ports/1/rate"));
  EXPECT_FALSE(has("/sys/bus/pci/devices/0000:03:00.0/vendor"));  // recorded where it resolved
  const auto& links = host.links_followed();
  auto followed = [&](const std::string& p) {
    return std::any_of(links.begin(), links.end(), [&](const auto& l) { return l.first == p; });
  };
  EXPECT_TRUE(followed("/sys/bus/pci/devices/0000:03:00.0"));
  EXPECT_TRUE(followed("/sys/class/nvme/nvme0"));
  EXPECT_TRUE(followed("/sys/kernel/iommu_groups/6/devices/0000:03:00.0"));
}

TEST(HostTest, PlxHostReadsTheOpenKernelModuleVersionAndHasNoInfiniBand) {
  auto f = fixture("pcie-a100-4gpu-plx");
  EXPECT_EQ(f.hostname, "pcie-a100-4gpu-plx");
  ASSERT_TRUE(f.driver.has_value());
  EXPECT_EQ(f.driver->version, "535.129.03");
  EXPECT_EQ(f.driver->line.rfind("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.129.03", 0), 0u);
  EXPECT_EQ(f.kernel_cmdline, kCmdline + " intel_iommu=on iommu=pt");
  EXPECT_TRUE(f.ib_ports.empty());
  ASSERT_EQ(f.nvme.size(), 1u);
  EXPECT_EQ(f.nvme[0].model, "SAMSUNG MZWLJ1T9HBJR-00007");
  EXPECT_EQ(f.nvme[0].pci_address, "0000:65:00.0");
  EXPECT_EQ(f.iommu_groups.size(), 12u);
}

TEST(HostTest, AerXidHostFacts) {
  auto f = fixture("aer-xid-a100");
  EXPECT_EQ(f.hostname, "aer-xid-a100");
  EXPECT_EQ(f.aspm_policy, "performance");
  ASSERT_EQ(f.nvme.size(), 1u);
  EXPECT_EQ(f.nvme[0].serial, "S4YNNE0N901877");
  EXPECT_EQ(f.nvme[0].pci_address, "0000:02:00.0");
  EXPECT_EQ(f.iommu_groups.at(3), Strings{"0000:01:00.0"});
  EXPECT_EQ(f.pci.of_kind(PciKind::kGpu).size(), 2u);
}

TEST(HostTest, AspmPowersaveAndBothGpusInOneIommuGroup) {
  auto f = fixture("aspm-iommu-a100");
  EXPECT_EQ(f.aspm_policy, "powersave");
  EXPECT_EQ(f.kernel_cmdline, kCmdline + " quiet splash");
  EXPECT_EQ(f.iommu_groups.size(), 3u);
  EXPECT_EQ(f.iommu_groups.at(20), (Strings{"0000:41:00.0", "0000:42:00.0"}));
  EXPECT_EQ(f.iommu_groups.at(0), Strings{"0000:40:01.1"});
  EXPECT_TRUE(f.ib_ports.empty());
  EXPECT_TRUE(f.nvme.empty());
}

// --- malformed and missing ---------------------------------------------------------------------

TEST(HostTest, NoPciDirectoryIsAnError) {
  HostFs host(gpuplan::testing::temp_dir());
  auto facts = probe_host(host);
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.error().message.key, "error.pci.no_devices");
}

TEST(HostTest, MissingFilesLeaveFactsEmpty) {
  Tree t;
  auto f = probe(t.root());
  EXPECT_EQ(f.hostname, "");
  EXPECT_TRUE(f.pci.devices.empty());
  EXPECT_EQ(f.aspm_policy, std::nullopt);
  EXPECT_EQ(f.kernel_cmdline, "");
  EXPECT_TRUE(f.iommu_groups.empty());
  EXPECT_TRUE(f.ib_ports.empty());
  EXPECT_TRUE(f.nvme.empty());
  EXPECT_EQ(f.driver, std::nullopt);
}

TEST(HostTest, HostnameFallsBackToTheKernelsWhenEtcHostnameIsMissingOrEmpty) {
  Tree t;
  t.file("/proc/sys/kernel/hostname", "node-17\n");
  EXPECT_EQ(probe(t.root()).hostname, "node-17");
  t.file("/etc/hostname", "\n");
  EXPECT_EQ(probe(t.root()).hostname, "node-17");
  t.file("/etc/hostname", "  gpu-a \n");
  EXPECT_EQ(probe(t.root()).hostname, "gpu-a");
}

TEST(HostTest, AspmPolicyIsTheBracketedWord) {
  Tree t;
  t.file("/sys/module/pcie_aspm/parameters/policy", "[default] performance powersave powersupersave\n");
  EXPECT_EQ(probe(t.root()).aspm_policy, "default");
  t.file("/sys/module/pcie_aspm/parameters/policy", "default performance powersave [powersupersave]\n");
  EXPECT_EQ(probe(t.root()).aspm_policy, "powersupersave");
  t.file("/sys/module/pcie_aspm/parameters/policy", "default performance powersave\n");
  EXPECT_EQ(probe(t.root()).aspm_policy, std::nullopt);
  t.file("/sys/module/pcie_aspm/parameters/policy", "default [] powersave\n");
  EXPECT_EQ(probe(t.root()).aspm_policy, std::nullopt);
}

TEST(HostTest, DriverVersionFileWithoutAVersionIsNoDriver) {
  Tree t;
  t.file("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  unknown\n");
  EXPECT_EQ(probe(t.root()).driver, std::nullopt);
  t.file("/proc/driver/nvidia/version", "GCC version:  gcc version 11.4.0\n");
  EXPECT_EQ(probe(t.root()).driver, std::nullopt);
  t.file("/proc/driver/nvidia/version",
         "NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.54.15  Tue Mar  5 19:15:24 UTC 2024\n");
  auto f = probe(t.root());
  ASSERT_TRUE(f.driver.has_value());
  EXPECT_EQ(f.driver->version, "550.54.15");
}

TEST(HostTest, IbPortDownWithoutDeviceLinkHasNoAddressAndIsNotActive) {
  Tree t;
  t.file("/sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
  t.file("/sys/class/infiniband/mlx5_0/ports/1/phys_state", "3: Disabled\n");
  t.file("/sys/class/infiniband/mlx5_0/ports/1/rate", "10 Gb/sec (4X SDR)\n");
  t.file("/sys/class/infiniband/mlx5_0/ports/README", "not a port\n");
  t.file("/sys/class/infiniband/mlx5_1/ports/2/state", "4: ACTIVE\n");
  t.file("/sys/class/infiniband/mlx5_1/ports/2/phys_state", "5: LinkUp\n");
  t.file("/sys/class/infiniband/mlx5_1/ports/2/link_layer", "Ethernet\n");
  t.file("/sys/devices/virtual/net/x/uevent", "\n");
  t.link("/sys/class/infiniband/mlx5_1/device", "../../../devices/virtual/net/x");
  auto f = probe(t.root());
  ASSERT_EQ(f.ib_ports.size(), 2u);
  EXPECT_EQ(f.ib_ports[0].device, "mlx5_0");
  EXPECT_EQ(f.ib_ports[0].state, "1: DOWN");
  EXPECT_EQ(f.ib_ports[0].link_layer, "");
  EXPECT_EQ(f.ib_ports[0].pci_address, "");
  EXPECT_FALSE(f.ib_ports[0].active());
  EXPECT_EQ(f.ib_ports[1].port, 2);
  EXPECT_EQ(f.ib_ports[1].link_layer, "Ethernet");
  EXPECT_EQ(f.ib_ports[1].pci_address, "");  // the device link leads to no PCI function
  EXPECT_TRUE(f.ib_ports[1].active());
}

TEST(HostTest, IbPortActiveNeedsBothStates) {
  EXPECT_TRUE((IbPort{"mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "", "", ""}.active()));
  EXPECT_TRUE((IbPort{"mlx5_0", 1, "ACTIVE", "LinkUp", "", "", ""}.active()));
  EXPECT_FALSE((IbPort{"mlx5_0", 1, "4: ACTIVE", "2: Polling", "", "", ""}.active()));
  EXPECT_FALSE((IbPort{"mlx5_0", 1, "2: INIT", "5: LinkUp", "", "", ""}.active()));
  EXPECT_FALSE(IbPort{}.active());
}

TEST(HostTest, NvmeWithoutDeviceLinkAndNonControllerEntries) {
  Tree t;
  t.file("/sys/class/nvme/nvme0/model", "Dell Ent NVMe v2 AGN RI U.2 1.92TB          \n");
  t.file("/sys/class/nvme/nvme0/serial", "   S6CRNE0T123456\n");
  t.file("/sys/class/nvme-fabrics/ctl/dev", "10:125\n");
  t.file("/sys/class/nvme/nvme-fabrics/dev", "10:125\n");
  auto f = probe(t.root());
  ASSERT_EQ(f.nvme.size(), 1u);
  EXPECT_EQ(f.nvme[0].name, "nvme0");
  EXPECT_EQ(f.nvme[0].model, "Dell Ent NVMe v2 AGN RI U.2 1.92TB");
  EXPECT_EQ(f.nvme[0].serial, "S6CRNE0T123456");
  EXPECT_EQ(f.nvme[0].firmware, "");
  EXPECT_EQ(f.nvme[0].pci_address, "");
}

TEST(HostTest, IommuGroupsWithNonNumericNamesOrNoMembersAreSkippedOrEmpty) {
  Tree t;
  t.file("/sys/kernel/iommu_groups/README", "\n");
  t.file("/sys/kernel/iommu_groups/3/type", "DMA\n");
  t.link("/sys/kernel/iommu_groups/4/devices/0000:01:00.0", "../../../../devices/gone");  // dangling: still a member
  auto f = probe(t.root());
  ASSERT_EQ(f.iommu_groups.size(), 2u);
  EXPECT_TRUE(f.iommu_groups.at(3).empty());
  EXPECT_EQ(f.iommu_groups.at(4), Strings{"0000:01:00.0"});
}

}  // namespace
}  // namespace gpuplan::probe
