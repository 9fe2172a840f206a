// The SQLite wrapper of the archive (see sqlite_db.h).
#include "archive/sqlite_db.h"

namespace gpuplan::archive::detail {

Db::~Db() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

std::string Db::open(const std::string& path, bool read_only) {
  const int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return reason;
  }
  sqlite3_extended_result_codes(db_, 1);
  // A reader that meets a writer's checkpoint, or a writer that meets a reader, waits rather
  // than failing at once.
  sqlite3_busy_timeout(db_, 5000);
  return {};
}

std::string Db::exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return {};
  std::string reason = message != nullptr ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return reason;
}

std::string Db::error() const {
  return db_ != nullptr ? sqlite3_errmsg(db_) : "not open";
}

int Db::error_code() const {
  return db_ != nullptr ? (sqlite3_extended_errcode(db_) & 0xff) : SQLITE_CANTOPEN;
}

std::optional<int64_t> Db::integer(const std::string& sql) {
  Stmt s;
  if (!s.prepare(*this, sql).empty() || s.step() != SQLITE_ROW) return std::nullopt;
  return s.column_int(0);
}

Stmt::~Stmt() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

std::string Stmt::prepare(Db& db, std::string_view sql) {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  if (sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_,
                         nullptr) != SQLITE_OK) {
    return db.error();
  }
  return {};
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Stmt::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
}
void Stmt::bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
}
void Stmt::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
}
void Stmt::bind(int i, const std::string& v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

int Stmt::step() {
  return sqlite3_step(stmt_) & 0xff;
}
bool Stmt::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
int64_t Stmt::column_int(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Stmt::column_double(int col) const {
  return sqlite3_column_double(stmt_, col);
}
std::string Stmt::column_text(int col) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return text != nullptr ? std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}

}  // namespace gpuplan::archive::detail
