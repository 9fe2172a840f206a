// Gathering several kernel logs: the live /dev/kmsg with the journal's copy of this boot (run
// through HostInput::run with its timeout), a snapshot's captures, and repeated --kernel-log files,
// plain and gzip. The journal fixture holds the same record as the kmsg line below, so the merged
// log counts it once (kernel_log.h, "Several logs").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "probe/fake_host.h"
#include "probe/gather.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::source_path;
using gpuplan::testing::read_file;

std::string kernel_logs(const std::string& name) {
  return source_path("tests/fixtures/kernel-logs/" + name);
}

// The Xid 79 record of tests/fixtures/kernel-logs/journalctl-json.log as /dev/kmsg gives it: its
// _SOURCE_MONOTONIC_TIMESTAMP 6781741548779 µs is the kmsg timestamp.
const std::string kKmsgXid79 =
    "4,81234,6781741548779,-;NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
    "the bus.\n";

ToolRun printed(std::string out) {
  ToolRun r;
  r.started = true;
  r.exit_code = 0;
  r.out = std::move(out);
  return r;
}

HostView gathered(FakeHost& host, const GatherOptions& options = {}) {
  auto view = gather_host(host, options);
  EXPECT_TRUE(view.ok()) << (view.ok() ? "" : view.error().str());
  return view.ok() ? *view : HostView{};
}

int count(const KernelLog& log, KernelEventKind kind) {
  return static_cast<int>(
      std::count_if(log.events.begin(), log.events.end(), [&](const KernelEvent& e) { return e.kind == kind; }));
}

TEST(GatherKernelLogsTest, LiveHostReadsKmsgAndTheJournalAndCountsTheSameXidOnce) {
  FakeHost host(source_path("tests/fixtures/hosts/hgx-a100-8gpu"));
  host.kernel_log = KernelLogText{kKmsgXid79, "/dev/kmsg"};
  host.installed = {"journalctl"};
  // journalctl's hint on stderr comes with its output: only the JSON lines are kept.
  const std::string journal = read_file(kernel_logs("journalctl-json.log"));
  host.tools[kJournalKernelCommand] =
      printed(journal + "Hint: You are currently not seeing messages from other users.\n");
  HostView view = gathered(host);

  ASSERT_EQ(host.ran.size(), 1u);
  EXPECT_EQ(host.ran[0].first, "journalctl -k -b -o json --no-pager");
  EXPECT_EQ(host.ran[0].second, kToolTimeout);
  EXPECT_EQ(view.kernel_log_source, "/dev/kmsg, journalctl -k -b");
  ASSERT_EQ(view.kernel_logs.size(), 2u);
  EXPECT_EQ(view.kernel_logs[1].text, journal);  // the hint dropped
  ASSERT_TRUE(view.kernel_log);
  // kmsg: the Xid; journal: the same Xid (dropped) and two SXids.
  EXPECT_EQ(count(*view.kernel_log, KernelEventKind::kXid), 1);
  EXPECT_EQ(count(*view.kernel_log, KernelEventKind::kSxid), 2);
  EXPECT_EQ(view.kernel_log->duplicates, 1);
  EXPECT_EQ(view.kernel_log->events[0].source, "/dev/kmsg");
  EXPECT_EQ(view.kernel_log->events[1].source, "journalctl -k -b");
  EXPECT_TRUE(view.kernel_log->malformed_lines.empty());

  SnapshotContent content = snapshot_content(host, view);
  EXPECT_EQ(content.captures.at("kernel.log"), kKmsgXid79);
  EXPECT_EQ(content.captures.at("journal-kernel.json"), journal);
}

TEST(GatherKernelLogsTest, AJournalWithoutKernelEntriesAddsNothing) {
  FakeHost host(source_path("tests/fixtures/hosts/hgx-a100-8gpu"));
  host.kernel_log = KernelLogText{kKmsgXid79, "/dev/kmsg"};
  host.installed = {"journalctl"};
  host.tools[kJournalKernelCommand] = printed("-- No entries --\n");
  HostView view = gathered(host);
  EXPECT_EQ(view.kernel_log_source, "/dev/kmsg");
  EXPECT_EQ(view.kernel_logs.size(), 1u);
}

TEST(GatherKernelLogsTest, ASnapshotReadsBothCapturesAndRunsNothing) {
  gpuplan::testing::HostTree tree;
  tree.file("/gpuplan/kernel.log", kKmsgXid79);
  tree.file("/gpuplan/journal-kernel.json", read_file(kernel_logs("journalctl-json.log")));
  FakeHost host(tree.root(), /*live=*/false);
  HostView view = gathered(host);
  EXPECT_TRUE(host.ran.empty());
  EXPECT_EQ(view.kernel_log_source, "gpuplan/kernel.log, gpuplan/journal-kernel.json");
  ASSERT_TRUE(view.kernel_log);
  EXPECT_EQ(count(*view.kernel_log, KernelEventKind::kXid), 1);
  EXPECT_EQ(view.kernel_log->duplicates, 1);
}

TEST(GatherKernelLogsTest, SeveralKernelLogFilesPlainAndGzipAreReadAndKeptAsGiven) {
  FakeHost host(source_path("tests/fixtures/hosts/hgx-a100-8gpu"));
  GatherOptions options;
  options.kernel_log_files = {kernel_logs("kern-log.log"), kernel_logs("kern.log.2.gz")};
  HostView view = gathered(host, options);
  ASSERT_EQ(view.kernel_logs.size(), 2u);
  // The .gz is kern-log.log compressed (README.md): read, it is the same text.
  EXPECT_EQ(view.kernel_logs[1].text, read_file(kernel_logs("kern-log.log")));
  EXPECT_EQ(view.kernel_logs[0].capture, "kernel-logs/kern-log.log");
  EXPECT_EQ(view.kernel_logs[1].capture, "kernel-logs/kern.log.2.gz");
  ASSERT_TRUE(view.kernel_log);
  // Every record of the second file is one of the first: 1 Xid, the GPU it lost + 2 SXids, dropped.
  EXPECT_EQ(count(*view.kernel_log, KernelEventKind::kXid), 1);
  EXPECT_EQ(view.kernel_log->duplicates, 4);
  ASSERT_EQ(view.kernel_log->parts.size(), 2u);
  EXPECT_EQ(view.kernel_log->parts[1].source, kernel_logs("kern.log.2.gz"));
  EXPECT_EQ(view.kernel_log->parts[1].format, KernelLogFormat::kSyslog);

  std::vector<BundleFile> files = host_evidence(host, view, options);
  EXPECT_EQ(files[0].name, "inputs/kern-log.log");
  EXPECT_EQ(files[1].name, "inputs/kern.log.2.gz");
  EXPECT_EQ(files[1].copy_from, kernel_logs("kern.log.2.gz"));  // the file as given, still compressed
  SnapshotContent content = snapshot_content(host, view);
  EXPECT_EQ(content.captures.at("kernel-logs/kern.log.2.gz"), view.kernel_logs[1].text);
}

TEST(GatherKernelLogsTest, ASnapshotReadsItsKernelLogFilesBack) {
  gpuplan::testing::HostTree tree;
  tree.file("/gpuplan/kernel-logs/kern-log.log", read_file(kernel_logs("kern-log.log")));
  FakeHost host(tree.root(), /*live=*/false);
  HostView view = gathered(host);
  EXPECT_EQ(view.kernel_log_source, "gpuplan/kernel-logs/kern-log.log");
  ASSERT_TRUE(view.kernel_log);
  EXPECT_EQ(count(*view.kernel_log, KernelEventKind::kXid), 1);
}

// The error gathering the host with `file` as its --kernel-log: the file, the flag and what was wrong.
Error kernel_log_error(const std::string& file) {
  FakeHost host(source_path("tests/fixtures/hosts/hgx-a100-8gpu"));
  GatherOptions options;
  options.kernel_log_files = {file};
  auto view = gather_host(host, options);
  if (view.ok()) {
    ADD_FAILURE() << file << " was read";
    return Error{};
  }
  EXPECT_EQ(view.error().file, file);
  EXPECT_EQ(view.error().field, "--kernel-log");
  return view.error();
}

TEST(GatherKernelLogsTest, AGzipCutShortDamagedOrInflatingBeyondTheLimitIsBadInputSayingWhich) {
  const std::string dir = gpuplan::testing::temp_dir();
  const std::string gz = read_file(kernel_logs("kern.log.2.gz"));
  // Cut in half: the file ends inside the stream, after what the first half inflates to.
  const Error cut = kernel_log_error(gpuplan::testing::write_file(dir, "cut.gz", gz.substr(0, gz.size() / 2)));
  EXPECT_EQ(cut.message.key, "error.gzip.truncated");
  ASSERT_NE(gpuplan::testing::fact_in(cut.message, "bytes"), nullptr);
  EXPECT_GT(std::stoll(*gpuplan::testing::fact_in(cut.message, "bytes")), 0);
  // Whole, but a byte of its CRC-32 (the trailer's first four bytes) changed.
  std::string damaged = gz;
  damaged[damaged.size() - 8] = static_cast<char>(damaged[damaged.size() - 8] ^ 0x5a);
  EXPECT_EQ(kernel_log_error(gpuplan::testing::write_file(dir, "crc.gz", damaged)).message.key, "error.gzip.cannot_read");
  // 300 MiB of zeros in 300 KB: refused once it passes 256 MiB (limits::kMaxTextFileBytes).
  const std::string bomb = dir + "/bomb.gz";
  ASSERT_EQ(std::system(("head -c 314572800 /dev/zero | gzip -1 >" + bomb).c_str()), 0);
  const Error too_large = kernel_log_error(bomb);
  EXPECT_EQ(too_large.message.key, "error.gzip.too_large");
  EXPECT_EQ(*gpuplan::testing::fact_in(too_large.message, "limit"), "256 MiB");
}

}  // namespace
}  // namespace gpuplan::probe
