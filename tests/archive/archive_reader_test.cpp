// Reading an archive: header, readings in time order and range, events, errors naming the file,
// and reading while a writer holds an open transaction.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "archive/archive.h"
#include "archive/archive_fixture.h"
#include "test_support.h"

namespace gpuplan::archive {
namespace {

using testing::archive_reading;
using testing::kArchiveT0;

std::vector<std::pair<int64_t, unsigned>> times(const std::string& path, int64_t from, int64_t to) {
  std::vector<std::pair<int64_t, unsigned>> out;
  auto ok = read_readings(path, from, to, [&](const Reading& r) {
    out.emplace_back(r.time_ms - kArchiveT0, r.gpu);
    return true;
  });
  EXPECT_TRUE(ok.ok()) << ok.error().str();
  return out;
}

TEST(ArchiveReader, HeaderReadingsInTimeOrderAndEvents) {
  const std::string path = testing::temp_dir() + "/r.db";
  // Added out of order, across GPUs: the reader gives them by time, then GPU.
  testing::write_archive(
      path, 2,
      {archive_reading(kArchiveT0 + 5000, 1, 1, 1, 1, 1, 0, 0), archive_reading(kArchiveT0 + 5000, 0, 1, 1, 1, 1, 0, 0),
       archive_reading(kArchiveT0, 1, 1, 1, 1, 1, 0, 0)},
      {Event{kArchiveT0 + 7, EventKind::kAer, std::nullopt, "0000:17:00.0", std::nullopt, "BadTLP"},
       Event{kArchiveT0 + 3, EventKind::kLinkChange, 1u, "", 3, "gen 4 x16 -> gen 3 x16"}});
  auto header = read_header(path);
  ASSERT_TRUE(header.ok()) << header.error().str();
  EXPECT_EQ(header->host, "node-a");
  EXPECT_EQ(header->schema, schema_version());
  ASSERT_EQ(header->gpus.size(), 2u);
  EXPECT_EQ(header->gpus[1].uuid, "GPU-00000001");
  EXPECT_EQ(header->gpus[1].memory_total_mib, 81920.0);
  using P = std::vector<std::pair<int64_t, unsigned>>;
  EXPECT_EQ(times(path, INT64_MIN, INT64_MAX), (P{{0, 1}, {5000, 0}, {5000, 1}}));
  EXPECT_EQ(times(path, kArchiveT0 + 1, kArchiveT0 + 5000), P{});                   // to is exclusive
  EXPECT_EQ(times(path, kArchiveT0 + 5000, INT64_MAX), (P{{5000, 0}, {5000, 1}}));  // from is inclusive
  auto events = read_events(path);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].kind, EventKind::kLinkChange);  // by time: +3 ms before +7 ms
  EXPECT_EQ((*events)[0].gpu, 1u);
  EXPECT_EQ((*events)[0].detail, "gen 4 x16 -> gen 3 x16");
  EXPECT_EQ((*events)[1].kind, EventKind::kAer);
  EXPECT_FALSE((*events)[1].gpu.has_value());
  EXPECT_FALSE((*events)[1].code.has_value());
  EXPECT_TRUE(is_sqlite_file(path));
}

TEST(ArchiveReader, AGpuReplacedAtAnIndexIsRecordedAnewAndTheHeaderShowsTheLatest) {
  const std::string path = testing::temp_dir() + "/swap.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->register_gpus(testing::archive_gpus(1)).ok());
  auto replaced = testing::archive_gpus(1);
  replaced[0].uuid = "GPU-replaced";
  ASSERT_TRUE((*a)->register_gpus(replaced).ok());
  auto header = read_header(path);
  ASSERT_TRUE(header.ok());
  ASSERT_EQ(header->gpus.size(), 1u);
  EXPECT_EQ(header->gpus[0].uuid, "GPU-replaced");
}

TEST(ArchiveReader, ReadsTheLastCommitWhileAWriterHoldsATransaction) {
  const std::string path = testing::temp_dir() + "/busy.db";
  testing::write_archive(path, 1, {archive_reading(kArchiveT0, 0, 1, 1, 1, 1, 0, 0)});
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(writer, "BEGIN IMMEDIATE; INSERT INTO readings (time_ms, gpu, lost) VALUES (1772409601000, 0, 0);",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  EXPECT_EQ(times(path, INT64_MIN, INT64_MAX).size(), 1u);  // the uncommitted row is not seen
  ASSERT_EQ(sqlite3_exec(writer, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(writer);
  EXPECT_EQ(times(path, INT64_MIN, INT64_MAX).size(), 2u);
}

TEST(ArchiveReader, ErrorsNameTheFile) {
  const std::string dir = testing::temp_dir();
  auto missing = read_header(dir + "/missing.db");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().file, dir + "/missing.db");
  EXPECT_EQ(missing.error().message.key, "archive.error.open");
  const std::string text = testing::write_file(dir, "text.db", "timestamp, index\n");
  EXPECT_FALSE(is_sqlite_file(text));
  auto not_db = read_events(text);
  ASSERT_FALSE(not_db.ok());
  EXPECT_EQ(not_db.error().file, text);
}

}  // namespace
}  // namespace gpuplan::archive
