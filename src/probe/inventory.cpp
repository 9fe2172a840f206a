#include "probe/inventory.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <string_view>

#include "core/text.h"
#include "probe/pci.h"

namespace gpuplan::probe {
namespace {

std::string read_trimmed(const HostFs& fs, const std::string& path) {
  auto text = fs.read(path);
  return text ? std::string(trim(*text)) : "";
}

std::string basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

template <class Int>
std::optional<Int> number(std::string_view s) {
  s = trim(s);
  Int v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// `name` is `prefix` followed by digits only ("mc12", "dimm3", "cpu0"); the number.
std::optional<long> numbered(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return number<long>(digits);
}

// "nvme2n1" before "nvme10n1": runs of digits compare as numbers, so the order is the one a
// person reads, and the same on every host.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = a.find_first_not_of("0123456789", i), je = b.find_first_not_of("0123456789", j);
      std::string_view da = std::string_view(a).substr(i, ie == std::string::npos ? std::string::npos : ie - i);
      std::string_view db = std::string_view(b).substr(j, je == std::string::npos ? std::string::npos : je - j);
      while (da.size() > 1 && da.front() == '0') da.remove_prefix(1);
      while (db.size() > 1 && db.front() == '0') db.remove_prefix(1);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i += (ie == std::string::npos ? a.size() : ie) - i;
      j += (je == std::string::npos ? b.size() : je) - j;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> naturally_sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(), natural_less);
  return names;
}

// --- CPU -----------------------------------------------------------------------------------------

// /proc/cpuinfo: one "key\t: value" block per logical CPU. arm64 kernels write no "model name"
// (nor "physical id"): the model stays empty and the sockets come from sysfs.
void read_cpuinfo(const HostFs& fs, CpuInventory& cpu) {
  auto text = fs.read("/proc/cpuinfo");
  if (!text) return;
  std::set<std::string> packages;
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "processor")
      ++cpu.logical_cpus;
    else if (key == "model name" && cpu.model.empty())
      cpu.model = std::string(value);
    else if (key == "physical id")
      packages.insert(std::string(value));
  }
  cpu.sockets = static_cast<int>(packages.size());
}

// /sys/devices/system/cpu/cpuN/topology/physical_package_id, for kernels whose cpuinfo has no
// "physical id" (arm64).
void read_cpu_topology(const HostFs& fs, CpuInventory& cpu) {
  const std::string base = "/sys/devices/system/cpu";
  std::set<std::string> packages;
  int cpus = 0;
  for (const auto& name : fs.list(base)) {
    if (!numbered(name, "cpu")) continue;
    std::string id = read_trimmed(fs, base + "/" + name + "/topology/physical_package_id");
    if (id.empty()) continue;
    ++cpus;
    packages.insert(id);
  }
  if (cpu.sockets == 0) cpu.sockets = static_cast<int>(packages.size());
  if (cpu.logical_cpus == 0) cpu.logical_cpus = cpus;
}

// --- Memory --------------------------------------------------------------------------------------

// "MemTotal:       1056894232 kB" → GiB.
std::optional<double> mem_total_gib(const HostFs& fs) {
  auto text = fs.read("/proc/meminfo");
  if (!text) return std::nullopt;
  size_t at = text->find("MemTotal:");
  if (at == std::string::npos || (at > 0 && (*text)[at - 1] != '\n')) return std::nullopt;
  std::string_view line = std::string_view(*text).substr(at + 9);
  line = line.substr(0, line.find('\n'));
  line = trim(line);
  if (line.size() < 3 || line.substr(line.size() - 2) != "kB") return std::nullopt;
  auto kib = number<unsigned long long>(line.substr(0, line.size() - 2));
  if (!kib) return std::nullopt;
  return static_cast<double>(*kib) / (1024.0 * 1024.0);
}

// EDAC's "Registered-DDR4", "Unbuffered-DDR5", "LRDDR4", "HBM2" → "DDR4", "DDR5", "DDR4", "HBM2";
// "Unknown", "Empty" and anything without a generation → "".
std::string generation(std::string_view mem_type) {
  for (std::string_view family : {"LPDDR", "DDR", "HBM"}) {
    size_t at = mem_type.find(family);
    if (at == std::string_view::npos) continue;
    if (family == "DDR" && at >= 2 && mem_type.substr(at - 2, 2) == "LP") continue;
    size_t end = at + family.size();
    while (end < mem_type.size() && std::isdigit(static_cast<unsigned char>(mem_type[end]))) ++end;
    if (end == at + family.size()) return "";
    return std::string(mem_type.substr(at, end - at));
  }
  return "";
}

// /sys/devices/system/edac/mc/mcN/dimmM: one directory per DIMM, from drivers that lay memory
// out by DIMM (ghes_edac, skx_edac, i10nm_edac). Drivers that lay it out by chip select
// (amd64_edac: mcN/rankM, "csrow 3 channel 1") and kernels before 3.6 (mcN/csrowM) describe ranks,
// not modules, and which ranks share a module is the driver's own convention: they give no DIMM
// list here, so the memory check asks for `dmidecode -t memory` instead of miscounting.
std::vector<Dimm> read_edac_dimms(const HostFs& fs) {
  const std::string base = "/sys/devices/system/edac/mc";
  std::vector<Dimm> dimms;
  std::vector<std::string> mcs;
  for (const auto& name : fs.list(base))
    if (numbered(name, "mc")) mcs.push_back(name);
  for (const auto& mc : naturally_sorted(mcs)) {
    std::vector<std::string> names;
    for (const auto& name : fs.list(base + "/" + mc))
      if (numbered(name, "dimm")) names.push_back(name);
    for (const auto& name : naturally_sorted(names)) {
      const std::string dir = base + "/" + mc + "/" + name;
      auto mib = number<unsigned long long>(read_trimmed(fs, dir + "/size"));
      if (!mib || *mib == 0) continue;  // an empty slot some drivers still list
      Dimm d;
      // The board's slot name when the driver or ras-mc-ctl set one ("P1-DIMMA1"), as dmidecode's
      // Locator names it; where EDAC found it otherwise.
      d.locator = read_trimmed(fs, dir + "/dimm_label");
      if (d.locator.empty()) d.locator = mc + "/" + name;
      d.sysfs = dir;
      d.size_gb = static_cast<double>(*mib) / 1024.0;
      d.type = generation(read_trimmed(fs, dir + "/dimm_mem_type"));
      dimms.push_back(std::move(d));
    }
  }
  return dimms;
}

// --- Disks ---------------------------------------------------------------------------------------

// Block devices that are not disks a vendor delivers: loop and RAM disks, device-mapper and md
// arrays built on the disks, compressed swap, optical drives, network block devices, and the
// per-controller paths of a multipath NVMe namespace (nvme0c0n1; the namespace is nvme0n1).
bool not_a_disk(const std::string& name) {
  for (std::string_view prefix : {"loop", "ram", "dm-", "md", "zram", "sr", "nbd", "fd"})
    if (name.rfind(prefix, 0) == 0) return true;
  if (name.rfind("nvme", 0) == 0 && name.find('c') != std::string::npos) return true;
  return false;
}

// How a disk is attached, from the device path its /sys/block link leads to:
// ".../ata3/host2/target2:0:0/2:0:0:0/block/sda" is SATA, a SAS HBA's ".../port-0:1/end_device-0:1/..."
// SAS, ".../usb2/2-1/..." USB, ".../virtio1/block/vda" virtio.
std::string transport_of(const HostFs& fs, const std::string& name) {
  if (name.rfind("nvme", 0) == 0) return "nvme";
  auto path = fs.resolve("/sys/block/" + name);
  if (!path) return "";
  std::string transport;
  size_t start = 1;
  while (start < path->size()) {
    size_t end = path->find('/', start);
    std::string_view part =
        std::string_view(*path).substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (numbered(part, "usb")) return "usb";  // a USB bridge may present the disk as SCSI or SATA
    if (numbered(part, "virtio")) transport = "virtio";
    if (numbered(part, "ata") && transport.empty()) transport = "sata";
    if (part.rfind("end_device-", 0) == 0) transport = "sas";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return transport;
}

std::vector<BlockDevice> read_disks(const HostFs& fs) {
  std::vector<BlockDevice> disks;
  for (const auto& name : naturally_sorted(fs.list("/sys/block"))) {
    const std::string dir = "/sys/block/" + name;
    if (not_a_disk(name) || fs.exists(dir + "/partition")) continue;
    BlockDevice d;
    d.name = name;
    d.transport = transport_of(fs, name);
    d.model = read_trimmed(fs, dir + "/device/model");
    d.serial = read_trimmed(fs, dir + "/device/serial");
    // Always 512-byte units, whatever the logical block size (include/linux/blk_types.h SECTOR_SHIFT).
    if (auto sectors = number<unsigned long long>(read_trimmed(fs, dir + "/size")))
      d.size_bytes = static_cast<double>(*sectors) * 512.0;
    d.rotational = read_trimmed(fs, dir + "/queue/rotational") == "1";
    d.removable = read_trimmed(fs, dir + "/removable") == "1";
    disks.push_back(std::move(d));
  }
  return disks;
}

// --- Network interfaces --------------------------------------------------------------------------

// "0x15b3" → "15b3".
std::string pci_id(const HostFs& fs, const std::string& path) {
  std::string id = read_trimmed(fs, path);
  if (id.rfind("0x", 0) == 0) id.erase(0, 2);
  return lower(id);
}

// Interfaces on a PCI function of their own: `device` leads to a PCI address. Left out: virtual
// ones (lo, bridges, bonds, veth, VLANs: no `device`), SR-IOV virtual functions (a `physfn` link
// back to the card they are carved from), interfaces on other buses (a USB adapter), and IPoIB
// interfaces (type 32), whose ports and rates HostFacts::ib_ports reads from /sys/class/infiniband.
std::vector<NetInterface> read_nics(const HostFs& fs) {
  std::vector<NetInterface> nics;
  for (const auto& name : naturally_sorted(fs.list("/sys/class/net"))) {
    const std::string dir = "/sys/class/net/" + name;
    auto device = fs.resolve(dir + "/device");
    if (!device || !is_pci_address(basename(*device))) continue;
    if (fs.exists(dir + "/device/physfn")) continue;
    if (read_trimmed(fs, dir + "/type") == "32") continue;
    NetInterface n;
    n.name = name;
    n.pci_address = basename(*device);
    n.vendor_device = pci_id(fs, dir + "/device/vendor") + ":" + pci_id(fs, dir + "/device/device");
    // Mb/s; -1 (SPEED_UNKNOWN) with the link down, and a read error from drivers without
    // link settings (Documentation/ABI/testing/sysfs-class-net): no speed, not a zero one.
    if (auto speed = number<int>(read_trimmed(fs, dir + "/speed")); speed && *speed > 0) n.speed_mbps = *speed;
    n.operstate = read_trimmed(fs, dir + "/operstate");
    if (auto driver = fs.resolve(dir + "/device/driver")) n.driver = basename(*driver);
    nics.push_back(std::move(n));
  }
  return nics;
}

}  // namespace

Inventory probe_inventory(const HostFs& fs) {
  Inventory inv;
  read_cpuinfo(fs, inv.cpu);
  if (inv.cpu.sockets == 0 || inv.cpu.logical_cpus == 0) read_cpu_topology(fs, inv.cpu);
  inv.memory.total_gib = mem_total_gib(fs);
  inv.memory.dimms = read_edac_dimms(fs);
  if (!inv.memory.dimms.empty()) inv.memory.dimm_source = "edac";
  inv.disks = read_disks(fs);
  inv.nics = read_nics(fs);
  return inv;
}

}  // namespace gpuplan::probe
