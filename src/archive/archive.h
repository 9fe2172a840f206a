// The health archive (SPEC G12): one SQLite file per host that `gpuplan watch` keeps. Raw
// readings (every GPU every interval) are kept for a while, hourly rollups and events for ever.
// The file is opened in WAL mode; readings are buffered in memory and written by commit() in
// one transaction per batch, so a killed writer loses at most the batch not yet committed and
// never leaves a file that fails `PRAGMA integrity_check`. The schema carries a version; opening
// an older file migrates it, a newer one is refused (an Error naming the file and both versions).
//
// A caller may rely on: commit() either writes the whole pending batch or nothing, and a failed
// commit (disk full, read-only file) keeps the batch pending for the next try (up to a bound,
// beyond which the oldest readings are dropped and counted); the archive is never left corrupt.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "nvml/facts.h"

namespace gpuplan::archive {

// One GPU as the archive knows it: identity first seen, by NVML index on this host.
struct ArchivedGpu {
  unsigned index = 0;
  std::string uuid;
  std::string pci_bus_id;
  std::string name;
  std::optional<double> memory_total_mib;
};

// One reading of one GPU at one time. `lost`: NVML said the GPU fell off the bus (the reading is
// empty); the row records the loss so the archive shows the gap for what it is.
struct Reading {
  int64_t time_ms = 0;  // Unix ms (UTC)
  unsigned gpu = 0;     // NVML index
  bool lost = false;
  nvml::GpuDynamic values;
};

// Something that happened, kept for ever: kernel log events (Xid, SXid, AER), a PCIe link that
// changed, an ECC count that rose, a GPU lost or back.
enum class EventKind { kXid, kSxid, kAer, kLinkChange, kEccRise, kGpuLost, kGpuBack };
// "xid", "sxid", "aer", "link_change", "ecc_rise", "gpu_lost", "gpu_back" (the stored form).
const char* event_kind_name(EventKind kind);
std::optional<EventKind> event_kind_from_name(const std::string& name);

struct Event {
  int64_t time_ms = 0;
  EventKind kind = EventKind::kXid;
  std::optional<unsigned> gpu;  // NVML index when known
  std::string device;           // PCI address the event names ("0000:17:00.0"), "" when none
  std::optional<int64_t> code;  // Xid / SXid number; ECC: the new count; link: the new generation
  std::string detail;           // the kernel message, or "gen 4 x16 -> gen 3 x16", as facts not prose
};

// One hour of one GPU: gauges as mean/min/max over the hour's readings, counters as the rise
// over the hour (last − first reading of the hour, plus the rise from the previous hour's last
// reading when it is known; a counter that went down, a driver reload, counts from its new value).
struct HourlyRollup {
  int64_t hour_ms = 0;  // start of the hour, Unix ms
  unsigned gpu = 0;
  int64_t readings = 0;
  int64_t lost_readings = 0;
  struct Gauge {
    std::optional<double> mean, min, max;
  };
  Gauge utilization_pct, memory_copy_utilization_pct, memory_used_mib, temperature_c, memory_temperature_c, power_w,
      sm_clock_mhz;
  std::optional<uint64_t> ecc_corrected_rise, ecc_uncorrected_rise;  // volatile counts
  std::optional<uint64_t> ecc_aggregate_corrected_rise, ecc_aggregate_uncorrected_rise;
  std::optional<uint64_t> pcie_replay_rise, energy_mj_rise;
  std::optional<uint64_t> ecc_aggregate_corrected_last, ecc_aggregate_uncorrected_last;
};

struct CommitResult {
  int64_t batch = 0;        // the batch number just written (1, 2, ...; counted across restarts)
  int64_t readings = 0;     // readings it held
  int64_t events = 0;       // events it held
  int64_t last_time_ms = 0; // the newest reading's time in it (0 when none)
};

// The pending bound: 20000 readings hold 40 minutes of 8 GPUs read every second (over 3 hours
// at the default 5 s) in a few megabytes; events are rare, 10000 is far more than a bad hour.
// Beyond either bound the oldest are dropped and counted in dropped().
constexpr size_t kMaxPendingReadings = 20000;
constexpr size_t kMaxPendingEvents = 10000;

class Archive {
 public:
  // Opens or creates `path` (WAL, schema created or migrated). `host` is recorded once, for the
  // readers. An Error names the file: cannot open, not a gpuplan archive, newer schema.
  static Result<std::unique_ptr<Archive>> open(const std::string& path, const std::string& host);
  virtual ~Archive() = default;

  // GPUs by NVML index; a GPU whose UUID changed at an index is recorded anew.
  virtual Result<void> register_gpus(const std::vector<ArchivedGpu>& gpus) = 0;
  // Buffered until commit().
  virtual void add(const Reading& reading) = 0;
  virtual void add(const Event& event) = 0;
  virtual int64_t pending() const = 0;    // readings and events not yet committed
  virtual int64_t dropped() const = 0;    // readings and events dropped because a pending bound was reached
  // Writes every pending reading and event in one transaction. An Error (disk full, read-only)
  // leaves them pending; the next commit tries again.
  virtual Result<CommitResult> commit() = 0;
  // Rolls up every whole hour before `now_ms` not rolled up yet, then deletes raw readings older
  // than now_ms − keep_raw_ms (only hours already rolled up). Rollups and events are never deleted.
  virtual Result<void> maintain(int64_t now_ms, int64_t keep_raw_ms) = 0;
};

// The schema version this build writes (schema_version table), for messages and tests.
int schema_version();

// --- Reading an archive (what `usage`, `accept --archive`, `diagnose` and `watch export` use) ---

struct ArchiveContents {
  std::string host;
  int schema = 0;
  std::vector<ArchivedGpu> gpus;
};

// Opens read-only (never migrates, never writes: another process may be writing it). An Error
// names the file when it is not a gpuplan archive.
Result<ArchiveContents> read_header(const std::string& path);
// Raw readings in time order (then GPU), `from_ms` ≤ time < `to_ms`; `each` returns false to stop.
Result<void> read_readings(const std::string& path, int64_t from_ms, int64_t to_ms,
                           const std::function<bool(const Reading&)>& each);
Result<std::vector<Event>> read_events(const std::string& path);
Result<std::vector<HourlyRollup>> read_rollups(const std::string& path);
// The rollups, then the hours after them worked out from the raw readings as maintain() would
// (the current hour too, partial), without writing: every hour the archive knows, in hour then
// GPU order.
Result<std::vector<HourlyRollup>> read_hourly(const std::string& path);

// Whether the file starts with SQLite's magic ("SQLite format 3\0").
bool is_sqlite_file(const std::string& path);

}  // namespace gpuplan::archive
