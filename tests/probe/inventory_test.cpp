// What a delivered server is made of (probe_inventory) on the fixture hosts
// (tests/fixtures/hosts/README.md) and on small trees with what real hosts add: partitions, loop
// and multipath devices, virtual interfaces, SR-IOV functions, EDAC layouts by rank; the
// `dmidecode -t memory` reader on real captures (tests/fixtures/tools/README.md); and a snapshot
// that keeps every file the inventory read.
#include "probe/inventory.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "probe/attached_tools.h"
#include "probe/fake_host.h"
#include "probe/gather.h"
#include "probe/host.h"
#include "probe/snapshot.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::HostTree;
using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;

std::string host_fixture(const std::string& name) {
  return source_path("tests/fixtures/hosts/" + name);
}

Inventory inventory_of(const std::string& root) {
  HostFs fs(root);
  return probe_inventory(fs);
}

std::string tool_fixture(const std::string& name) {
  return gpuplan::testing::read_file(source_path("tests/fixtures/tools/" + name));
}

// Every field, one line each, so two inventories compare whole and a difference shows where.
std::string describe(const Inventory& inv) {
  std::ostringstream o;
  o << "cpu " << inv.cpu.model << " | " << inv.cpu.sockets << " | " << inv.cpu.logical_cpus << "\n";
  o << "mem " << (inv.memory.total_gib ? std::to_string(*inv.memory.total_gib) : "-") << " " << inv.memory.dimm_source
    << "\n";
  for (const auto& d : inv.memory.dimms)
    o << "dimm " << d.locator << " | " << d.size_gb << " | " << d.type << " | "
      << (d.speed_mts ? std::to_string(*d.speed_mts) : "-") << " | " << d.part_number << "\n";
  for (const auto& d : inv.disks)
    o << "disk " << d.name << " | " << d.transport << " | " << d.model << " | " << d.serial << " | "
      << static_cast<unsigned long long>(d.size_bytes) << " | " << d.rotational << d.removable << "\n";
  for (const auto& n : inv.nics)
    o << "nic " << n.name << " | " << n.pci_address << " | " << n.vendor_device << " | "
      << (n.speed_mbps ? std::to_string(*n.speed_mbps) : "-") << " | " << n.operstate << " | " << n.driver << "\n";
  return o.str();
}

std::vector<std::string> names_of(const std::vector<NetInterface>& nics) {
  std::vector<std::string> out;
  for (const auto& n : nics) out.push_back(n.name);
  return out;
}

std::vector<std::string> names_of(const std::vector<BlockDevice>& disks) {
  std::vector<std::string> out;
  for (const auto& d : disks) out.push_back(d.name);
  return out;
}

// --- The delivered hosts ---------------------------------------------------------------------------

TEST(InventoryTest, CleanDeliveredHostMatchesTheQuotedBillOfMaterials) {
  Inventory inv = inventory_of(host_fixture("delivered-a100-clean"));
  EXPECT_EQ(inv.cpu.model, "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(inv.cpu.sockets, 2);       // physical id 0 and 1
  EXPECT_EQ(inv.cpu.logical_cpus, 8);  // the fixture lists 8 of the 256 logical CPUs (README)

  // MemTotal 1056706052 kB = 1 TiB (1073741824 kB) less 17035772 kB kept by firmware and kernel;
  // 1056706052 / 1048576 = 1007.7534 GiB.
  ASSERT_TRUE(inv.memory.total_gib.has_value());
  EXPECT_NEAR(*inv.memory.total_gib, 1007.7534, 1e-4);
  EXPECT_EQ(inv.memory.dimm_source, "edac");
  ASSERT_EQ(inv.memory.dimms.size(), 16u);
  EXPECT_EQ(inv.memory.dimms.front().locator, "P0_Node0_Channel0_Dimm0 P1-DIMMA1");
  EXPECT_EQ(inv.memory.dimms[8].locator, "P1_Node0_Channel0_Dimm0 P2-DIMMA1");
  EXPECT_EQ(inv.memory.dimms.back().locator, "P1_Node0_Channel7_Dimm0 P2-DIMMH1");
  for (const auto& d : inv.memory.dimms) {
    EXPECT_EQ(d.size_gb, 64.0);  // size 65536 MiB / 1024
    EXPECT_EQ(d.type, "DDR4");   // dimm_mem_type Registered-DDR4
    EXPECT_FALSE(d.speed_mts.has_value());
    EXPECT_EQ(d.part_number, "");
  }

  // Four PM1733 3.84 TB: 7501476528 sectors × 512 = 3,840,755,982,336 bytes; loop0 left out.
  ASSERT_EQ(inv.disks.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const BlockDevice& d = inv.disks[i];
    EXPECT_EQ(d.name, "nvme" + std::to_string(i) + "n1");
    EXPECT_EQ(d.transport, "nvme");
    EXPECT_EQ(d.model, "SAMSUNG MZWLJ3T8HBLS-00007");
    EXPECT_EQ(d.serial, "S4YNNE0N8" + std::string("0000") + std::to_string(i + 1));
    EXPECT_EQ(d.size_bytes, 3840755982336.0);
    EXPECT_FALSE(d.rotational);
    EXPECT_FALSE(d.removable);
  }

  // Two dual-port ConnectX-6 Lx at 25 Gb/s; lo and docker0 (no `device` link) left out.
  EXPECT_EQ(names_of(inv.nics),
            (std::vector<std::string>{"enp10s0f0np0", "enp10s0f1np1", "enp138s0f0np0", "enp138s0f1np1"}));
  const std::vector<std::string> addresses{"0000:0a:00.0", "0000:0a:00.1", "0000:8a:00.0", "0000:8a:00.1"};
  for (size_t i = 0; i < inv.nics.size(); ++i) {
    EXPECT_EQ(inv.nics[i].pci_address, addresses[i]);
    EXPECT_EQ(inv.nics[i].vendor_device, "15b3:101f");
    EXPECT_EQ(inv.nics[i].speed_mbps, 25000);
    EXPECT_EQ(inv.nics[i].operstate, "up");
    EXPECT_EQ(inv.nics[i].driver, "mlx5_core");
  }
}

TEST(InventoryTest, SwappedDeliveredHostShowsEachSwappedPart) {
  Inventory inv = inventory_of(host_fixture("delivered-a100-swapped"));
  EXPECT_EQ(inv.cpu.model, "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(inv.cpu.sockets, 2);

  // 12 × 64 GiB = 768 GiB = 805306368 kB, less the same 17035772 kB: 788270596 kB = 751.7534 GiB.
  ASSERT_TRUE(inv.memory.total_gib.has_value());
  EXPECT_NEAR(*inv.memory.total_gib, 751.7534, 1e-4);
  ASSERT_EQ(inv.memory.dimms.size(), 12u);  // channels G and H of each socket empty
  EXPECT_EQ(inv.memory.dimms[5].locator, "P0_Node0_Channel5_Dimm0 P1-DIMMF1");
  EXPECT_EQ(inv.memory.dimms[6].locator, "P1_Node0_Channel0_Dimm0 P2-DIMMA1");
  for (const auto& d : inv.memory.dimms) EXPECT_EQ(d.size_gb, 64.0);

  // nvme3n1 is a 1.92 TB PM1733: 3750748848 sectors × 512 = 1,920,383,410,176 bytes.
  ASSERT_EQ(inv.disks.size(), 4u);
  EXPECT_EQ(inv.disks[2].size_bytes, 3840755982336.0);
  EXPECT_EQ(inv.disks[3].model, "SAMSUNG MZWLJ1T9HBJR-00007");
  EXPECT_EQ(inv.disks[3].size_bytes, 1920383410176.0);

  // Intel X710 dual-port 10GbE (no mlx5 port-name suffix) instead of ConnectX-6 Lx.
  EXPECT_EQ(names_of(inv.nics), (std::vector<std::string>{"enp10s0f0", "enp10s0f1", "enp138s0f0", "enp138s0f1"}));
  for (const auto& n : inv.nics) {
    EXPECT_EQ(n.vendor_device, "8086:1572");
    EXPECT_EQ(n.speed_mbps, 10000);
    EXPECT_EQ(n.driver, "i40e");
  }
}

TEST(InventoryTest, ProbeHostFillsTheInventory) {
  HostFs fs(host_fixture("delivered-a100-clean"));
  auto facts = probe_host(fs);
  ASSERT_TRUE(facts.ok()) << facts.error().str();
  EXPECT_EQ(describe(facts->inventory), describe(inventory_of(host_fixture("delivered-a100-clean"))));
  EXPECT_EQ(facts->inventory.disks.size(), 4u);
  ASSERT_TRUE(facts->driver.has_value());
  EXPECT_EQ(facts->driver->version, "535.104.05");  // the clean contract's driver
}

TEST(InventoryTest, OlderFixtureHostsHaveCpuAndMemory) {
  Inventory hgx = inventory_of(host_fixture("hgx-a100-8gpu"));
  EXPECT_EQ(hgx.cpu.model, "AMD EPYC 7742 64-Core Processor");
  EXPECT_EQ(hgx.cpu.sockets, 2);
  ASSERT_TRUE(hgx.memory.total_gib.has_value());
  EXPECT_NEAR(*hgx.memory.total_gib, 1007.7534, 1e-4);
  EXPECT_TRUE(hgx.memory.dimms.empty());
  EXPECT_EQ(hgx.memory.dimm_source, "");
  EXPECT_TRUE(hgx.disks.empty());  // no /sys/block in this tree
  EXPECT_TRUE(hgx.nics.empty());   // no /sys/class/net

  Inventory plx = inventory_of(host_fixture("pcie-a100-4gpu-plx"));
  EXPECT_EQ(plx.cpu.model, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz");
  EXPECT_EQ(plx.cpu.sockets, 1);
  // 256 GiB = 268435456 kB, less 17035772 kB: 251399684 kB = 239.7534 GiB.
  EXPECT_NEAR(*plx.memory.total_gib, 239.7534, 1e-4);
}

// --- What the inventory leaves out, and what a host does not say ---------------------------------

TEST(InventoryTest, LeavesOutWhatIsNotADeliveredDiskOrPort) {
  HostTree t;
  const std::string pci = "/sys/devices/pci0000:00/0000:00:01.0";
  // A namespace, its partition as /sys/class/block lists it, a multipath path, loop, optical.
  t.link("/sys/block/nvme0n1", "../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1");
  t.file(pci + "/0000:01:00.0/nvme/nvme0/nvme0n1/size", "7501476528\n");
  t.link("/sys/block/nvme0n1p1", "../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1/nvme0n1p1");
  t.file(pci + "/0000:01:00.0/nvme/nvme0/nvme0n1/nvme0n1p1/partition", "1\n");
  t.file(pci + "/0000:01:00.0/nvme/nvme0/nvme0n1/nvme0n1p1/size", "2048\n");
  for (const std::string name : {"nvme0c0n1", "loop0", "sr0", "dm-0", "md127", "zram0", "ram0"}) {
    t.file("/sys/devices/virtual/block/" + name + "/size", "8\n");
    t.link("/sys/block/" + name, "../devices/virtual/block/" + name);
  }
  // A physical function, one of its SR-IOV virtual functions, a bond, an IPoIB port.
  t.file(pci + "/0000:02:00.0/vendor", "0x15b3\n");
  t.file(pci + "/0000:02:00.0/device", "0x101f\n");
  t.file(pci + "/0000:02:00.0/net/ens1f0/speed", "-1\n");  // link down: SPEED_UNKNOWN
  t.file(pci + "/0000:02:00.0/net/ens1f0/operstate", "down\n");
  t.link("/sys/class/net/ens1f0", "../../devices/pci0000:00/0000:00:01.0/0000:02:00.0/net/ens1f0");
  t.link(pci + "/0000:02:00.0/net/ens1f0/device", "../../../0000:02:00.0");
  t.file(pci + "/0000:02:00.2/vendor", "0x15b3\n");
  t.link(pci + "/0000:02:00.2/physfn", "../0000:02:00.0");
  t.file(pci + "/0000:02:00.2/net/ens1f0v0/speed", "25000\n");
  t.link("/sys/class/net/ens1f0v0", "../../devices/pci0000:00/0000:00:01.0/0000:02:00.2/net/ens1f0v0");
  t.link(pci + "/0000:02:00.2/net/ens1f0v0/device", "../../../0000:02:00.2");
  t.file("/sys/devices/virtual/net/bond0/operstate", "up\n");
  t.link("/sys/class/net/bond0", "../../devices/virtual/net/bond0");
  t.file(pci + "/0000:03:00.0/net/ibp3s0/type", "32\n");
  t.link("/sys/class/net/ibp3s0", "../../devices/pci0000:00/0000:00:01.0/0000:03:00.0/net/ibp3s0");
  t.link(pci + "/0000:03:00.0/net/ibp3s0/device", "../../../0000:03:00.0");

  Inventory inv = inventory_of(t.root());
  EXPECT_EQ(names_of(inv.disks), std::vector<std::string>{"nvme0n1"});
  ASSERT_EQ(names_of(inv.nics), std::vector<std::string>{"ens1f0"});
  EXPECT_EQ(inv.nics[0].vendor_device, "15b3:101f");
  EXPECT_FALSE(inv.nics[0].speed_mbps.has_value());  // -1 is no speed, not a slow one
  EXPECT_EQ(inv.nics[0].operstate, "down");
  EXPECT_EQ(inv.nics[0].driver, "");  // no driver bound
}

TEST(InventoryTest, TransportFromTheDevicePathAndNaturalOrder) {
  HostTree t;
  auto disk = [&](const std::string& name, const std::string& path, const std::string& model, bool rotational,
                  bool removable) {
    t.link("/sys/block/" + name, "../devices/" + path + "/block/" + name);
    const std::string dir = "/sys/devices/" + path + "/block/" + name;
    t.file(dir + "/size", "937703088\n");  // 480 GB SATA SSD: × 512 = 480,103,981,056 bytes
    t.file(dir + "/queue/rotational", rotational ? "1\n" : "0\n");
    t.file(dir + "/removable", removable ? "1\n" : "0\n");
    t.file("/sys/devices/" + path + "/model", model + "\n");
    t.link(dir + "/device", "../..");
  };
  disk("sda", "pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0", "SAMSUNG MZ7L3480HCHQ-00A07", false, false);
  disk("sdb", "pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0", "Ultra Fit", false, true);
  disk("sdc", "pci0000:3a/0000:3a:00.0/0000:3b:00.0/host0/port-0:1/end_device-0:1/target0:0:1/0:0:1:0",
       "ST8000NM0055-1RM", true, false);
  disk("vda", "pci0000:00/0000:00:05.0/virtio2", "", false, false);
  disk("nvme10n1", "pci0000:00/0000:00:02.0/0000:04:00.0/nvme/nvme10", "", false, false);
  disk("nvme2n1", "pci0000:00/0000:00:03.0/0000:05:00.0/nvme/nvme2", "", false, false);

  Inventory inv = inventory_of(t.root());
  EXPECT_EQ(names_of(inv.disks), (std::vector<std::string>{"nvme2n1", "nvme10n1", "sda", "sdb", "sdc", "vda"}));
  std::vector<std::string> transports;
  for (const auto& d : inv.disks) transports.push_back(d.transport);
  EXPECT_EQ(transports, (std::vector<std::string>{"nvme", "nvme", "sata", "usb", "sas", "virtio"}));
  EXPECT_EQ(inv.disks[2].model, "SAMSUNG MZ7L3480HCHQ-00A07");
  EXPECT_EQ(inv.disks[2].size_bytes, 480103981056.0);
  EXPECT_TRUE(inv.disks[3].removable);
  EXPECT_TRUE(inv.disks[4].rotational);
}

TEST(InventoryTest, EdacListsDimmsNotRanks) {
  HostTree t;
  const std::string mc = "/sys/devices/system/edac/mc";
  t.file(mc + "/mc0/dimm0/size", "0\n");  // an empty slot some drivers still list
  t.file(mc + "/mc0/dimm1/size", "32768\n");
  t.file(mc + "/mc0/dimm1/dimm_mem_type", "Registered-DDR5\n");
  t.file(mc + "/mc0/dimm1/dimm_label", "\n");  // no label registered: where EDAC found it instead
  t.file(mc + "/mc10/dimm0/size", "16384\n");
  t.file(mc + "/mc10/dimm0/dimm_mem_type", "Unknown\n");
  t.file(mc + "/mc2/dimm0/size", "16384\n");
  t.file(mc + "/mc2/dimm0/dimm_mem_type", "LRDDR4\n");
  Inventory inv = inventory_of(t.root());
  ASSERT_EQ(inv.memory.dimms.size(), 3u);
  EXPECT_EQ(inv.memory.dimms[0].locator, "mc0/dimm1");
  EXPECT_EQ(inv.memory.dimms[0].size_gb, 32.0);
  EXPECT_EQ(inv.memory.dimms[0].type, "DDR5");
  EXPECT_EQ(inv.memory.dimms[1].locator, "mc2/dimm0");  // mc2 before mc10
  EXPECT_EQ(inv.memory.dimms[1].type, "DDR4");
  EXPECT_EQ(inv.memory.dimms[2].type, "");
  EXPECT_EQ(inv.memory.dimm_source, "edac");

  // amd64_edac: ranks by chip select ("csrow 3 channel 1", lkml capture in the README); kernels
  // before 3.6: csrowN. Neither says which ranks make a module: no DIMM list, not a doubled one.
  HostTree ranks;
  ranks.file(mc + "/mc0/rank5/size", "8192\n");
  ranks.file(mc + "/mc0/rank5/dimm_mem_type", "Unbuffered-DDR4\n");
  ranks.file(mc + "/mc0/rank7/size", "8192\n");
  ranks.file(mc + "/mc0/csrow0/size_mb", "16384\n");
  Inventory by_rank = inventory_of(ranks.root());
  EXPECT_TRUE(by_rank.memory.dimms.empty());
  EXPECT_EQ(by_rank.memory.dimm_source, "");
}

TEST(InventoryTest, Arm64CpuinfoTakesSocketsFromSysfs) {
  HostTree t;
  // An arm64 /proc/cpuinfo: no "model name", no "physical id".
  t.file(
      "/proc/cpuinfo",
      "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n"
      "processor\t: 1\nBogoMIPS\t: 50.00\n\nprocessor\t: 2\nBogoMIPS\t: 50.00\n\nprocessor\t: 3\nBogoMIPS\t: 50.00\n");
  for (int cpu = 0; cpu < 4; ++cpu)
    t.file("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/physical_package_id",
           cpu < 2 ? "0\n" : "1\n");
  t.file("/sys/devices/system/cpu/cpufreq/boost", "0\n");  // not a cpuN directory
  Inventory inv = inventory_of(t.root());
  EXPECT_EQ(inv.cpu.model, "");
  EXPECT_EQ(inv.cpu.sockets, 2);
  EXPECT_EQ(inv.cpu.logical_cpus, 4);
}

TEST(InventoryTest, MissingFilesLeaveFieldsEmpty) {
  HostTree t;
  t.file("/proc/meminfo", "MemFree:  1000 kB\n");  // no MemTotal line
  Inventory inv = inventory_of(t.root());
  EXPECT_EQ(inv.cpu.model, "");
  EXPECT_EQ(inv.cpu.sockets, 0);
  EXPECT_EQ(inv.cpu.logical_cpus, 0);
  EXPECT_FALSE(inv.memory.total_gib.has_value());
  EXPECT_TRUE(inv.memory.dimms.empty());
  EXPECT_EQ(inv.memory.dimm_source, "");
  EXPECT_TRUE(inv.disks.empty());
  EXPECT_TRUE(inv.nics.empty());

  HostTree bytes;
  bytes.file("/proc/meminfo", "MemTotal:       1056706052\n");  // no unit: not guessed
  EXPECT_FALSE(inventory_of(bytes.root()).memory.total_gib.has_value());
}

// --- Snapshot ------------------------------------------------------------------------------------

TEST(InventoryTest, SnapshotKeepsWhatTheInventoryRead) {
  for (const char* name : {"delivered-a100-clean", "delivered-a100-swapped"}) {
    FakeHost host(host_fixture(name), /*live=*/false);
    GatherOptions options;
    options.nvml = NvmlSource::kOff;
    auto view = gather_host(host, options);
    ASSERT_TRUE(view.ok()) << view.error().str();
    ASSERT_TRUE(view->facts.has_value());
    const std::string out = temp_dir() + "/" + name + ".tar.gz";
    auto written = write_snapshot(host.fs(), snapshot_content(host, *view), out);
    ASSERT_TRUE(written.ok()) << written.error().str();
    const std::string dir = temp_dir() + "/" + name;
    auto unpacked = unpack_snapshot(out, dir);
    ASSERT_TRUE(unpacked.ok()) << unpacked.error().str();
    const Inventory again = inventory_of(dir);
    EXPECT_EQ(describe(again), describe(view->facts->inventory)) << name;
    EXPECT_EQ(again.disks.size(), 4u) << name;  // not an empty inventory compared with another
    EXPECT_EQ(again.nics.size(), 4u) << name;
    // The PCI functions' `driver` links lead somewhere in the unpacked tree too.
    HostFs unpacked_fs(dir);
    auto pci = probe_pci(unpacked_fs);
    ASSERT_TRUE(pci.ok()) << pci.error().str();
    for (const auto* gpu : pci->of_kind(PciKind::kGpu)) EXPECT_EQ(gpu->driver, "nvidia") << gpu->address;
  }
}

// --- dmidecode -t memory -------------------------------------------------------------------------

std::vector<Dimm> dmidecode(const std::string& file) {
  auto r = parse_dmidecode_memory(tool_fixture(file));
  EXPECT_TRUE(r.ok()) << file << ": " << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : std::vector<Dimm>{};
}

std::vector<std::string> locators(const std::vector<Dimm>& dimms) {
  std::vector<std::string> out;
  for (const auto& d : dimms) out.push_back(d.locator);
  return out;
}

TEST(DmidecodeMemoryTest, DellR930TwelveOfSixteenSlots) {
  auto dimms = dmidecode("dmidecode-memory-dell-r930.txt");
  // A1-A8 and B1-B4 populated, A9-A12 "No Module Installed".
  EXPECT_EQ(locators(dimms),
            (std::vector<std::string>{"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "B1", "B2", "B3", "B4"}));
  for (const auto& d : dimms) {
    EXPECT_EQ(d.size_gb, 16.0);
    EXPECT_EQ(d.type, "DDR4");
    EXPECT_EQ(d.speed_mts, 2133.0);  // the rated Speed, not the 1600 MT/s configured
    EXPECT_EQ(d.part_number, "36ASF2G72PZ-2G1A2");
  }
}

TEST(DmidecodeMemoryTest, SupermicroEpycSizesInMegabytes) {
  auto dimms = dmidecode("dmidecode-memory-supermicro-epyc.txt");
  ASSERT_EQ(dimms.size(), 8u);  // the second slot of each of 8 channels
  EXPECT_EQ(dimms.front().locator, "P1-DIMMA2");
  EXPECT_EQ(dimms.back().locator, "P1-DIMMH2");
  for (const auto& d : dimms) {
    EXPECT_EQ(d.size_gb, 8.0);  // 8192 MB / 1024
    EXPECT_EQ(d.type, "DDR4");
    EXPECT_EQ(d.speed_mts, 2667.0);
    EXPECT_EQ(d.part_number, "M393A1G40EB2-CTD");
  }
}

TEST(DmidecodeMemoryTest, SixteenDimmServerWithEmptySlots) {
  auto dimms = dmidecode("dmidecode-memory-16dimm-ddr4-3200.txt");
  ASSERT_EQ(dimms.size(), 16u);  // of 32 slots
  EXPECT_EQ(dimms[0].locator, "P1-DIMMA1");
  EXPECT_EQ(dimms[15].locator, "P2-DIMMH1");
  for (const auto& d : dimms) {
    EXPECT_EQ(d.size_gb, 64.0);
    EXPECT_EQ(d.speed_mts, 3200.0);
    EXPECT_EQ(d.part_number, "M393A8G40AB2-CWE");  // the padding after it trimmed
  }
}

TEST(DmidecodeMemoryTest, Ddr5InMegabytesAndMhzWithoutTheFlashChip) {
  auto dimms = dmidecode("dmidecode-memory-ddr5-mb.txt");
  EXPECT_EQ(locators(dimms), (std::vector<std::string>{"DIMM_P0_A0", "DIMM_P1_M0"}));
  for (const auto& d : dimms) {
    EXPECT_EQ(d.size_gb, 32.0);  // 32768 MB
    EXPECT_EQ(d.type, "DDR5");
    EXPECT_EQ(d.speed_mts, 4800.0);  // "4800 MHz", as dmidecode before 3.2 wrote it
  }
}

TEST(DmidecodeMemoryTest, UnknownFieldsAndATerabyteModule) {
  auto r = parse_dmidecode_memory(
      "Memory Device\n\tSize: 1 TB\n\tLocator: Not Specified\n\tType: Unknown\n\tSpeed: Unknown\n\tPart Number: "
      "NO DIMM\n");
  ASSERT_TRUE(r.ok()) << r.error().str();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].size_gb, 1024.0);
  EXPECT_EQ((*r)[0].locator, "");
  EXPECT_EQ((*r)[0].type, "");
  EXPECT_FALSE((*r)[0].speed_mts.has_value());
  EXPECT_EQ((*r)[0].part_number, "");

  auto all_empty = parse_dmidecode_memory("Memory Device\n\tSize: No Module Installed\n\tLocator: A1\n");
  ASSERT_TRUE(all_empty.ok());
  EXPECT_TRUE(all_empty->empty());
}

TEST(DmidecodeMemoryTest, WhatIsNotDmidecodeMemoryOutputIsAnError) {
  struct Case {
    std::string text;
    std::string key;
    int line;
    std::string got;
  };
  const std::vector<Case> cases{
      {tool_fixture("empty.txt"), "error.dmidecode.no_memory_device", 0, ""},
      {tool_fixture("ipmitool-mc-info-dell.txt"), "error.dmidecode.no_memory_device", 0, ""},
      {tool_fixture("dmidecode-bios-coreboot.txt"), "error.dmidecode.no_memory_device", 0, ""},
      // Cut after its Locator: a slot whose size nobody saw.
      {"# dmidecode 3.3\n\nHandle 0x1100, DMI type 17, 40 bytes\nMemory Device\n\tLocator: A1\n",
       "error.dmidecode.no_size", 4, ""},
      {"Memory Device\n\tSize: 16 GB\n\nMemory Device\n\tSize: lots\n", "error.dmidecode.bad_size", 5, "lots"},
      {"Memory Device\n\tSize: 16 PB\n", "error.dmidecode.bad_size", 2, "16 PB"},
  };
  for (const Case& c : cases) {
    auto r = parse_dmidecode_memory(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message.key, c.key) << c.text;
    EXPECT_EQ(r.error().line, c.line) << c.text;
    if (!c.got.empty()) {
      const std::string* got = gpuplan::testing::fact_in(r.error().message, "got");
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(*got, c.got);
    }
    for (auto lang : {report::Lang::kEn, report::Lang::kZh})
      EXPECT_EQ(report::say(r.error().message, lang).find('{'), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuplan::probe
