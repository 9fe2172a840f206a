// The archive writer: schema, commit in batches, the batches table, pending on failure,
// migrations and the refusal of a newer file.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>

#include "archive/archive.h"
#include "archive/archive_fixture.h"
#include "archive/schema.h"
#include "test_support.h"

namespace gpuplan::archive {
namespace {

using testing::archive_reading;
using testing::kArchiveT0;

int64_t query_int(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t v = -1;
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

std::string integrity(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr), SQLITE_OK);
  std::string v;
  if (sqlite3_step(s) == SQLITE_ROW) v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

TEST(ArchiveWriter, CommitsBatchesAndRecordsEachInTheBatchesTable) {
  const std::string path = testing::temp_dir() + "/a.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok()) << a.error().str();
  ASSERT_TRUE((*a)->register_gpus(testing::archive_gpus(2)).ok());
  for (int i = 0; i < 3; ++i) (*a)->add(archive_reading(kArchiveT0 + i * 5000, 0, 50, 1000, 40, 200, 0, 0));
  (*a)->add(Event{kArchiveT0 + 1000, EventKind::kXid, 0u, "0000:17:00.0", 79, "Xid 79"});
  EXPECT_EQ((*a)->pending(), 4);
  auto first = (*a)->commit();
  ASSERT_TRUE(first.ok()) << first.error().str();
  EXPECT_EQ(first->batch, 1);
  EXPECT_EQ(first->readings, 3);
  EXPECT_EQ(first->events, 1);
  EXPECT_EQ(first->last_time_ms, kArchiveT0 + 10000);  // the third reading, 2 × 5 s after the first
  EXPECT_EQ((*a)->pending(), 0);
  (*a)->add(archive_reading(kArchiveT0 + 15000, 1, 50, 1000, 40, 200, 0, 0));
  auto second = (*a)->commit();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->batch, 2);
  a->reset();
  EXPECT_EQ(query_int(path, "SELECT COUNT(*) FROM readings"), 4);
  EXPECT_EQ(query_int(path, "SELECT SUM(readings) FROM batches"), 4);
  EXPECT_EQ(query_int(path, "SELECT last_time_ms FROM batches WHERE batch = 2"), kArchiveT0 + 15000);
  EXPECT_EQ(query_int(path, "SELECT COUNT(*) FROM gpus"), 2);
  // Batch numbers go on across a restart.
  auto again = Archive::open(path, "node-a");
  ASSERT_TRUE(again.ok());
  (*again)->add(archive_reading(kArchiveT0 + 20000, 1, 50, 1000, 40, 200, 0, 0));
  auto third = (*again)->commit();
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->batch, 3);
}

TEST(ArchiveWriter, OpensInWalMode) {
  const std::string path = testing::temp_dir() + "/wal.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST(ArchiveWriter, EveryValueComesBackAsWritten) {
  const std::string path = testing::temp_dir() + "/values.db";
  Reading r = archive_reading(kArchiveT0, 1, 87.5, 40960, 66, 312.25, 7, 2);
  r.values.memory_copy_utilization_pct = 31;
  r.values.memory_temperature_c = 71;
  r.values.energy_mj = 123456789012;
  r.values.memory_clock_mhz = 1593;
  r.values.clock_event_reasons = 0x40;
  r.values.link_gen = 4;
  r.values.link_width = 16;
  r.values.pcie_replays = 3;
  r.values.ecc_enabled = true;
  r.values.ecc_aggregate_corrected = 17;
  r.values.retired_pages_sbe = 1;
  r.values.retired_pages_dbe = 0;
  r.values.retired_pages_pending = false;
  r.values.remapped_rows_correctable = 2;
  r.values.remapped_rows_uncorrectable = 1;
  r.values.remapping_pending = true;
  r.values.remapping_failed = false;
  r.values.nvlink_replay_errors = 5;
  r.values.nvlink_recovery_errors = 6;
  r.values.nvlink_crc_flit_errors = 8;
  r.values.nvlink_crc_data_errors = 9;
  Reading lost;
  lost.time_ms = kArchiveT0 + 5000;
  lost.gpu = 1;
  lost.lost = true;
  testing::write_archive(path, 2, {r, lost});
  std::vector<Reading> back;
  ASSERT_TRUE(read_readings(path, 0, INT64_MAX, [&](const Reading& x) {
                back.push_back(x);
                return true;
              }).ok());
  ASSERT_EQ(back.size(), 2u);
  const nvml::GpuDynamic& v = back[0].values;
  EXPECT_EQ(back[0].time_ms, kArchiveT0);
  EXPECT_EQ(back[0].gpu, 1u);
  EXPECT_FALSE(back[0].lost);
  EXPECT_EQ(v.utilization_pct, 87.5);
  EXPECT_EQ(v.memory_used_mib, 40960);
  EXPECT_EQ(v.memory_free_mib, 40960);  // 81920 − 40960
  EXPECT_EQ(v.power_w, 312.25);
  EXPECT_EQ(v.memory_copy_utilization_pct, 31);
  EXPECT_EQ(v.memory_temperature_c, 71);
  EXPECT_EQ(v.energy_mj, 123456789012u);
  EXPECT_EQ(v.memory_clock_mhz, 1593);
  EXPECT_EQ(v.clock_event_reasons, 0x40u);
  EXPECT_EQ(v.link_gen, 4u);
  EXPECT_EQ(v.link_width, 16u);
  EXPECT_EQ(v.pcie_replays, 3u);
  EXPECT_EQ(v.ecc_enabled, true);
  EXPECT_EQ(v.ecc_volatile_corrected, 7u);
  EXPECT_EQ(v.ecc_volatile_uncorrected, 2u);
  EXPECT_EQ(v.ecc_aggregate_corrected, 17u);
  EXPECT_EQ(v.ecc_aggregate_uncorrected, 2u);
  EXPECT_EQ(v.retired_pages_sbe, 1u);
  EXPECT_EQ(v.retired_pages_dbe, 0u);
  EXPECT_EQ(v.retired_pages_pending, false);
  EXPECT_EQ(v.remapped_rows_correctable, 2u);
  EXPECT_EQ(v.remapped_rows_uncorrectable, 1u);
  EXPECT_EQ(v.remapping_pending, true);
  EXPECT_EQ(v.remapping_failed, false);
  EXPECT_EQ(v.nvlink_replay_errors, 5u);
  EXPECT_EQ(v.nvlink_recovery_errors, 6u);
  EXPECT_EQ(v.nvlink_crc_flit_errors, 8u);
  EXPECT_EQ(v.nvlink_crc_data_errors, 9u);
  EXPECT_TRUE(back[1].lost);
  EXPECT_FALSE(back[1].values.utilization_pct.has_value());
}

TEST(ArchiveWriter, FailedCommitKeepsTheBatchPendingAndTheNextOneWritesIt) {
  // A real write failure: the file size limit (RLIMIT_FSIZE) stops the writes as a full disk
  // would; SIGXFSZ is ignored so the write returns EFBIG instead of killing the test.
  const std::string path = testing::temp_dir() + "/full.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->register_gpus(testing::archive_gpus(1)).ok());
  (*a)->add(archive_reading(kArchiveT0, 0, 1, 1, 1, 1, 0, 0));
  ASSERT_TRUE((*a)->commit().ok());
  const auto size = std::filesystem::file_size(path) + std::filesystem::file_size(path + "-wal");
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = size + 4096;  // room for a page or so, not for 5000 readings
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  for (int i = 1; i <= 5000; ++i) (*a)->add(archive_reading(kArchiveT0 + i * 1000, 0, 50, 1000, 40, 200, 0, 0));
  auto failed = (*a)->commit();
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message.key, "archive.error.write");
  EXPECT_EQ(*failed.error().message.value("file"), path);
  EXPECT_FALSE(failed.error().message.value("reason")->empty());
  EXPECT_EQ((*a)->pending(), 5000);
  EXPECT_EQ(query_int(path, "SELECT COUNT(*) FROM readings"), 1);  // nothing of the failed batch
  EXPECT_EQ(integrity(path), "ok");
  auto retried = (*a)->commit();
  ASSERT_TRUE(retried.ok()) << retried.error().str();
  EXPECT_EQ(retried->batch, 2);
  EXPECT_EQ(retried->readings, 5000);
  EXPECT_EQ((*a)->pending(), 0);
  EXPECT_EQ(query_int(path, "SELECT COUNT(*) FROM readings"), 5001);
}

TEST(ArchiveWriter, PendingReadingsAreBoundedOldestDroppedAndCounted) {
  const std::string path = testing::temp_dir() + "/bound.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  const int64_t extra = 7;
  for (int64_t i = 0; i < static_cast<int64_t>(kMaxPendingReadings) + extra; ++i) {
    (*a)->add(archive_reading(kArchiveT0 + i, 0, 1, 1, 1, 1, 0, 0));
  }
  EXPECT_EQ((*a)->pending(), static_cast<int64_t>(kMaxPendingReadings));
  EXPECT_EQ((*a)->dropped(), extra);
  ASSERT_TRUE((*a)->commit().ok());
  // The oldest 7 went: the first kept reading is the 8th, at t0 + 7 ms.
  EXPECT_EQ(query_int(path, "SELECT MIN(time_ms) FROM readings"), kArchiveT0 + extra);
}

TEST(ArchiveWriter, OpensAVersion1FileAndMigratesIt) {
  const std::string path = testing::temp_dir() + "/v1.db";
  {
    detail::Db db;
    ASSERT_EQ(db.open(path, false), "");
    ASSERT_TRUE(detail::migrate(db, path, 1).ok());
    ASSERT_EQ(db.exec("INSERT INTO readings (time_ms, gpu, lost, utilization_pct) VALUES (1772409600000, 0, 0, 42)"),
              "");
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), 1);
  auto before = read_header(path);  // a reader reads a v1 file as it is
  ASSERT_TRUE(before.ok()) << before.error().str();
  EXPECT_EQ(before->schema, 1);
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok()) << a.error().str();
  Reading r = archive_reading(kArchiveT0 + 5000, 0, 50, 1000, 40, 200, 0, 0);
  r.values.nvlink_replay_errors = 4;  // a v2 column
  (*a)->add(r);
  ASSERT_TRUE((*a)->commit().ok());
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), schema_version());
  EXPECT_EQ(query_int(path, "SELECT utilization_pct FROM readings WHERE time_ms = 1772409600000"), 42);
  EXPECT_EQ(query_int(path, "SELECT nvlink_replay_errors FROM readings WHERE time_ms = 1772409605000"), 4);
}

TEST(ArchiveWriter, RefusesANewerSchemaNamingFileAndVersions) {
  const std::string path = testing::temp_dir() + "/newer.db";
  { ASSERT_TRUE(Archive::open(path, "node-a").ok()); }
  {
    detail::Db db;
    ASSERT_EQ(db.open(path, false), "");
    ASSERT_EQ(db.exec("PRAGMA user_version = 99"), "");
  }
  auto a = Archive::open(path, "node-a");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().file, path);
  EXPECT_EQ(a.error().message.key, "archive.error.newer_schema");
  EXPECT_EQ(*a.error().message.value("found"), "99");
  EXPECT_EQ(*a.error().message.value("supported"), std::to_string(schema_version()));
  auto r = read_header(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "archive.error.newer_schema");
}

TEST(ArchiveWriter, RefusesASqliteFileThatIsNotAnArchive) {
  const std::string path = testing::temp_dir() + "/other.db";
  {
    detail::Db db;
    ASSERT_EQ(db.open(path, false), "");
    ASSERT_EQ(db.exec("CREATE TABLE t (x)"), "");
  }
  auto a = Archive::open(path, "node-a");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message.key, "archive.error.not_archive");
  EXPECT_EQ(a.error().file, path);
}

}  // namespace
}  // namespace gpuplan::archive
