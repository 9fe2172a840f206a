// A thin RAII layer over SQLite's C API for the archive: a connection, prepared statements that
// are reset and reused, and SQLite's own reason for a failure as text. Internal to archive/.
// A caller may rely on: a Stmt is reset before each use (bind, then step), and every failure
// returns SQLite's message, which the caller wraps in an Error naming the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::archive::detail {

class Db {
 public:
  Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();
  // SQLITE_OPEN_READWRITE | CREATE, or READONLY; "" on success, else SQLite's reason.
  std::string open(const std::string& path, bool read_only);
  sqlite3* get() const { return db_; }
  // Runs statements without results; "" on success, else SQLite's reason.
  std::string exec(std::string_view sql);
  std::string error() const;
  // The last failure's primary result code (SQLITE_FULL, SQLITE_READONLY, ...).
  int error_code() const;
  // A single integer result (PRAGMA user_version, COUNT(*)); nullopt when the query fails.
  std::optional<int64_t> integer(const std::string& sql);

 private:
  sqlite3* db_ = nullptr;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();
  // "" on success, else SQLite's reason.
  std::string prepare(Db& db, std::string_view sql);
  bool ready() const { return stmt_ != nullptr; }
  void reset();
  void bind_null(int i);
  void bind(int i, int64_t v);
  void bind(int i, double v);
  void bind(int i, const std::string& v);
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step();
  bool is_null(int col) const;
  int64_t column_int(int col) const;
  double column_double(int col) const;
  std::string column_text(int col) const;
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace gpuplan::archive::detail
