// The kernel-log follower (src/watch/follower.h) on a file followed like `tail -F`, fed the real
// lines of tests/fixtures/kernel-logs/gpud-dmesg-xid79-sxid.log (gpud's quoted Xid 79 record and
// SXid lines; the README there names the source). Expected counts are the fixture's lines counted
// by hand: one "Xid (PCI:0000:91:00): 79" line, eight "SXid ... 20034" lines.
#include "watch/follower.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"

namespace gpuplan::watch {
namespace {

using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;

std::string fixture_text() {
  return gpuplan::testing::read_file(source_path("tests/fixtures/kernel-logs/gpud-dmesg-xid79-sxid.log"));
}

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

std::unique_ptr<KernelLogFollower> follow(const std::string& path) {
  auto f = KernelLogFollower::open(KernelLogSource::kFile, path);
  if (!f) {
    ADD_FAILURE() << f.error().str();
    return nullptr;
  }
  return std::move(*f);
}

TEST(FollowerLineBuffer, GivesOnlyCompleteLinesAndKeepsTheRest) {
  LineBuffer b;
  EXPECT_EQ(b.take_complete("abc"), "");
  EXPECT_EQ(b.take_complete("def\ngh"), "abcdef\n");
  EXPECT_EQ(b.partial(), "gh");
  EXPECT_EQ(b.take_complete("\n\n"), "gh\n\n");
  EXPECT_EQ(b.partial(), "");
}

TEST(FollowerLineBuffer, ALineThatNeverEndsIsDroppedPastTheBound) {
  LineBuffer b;
  EXPECT_EQ(b.take_complete(std::string(LineBuffer::kMaxPartialLine, 'x')), "");
  EXPECT_EQ(b.partial().size(), LineBuffer::kMaxPartialLine);  // at the bound: still kept
  EXPECT_EQ(b.take_complete("y"), "");
  EXPECT_EQ(b.partial(), "");  // one byte past it: dropped
  EXPECT_EQ(b.take_complete("ok\n"), "ok\n");
}

TEST(Follower, StartsAtTheEndAndParsesOnlyCompleteLines) {
  const std::string path = temp_dir() + "/kern.log";
  append(path, fixture_text());  // history before watch started: not claimed
  auto f = follow(path);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->poll().empty());

  const std::string xid =
      "[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n";
  append(path, xid.substr(0, 40));  // a line cut where a writer's buffer ended
  EXPECT_TRUE(f->poll().empty());
  append(path, xid.substr(40));
  auto events = f->poll();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, probe::KernelEventKind::kXid);
  EXPECT_EQ(events[0].code, 79);
  EXPECT_EQ(events[0].device, "0000:91:00.0");
  EXPECT_TRUE(f->poll().empty());  // nothing is parsed twice
}

TEST(Follower, FollowsTheFileAcrossRotationAndTruncation) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/kern.log";
  append(path, "");
  auto f = follow(path);
  ASSERT_TRUE(f);
  append(path, fixture_text());
  auto events = f->poll();
  int xid = 0, sxid = 0;
  for (const auto& e : events) {
    xid += e.kind == probe::KernelEventKind::kXid;
    sxid += e.kind == probe::KernelEventKind::kSxid;
  }
  EXPECT_EQ(xid, 1);
  EXPECT_EQ(sxid, 8);

  // logrotate: the file moved away, a new one in its place.
  ASSERT_EQ(std::rename(path.c_str(), (path + ".1").c_str()), 0);
  append(path, "[6781800.000001] NVRM: Xid (PCI:0000:17:00): 48, pid=1234, name=python, Ch 00000010\n");
  events = f->poll();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].code, 48);
  EXPECT_EQ(events[0].device, "0000:17:00.0");

  // copytruncate: the same file emptied, then written from its start.
  std::ofstream(path, std::ios::trunc).close();
  f->poll();
  append(path, "[6781900.000001] NVRM: Xid (PCI:0000:17:00): 63, pid=1234, name=python, Ch 00000010\n");
  events = f->poll();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].code, 63);
}

TEST(Follower, AnUnreadableFileIsAnErrorNamingIt) {
  auto f = KernelLogFollower::open(KernelLogSource::kFile, "/nonexistent/kern.log");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().file, "/nonexistent/kern.log");
}

TEST(Follower, EventsMapToTheGpuByPciAddressAndAreCounted) {
  nvml::GpuStatic g0, g1;
  g0.index = 0;
  g0.pci_bus_id = "00000000:17:00.0";
  g1.index = 1;
  g1.pci_bus_id = "00000000:91:00.0";  // NVML's eight-digit domain, the kernel's four
  WatchState state;
  state.gpus.resize(2);
  auto events = gpu_events(fixture_text());
  for (const auto& k : events) count_event(to_archive_event(k, {g0, g1}, 1000), state);
  archive::Event xid = to_archive_event(events.at(0), {g0, g1}, 1000);
  EXPECT_EQ(xid.kind, archive::EventKind::kXid);
  EXPECT_EQ(xid.gpu, 1u);
  EXPECT_EQ(xid.code, 79);
  EXPECT_EQ(xid.time_ms, 1000);
  EXPECT_EQ(state.gpus[1].xid_counts.at(79), 1u);
  EXPECT_EQ(state.gpus[1].last_xid, 79);
  EXPECT_TRUE(state.gpus[0].xid_counts.empty());
  EXPECT_EQ(state.sxid_counts.at(20034), 8u);  // NVSwitches: no GPU of theirs
  EXPECT_EQ(state.aer_events, 0u);

  const std::string aer = gpuplan::testing::read_file(source_path("tests/fixtures/kernel-logs/kern-log-aer.log"));
  for (const auto& k : gpu_events(aer)) count_event(to_archive_event(k, {g0, g1}, 2000), state);
  EXPECT_EQ(state.aer_events, 1u);  // header, Bus Error and status lines fold into one event
}

}  // namespace
}  // namespace gpuplan::watch
