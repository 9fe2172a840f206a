// Snapshot: what an offline `gpuplan accept --root` needs from a server, as one .tar.gz. The
// host files the probes read go in under their host paths (symbolic links kept as links, so
// the unpacked tree reads like the real sysfs); gpuplan's own captures go under gpuplan/:
//   gpuplan/snapshot.json   when and where it was taken, by which gpuplan
//   gpuplan/kernel.log      the kernel log as read (kmsg records or dmesg text)
//   gpuplan/journal-kernel.json  the journal's kernel log of this boot (journalctl -k -b -o json)
//   gpuplan/kernel-logs/NAME     each --kernel-log file, inflated when it was gzip
//   gpuplan/nvml.json       NVML facts (nvml::facts_to_json), when NVML could be loaded
//   gpuplan/tools/NAME.txt  outputs of optional tools (smartctl, ibstat, nvidia-smi topo -m, …)
//
// A caller may rely on: a link the server has with an absolute target is archived with the
// equivalent relative target (/etc/hostname -> /etc/static/hostname goes in as "static/hostname"),
// so a snapshot unpacks anywhere; a write that fails (a full disk) is an Error naming the entry,
// never a silently short snapshot. Unpacking refuses absolute paths, "..", links that climb out
// of the target (counted without "." parts, and never by ".." back out through another link of
// the archive, in whichever order the two come), entries that are neither file, directory nor
// link, and archives past UnpackLimits, so a hostile archive cannot write outside the directory
// it is unpacked into nor fill its disk. Every refusal is an Error naming the entry; what was
// unpacked before it stays on disk.
#pragma once

#include <cstddef>
#include <cstdint>
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
  // Read through `fs`; the links on the way are kept, and a directory one ends in (a `driver`
  // link's target).
  std::vector<std::string> host_files;
  std::vector<std::string> link_dirs;               // every entry is archived (links as links)
  std::map<std::string, std::string> captures;      // "kernel.log" → text, "tools/ibstat.txt" → text
};

// Writes `out` (a .tar.gz); returns how many entries went in. A link whose target would lead
// outside the unpacked snapshot (or that unpack_snapshot would refuse) is left out, never archived,
// and named in `left_out` when given ("cli.snapshot.link_left_out": the link and its target).
Result<int> write_snapshot(const HostFs& fs, const SnapshotContent& content, const std::string& out,
                           std::vector<Phrase>* left_out = nullptr);

// What one unpack may write. A real snapshot holds a few thousand small files (sysfs
// attributes, a kernel log of some MiB), far below each.
struct UnpackLimits {
  size_t max_entries = 200'000;
  uint64_t max_file_bytes = uint64_t{256} << 20;  // 256 MiB, as the header says or the data shows
  uint64_t max_total_bytes = uint64_t{4} << 30;   // 4 GiB over all files
};

// Unpacks a snapshot into `dir` (created when missing); returns how many entries it wrote.
Result<int> unpack_snapshot(const std::string& archive, const std::string& dir, const UnpackLimits& limits = {});

}  // namespace gpuplan::probe
