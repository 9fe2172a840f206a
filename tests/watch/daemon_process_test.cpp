// `gpuplan watch` as a process, against the fake NVML (tests/fixtures/nvml/watch-two-gpus.yaml)
// and a real archive: SIGTERM flushes and exits 0, SIGHUP reopens the log, SIGKILL at random
// points 100 times never corrupts the archive nor loses a batch the log called committed, and a
// full disk is one error line, the process going on and committing again once space returns.
#include "watch/daemon_process.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <regex>

#include "prometheus_process.h"
#include "test_support.h"

namespace gpuplan::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string scenario() {
  return source_path("tests/fixtures/nvml/watch-two-gpus.yaml");
}

// One value of `sql` on the archive at `path` (read-only), as text; "" when it fails.
std::string query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(st, 0);
      out = text ? reinterpret_cast<const char*>(text) : "";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

std::vector<std::string> fast_args(const std::string& archive, const std::string& log) {
  return {"--interval", "100ms", "--commit-every", "200ms", "--archive", archive,
          "--log",      log,     "--kernel-log",   "off",   "--listen",  "off"};
}

int exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(DaemonProcess, SigtermCommitsWhatIsPendingAndExitsZero) {
  const std::string dir = temp_dir();
  const std::string archive = dir + "/archive.db", log = dir + "/watch.log";
  auto args = fast_args(archive, log);
  args[3] = "10s";  // --commit-every: only the final commit writes
  WatchProcess p(args, scenario());
  ASSERT_TRUE(p.started());
  ASSERT_TRUE(eventually([&] { return read_file(log).find("watching 2 GPU") != std::string::npos; }));
  std::this_thread::sleep_for(milliseconds(700));
  p.signal(SIGTERM);
  EXPECT_EQ(exit_code(p.wait()), 0);
  auto batches = committed_batches(log);
  ASSERT_EQ(batches.size(), 1u);  // the final commit
  EXPECT_EQ(query(archive, "PRAGMA integrity_check"), "ok");
  const int readings = std::stoi(query(archive, "SELECT count(*) FROM readings"));
  EXPECT_GE(readings, 2 * 5);  // at least 5 rounds of 2 GPUs in 700 ms at 100 ms
  EXPECT_EQ(readings % 2, 0);  // whole rounds only
  EXPECT_EQ(query(archive, "SELECT readings FROM batches WHERE batch = 1"), std::to_string(readings));
}

TEST(DaemonProcess, SighupReopensTheLogFile) {
  const std::string dir = temp_dir();
  const std::string archive = dir + "/archive.db", log = dir + "/watch.log";
  WatchProcess p(fast_args(archive, log), scenario());
  ASSERT_TRUE(eventually([&] { return !committed_batches(log).empty(); }));
  fs::rename(log, log + ".1");  // what logrotate does, then SIGHUP
  p.signal(SIGHUP);
  ASSERT_TRUE(eventually([&] { return fs::exists(log) && !committed_batches(log).empty(); }));
  p.signal(SIGTERM);
  EXPECT_EQ(exit_code(p.wait()), 0);
  // Every batch is in one file or the other, in order, none twice.
  auto before = committed_batches(log + ".1"), after = committed_batches(log);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(after.front(), before.back() + 1);
}

TEST(DaemonProcess, SigkillAtRandomPointsNeverCorruptsNorLosesACommittedBatch) {
  const std::string dir = temp_dir();
  const std::string archive = dir + "/archive.db", log = dir + "/watch.log";
  std::mt19937 rng(15);  // fixed seed: a failure can be rerun
  std::uniform_int_distribution<int> delay_ms(20, 450);
  // Startups logged so far ("watching 2 GPU(s) ..."), to tell when this run's daemon is sampling.
  auto startups = [&] { return count_of(read_file(log), "watching 2 GPU"); };
  // 100 kills against the plain binary; the sanitized one, four times slower to start, is checked
  // for memory errors on the way and needs fewer.
  const int runs = testing::binary_is_sanitized() ? 25 : 100;
  for (int run = 0; run < runs; ++run) {
    {
      const size_t started_before = startups();
      WatchProcess p(fast_args(archive, log), scenario());
      ASSERT_TRUE(p.started());
      // One run in five is killed counting from exec (opening, migrating, registering GPUs); the
      // others from the moment it samples, so the kills land among rounds and commits however
      // slowly the binary starts (an instrumented one takes hundreds of milliseconds).
      if (run % 5 != 0) eventually([&] { return startups() > started_before || !p.running(); });
      std::this_thread::sleep_for(milliseconds(delay_ms(rng)));
      p.signal(SIGKILL);
      p.wait();
    }
    if (!fs::exists(archive)) continue;  // killed before it created the file
    ASSERT_EQ(query(archive, "PRAGMA integrity_check"), "ok") << "run " << run;
    for (long long batch : committed_batches(log)) {
      ASSERT_EQ(query(archive, "SELECT count(*) FROM batches WHERE batch = " + std::to_string(batch)), "1")
          << "run " << run << ": batch " << batch << " reported committed is missing";
    }
  }
  // The kills did land after commits too: about half the timed kills come after the first commit
  // (200 ms into a 20–450 ms delay), some after two; a low bound (one a run in four), for a loaded
  // machine.
  EXPECT_GE(committed_batches(log).size(), static_cast<size_t>(runs / 4));
}

// A small tmpfs for the archive, unmounted however the test ends.
class SmallDisk {
 public:
  explicit SmallDisk(const std::string& dir) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=4m") == 0;
  }
  ~SmallDisk() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

// Writes zeros to `path` until the disk under it is full.
void fill(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  std::vector<char> block(64 * 1024, 0);
  while (std::fwrite(block.data(), 1, block.size(), f) == block.size() && std::fflush(f) == 0) {
  }
  std::fclose(f);
}

TEST(DaemonProcess, AFullDiskIsAnErrorLineSamplingGoesOnAndCommitsResumeWhenSpaceReturns) {
  const std::string dir = temp_dir();
  SmallDisk disk(dir + "/disk");
  // CI runs as root; elsewhere the mount is refused and this test cannot make a disk full.
  ASSERT_TRUE(disk.mounted()) << "mounting a tmpfs needs root (CAP_SYS_ADMIN)";
  const std::string archive = dir + "/disk/archive.db", log = dir + "/watch.log";
  std::vector<std::string> args = fast_args(archive, log);
  args.back() = "127.0.0.1:0";  // --listen: /metrics must go on being served
  WatchProcess p(args, scenario());
  ASSERT_TRUE(eventually([&] { return committed_batches(log).size() >= 2 && served_port(log) > 0; }))
      << read_file(log);
  const std::string metrics = "http://127.0.0.1:" + std::to_string(served_port(log)) + "/metrics";
  // The archive's state as /metrics says it: gpuplan_archive_writable{Hostname="..."} 0 or 1.
  auto writable = [&] {
    static const std::regex series(R"(\ngpuplan_archive_writable\{[^}]*\} ([01])\n)");
    std::smatch m;
    const std::string body = http_get(metrics);
    return std::regex_search(body, m, series) ? m[1].str() : std::string("absent");
  };
  EXPECT_EQ(writable(), "1");
  fill(dir + "/disk/filler");
  ASSERT_TRUE(eventually([&] { return read_file(log).find("commit failed") != std::string::npos; }));
  const size_t before = committed_batches(log).size();
  std::this_thread::sleep_for(milliseconds(500));  // still running, still failing
  EXPECT_TRUE(p.running());
  EXPECT_EQ(writable(), "0");  // still served, and saying the archive cannot be written
  fs::remove(dir + "/disk/filler");
  ASSERT_TRUE(eventually([&] { return committed_batches(log).size() > before + 1; }));
  EXPECT_EQ(writable(), "1");
  p.signal(SIGTERM);
  EXPECT_EQ(exit_code(p.wait()), 0);
  EXPECT_EQ(query(archive, "PRAGMA integrity_check"), "ok");
  for (long long batch : committed_batches(log))
    EXPECT_EQ(query(archive, "SELECT count(*) FROM batches WHERE batch = " + std::to_string(batch)), "1");
}

}  // namespace
}  // namespace gpuplan::testing
