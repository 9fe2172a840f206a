// The archive's SQLite schema, internal to archive/: the migration steps (v1 → current), the
// reading columns (one per GpuDynamic scalar, bound and read by one table so that the writer and
// the readers cannot disagree), and opening a file for writing or reading.
// A caller may rely on: open_for_write leaves a file at schema_version() or returns an Error
// naming the file; open_for_read never writes and refuses a newer or foreign file.
#pragma once

#include <span>
#include <string>
#include <variant>

#include "archive/archive.h"
#include "archive/sqlite_db.h"

namespace gpuplan::archive::detail {

using Member = std::variant<std::optional<double> nvml::GpuDynamic::*, std::optional<uint64_t> nvml::GpuDynamic::*,
                            std::optional<unsigned> nvml::GpuDynamic::*, std::optional<bool> nvml::GpuDynamic::*>;

struct ReadingColumn {
  const char* name;
  Member member;
  const char* sql_type;  // "REAL" or "INTEGER"
  int since_version;     // the schema version that added the column
};

// Every reading column after time_ms, gpu, lost, in table order.
std::span<const ReadingColumn> reading_columns();
// ", utilization_pct, ..." for a SELECT or INSERT list.
std::string reading_column_list();
void bind_values(Stmt& stmt, int first, const nvml::GpuDynamic& values);
void read_values(const Stmt& stmt, int first, nvml::GpuDynamic& values);

// Brings a file (new or older) to `target` version, each step in its own transaction. Used by
// open_for_write with schema_version(), and by tests to build an old file.
Result<void> migrate(Db& db, const std::string& path, int target);
Result<void> open_for_write(Db& db, const std::string& path);
// Read-only: an Error naming the file when it cannot be read, is not a gpuplan archive or is newer.
Result<int> open_for_read(Db& db, const std::string& path);

Error sqlite_error(const std::string& path, const std::string& id, const std::string& reason);

}  // namespace gpuplan::archive::detail
