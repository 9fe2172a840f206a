// Snapshot: what an offline `gpuplan accept --root` needs from a server, as one .tar.gz. The
// host files the probes read go in under their host paths (symbolic links kept as links, so
// the unpacked tree reads like the real sysfs); gpuplan's own captures go under gpuplan/:
//   gpuplan/snapshot.json   when and where it was taken, by which gpuplan
//   gpuplan/kernel.log      the kernel log as read (kmsg records or dmesg text)
//   gpuplan/nvml.json       NVML facts (nvml::facts_to_json), when NVML could be loaded
//   gpuplan/tools/NAME.txt  outputs of optional tools (smartctl, ibstat, nvidia-smi topo -m, …)
//
// A caller may rely on: unpacking refuses absolute paths, ".." and links that climb out of
// the target, so a hostile archive cannot write outside the directory it is unpacked into.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "probe/host_fs.h"

namespace gpuplan::probe {

// What a snapshot keeps besides the links `fs` followed (HostFs::links_followed, archived as
// links): files, and directory listings whose entries are links (PCI devices, IOMMU group
// members) that a probe listed without following.
struct SnapshotContent {
  std::vector<std::string> host_files;             // read through `fs`; links on the way are kept
  std::vector<std::string> link_dirs;               // every entry is archived (links as links)
  std::map<std::string, std::string> captures;      // "kernel.log" → text, "tools/ibstat.txt" → text
};

// Writes `out` (a .tar.gz); returns how many entries went in.
Result<int> write_snapshot(const HostFs& fs, const SnapshotContent& content, const std::string& out);

// Unpacks a snapshot into `dir` (created when missing).
Result<int> unpack_snapshot(const std::string& archive, const std::string& dir);

}  // namespace gpuplan::probe
