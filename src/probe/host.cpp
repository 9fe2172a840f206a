#include "probe/host.h"

#include <charconv>
#include <string_view>

#include "core/text.h"

namespace gpuplan::probe {
namespace {

// A value without spaces and tabs at either end and line ends at its end; any other control byte
// stays part of it.
std::string trimmed(std::string_view s) {
  return std::string(trim_chars(s, " \t", " \t\r\n"));
}

std::optional<int> parse_number(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::string basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The PCI function a class device (/sys/class/infiniband/mlx5_0, /sys/class/nvme/nvme0) sits on,
// from its `device` link; "" when the link is missing or leads to something else.
std::string pci_address_of(const HostFs& fs, const std::string& class_dir) {
  auto target = fs.resolve(class_dir + "/device");
  if (!target) return "";
  std::string name = basename(*target);
  return is_pci_address(name) ? name : "";
}

std::string read_trimmed(const HostFs& fs, const std::string& path) {
  auto line = fs.read_line(path);
  return line ? trimmed(*line) : "";
}

// "default [performance] powersave powersupersave" → "performance".
std::optional<std::string> selected_word(std::string_view line) {
  size_t open = line.find('[');
  size_t close = line.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos || close == open + 1) return std::nullopt;
  return std::string(line.substr(open + 1, close - open - 1));
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..." and the open
// module's "NVIDIA UNIX Open Kernel Module for x86_64  535.129.03  Release Build ...": the
// version is the first word of digits and dots, with at least one dot.
std::optional<DriverVersion> parse_driver_version(std::string_view text) {
  size_t at = text.find("NVRM version:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(at);
  line = line.substr(0, line.find('\n'));
  std::string_view rest = line.substr(std::string_view("NVRM version:").size());
  while (!rest.empty()) {
    size_t start = rest.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    size_t end = rest.find_first_of(" \t");
    std::string_view word = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    bool digits_and_dots = word.find_first_not_of("0123456789.") == std::string_view::npos;
    if (digits_and_dots && word.find('.') != std::string_view::npos && word.front() != '.' && word.back() != '.')
      return DriverVersion{std::string(word), trimmed(line)};
  }
  return std::nullopt;
}

std::vector<IbPort> read_ib_ports(const HostFs& fs) {
  std::vector<IbPort> ports;
  const std::string base = "/sys/class/infiniband";
  for (const auto& dev : fs.list(base)) {
    std::string dir = base + "/" + dev;
    std::string pci = pci_address_of(fs, dir);
    for (const auto& port_name : fs.list(dir + "/ports")) {
      auto number = parse_number(port_name);
      if (!number) continue;
      std::string port_dir = dir + "/ports/" + port_name;
      IbPort p;
      p.device = dev;
      p.port = *number;
      p.state = read_trimmed(fs, port_dir + "/state");
      p.phys_state = read_trimmed(fs, port_dir + "/phys_state");
      p.rate = read_trimmed(fs, port_dir + "/rate");
      p.link_layer = read_trimmed(fs, port_dir + "/link_layer");
      p.pci_address = pci;
      ports.push_back(std::move(p));
    }
  }
  return ports;
}

std::vector<NvmeController> read_nvme(const HostFs& fs) {
  std::vector<NvmeController> out;
  const std::string base = "/sys/class/nvme";
  for (const auto& name : fs.list(base)) {
    // nvme0, not the nvme-subsystem or fabrics entries some kernels add.
    if (name.rfind("nvme", 0) != 0 || !parse_number(std::string_view(name).substr(4))) continue;
    std::string dir = base + "/" + name;
    // model and serial are fixed-width fields padded with spaces, as the controller reports them.
    out.push_back(NvmeController{name, read_trimmed(fs, dir + "/model"), read_trimmed(fs, dir + "/serial"),
                                 read_trimmed(fs, dir + "/firmware_rev"), pci_address_of(fs, dir)});
  }
  return out;
}

std::map<int, std::vector<std::string>> read_iommu_groups(const HostFs& fs) {
  std::map<int, std::vector<std::string>> groups;
  const std::string base = "/sys/kernel/iommu_groups";
  for (const auto& name : fs.list(base)) {
    auto group = parse_number(name);
    if (!group) continue;
    // A member's name is its address, whether or not its link survived; resolving it anyway
    // records the link in HostFs, so a snapshot keeps the group's shape.
    auto& members = groups[*group];
    for (const auto& member : fs.list(base + "/" + name + "/devices")) {
      fs.resolve(base + "/" + name + "/devices/" + member);
      members.push_back(member);
    }
  }
  return groups;
}

}  // namespace

bool IbPort::active() const {
  // sysfs writes "4: ACTIVE" and "5: LinkUp"; the words are what matter.
  auto word_after_colon = [](std::string_view s) {
    size_t colon = s.find(':');
    if (colon != std::string_view::npos) s.remove_prefix(colon + 1);
    return trimmed(s);
  };
  return word_after_colon(state) == "ACTIVE" && word_after_colon(phys_state) == "LinkUp";
}

Result<HostFacts> probe_host(const HostFs& fs) {
  auto pci = probe_pci(fs);
  if (!pci) return pci.error();
  HostFacts facts;
  facts.pci = std::move(pci.value());
  facts.hostname = read_trimmed(fs, "/etc/hostname");
  if (facts.hostname.empty()) facts.hostname = read_trimmed(fs, "/proc/sys/kernel/hostname");
  if (auto policy = fs.read_line("/sys/module/pcie_aspm/parameters/policy")) facts.aspm_policy = selected_word(*policy);
  facts.kernel_cmdline = read_trimmed(fs, "/proc/cmdline");
  facts.iommu_groups = read_iommu_groups(fs);
  facts.iommu_groups_dir = fs.exists("/sys/kernel/iommu_groups");
  facts.ib_ports = read_ib_ports(fs);
  facts.nvme = read_nvme(fs);
  if (auto version = fs.read("/proc/driver/nvidia/version")) facts.driver = parse_driver_version(*version);
  facts.inventory = probe_inventory(fs);
  return facts;
}

}  // namespace gpuplan::probe
