// What `gpuplan watch` knows right now: each GPU's identity, its latest reading, whether it is
// lost, the kernel events counted so far, and how the archive is doing. The sampler (watch/
// sampler) writes it; the exporter (watch/exposition) renders it as /metrics. Plain data: the
// daemon keeps one behind a mutex and hands the exporter a copy.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nvml/facts.h"

namespace gpuplan::watch {

struct GpuState {
  nvml::GpuStatic info;                 // index, uuid, pci_bus_id, name, max link
  std::optional<nvml::GpuDynamic> now;  // the latest reading; nullopt before the first
  int64_t read_ms = 0;                  // when `now` was read (Unix ms)
  bool lost = false;                    // NVML answered GPU_IS_LOST (fallen off the bus)
  int64_t lost_since_ms = 0;
  std::map<int64_t, uint64_t> xid_counts;  // Xid code → times seen since watch started
  std::optional<int64_t> last_xid;         // what dcgm-exporter's DCGM_FI_DEV_XID_ERRORS holds
};

// The state of one acceptance check watch can judge live (ids as `accept` names them: "ecc",
// "xid", "gpu.count", "pcie.link"): 0 pass, 1 warn, 2 fail.
struct LiveCheck {
  std::string id;
  int status = 0;
};

struct ArchiveState {
  std::string path;
  int64_t batches_committed = 0;
  int64_t readings_committed = 0;
  int64_t pending = 0;
  int64_t dropped = 0;
  int64_t commit_errors = 0;        // failed commits since start (disk full, read-only)
  bool writable = true;             // the last commit succeeded
  int64_t last_commit_ms = 0;
};

struct WatchState {
  std::string host;             // Hostname label
  std::string driver_version;
  int64_t started_ms = 0;
  int64_t samples_taken = 0;    // rounds of readings since start
  std::vector<GpuState> gpus;   // by NVML index
  std::map<int64_t, uint64_t> sxid_counts;  // SXid code → count (NVSwitch, not one GPU)
  uint64_t aer_events = 0;
  std::vector<LiveCheck> checks;
  ArchiveState archive;
};

}  // namespace gpuplan::watch
