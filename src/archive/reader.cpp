// Reading an archive read-only (see archive.h): never migrates, never writes; in WAL mode a
// reader sees the last committed batch while a writer goes on.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "archive/archive.h"
#include "archive/rollup.h"
#include "archive/schema.h"

namespace gpuplan::archive {

namespace {

using detail::Db;
using detail::Stmt;

Error read_error(const std::string& path, const Db& db) {
  return detail::sqlite_error(path, "archive.error.read", db.error());
}

// The reading columns this file's version has; NULL for those added later.
std::string select_readings(int version) {
  std::string columns;
  for (const detail::ReadingColumn& c : detail::reading_columns()) {
    columns += c.since_version <= version ? fmt::format(", {}", c.name) : std::string(", NULL");
  }
  return fmt::format(
      "SELECT time_ms, gpu, lost{} FROM readings WHERE time_ms >= ? AND time_ms < ? ORDER BY time_ms, gpu", columns);
}

}  // namespace

bool is_sqlite_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char magic[16] = {};
  const size_t got = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  return got == sizeof magic && std::memcmp(magic, "SQLite format 3", 16) == 0;  // the 16th byte is the NUL
}

Result<ArchiveContents> read_header(const std::string& path) {
  Db db;
  auto version = detail::open_for_read(db, path);
  if (!version) return version.error();
  ArchiveContents contents;
  contents.schema = *version;
  Stmt host;
  if (!host.prepare(db, "SELECT value FROM meta WHERE key = 'host'").empty()) return read_error(path, db);
  if (host.step() == SQLITE_ROW) contents.host = host.column_text(0);
  // The GPU recorded last at each index (a GPU replaced at an index is recorded anew).
  Stmt gpus;
  if (!gpus.prepare(db,
                    "SELECT gpu_index, uuid, pci_bus_id, name, memory_total_mib FROM gpus AS g WHERE rowid = "
                    "(SELECT MAX(rowid) FROM gpus WHERE gpu_index = g.gpu_index) ORDER BY gpu_index")
           .empty()) {
    return read_error(path, db);
  }
  int rc = 0;
  while ((rc = gpus.step()) == SQLITE_ROW) {
    ArchivedGpu gpu;
    gpu.index = static_cast<unsigned>(gpus.column_int(0));
    gpu.uuid = gpus.column_text(1);
    gpu.pci_bus_id = gpus.column_text(2);
    gpu.name = gpus.column_text(3);
    if (!gpus.is_null(4)) gpu.memory_total_mib = gpus.column_double(4);
    contents.gpus.push_back(std::move(gpu));
  }
  if (rc != SQLITE_DONE) return read_error(path, db);
  return contents;
}

Result<void> read_readings(const std::string& path, int64_t from_ms, int64_t to_ms,
                           const std::function<bool(const Reading&)>& each) {
  Db db;
  auto version = detail::open_for_read(db, path);
  if (!version) return version.error();
  Stmt select;
  if (!select.prepare(db, select_readings(*version)).empty()) return read_error(path, db);
  select.bind(1, from_ms);
  select.bind(2, to_ms);
  int rc = 0;
  Reading r;
  while ((rc = select.step()) == SQLITE_ROW) {
    r.time_ms = select.column_int(0);
    r.gpu = static_cast<unsigned>(select.column_int(1));
    r.lost = select.column_int(2) != 0;
    detail::read_values(select, 3, r.values);
    if (!each(r)) return {};
  }
  if (rc != SQLITE_DONE) return read_error(path, db);
  return {};
}

Result<std::vector<Event>> read_events(const std::string& path) {
  Db db;
  auto version = detail::open_for_read(db, path);
  if (!version) return version.error();
  Stmt select;
  if (!select.prepare(db, "SELECT time_ms, kind, gpu, device, code, detail FROM events ORDER BY time_ms, id").empty()) {
    return read_error(path, db);
  }
  std::vector<Event> events;
  int rc = 0;
  while ((rc = select.step()) == SQLITE_ROW) {
    const auto kind = event_kind_from_name(select.column_text(1));
    if (!kind) continue;  // a kind a newer gpuplan wrote: not ours to guess
    Event e;
    e.time_ms = select.column_int(0);
    e.kind = *kind;
    if (!select.is_null(2)) e.gpu = static_cast<unsigned>(select.column_int(2));
    e.device = select.column_text(3);
    if (!select.is_null(4)) e.code = select.column_int(4);
    e.detail = select.column_text(5);
    events.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return read_error(path, db);
  return events;
}

Result<std::vector<HourlyRollup>> read_rollups(const std::string& path) {
  Db db;
  auto version = detail::open_for_read(db, path);
  if (!version) return version.error();
  std::vector<HourlyRollup> rollups;
  if (*version < 2) return rollups;  // v1 had no rollups
  std::string columns;
  for (const detail::GaugeColumn& g : detail::kGauges) columns += fmt::format(", {0}_mean, {0}_min, {0}_max", g.name);
  for (const detail::CounterColumn& c : detail::kCounters) columns += fmt::format(", {0}_rise, {0}_last", c.name);
  Stmt select;
  if (!select
           .prepare(db, fmt::format("SELECT hour_ms, gpu, readings, lost_readings{} FROM rollups ORDER BY hour_ms, gpu",
                                    columns))
           .empty()) {
    return read_error(path, db);
  }
  auto real = [&](int col) {
    return select.is_null(col) ? std::nullopt : std::optional<double>(select.column_double(col));
  };
  auto whole = [&](int col) {
    return select.is_null(col) ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(select.column_int(col)));
  };
  int rc = 0;
  while ((rc = select.step()) == SQLITE_ROW) {
    HourlyRollup h;
    h.hour_ms = select.column_int(0);
    h.gpu = static_cast<unsigned>(select.column_int(1));
    h.readings = select.column_int(2);
    h.lost_readings = select.column_int(3);
    int col = 4;
    for (const detail::GaugeColumn& g : detail::kGauges) {
      h.*g.member = {real(col), real(col + 1), real(col + 2)};
      col += 3;
    }
    for (const detail::CounterColumn& c : detail::kCounters) {
      h.*c.rise = whole(col);
      if (c.last != nullptr) h.*c.last = whole(col + 1);
      col += 2;
    }
    rollups.push_back(std::move(h));
  }
  if (rc != SQLITE_DONE) return read_error(path, db);
  return rollups;
}

Result<std::vector<HourlyRollup>> read_hourly(const std::string& path) {
  auto hours = read_rollups(path);
  if (!hours) return hours.error();
  Db db;
  auto version = detail::open_for_read(db, path);
  if (!version) return version.error();
  if (*version < 2) return hours;  // v1 kept no rollups to carry counters from
  const auto from = detail::rolled_up_to(db);
  if (!from) return read_error(path, db);
  if (*from == 0) return hours;  // no readings
  auto scan =
      detail::scan_hours(db, path, *from, INT64_MAX, [&](int64_t gpu, int64_t hour, const detail::HourAcc& acc) {
        hours->push_back(detail::to_rollup(gpu, hour, acc));
        return true;
      });
  if (!scan) return scan.error();
  std::stable_sort(hours->begin(), hours->end(), [](const HourlyRollup& a, const HourlyRollup& b) {
    return a.hour_ms != b.hour_ms ? a.hour_ms < b.hour_ms : a.gpu < b.gpu;
  });
  return hours;
}

}  // namespace gpuplan::archive
