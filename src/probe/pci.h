// PCI probe: every PCI function from /sys/bus/pci/devices (following its link into
// /sys/devices/...), classified (GPU, NVSwitch, NIC, NVMe, bridge), with its trained and maximum
// link, NUMA node, AER counters, IOMMU group, ASPM state where exposed, and the chain of
// bridges above it up to its root port.
//
// A caller may rely on: devices are sorted by address; `upstream` lists bridge addresses from
// the nearest to the root port, each of which is itself in `devices`; a value sysfs did not
// give is nullopt. Link speeds are in GT/s as sysfs writes them ("16.0 GT/s PCIe" → 16.0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "probe/host_fs.h"

namespace gpuplan::probe {

enum class PciKind { kGpu, kNvSwitch, kNic, kNvme, kBridge, kOther };
const char* pci_kind_name(PciKind k);  // "gpu", "nvswitch", "nic", "nvme", "bridge", "other"

struct PciLink {
  std::optional<double> speed_gts;  // 2.5, 5, 8, 16, 32, 64
  std::optional<int> width;         // lanes: 1, 2, 4, 8, 16

  // PCIe generation of the speed: 2.5→1, 5→2, 8→3, 16→4, 32→5, 64→6; nullopt when unknown.
  std::optional<int> generation() const;
  // Usable GB/s in one direction after line coding (Gen1/2 8b/10b, Gen3+ 128b/130b).
  std::optional<double> gbytes_per_s() const;
  std::string str() const;  // "Gen4 x16", "Gen3 x8", "?"
};

struct AerCounters {
  uint64_t correctable = 0;  // TOTAL_ERR_COR of aer_dev_correctable
  uint64_t nonfatal = 0;     // TOTAL_ERR_NONFATAL of aer_dev_nonfatal
  uint64_t fatal = 0;        // TOTAL_ERR_FATAL of aer_dev_fatal
};

struct PciDevice {
  std::string address;     // "0000:17:00.0"
  // Host path it resolves to, "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0"; "" when its link does not resolve
  // inside the root.
  std::string sysfs_path;
  uint16_t vendor = 0;     // 0x10de NVIDIA; 0 when the file is missing or not hex (so are device and class_code)
  uint16_t device = 0;
  uint32_t class_code = 0;  // 0x030200 3D controller, 0x060400 PCI bridge, 0x010802 NVMe, 0x020700 InfiniBand
  PciKind kind = PciKind::kOther;
  std::optional<int> numa_node;  // -1 in sysfs (no NUMA) is nullopt
  PciLink current;               // current_link_speed / current_link_width
  PciLink max;                   // max_link_speed / max_link_width
  std::optional<AerCounters> aer;  // nullopt when none of the three files exists; a missing TOTAL_ line sums the others
  std::string driver;              // name of the bound driver, "" when none
  std::optional<int> iommu_group;  // from the iommu_group link
  std::optional<std::string> aspm;  // "L0s L1" style, from link/l0s_aspm and link/l1_aspm where exposed; "" = both off
  std::vector<std::string> upstream;  // bridges from the parent up to the root port
  bool root_port = false;             // a bridge whose parent is the host bridge (pciDDDD:BB)
};

struct PciTopology {
  std::vector<PciDevice> devices;

  const PciDevice* find(std::string_view address) const;
  std::vector<const PciDevice*> of_kind(PciKind kind) const;
  // Devices whose `upstream` contains `bridge` (everything below it).
  std::vector<const PciDevice*> below(std::string_view bridge) const;
};

// The kind of a function from its vendor and class code (the table in pci.cpp): NVIDIA 3D/VGA
// controllers are GPUs, NVIDIA "other bridge" functions NVSwitches; Ethernet and InfiniBand
// controllers NICs; NVM Express NVMe; PCI-to-PCI bridges (root and switch ports) bridges.
PciKind classify_pci(uint16_t vendor, uint32_t class_code);

// "0000:17:00.0": domain (4 or more hex digits, at most 32 bits; Intel VMD domains have 5), bus,
// device, function 0-7: the names of /sys/bus/pci/devices.
bool is_pci_address(std::string_view s);

// A sysfs link speed ("16.0 GT/s PCIe", "8.0 GT/s", "2.5 GT/s PCIe") in GT/s; nullopt for
// "Unknown" (link down) or anything else.
std::optional<double> parse_link_speed(std::string_view text);

// Reads /sys/bus/pci/devices under the root. No PCI directory at all is an Error (the root is
// not a Linux host or snapshot); a device with unreadable files is kept with what was read.
// A bridge that sits in a device's sysfs path but is missing from /sys/bus/pci/devices (a
// partial snapshot) is read from its /sys/devices directory, so no bridge vanishes from a path.
Result<PciTopology> probe_pci(const HostFs& fs);

}  // namespace gpuplan::probe
