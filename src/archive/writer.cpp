// The archive writer: buffered readings and events, one transaction per commit (see archive.h).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>

#include "archive/archive.h"
#include "archive/rollup.h"
#include "archive/schema.h"

namespace gpuplan::archive {

namespace {

using detail::Stmt;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SqliteArchive final : public Archive {
 public:
  explicit SqliteArchive(std::string path) : path_(std::move(path)) {}

  Result<void> init(const std::string& host) {
    if (auto opened = detail::open_for_write(db_, path_); !opened) return opened;
    Stmt host_row;
    std::string reason = host_row.prepare(db_, "INSERT OR IGNORE INTO meta (key, value) VALUES ('host', ?)");
    if (reason.empty()) {
      host_row.bind(1, host);
      if (host_row.step() != SQLITE_DONE) reason = db_.error();
    }
    if (reason.empty()) {
      std::string marks;
      for (size_t i = 0; i < detail::reading_columns().size(); ++i) marks += ", ?";
      reason =
          insert_reading_.prepare(db_, fmt::format("INSERT INTO readings (time_ms, gpu, lost{}) VALUES (?, ?, ?{})",
                                                   detail::reading_column_list(), marks));
    }
    if (reason.empty()) reason = prepare_rest();
    if (!reason.empty()) return detail::sqlite_error(path_, "archive.error.open", reason);
    const auto last = db_.integer("SELECT COALESCE(MAX(batch), 0) FROM batches");
    if (!last) return detail::sqlite_error(path_, "archive.error.open", db_.error());
    last_batch_ = *last;
    return {};
  }

  Result<void> register_gpus(const std::vector<ArchivedGpu>& gpus) override {
    Stmt insert;
    std::string reason = insert.prepare(db_,
                                        "INSERT OR IGNORE INTO gpus (gpu_index, uuid, pci_bus_id, name, "
                                        "memory_total_mib, first_seen_ms) VALUES (?, ?, ?, ?, ?, ?)");
    if (reason.empty()) reason = db_.exec("BEGIN IMMEDIATE");
    if (!reason.empty()) return detail::sqlite_error(path_, "archive.error.write", reason);
    const int64_t seen = now_ms();
    for (const ArchivedGpu& gpu : gpus) {
      insert.reset();
      insert.bind(1, static_cast<int64_t>(gpu.index));
      insert.bind(2, gpu.uuid);
      insert.bind(3, gpu.pci_bus_id);
      insert.bind(4, gpu.name);
      if (gpu.memory_total_mib) insert.bind(5, *gpu.memory_total_mib);
      insert.bind(6, seen);
      if (insert.step() != SQLITE_DONE) return fail_write();
    }
    if (reason = db_.exec("COMMIT"); !reason.empty()) return fail_write();
    return {};
  }

  void add(const Reading& reading) override {
    if (readings_.size() >= kMaxPendingReadings) {
      readings_.pop_front();
      ++dropped_;
    }
    readings_.push_back(reading);
  }

  void add(const Event& event) override {
    if (events_.size() >= kMaxPendingEvents) {
      events_.pop_front();
      ++dropped_;
    }
    events_.push_back(event);
  }

  int64_t pending() const override { return static_cast<int64_t>(readings_.size() + events_.size()); }
  int64_t dropped() const override { return dropped_; }

  Result<CommitResult> commit() override {
    CommitResult result;
    result.batch = last_batch_ + 1;
    result.readings = static_cast<int64_t>(readings_.size());
    result.events = static_cast<int64_t>(events_.size());
    if (std::string reason = db_.exec("BEGIN IMMEDIATE"); !reason.empty()) {
      return detail::sqlite_error(path_, "archive.error.write", reason);
    }
    for (const Reading& r : readings_) {
      insert_reading_.reset();
      insert_reading_.bind(1, r.time_ms);
      insert_reading_.bind(2, static_cast<int64_t>(r.gpu));
      insert_reading_.bind(3, int64_t{r.lost ? 1 : 0});
      detail::bind_values(insert_reading_, 4, r.values);
      if (insert_reading_.step() != SQLITE_DONE) return fail_write();
      result.last_time_ms = std::max(result.last_time_ms, r.time_ms);
    }
    for (const Event& e : events_) {
      if (!insert_event(e)) return fail_write();
    }
    insert_batch_.reset();
    insert_batch_.bind(1, result.batch);
    insert_batch_.bind(2, now_ms());
    insert_batch_.bind(3, result.readings);
    insert_batch_.bind(4, result.events);
    insert_batch_.bind(5, result.last_time_ms);
    if (insert_batch_.step() != SQLITE_DONE) return fail_write();
    if (!db_.exec("COMMIT").empty()) return fail_write();
    last_batch_ = result.batch;
    readings_.clear();
    events_.clear();
    return result;
  }

  Result<void> maintain(int64_t now, int64_t keep_raw_ms) override {
    // An hour with readings still pending (a commit not due yet, or one that failed) is not
    // whole in the file yet: roll up only the hours before the oldest of them.
    int64_t whole_before = now;
    for (const Reading& r : readings_) whole_before = std::min(whole_before, r.time_ms);
    return detail::maintain(db_, path_, whole_before, keep_raw_ms - (now - whole_before));
  }

 private:
  std::string prepare_rest() {
    std::string reason = insert_event_.prepare(
        db_, "INSERT INTO events (time_ms, kind, gpu, device, code, detail) VALUES (?, ?, ?, ?, ?, ?)");
    if (reason.empty()) {
      reason = insert_batch_.prepare(
          db_, "INSERT INTO batches (batch, committed_ms, readings, events, last_time_ms) VALUES (?, ?, ?, ?, ?)");
    }
    return reason;
  }

  bool insert_event(const Event& e) {
    insert_event_.reset();
    insert_event_.bind(1, e.time_ms);
    insert_event_.bind(2, std::string(event_kind_name(e.kind)));
    if (e.gpu) insert_event_.bind(3, static_cast<int64_t>(*e.gpu));
    insert_event_.bind(4, e.device);
    if (e.code) insert_event_.bind(5, *e.code);
    insert_event_.bind(6, e.detail);
    return insert_event_.step() == SQLITE_DONE;
  }

  // Rolls the transaction back (the batch stays pending) and names SQLite's reason.
  Error fail_write() {
    const std::string reason = db_.error();
    insert_reading_.reset();
    insert_event_.reset();
    insert_batch_.reset();
    if (sqlite3_get_autocommit(db_.get()) == 0) (void)db_.exec("ROLLBACK");  // a failed rollback leaves SQLite's own
    return detail::sqlite_error(path_, "archive.error.write", reason);
  }

  std::string path_;
  detail::Db db_;
  Stmt insert_reading_, insert_event_, insert_batch_;
  std::deque<Reading> readings_;
  std::deque<Event> events_;
  int64_t dropped_ = 0;
  int64_t last_batch_ = 0;
};

}  // namespace

const char* event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kXid:
      return "xid";
    case EventKind::kSxid:
      return "sxid";
    case EventKind::kAer:
      return "aer";
    case EventKind::kLinkChange:
      return "link_change";
    case EventKind::kEccRise:
      return "ecc_rise";
    case EventKind::kGpuLost:
      return "gpu_lost";
    case EventKind::kGpuBack:
      return "gpu_back";
  }
  return "xid";
}

std::optional<EventKind> event_kind_from_name(const std::string& name) {
  for (EventKind kind : {EventKind::kXid, EventKind::kSxid, EventKind::kAer, EventKind::kLinkChange,
                         EventKind::kEccRise, EventKind::kGpuLost, EventKind::kGpuBack}) {
    if (name == event_kind_name(kind)) return kind;
  }
  return std::nullopt;
}

Result<std::unique_ptr<Archive>> Archive::open(const std::string& path, const std::string& host) {
  auto archive = std::make_unique<SqliteArchive>(path);
  if (auto ok = archive->init(host); !ok) return ok.error();
  return std::unique_ptr<Archive>(std::move(archive));
}

}  // namespace gpuplan::archive
