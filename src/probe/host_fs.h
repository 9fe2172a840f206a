// HostFs: the one door through which every probe reads the host. All paths are host paths
// ("/sys/bus/pci/devices"); HostFs puts them under its root ("/" on a live server, an unpacked
// snapshot or a test fixture otherwise), so probes never touch the real machine in tests.
//
// A caller may rely on: reads never throw and never leave the root (a symbolic link, relative
// or absolute, is followed inside the root); every file read successfully is remembered, in
// order and once, so `snapshot` and the evidence bundle can copy exactly what a check saw.
// A relative link that climbs above the root ("../../../../etc") is not followed: the path it
// is on reads as missing, as does a chain of more than 40 links (a loop).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gpuplan::probe {

class HostFs {
 public:
  // The most one read returns. The files probes read are sysfs and procfs attributes and kernel
  // logs (KiB to a few MiB); anything larger is no file a check needs, and reading it whole
  // (a stray disk image, /dev/zero bound into a snapshot tree) would only exhaust memory.
  static constexpr size_t kMaxReadBytes = size_t{256} << 20;  // 256 MiB

  // `max_read_bytes` lowers the cap, for tests.
  explicit HostFs(std::string root = "/", size_t max_read_bytes = kMaxReadBytes);

  const std::string& root() const { return root_; }
  // The real path of a host path: root + path.
  std::string real(std::string_view host_path) const;

  bool exists(std::string_view host_path) const;
  // The whole file; nullopt when missing or unreadable. Only regular files are read (sysfs and
  // procfs attributes are regular files), so a FIFO or device node in a snapshot cannot block.
  // A file larger than the cap (its size, or what it yields when its size says 0 or 4096 as
  // procfs and sysfs do) reads as nullopt, never truncated, and is not in files_read.
  std::optional<std::string> read(std::string_view host_path) const;
  // The first line without its trailing whitespace; nullopt when missing or unreadable.
  std::optional<std::string> read_line(std::string_view host_path) const;
  // Names in a directory, sorted; empty when missing.
  std::vector<std::string> list(std::string_view host_dir) const;
  // The host path a symbolic link (or a path through links) resolves to, inside the root:
  // resolve("/sys/bus/pci/devices/0000:17:00.0") == "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0".
  // nullopt when a component is missing, a link climbs above the root, or links loop.
  std::optional<std::string> resolve(std::string_view host_path) const;

  // Host paths of the files read so far (not directories), in first-read order. A file read
  // through links is recorded at the path it resolved to; `links_followed` says how to get there.
  const std::vector<std::string>& files_read() const { return files_read_; }
  // What the first read of a file in files_read() returned, so evidence holds the bytes a check
  // judged even when a live counter has moved since; nullopt for files over kMaxKeptBytes (a
  // kernel log), which the caller copies from where it keeps them.
  std::optional<std::string> first_read(const std::string& resolved_host_path) const;
  static constexpr size_t kMaxKeptBytes = size_t{1} << 20;  // sysfs and procfs attributes are far smaller

  // Every link followed so far, once, in first-use order: (host path of the link, its target as
  // written), so a snapshot can recreate the links a check went through.
  const std::vector<std::pair<std::string, std::string>>& links_followed() const { return links_followed_; }

 private:
  void remember(std::string_view host_path, const std::string& text) const;

  std::string root_;
  size_t max_read_bytes_;
  mutable std::vector<std::string> files_read_;
  mutable std::unordered_map<std::string, std::optional<std::string>> first_reads_;  // also "seen"
  mutable std::vector<std::pair<std::string, std::string>> links_followed_;
  mutable std::unordered_set<std::string> links_seen_;
};

}  // namespace gpuplan::probe
