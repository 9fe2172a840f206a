// What a delivered server is made of, as procfs and sysfs show it (issue 13, `accept --contract`):
// the CPU model and sockets, memory total and DIMMs, disks, network interfaces and InfiniBand
// rates. Read through HostFs, so `snapshot` keeps every file it read and an offline
// `accept --root` sees the same. What the host does not expose stays empty, and the check that
// needs it says needs-evidence rather than guessing.
//
// Sources: CPU from /proc/cpuinfo ("model name", distinct "physical id") and
// /sys/devices/system/cpu/cpu*/topology/physical_package_id; memory total from /proc/meminfo
// (MemTotal: what the kernel sees, below what is installed); DIMMs from the EDAC driver
// (/sys/devices/system/edac/mc/mc*/dimm*/{size,dimm_label,dimm_mem_type,dimm_location}) or from
// `dmidecode -t memory` output a buyer attaches (probe/attached_tools.h); disks from /sys/block/*
// (size in 512-byte sectors, device/model, queue/rotational, removable) and /sys/class/nvme;
// network interfaces from /sys/class/net/* (device → the PCI function, speed in Mb/s,
// operstate), InfiniBand rates from /sys/class/infiniband (probe/host.h IbPort).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "probe/host_fs.h"

namespace gpuplan::probe {

struct CpuInventory {
  std::string model;     // "AMD EPYC 7763 64-Core Processor", the first "model name" of /proc/cpuinfo
  int sockets = 0;       // distinct physical packages; 0 when unknown
  int logical_cpus = 0;  // processors listed
};

struct Dimm {
  std::string locator;       // EDAC dimm_label when set, else "mc0/dimm3"; dmidecode's Locator ("P1-DIMMA1")
  double size_gb = 0;        // GiB as the firmware counts them (a "64 GB" RDIMM is 65536 MiB)
  std::string type;          // "DDR4", "DDR5"; "" when unknown
  std::optional<double> speed_mts;
  std::string part_number;   // "" when unknown
  // The EDAC directory it was read from ("/sys/devices/system/edac/mc/mc0/dimm3"), so evidence
  // can name a real path beside the board's label; "" for a DIMM read from dmidecode output.
  std::string sysfs;
};

struct MemoryInventory {
  std::optional<double> total_gib;  // MemTotal
  std::vector<Dimm> dimms;          // populated slots only
  std::string dimm_source;          // "edac", "dmidecode" or "" (no DIMM list seen)
};

struct BlockDevice {
  std::string name;       // "nvme0n1", "sda"
  std::string transport;  // "nvme", "sata", "sas", "usb", "virtio", "" when unknown
  std::string model;      // trimmed
  std::string serial;     // "" when unknown
  double size_bytes = 0;  // sectors × 512
  bool rotational = false;
  bool removable = false;
};

struct NetInterface {
  std::string name;          // "ens1f0"
  std::string pci_address;   // "" for a virtual interface
  std::string vendor_device; // "15b3:101d", "" for a virtual interface
  std::optional<int> speed_mbps;  // nullopt when the link is down or the driver does not say
  std::string operstate;     // "up", "down"
  std::string driver;        // "mlx5_core"
};

struct Inventory {
  CpuInventory cpu;
  MemoryInventory memory;
  std::vector<BlockDevice> disks;    // whole disks only: no partitions, loop, ram, dm or md devices
  std::vector<NetInterface> nics;    // physical functions only: no lo, bridges, bonds, veth, VFs
};

Inventory probe_inventory(const HostFs& fs);

}  // namespace gpuplan::probe
