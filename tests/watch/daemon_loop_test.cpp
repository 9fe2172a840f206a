// The watch loop (src/watch/daemon.h) with an injected clock against the fake NVML: 24 hours
// at one round a minute in no time, commits and maintenance on schedule, kernel events from a
// followed file, a failing commit that is retried. Expected figures are counted by hand from the
// schedule (said at each assertion).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "nvml/fake_env.h"
#include "test_support.h"
#include "watch/daemon.h"
#include "watch/daemon_memory_archive.h"

namespace gpuplan::watch {
namespace {

using gpuplan::testing::FakeNvmlEnv;
using gpuplan::testing::MemoryArchive;
using gpuplan::testing::nvml_fixture;
using gpuplan::testing::open_fake_nvml;
using gpuplan::testing::set_fake_clock;
using gpuplan::testing::temp_dir;
using std::chrono::milliseconds;

// A clock that only sleep moves, mirrored into the fake NVML's clock file.
struct FakeTime {
  std::string clock_file;
  std::chrono::system_clock::time_point start{std::chrono::seconds(1'700'000'000)};  // 2023-11-14T22:13:20Z
  milliseconds elapsed{0};
  std::vector<Phrase> log;
  DaemonIo io() {
    DaemonIo io;
    io.now = [this] { return start + elapsed; };
    io.sleep = [this](milliseconds d) {
      elapsed += d;
      set_fake_clock(clock_file, static_cast<double>(elapsed.count()) / 1000.0);
    };
    io.stop = [] { return false; };
    io.log = [this](const Phrase& p) { log.push_back(p); };
    return io;
  }
  std::vector<const Phrase*> lines(const std::string& id) const {
    std::vector<const Phrase*> out;
    for (const auto& p : log) {
      if (p.key == id) out.push_back(&p);
    }
    return out;
  }
};

std::string fact(const Phrase& p, const std::string& key) {
  const Fact* f = find_fact(p.facts, key);
  return f ? f->value : "";
}

TEST(DaemonLoop, TwentyFourHoursAtOneRoundAMinuteCommitsEveryFiveMinutesAndMaintainsHourly) {
  FakeTime time;
  time.clock_file = temp_dir() + "/clock";
  set_fake_clock(time.clock_file, 0);
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), time.clock_file);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  DaemonOptions opt;
  opt.interval = milliseconds(60'000);
  opt.commit_every = milliseconds(300'000);
  opt.duration = milliseconds(24 * 3'600'000);
  MemoryArchive archive;
  Watch watch;
  DaemonIo io = time.io();
  const int64_t rounds = run_daemon(opt, *nvml, archive, nullptr, watch, io);
  EXPECT_EQ(rounds, 1441);  // t = 0, 1 min, …, 24 h
  EXPECT_EQ(archive.registrations, 1);
  EXPECT_EQ(archive.readings.size(), 2882u);  // every round of both GPUs committed
  EXPECT_EQ(archive.pending(), 0);
  // At 5 min, 10 min, …, 24 h: 288 commits; the last leaves nothing for the final one.
  ASSERT_EQ(archive.commits.size(), 288u);
  EXPECT_EQ(archive.commits[0].readings, 12);  // rounds 0–5 × 2 GPUs
  EXPECT_EQ(archive.commits[1].readings, 10);  // rounds 6–10
  EXPECT_EQ(archive.maintained.size(), 24u);   // 1 h, 2 h, …, 24 h
  EXPECT_EQ(archive.maintained[0], 1'700'000'000'000LL + 3'600'000);
  auto committed = time.lines("watch.batch_committed");
  ASSERT_EQ(committed.size(), 288u);
  EXPECT_EQ(fact(*committed[0], "batch"), "1");
  EXPECT_EQ(fact(*committed[0], "readings"), "12");
  EXPECT_EQ(fact(*committed[0], "time"), "2023-11-14T22:18:20Z");  // start + 5 min
  EXPECT_EQ(fact(*committed[287], "batch"), "288");
  WatchState s = watch.snapshot();
  EXPECT_EQ(s.samples_taken, 1441);
  EXPECT_EQ(s.archive.batches_committed, 288);
  EXPECT_EQ(s.archive.readings_committed, 2882);
  EXPECT_TRUE(s.archive.writable);
}

TEST(DaemonLoop, AFailedCommitIsLoggedAndTheBatchIsRetriedAtTheNextCommit) {
  FakeTime time;
  time.clock_file = temp_dir() + "/clock";
  set_fake_clock(time.clock_file, 0);
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), time.clock_file);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  DaemonOptions opt;
  opt.interval = milliseconds(1000);
  opt.commit_every = milliseconds(3000);
  opt.duration = milliseconds(9000);
  MemoryArchive archive;
  archive.fail_commits = true;
  Watch watch;
  DaemonIo io = time.io();
  io.on_round = [&] { archive.fail_commits = time.elapsed < milliseconds(5000); };  // space back before the 6 s commit
  run_daemon(opt, *nvml, archive, nullptr, watch, io);
  // Commits due at 3 s (fails), 6 s (retries all of 0–6 s) and 9 s.
  EXPECT_EQ(time.lines("watch.commit_failed").size(), 1u);
  auto committed = time.lines("watch.batch_committed");
  ASSERT_EQ(committed.size(), 2u);
  EXPECT_EQ(fact(*committed[0], "readings"), "14");  // rounds 0–6 × 2
  EXPECT_EQ(fact(*committed[1], "readings"), "6");   // rounds 7–9 × 2
  EXPECT_EQ(archive.readings.size(), 20u);
  WatchState s = watch.snapshot();
  EXPECT_EQ(s.archive.commit_errors, 1);
  EXPECT_TRUE(s.archive.writable);
}

TEST(DaemonLoop, KernelEventsFromTheFollowedLogAreArchivedAndCounted) {
  FakeTime time;
  time.clock_file = temp_dir() + "/clock";
  set_fake_clock(time.clock_file, 0);
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), time.clock_file);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  const std::string log = temp_dir() + "/kern.log";
  std::ofstream(log).close();
  auto follower = KernelLogFollower::open(KernelLogSource::kFile, log);
  ASSERT_TRUE(follower);
  DaemonOptions opt;
  opt.interval = milliseconds(1000);
  opt.duration = milliseconds(5000);
  MemoryArchive archive;
  Watch watch;
  DaemonIo io = time.io();
  io.on_round =
      [&] {
        if (time.elapsed == milliseconds(2000)) {
          // gpud's quoted Xid 79 line, with GPU 1's address (0000:31:00) in place of 0000:91:00.
          std::ofstream(log, std::ios::app)
              << "[6781741.548779] NVRM: Xid (PCI:0000:31:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
                 "the bus.\n";
        }
      };
  run_daemon(opt, *nvml, archive, follower->get(), watch, io);
  int xids = 0;
  for (const auto& e : archive.events) {
    if (e.kind != archive::EventKind::kXid) continue;
    ++xids;
    EXPECT_EQ(e.gpu, 1u);
    EXPECT_EQ(e.code, 79);
    EXPECT_EQ(e.time_ms, 1'700'000'003'000LL);  // polled in the round after it was written
  }
  EXPECT_EQ(xids, 1);
  WatchState s = watch.snapshot();
  EXPECT_EQ(s.gpus[1].xid_counts.at(79), 1u);
  EXPECT_EQ(s.gpus[1].last_xid, 79);
}

TEST(DaemonDurations, ParsesUnitsAndRefusesTheRest) {
  EXPECT_EQ(parse_duration("5s"), milliseconds(5000));
  EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
  EXPECT_EQ(parse_duration("2m"), milliseconds(120'000));
  EXPECT_EQ(parse_duration("1h"), milliseconds(3'600'000));
  EXPECT_EQ(parse_duration("14d"), milliseconds(14LL * 86'400'000));
  EXPECT_FALSE(parse_duration("5"));
  EXPECT_FALSE(parse_duration("s"));
  EXPECT_FALSE(parse_duration("1.5s"));
  EXPECT_FALSE(parse_duration("-1s"));
  EXPECT_FALSE(parse_duration("99999999999999s"));
  // Ten years at most: 3650 d = 315,360,000,000 ms; a day more, or 12 digits of days, is refused.
  EXPECT_EQ(parse_duration("3650d"), milliseconds(315'360'000'000));
  EXPECT_FALSE(parse_duration("3651d"));
  EXPECT_FALSE(parse_duration("999999999999d"));
  EXPECT_FALSE(parse_duration("87600001h"));
}

}  // namespace
}  // namespace gpuplan::watch
