// Host facts beyond the PCI tree: ASPM policy, IOMMU groups and whether the IOMMU is on, the
// InfiniBand ports, NVMe controllers, the NVIDIA driver version file and the kernel command
// line. Everything is read through HostFs; what the host does not expose stays empty.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "probe/host_fs.h"
#include "probe/inventory.h"
#include "probe/pci.h"

namespace gpuplan::probe {

struct IbPort {
  std::string device;      // "mlx5_0"
  int port = 1;
  std::string state;       // "4: ACTIVE"
  std::string phys_state;  // "5: LinkUp"
  std::string rate;        // "200 Gb/sec (4X HDR)"
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  std::string pci_address; // of the HCA, from /sys/class/infiniband/<dev>/device, "" when unknown
  bool active() const;     // state ACTIVE and phys_state LinkUp
};

struct NvmeController {
  std::string name;         // "nvme0"
  std::string model;
  std::string serial;
  std::string firmware;     // firmware_rev
  std::string pci_address;  // "" when unknown
};

struct DriverVersion {
  std::string version;  // "535.129.03", from /proc/driver/nvidia/version
  std::string line;     // the NVRM version line as written
};

struct HostFacts {
  std::string hostname;                 // /etc/hostname or /proc/sys/kernel/hostname
  PciTopology pci;
  std::optional<std::string> aspm_policy;  // the selected one of /sys/module/pcie_aspm/parameters/policy ("default", "performance", "powersave", "powersupersave")
  std::string kernel_cmdline;           // /proc/cmdline
  std::map<int, std::vector<std::string>> iommu_groups;  // group → PCI addresses, from /sys/kernel/iommu_groups
  // Whether /sys/kernel/iommu_groups exists. The IOMMU core makes it at boot, so an empty one
  // says no IOMMU translates DMA; a missing one (an empty root, a partial copy) says nothing.
  bool iommu_groups_dir = false;
  std::vector<IbPort> ib_ports;
  std::vector<NvmeController> nvme;
  std::optional<DriverVersion> driver;
  Inventory inventory;  // CPU, memory, disks, NICs (probe/inventory.h)
};

Result<HostFacts> probe_host(const HostFs& fs);

}  // namespace gpuplan::probe
