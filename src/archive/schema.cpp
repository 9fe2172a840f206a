// The archive's schema and its migrations (see schema.h).
#include "archive/schema.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>

#include "archive/rollup.h"
#include "core/files.h"

namespace gpuplan::archive::detail {

namespace {

using G = nvml::GpuDynamic;

// v1: the readings of the first archive layout; v2: memory copy utilization, free memory, HBM
// temperature, energy, memory clock and the NVLink counters (GpuDynamic's later fields), and the
// hourly rollups.
constexpr std::array kColumns{
    ReadingColumn{"utilization_pct", &G::utilization_pct, "REAL", 1},
    ReadingColumn{"memory_used_mib", &G::memory_used_mib, "REAL", 1},
    ReadingColumn{"temperature_c", &G::temperature_c, "REAL", 1},
    ReadingColumn{"power_w", &G::power_w, "REAL", 1},
    ReadingColumn{"sm_clock_mhz", &G::sm_clock_mhz, "REAL", 1},
    ReadingColumn{"clock_event_reasons", &G::clock_event_reasons, "INTEGER", 1},
    ReadingColumn{"link_gen", &G::link_gen, "INTEGER", 1},
    ReadingColumn{"link_width", &G::link_width, "INTEGER", 1},
    ReadingColumn{"pcie_replays", &G::pcie_replays, "INTEGER", 1},
    ReadingColumn{"ecc_enabled", &G::ecc_enabled, "INTEGER", 1},
    ReadingColumn{"ecc_volatile_corrected", &G::ecc_volatile_corrected, "INTEGER", 1},
    ReadingColumn{"ecc_volatile_uncorrected", &G::ecc_volatile_uncorrected, "INTEGER", 1},
    ReadingColumn{"ecc_aggregate_corrected", &G::ecc_aggregate_corrected, "INTEGER", 1},
    ReadingColumn{"ecc_aggregate_uncorrected", &G::ecc_aggregate_uncorrected, "INTEGER", 1},
    ReadingColumn{"retired_pages_sbe", &G::retired_pages_sbe, "INTEGER", 1},
    ReadingColumn{"retired_pages_dbe", &G::retired_pages_dbe, "INTEGER", 1},
    ReadingColumn{"retired_pages_pending", &G::retired_pages_pending, "INTEGER", 1},
    ReadingColumn{"remapped_rows_correctable", &G::remapped_rows_correctable, "INTEGER", 1},
    ReadingColumn{"remapped_rows_uncorrectable", &G::remapped_rows_uncorrectable, "INTEGER", 1},
    ReadingColumn{"remapping_pending", &G::remapping_pending, "INTEGER", 1},
    ReadingColumn{"remapping_failed", &G::remapping_failed, "INTEGER", 1},
    ReadingColumn{"memory_copy_utilization_pct", &G::memory_copy_utilization_pct, "REAL", 2},
    ReadingColumn{"memory_free_mib", &G::memory_free_mib, "REAL", 2},
    ReadingColumn{"memory_temperature_c", &G::memory_temperature_c, "REAL", 2},
    ReadingColumn{"energy_mj", &G::energy_mj, "INTEGER", 2},
    ReadingColumn{"memory_clock_mhz", &G::memory_clock_mhz, "REAL", 2},
    ReadingColumn{"nvlink_replay_errors", &G::nvlink_replay_errors, "INTEGER", 2},
    ReadingColumn{"nvlink_recovery_errors", &G::nvlink_recovery_errors, "INTEGER", 2},
    ReadingColumn{"nvlink_crc_flit_errors", &G::nvlink_crc_flit_errors, "INTEGER", 2},
    ReadingColumn{"nvlink_crc_data_errors", &G::nvlink_crc_data_errors, "INTEGER", 2},
};

constexpr int kCurrentVersion = 2;
constexpr const char* kFormat = "gpuplan-archive";

std::string v1_sql() {
  std::string readings = "CREATE TABLE readings (time_ms INTEGER NOT NULL, gpu INTEGER NOT NULL, lost INTEGER NOT NULL";
  for (const ReadingColumn& c : kColumns) {
    if (c.since_version == 1) readings += fmt::format(", {} {}", c.name, c.sql_type);
  }
  readings += ");\n";
  return "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
         "CREATE TABLE gpus (gpu_index INTEGER NOT NULL, uuid TEXT NOT NULL, pci_bus_id TEXT NOT NULL, "
         "name TEXT NOT NULL, memory_total_mib REAL, first_seen_ms INTEGER NOT NULL, "
         "PRIMARY KEY (gpu_index, uuid));\n" +
         readings +
         "CREATE INDEX readings_time ON readings (time_ms, gpu);\n"
         "CREATE TABLE events (id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, kind TEXT NOT NULL, gpu INTEGER, "
         "device TEXT NOT NULL, code INTEGER, detail TEXT NOT NULL);\n"
         "CREATE TABLE batches (batch INTEGER PRIMARY KEY, committed_ms INTEGER NOT NULL, readings INTEGER NOT NULL, "
         "events INTEGER NOT NULL, last_time_ms INTEGER NOT NULL);\n"
         "INSERT INTO meta (key, value) VALUES ('format', 'gpuplan-archive');\n";
}

std::string v2_sql() {
  std::string sql;
  for (const ReadingColumn& c : kColumns) {
    if (c.since_version == 2) sql += fmt::format("ALTER TABLE readings ADD COLUMN {} {};\n", c.name, c.sql_type);
  }
  std::string rollups =
      "CREATE TABLE rollups (hour_ms INTEGER NOT NULL, gpu INTEGER NOT NULL, readings INTEGER NOT NULL, "
      "lost_readings INTEGER NOT NULL";
  for (const GaugeColumn& g : kGauges) rollups += fmt::format(", {0}_mean REAL, {0}_min REAL, {0}_max REAL", g.name);
  for (const CounterColumn& c : kCounters) rollups += fmt::format(", {0}_rise INTEGER, {0}_last INTEGER", c.name);
  return sql + rollups + ", PRIMARY KEY (hour_ms, gpu));\n";
}

}  // namespace

std::span<const ReadingColumn> reading_columns() {
  return kColumns;
}

std::string reading_column_list() {
  std::string list;
  for (const ReadingColumn& c : kColumns) list += fmt::format(", {}", c.name);
  return list;
}

void bind_values(Stmt& stmt, int first, const nvml::GpuDynamic& values) {
  int i = first;
  for (const ReadingColumn& c : kColumns) {
    std::visit(
        [&](auto member) {
          const auto& v = values.*member;
          if (!v) {
            stmt.bind_null(i);
          } else if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, double>) {
            stmt.bind(i, *v);
          } else {
            stmt.bind(i, static_cast<int64_t>(*v));
          }
        },
        c.member);
    ++i;
  }
}

void read_values(const Stmt& stmt, int first, nvml::GpuDynamic& values) {
  int i = first;
  for (const ReadingColumn& c : kColumns) {
    std::visit(
        [&](auto member) {
          auto& v = values.*member;
          using T = std::decay_t<decltype(*v)>;
          if (stmt.is_null(i)) {
            v.reset();
          } else if constexpr (std::is_same_v<T, double>) {
            v = stmt.column_double(i);
          } else if constexpr (std::is_same_v<T, bool>) {
            v = stmt.column_int(i) != 0;
          } else {
            v = static_cast<T>(stmt.column_int(i));
          }
        },
        c.member);
    ++i;
  }
}

Error sqlite_error(const std::string& path, const std::string& id, const std::string& reason) {
  return Error{path, 0, {}, Phrase(id).fact("file", path).fact("reason", reason)};
}

Result<void> migrate(Db& db, const std::string& path, int target) {
  const auto version = db.integer("PRAGMA user_version");
  if (!version) return sqlite_error(path, "archive.error.open", db.error());
  for (int step = static_cast<int>(*version) + 1; step <= target; ++step) {
    const std::string sql = step == 1 ? v1_sql() : v2_sql();
    const std::string reason =
        db.exec("BEGIN IMMEDIATE;\n" + sql + fmt::format("PRAGMA user_version = {};\n", step) + "COMMIT;");
    if (!reason.empty()) {
      (void)db.exec("ROLLBACK");  // nothing to undo when BEGIN itself failed
      return sqlite_error(path, "archive.error.migrate", reason);
    }
  }
  return {};
}

namespace {

// The version of a file that is a gpuplan archive, 0 for an empty file, or the Error.
Result<int> check_file(Db& db, const std::string& path) {
  const auto version = db.integer("PRAGMA user_version");
  if (!version) return sqlite_error(path, "archive.error.open", db.error());
  const auto tables = db.integer("SELECT COUNT(*) FROM sqlite_master");
  if (!tables) return sqlite_error(path, "archive.error.open", db.error());
  if (*version == 0 && *tables == 0) return 0;
  Stmt format;
  if (*version == 0 || !format.prepare(db, "SELECT value FROM meta WHERE key = 'format'").empty() ||
      format.step() != SQLITE_ROW || format.column_text(0) != kFormat) {
    return Error{path, 0, {}, Phrase("archive.error.not_archive").fact("file", path)};
  }
  if (*version > kCurrentVersion) {
    return Error{path,
                 0,
                 {},
                 Phrase("archive.error.newer_schema")
                     .fact("file", path)
                     .fact("found", std::to_string(*version))
                     .fact("supported", std::to_string(kCurrentVersion))};
  }
  return static_cast<int>(*version);
}

}  // namespace

Result<void> open_for_write(Db& db, const std::string& path) {
  if (std::string reason = db.open(path, false); !reason.empty()) {
    return sqlite_error(path, "archive.error.open", reason);
  }
  auto version = check_file(db, path);
  if (!version) return version.error();
  // WAL with synchronous=NORMAL: a killed process loses nothing committed (the WAL is in the
  // file system); only a power loss may lose the last commits, never the file's integrity.
  if (std::string reason = db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"); !reason.empty()) {
    return sqlite_error(path, "archive.error.open", reason);
  }
  return migrate(db, path, kCurrentVersion);
}

Result<int> open_for_read(Db& db, const std::string& path) {
  // An archive is a regular file: SQLite would wait on a FIFO without a writer. (A missing one is
  // left to SQLite's own words.)
  if (struct stat st {}; ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    auto file = open_regular_file(path);
    if (!file) return file.error();
    ::close(file->fd);
  }
  if (std::string reason = db.open(path, true); !reason.empty()) {
    return sqlite_error(path, "archive.error.open", reason);
  }
  auto version = check_file(db, path);
  if (!version) return version.error();
  if (*version == 0) return Error{path, 0, {}, Phrase("archive.error.not_archive").fact("file", path)};
  return version;
}

}  // namespace gpuplan::archive::detail

namespace gpuplan::archive {

int schema_version() {
  return detail::kCurrentVersion;
}

}  // namespace gpuplan::archive
