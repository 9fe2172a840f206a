#include "probe/pci.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/pci_address.h"
#include "core/text.h"

namespace gpuplan::probe {
namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
constexpr uint16_t kNvidia = 0x10de;
// 0xffff is what a config read of an absent function returns, never a real vendor: free to
// mean "any vendor" in the table.
constexpr uint16_t kAnyVendor = 0xffff;

struct KindRule {
  uint16_t vendor;
  uint32_t class_code;
  uint32_t class_mask;
  PciKind kind;
  const char* why;  // the PCI class or product this entry recognises
};

// First match wins. Class codes: PCI Code and ID Assignment Specification r1.15, §1.
constexpr KindRule kKindRules[] = {
    {kNvidia, 0x030200, 0xffff00, PciKind::kGpu, "3D controller: A100/H100 (no display engine)"},
    {kNvidia, 0x030000, 0xffff00, PciKind::kGpu, "VGA controller: NVIDIA GPUs with display outputs"},
    {kNvidia, 0x068000, 0xffff00, PciKind::kNvSwitch, "other bridge device: NVSwitch management function"},
    {kAnyVendor, 0x020000, 0xffff00, PciKind::kNic, "Ethernet controller"},
    {kAnyVendor, 0x020700, 0xffff00, PciKind::kNic, "InfiniBand controller (ConnectX)"},
    {kAnyVendor, 0x010802, 0xffffff, PciKind::kNvme, "mass storage, non-volatile memory, NVM Express"},
    {kAnyVendor, 0x060400, 0xffff00, PciKind::kBridge, "PCI-to-PCI bridge: root ports and switch ports"},
};

// Line coding per generation: 8b/10b for Gen1/2, 128b/130b for Gen3-5; Gen6 runs FLIT mode,
// where 242 of every 256 bytes carry TLP data after FEC and CRC.
struct Generation {
  double gts;
  int generation;
  double efficiency;
};
constexpr Generation kGenerations[] = {
    {2.5, 1, 8.0 / 10.0},     {5.0, 2, 8.0 / 10.0},     {8.0, 3, 128.0 / 130.0},
    {16.0, 4, 128.0 / 130.0}, {32.0, 5, 128.0 / 130.0}, {64.0, 6, 242.0 / 256.0},
};

const Generation* generation_of(std::optional<double> gts) {
  if (!gts) return nullptr;
  for (const auto& g : kGenerations)
    if (std::fabs(g.gts - *gts) < 0.01) return &g;
  return nullptr;
}

// A sysfs value without its padding: spaces and tabs, and a CRLF file's '\r' at the end (a
// hand-made snapshot). Any other control byte stays and fails the parse.
std::string_view trim_value(std::string_view s) {
  return trim_chars(s, " \t", " \t\r");
}

// "0x10de" (sysfs writes the prefix; a hand-made snapshot may not) → the value, nullopt when
// anything else is in the file or it exceeds `max`.
std::optional<uint32_t> parse_hex(std::string_view s, uint32_t max) {
  s = trim_value(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

template <class Int>
std::optional<Int> parse_int(std::string_view s) {
  s = trim_value(s);
  Int v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The TOTAL_ line of one aer_dev_* file; without one (a kernel that drops it), the sum of the
// per-error lines. nullopt when the file is missing.
std::optional<uint64_t> aer_total(const HostFs& fs, const std::string& path, std::string_view total_key) {
  auto text = fs.read(path);
  if (!text) return std::nullopt;
  uint64_t sum = 0;
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = trim_value(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    size_t space = line.find_last_of(" \t");
    if (space == std::string_view::npos) continue;
    auto value = parse_int<uint64_t>(line.substr(space + 1));
    if (!value) continue;  // a line that is not "Name count": not a counter
    if (trim_value(line.substr(0, space)) == total_key) return *value;
    sum += *value;
  }
  return sum;
}

PciLink read_link(const HostFs& fs, const std::string& dir, const char* speed_file, const char* width_file) {
  PciLink link;
  if (auto s = fs.read_line(dir + "/" + speed_file)) link.speed_gts = parse_link_speed(*s);
  if (auto w = fs.read_line(dir + "/" + width_file)) {
    auto v = parse_int<int>(*w);
    // 0 is what sysfs shows for a link that is down: no lanes trained is not a width.
    if (v && *v >= 1 && *v <= 32) link.width = v;
  }
  return link;
}

// Everything one function's sysfs directory says; missing files leave their fields empty.
PciDevice read_device(const HostFs& fs, const std::string& address, const std::string& dir) {
  PciDevice d;
  d.address = address;
  d.sysfs_path = dir;
  if (dir.empty()) return d;
  if (auto v = fs.read_line(dir + "/vendor")) d.vendor = static_cast<uint16_t>(parse_hex(*v, 0xffff).value_or(0));
  if (auto v = fs.read_line(dir + "/device")) d.device = static_cast<uint16_t>(parse_hex(*v, 0xffff).value_or(0));
  if (auto v = fs.read_line(dir + "/class")) d.class_code = parse_hex(*v, 0xffffff).value_or(0);
  d.kind = classify_pci(d.vendor, d.class_code);
  if (auto v = fs.read_line(dir + "/numa_node")) {
    auto node = parse_int<int>(*v);
    if (node && *node >= 0) d.numa_node = node;
  }
  d.current = read_link(fs, dir, "current_link_speed", "current_link_width");
  d.max = read_link(fs, dir, "max_link_speed", "max_link_width");

  auto cor = aer_total(fs, dir + "/aer_dev_correctable", "TOTAL_ERR_COR");
  auto nonfatal = aer_total(fs, dir + "/aer_dev_nonfatal", "TOTAL_ERR_NONFATAL");
  auto fatal = aer_total(fs, dir + "/aer_dev_fatal", "TOTAL_ERR_FATAL");
  if (cor || nonfatal || fatal) d.aer = AerCounters{cor.value_or(0), nonfatal.value_or(0), fatal.value_or(0)};

  if (auto driver = fs.resolve(dir + "/driver")) d.driver = basename(*driver);
  if (auto group = fs.resolve(dir + "/iommu_group")) d.iommu_group = parse_int<int>(basename(*group));

  auto l0s = fs.read_line(dir + "/link/l0s_aspm");
  auto l1 = fs.read_line(dir + "/link/l1_aspm");
  if (l0s || l1) {
    std::string states;
    if (l0s && *l0s == "1") states = "L0s";
    if (l1 && *l1 == "1") states += states.empty() ? "L1" : " L1";
    d.aspm = states;
  }

  // The directories above the function in /sys/devices are its bridges, nearest last.
  std::vector<std::string> parts;
  for (size_t i = 1; i < dir.size();) {
    size_t j = dir.find('/', i);
    if (j == std::string::npos) j = dir.size();
    parts.push_back(dir.substr(i, j - i));
    i = j + 1;
  }
  if (parts.size() >= 2) {
    for (size_t i = parts.size() - 1; i-- > 0;)
      if (is_pci_address(parts[i])) d.upstream.push_back(parts[i]);
    d.root_port = d.kind == PciKind::kBridge && parts[parts.size() - 2].rfind("pci", 0) == 0;
  }
  return d;
}

}  // namespace

const char* pci_kind_name(PciKind k) {
  switch (k) {
    case PciKind::kGpu: return "gpu";
    case PciKind::kNvSwitch: return "nvswitch";
    case PciKind::kNic: return "nic";
    case PciKind::kNvme: return "nvme";
    case PciKind::kBridge: return "bridge";
    case PciKind::kOther: return "other";
  }
  return "other";
}

bool is_pci_address(std::string_view s) {
  // Only sysfs's own form names a function's directory: the domain written out in four digits or
  // more, then ":17:00.0" with a function of 0-7.
  const size_t colon = s.find(':');
  const auto address = PciAddress::parse(s);
  return address && colon != std::string_view::npos && colon >= 4 && s.size() == colon + 8 && address->function <= 7;
}

PciKind classify_pci(uint16_t vendor, uint32_t class_code) {
  for (const auto& r : kKindRules)
    if ((r.vendor == kAnyVendor || r.vendor == vendor) && (class_code & r.class_mask) == r.class_code) return r.kind;
  return PciKind::kOther;
}

std::optional<double> parse_link_speed(std::string_view text) {
  text = trim_value(text);
  double gts = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), gts);
  if (ec != std::errc() || !std::isfinite(gts) || gts <= 0) return std::nullopt;
  std::string_view unit = text.substr(static_cast<size_t>(end - text.data()));
  if (unit.rfind(" GT/s", 0) != 0) return std::nullopt;
  return gts;
}

std::optional<int> PciLink::generation() const {
  const Generation* g = generation_of(speed_gts);
  return g ? std::optional<int>(g->generation) : std::nullopt;
}

std::optional<double> PciLink::gbytes_per_s() const {
  const Generation* g = generation_of(speed_gts);
  if (!g || !width) return std::nullopt;
  return g->gts * g->efficiency / 8.0 * *width;
}

std::string PciLink::str() const {
  if (!speed_gts && !width) return "?";
  std::string speed = "Gen?";
  if (auto gen = generation()) {
    speed = "Gen" + std::to_string(*gen);
  } else if (speed_gts) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g GT/s", *speed_gts);  // a speed no generation uses
    speed = buf;
  }
  return speed + " x" + (width ? std::to_string(*width) : "?");
}

const PciDevice* PciTopology::find(std::string_view address) const {
  auto it = std::lower_bound(devices.begin(), devices.end(), address,
                             [](const PciDevice& d, std::string_view a) { return d.address < a; });
  return it != devices.end() && it->address == address ? &*it : nullptr;
}

std::vector<const PciDevice*> PciTopology::of_kind(PciKind kind) const {
  std::vector<const PciDevice*> out;
  for (const auto& d : devices)
    if (d.kind == kind) out.push_back(&d);
  return out;
}

std::vector<const PciDevice*> PciTopology::below(std::string_view bridge) const {
  std::vector<const PciDevice*> out;
  for (const auto& d : devices)
    if (std::find(d.upstream.begin(), d.upstream.end(), bridge) != d.upstream.end()) out.push_back(&d);
  return out;
}

Result<PciTopology> probe_pci(const HostFs& fs) {
  if (!fs.exists(kPciDevices)) return Error{fs.real(kPciDevices), 0, "", Phrase("error.pci.no_devices")};
  PciTopology topo;
  std::set<std::string> seen;
  for (const auto& name : fs.list(kPciDevices)) {
    if (!is_pci_address(name)) continue;
    std::string dir = fs.resolve(std::string(kPciDevices) + "/" + name).value_or("");
    topo.devices.push_back(read_device(fs, name, dir));
    seen.insert(name);
  }
  // Bridges named in a path but absent from the bus directory are read where the path says.
  for (size_t i = 0; i < topo.devices.size(); ++i) {
    // Copies: push_back below may move the device they belong to.
    const std::vector<std::string> upstream = topo.devices[i].upstream;
    const std::string path = topo.devices[i].sysfs_path;
    for (const auto& bridge : upstream) {
      if (!seen.insert(bridge).second) continue;
      std::string dir = path.substr(0, path.find("/" + bridge + "/") + 1 + bridge.size());
      topo.devices.push_back(read_device(fs, bridge, dir));
    }
  }
  std::sort(topo.devices.begin(), topo.devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return topo;
}

}  // namespace gpuplan::probe
