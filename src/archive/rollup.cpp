// Hourly rollups and raw retention (see rollup.h). Gauges: mean/min/max of the hour's non-lost
// readings. Counters: the sum of each step's rise from the reading before (the previous hour's
// last value when known); a counter that went down (a driver reload) counts from its new value.
#include "archive/rollup.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "archive/schema.h"

namespace gpuplan::archive::detail {

namespace {

// The last known value of each counter of `gpu` before `hour_ms`, from the rollups.
Result<std::array<std::optional<int64_t>, kCounters.size()>> previous_lasts(Db& db, const std::string& path,
                                                                            int64_t gpu, int64_t hour_ms) {
  std::array<std::optional<int64_t>, kCounters.size()> lasts;
  for (size_t c = 0; c < kCounters.size(); ++c) {
    Stmt s;
    const std::string reason =
        s.prepare(db, fmt::format("SELECT {0}_last FROM rollups WHERE gpu = ? AND hour_ms < ? AND {0}_last IS NOT NULL "
                                  "ORDER BY hour_ms DESC LIMIT 1",
                                  kCounters[c].name));
    if (!reason.empty()) return sqlite_error(path, "archive.error.read", reason);
    s.bind(1, gpu);
    s.bind(2, hour_ms);
    if (s.step() == SQLITE_ROW) lasts[c] = s.column_int(0);
  }
  return lasts;
}

std::string select_sql() {
  std::string columns;
  for (const GaugeColumn& g : kGauges) columns += fmt::format(", {}", g.name);
  for (const CounterColumn& c : kCounters) columns += fmt::format(", {}", c.name);
  return fmt::format(
      "SELECT gpu, time_ms, lost{} FROM readings WHERE time_ms >= ? AND time_ms < ? ORDER BY gpu, time_ms", columns);
}

std::string insert_sql() {
  std::string columns, marks;
  for (const GaugeColumn& g : kGauges) {
    columns += fmt::format(", {0}_mean, {0}_min, {0}_max", g.name);
    marks += ", ?, ?, ?";
  }
  for (const CounterColumn& c : kCounters) {
    columns += fmt::format(", {0}_rise, {0}_last", c.name);
    marks += ", ?, ?";
  }
  return fmt::format("INSERT OR REPLACE INTO rollups (hour_ms, gpu, readings, lost_readings{}) VALUES (?, ?, ?, ?{})",
                     columns, marks);
}

bool write_hour(Stmt& insert, int64_t gpu, int64_t hour, const HourAcc& acc) {
  insert.reset();
  insert.bind(1, hour);
  insert.bind(2, gpu);
  insert.bind(3, acc.readings);
  insert.bind(4, acc.lost);
  int i = 5;
  for (const GaugeAcc& g : acc.gauges) {
    if (g.n > 0) {
      insert.bind(i, g.sum / static_cast<double>(g.n));
      insert.bind(i + 1, g.min);
      insert.bind(i + 2, g.max);
    }
    i += 3;
  }
  for (const CounterAcc& c : acc.counters) {
    if (c.rise) insert.bind(i, *c.rise);
    if (c.last) insert.bind(i + 1, *c.last);
    i += 2;
  }
  return insert.step() == SQLITE_DONE;
}

}  // namespace

Result<void> scan_hours(Db& db, const std::string& path, int64_t from, int64_t to, const HourSink& sink) {
  Stmt select;
  if (std::string reason = select.prepare(db, select_sql()); !reason.empty()) {
    return sqlite_error(path, "archive.error.read", reason);
  }
  select.bind(1, from);
  select.bind(2, to);
  std::optional<int64_t> gpu;
  std::map<int64_t, HourAcc> hours;  // of the current GPU
  std::array<std::optional<int64_t>, kCounters.size()> last{};
  auto flush = [&]() -> bool {
    for (const auto& [hour, acc] : hours) {
      if (!sink(*gpu, hour, acc)) return false;
    }
    hours.clear();
    return true;
  };
  int rc = 0;
  while ((rc = select.step()) == SQLITE_ROW) {
    const int64_t row_gpu = select.column_int(0);
    if (gpu != row_gpu) {
      if (gpu && !flush())
        return sqlite_error(path, "archive.error.maintain", db.error());  // only a writing sink fails
      gpu = row_gpu;
      auto lasts = previous_lasts(db, path, row_gpu, from);
      if (!lasts) return lasts.error();
      last = *lasts;
    }
    HourAcc& acc = hours[select.column_int(1) / kHourMs * kHourMs];
    ++acc.readings;
    if (select.column_int(2) != 0) {
      ++acc.lost;
      continue;
    }
    int col = 3;
    for (GaugeAcc& g : acc.gauges) {
      if (!select.is_null(col)) g.add(select.column_double(col));
      ++col;
    }
    for (size_t c = 0; c < kCounters.size(); ++c, ++col) {
      if (select.is_null(col)) continue;
      const int64_t v = select.column_int(col);
      CounterAcc& counter = acc.counters[c];
      const int64_t step = !last[c] ? 0 : (v >= *last[c] ? v - *last[c] : v);
      counter.rise = counter.rise.value_or(0) + step;
      counter.last = v;
      last[c] = v;
    }
  }
  if (rc != SQLITE_DONE || (gpu && !flush())) return sqlite_error(path, "archive.error.maintain", db.error());
  return {};
}

namespace {

Result<void> roll_up(Db& db, const std::string& path, int64_t from, int64_t to) {
  Stmt insert;
  if (std::string reason = insert.prepare(db, insert_sql()); !reason.empty()) {
    return sqlite_error(path, "archive.error.maintain", reason);
  }
  return scan_hours(db, path, from, to,
                    [&](int64_t gpu, int64_t hour, const HourAcc& acc) { return write_hour(insert, gpu, hour, acc); });
}

Result<void> maintain_in_transaction(Db& db, const std::string& path, int64_t now_ms, int64_t keep_raw_ms) {
  const int64_t end = now_ms / kHourMs * kHourMs;
  auto from = rolled_up_to(db);
  if (!from) return sqlite_error(path, "archive.error.maintain", db.error());
  int64_t rolled = *from;
  if (rolled > 0 && rolled < end) {
    if (auto ok = roll_up(db, path, rolled, end); !ok) return ok;
    rolled = end;
    Stmt mark;
    std::string reason = mark.prepare(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('rolled_up_to_ms', ?)");
    if (reason.empty()) {
      mark.bind(1, std::to_string(rolled));
      if (mark.step() != SQLITE_DONE) reason = db.error();
    }
    if (!reason.empty()) return sqlite_error(path, "archive.error.maintain", reason);
  }
  Stmt prune;
  std::string reason = prune.prepare(db, "DELETE FROM readings WHERE time_ms < ?");
  if (!reason.empty()) return sqlite_error(path, "archive.error.maintain", reason);
  prune.bind(1, std::min(now_ms - keep_raw_ms, rolled));
  if (prune.step() != SQLITE_DONE) return sqlite_error(path, "archive.error.maintain", db.error());
  return {};
}

}  // namespace

HourlyRollup to_rollup(int64_t gpu, int64_t hour_ms, const HourAcc& acc) {
  HourlyRollup h;
  h.hour_ms = hour_ms;
  h.gpu = static_cast<unsigned>(gpu);
  h.readings = acc.readings;
  h.lost_readings = acc.lost;
  for (size_t g = 0; g < kGauges.size(); ++g) {
    const GaugeAcc& a = acc.gauges[g];
    if (a.n > 0) h.*kGauges[g].member = {a.sum / static_cast<double>(a.n), a.min, a.max};
  }
  auto whole = [](const std::optional<int64_t>& v) {
    return v ? std::optional<uint64_t>(static_cast<uint64_t>(*v)) : std::nullopt;
  };
  for (size_t c = 0; c < kCounters.size(); ++c) {
    h.*kCounters[c].rise = whole(acc.counters[c].rise);
    if (kCounters[c].last != nullptr) h.*kCounters[c].last = whole(acc.counters[c].last);
  }
  return h;
}

std::optional<int64_t> rolled_up_to(Db& db) {
  // An archive with no readings yet reads NULL, which integer() gives as 0: nothing to roll.
  return db.integer(
      "SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'rolled_up_to_ms'), "
      "(SELECT MIN(time_ms) / 3600000 * 3600000 FROM readings))");
}

Result<void> maintain(Db& db, const std::string& path, int64_t now_ms, int64_t keep_raw_ms) {
  if (std::string reason = db.exec("BEGIN IMMEDIATE"); !reason.empty()) {
    return sqlite_error(path, "archive.error.maintain", reason);
  }
  auto ok = maintain_in_transaction(db, path, now_ms, keep_raw_ms);
  if (ok) {
    if (std::string reason = db.exec("COMMIT"); !reason.empty())
      ok = sqlite_error(path, "archive.error.maintain", reason);
  }
  if (!ok && sqlite3_get_autocommit(db.get()) == 0) (void)db.exec("ROLLBACK");  // the error below says why
  return ok;
}

}  // namespace gpuplan::archive::detail
