// The kernel-log forms operators keep (kernel_log.h), each on a fixture built from public lines
// (tests/fixtures/kernel-logs/README.md names each source): the same Xid 79 record in every form is
// one Xid event with code 79 and its device; the kernel documentation's AER example, which has no
// time prefix, is one fatal AER event; logs merged count a record two of them keep once; and text
// in no form stays unknown. Expected line numbers are counted by hand in the fixture files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "probe/kernel_log.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::source_path;

std::string fixture_path(const std::string& name) {
  return source_path("tests/fixtures/kernel-logs/" + name);
}

std::string read_fixture(const std::string& name) {
  return gpuplan::testing::read_file(fixture_path(name));
}

std::vector<const KernelEvent*> of_kind(const KernelLog& log, KernelEventKind kind) {
  std::vector<const KernelEvent*> out;
  for (const KernelEvent& e : log.events)
    if (e.kind == kind) out.push_back(&e);
  return out;
}

// gpud's sxid README, word for word: the message every fixture of the Xid 79 record carries.
constexpr const char* kXid79 =
    "NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";

struct FormCase {
  const char* file;
  KernelLogFormat format;
  int lines;                     // all lines of the file
  int xid_line;                  // where the Xid 79 is
  std::optional<double> uptime;  // 6781741.548779 where the form keeps the kmsg time
  std::optional<std::string> wall;
};

const std::optional<double> kUp = 6781741.548779;

const FormCase kForms[] = {
    {"journalctl-short.log", KernelLogFormat::kSyslog, 10, 4, std::nullopt, "May 06 13:02:14"},
    {"journalctl-short-iso.log", KernelLogFormat::kSyslogIso, 8, 4, std::nullopt, "2024-05-06T13:02:14+0000"},
    {"journalctl-short-precise.log", KernelLogFormat::kSyslog, 8, 3, std::nullopt, "May 06 13:02:14.548779"},
    {"journalctl-short-monotonic.log", KernelLogFormat::kJournalMonotonic, 7, 3, kUp, std::nullopt},
    // __REALTIME_TIMESTAMP 1715000534548779 µs, written to the second in UTC.
    {"journalctl-json.log", KernelLogFormat::kJournalJson, 7, 3, kUp, "2024-05-06T13:02:14Z"},
    {"kern-log.log", KernelLogFormat::kSyslog, 9, 4, kUp, "May  6 13:02:14"},
    {"messages.log", KernelLogFormat::kSyslog, 8, 4, std::nullopt, "May  6 13:02:14"},
    {"rfc5424.log", KernelLogFormat::kRfc5424, 8, 4, std::nullopt, "2024-05-06T13:02:14.548779+00:00"},
    {"rsyslog-precise.log", KernelLogFormat::kSyslogIso, 8, 3, kUp, "2024-05-06T13:02:14.548779+00:00"},
    {"dmesg-notime.log", KernelLogFormat::kDmesgNoTime, 7, 3, std::nullopt, std::nullopt},
    {"dmesg-raw.log", KernelLogFormat::kDmesg, 7, 3, kUp, std::nullopt},
    {"dmesg-decode-iso.log", KernelLogFormat::kDmesgIso, 7, 3, std::nullopt, "2024-05-06T13:02:14,548779+00:00"},
    {"gpud-dmesg-xid79-sxid.log", KernelLogFormat::kDmesg, 13, 3, kUp, std::nullopt},
};

TEST(KernelLogFormsTest, TheXid79RecordInEveryFormIsOneXid79OnItsDevice) {
  for (const FormCase& f : kForms) {
    SCOPED_TRACE(f.file);
    KernelLog log = parse_kernel_log(read_fixture(f.file));
    EXPECT_EQ(log.format, f.format) << kernel_log_format_name(log.format);
    EXPECT_EQ(log.lines, f.lines);
    EXPECT_TRUE(log.malformed_lines.empty());
    auto xids = of_kind(log, KernelEventKind::kXid);
    ASSERT_EQ(xids.size(), 1u);
    EXPECT_EQ(xids[0]->code, 79);
    EXPECT_EQ(xids[0]->device, "0000:91:00.0");
    EXPECT_EQ(xids[0]->line, f.xid_line);
    EXPECT_EQ(xids[0]->text, kXid79);  // no stamp, host, tag or "[uptime]" left in it
    EXPECT_EQ(xids[0]->uptime_s.has_value(), f.uptime.has_value());
    if (f.uptime && xids[0]->uptime_s) {
      EXPECT_DOUBLE_EQ(*xids[0]->uptime_s, *f.uptime);
    }
    EXPECT_EQ(xids[0]->wall, f.wall);
    // The two SXids that follow it (gpud's own file keeps all eight).
    auto sxids = of_kind(log, KernelEventKind::kSxid);
    ASSERT_EQ(sxids.size(), std::string(f.file).rfind("gpud", 0) == 0 ? 8u : 2u);
    EXPECT_EQ(sxids[0]->code, 20034);
    EXPECT_EQ(sxids[0]->device, "0000:06:00.0");
    EXPECT_EQ(sxids[1]->device, "0000:05:00.0");
  }
}

TEST(KernelLogFormsTest, AJournalTimeBeyondTheSystemClockIsNoWallTimeNotAnOverflow) {
  // The system clock counts int64 nanoseconds: its last microsecond is 9,223,372,036,854,775
  // (2262-04-11 23:47:16.854775 UTC). One more overflowed the conversion (UBSan, found by fuzzing).
  const std::string json = read_fixture("journalctl-json.log");
  auto xid_wall = [&](const std::string& realtime) {
    std::string text = json;
    const size_t at = text.find("\"1715000534548779\"");  // the Xid 79 record's
    text.replace(at + 1, 16, realtime);
    const KernelLog log = parse_kernel_log(text);
    auto xids = of_kind(log, KernelEventKind::kXid);
    EXPECT_EQ(xids.size(), 1u) << realtime;
    return xids.empty() ? std::optional<std::string>("no Xid") : xids[0]->wall;
  };
  EXPECT_EQ(xid_wall("1715000534548779"), "2024-05-06T13:02:14Z");
  EXPECT_EQ(xid_wall("9223372036854775"), "2262-04-11T23:47:16Z");
  EXPECT_EQ(xid_wall("9223372036854776"), std::nullopt);
  EXPECT_EQ(xid_wall("17150030534548779"), std::nullopt);
  // The fuzzer's reproducer (its line 6 has 17150030534548786) reads to the end, all 8 lines.
  const KernelLog log =
      parse_kernel_log(gpuplan::testing::read_file(source_path("fuzz/corpus/kernel_log/crash-realtime-beyond-clock.log")));
  EXPECT_EQ(log.lines, 8);
}

TEST(KernelLogFormsTest, ARotatedGzipLogReadsAsItsText) {
  auto text = read_kernel_log_file(fixture_path("kern.log.2.gz"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, read_fixture("kern-log.log"));
  auto plain = read_kernel_log_file(fixture_path("kern-log.log"));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, *text);
  auto missing = read_kernel_log_file(fixture_path("no-such.log"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().field, "--kernel-log");
}

TEST(KernelLogFormsTest, TheKernelDocumentationsAerExampleIsOneFatalAerEvent) {
  KernelLog log = parse_kernel_log(read_fixture("aer-kernel-doc.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kDmesgNoTime);
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 1u);
  const KernelEvent& e = log.events[0];
  EXPECT_EQ(e.kind, KernelEventKind::kAer);
  EXPECT_EQ(e.severity, "Uncorrected (Fatal)");
  EXPECT_EQ(e.device, "0000:50:00.0");
  EXPECT_EQ(e.aer_type, "Transaction Layer");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.detail_lines, (std::vector<int>{2, 3, 4}));  // status, bit, TLP header
  EXPECT_FALSE(e.uptime_s);
  EXPECT_FALSE(e.wall);
}

TEST(KernelLogFormsTest, AKernLogAerReportIsOneFatalAerEventOnTheRootPort) {
  KernelLog log = parse_kernel_log(read_fixture("kern-log-aer.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kSyslog);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].severity, "Uncorrected (Fatal)");
  EXPECT_EQ(log.events[0].device, "0000:00:01.0");  // "received: id=0008" names no address
  EXPECT_EQ(log.events[0].aer_type, "Transaction Layer");
  EXPECT_EQ(log.events[0].detail_lines, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(log.events[0].wall, "Dec  1 02:16:37");
}

TEST(KernelLogFormsTest, GpudsCapturesReadWhole) {
  // dmesg -T with five Xid 119 (lines 3, 38, 40, 42, 43) amid a GSP RPC dump and a stack trace.
  KernelLog ctime = parse_kernel_log(read_fixture("gpud-dmesg-ctime-xid119.log"));
  EXPECT_EQ(ctime.format, KernelLogFormat::kDmesgCtime);
  EXPECT_TRUE(ctime.malformed_lines.empty());
  auto xids = of_kind(ctime, KernelEventKind::kXid);
  ASSERT_EQ(xids.size(), 5u);
  std::vector<int> lines;
  for (const KernelEvent* e : xids) {
    EXPECT_EQ(e->code, 119);
    EXPECT_EQ(e->device, "0000:9b:00.0");
    lines.push_back(e->line);
  }
  EXPECT_EQ(lines, (std::vector<int>{3, 38, 40, 42, 43}));
  EXPECT_EQ(xids[0]->wall, "Sun Feb 23 16:24:18 2025");
  // /dev/kmsg records of NVSwitch opens and network chatter: a kernel log with no event.
  KernelLog kmsg = parse_kernel_log(read_fixture("gpud-kmsg.log"));
  EXPECT_EQ(kmsg.format, KernelLogFormat::kKmsg);
  EXPECT_EQ(kmsg.lines, 47);
  EXPECT_TRUE(kmsg.malformed_lines.empty());
  EXPECT_TRUE(kmsg.events.empty());
}

TEST(KernelLogFormsTest, HeadersAndOtherProgramsAreIgnoredNotMalformed) {
  KernelLog log = parse_kernel_log(
      "-- Journal begins at Mon 2024-04-29 08:11:02 UTC, ends at Mon 2024-05-06 13:05:00 UTC. --\n"
      "May  6 13:02:14 gpu-node-17 systemd[1]: Started Session 42 of user root.\n"
      "May  6 13:02:14 gpu-node-17 sudo: pam_unix(sudo:session): session opened for user root\n"
      "<30>1 2024-05-06T13:02:14.601000+00:00 gpu-node-17 systemd 1 - - Started Session 42.\n"
      "{ \"_TRANSPORT\" : \"syslog\", \"SYSLOG_IDENTIFIER\" : \"sshd\", \"MESSAGE\" : \"Accepted publickey\" }\n"
      "-- Boot 0f3c6b1e2d8a4c47a1b2c3d4e5f60718 --\n"
      "May  6 13:02:15 gpu-node-17 kernel: DMAR: IOMMU enabled\n");
  EXPECT_EQ(log.lines, 7);
  EXPECT_TRUE(log.malformed_lines.empty());
  EXPECT_EQ(log.format, KernelLogFormat::kSyslog);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].line, 7);
}

TEST(KernelLogFormsTest, OnlyHeadersAndOtherProgramsIsNoKernelLog) {
  KernelLog log = parse_kernel_log(
      "-- No entries --\n"
      "May  6 13:02:14 gpu-node-17 systemd[1]: Started Session 42 of user root.\n");
  EXPECT_EQ(log.format, KernelLogFormat::kUnknown);
  EXPECT_TRUE(log.malformed_lines.empty());
}

TEST(KernelLogFormsTest, SyslogEdgeCases) {
  KernelLog log = parse_kernel_log(
      // node-problem-detector's filelog test writes no host: still the kernel's line.
      "Jan  2 03:04:05 kernel: [0.000000] NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception\n"
      // a stack trace's "[<address>]" is no uptime
      "Jul  3 12:48:08 sashimi kernel: [<c014895f>] try_to_release_page [kernel] 0x2f(0xc44c5ee8))\n"
      // a stamp and a host with no tag: cut or garbled
      "May  6 13:02:14 gpu-node-17\n"
      // `dmesg -r` and a raw forwarded syslog line keep the kernel's "<level>"
      "<4>May  6 13:02:16 gpu-node-17 kernel: NVRM: Xid (PCI:0000:01:00): 31, pid=1, MMU Fault\n");
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{3}));
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].code, 13);
  EXPECT_DOUBLE_EQ(*log.events[0].uptime_s, 0.0);
  EXPECT_EQ(log.events[1].code, 31);
  EXPECT_EQ(log.events[1].wall, "May  6 13:02:16");
}

TEST(KernelLogFormsTest, JournalJsonByteArraysDevicesAndBrokenLines) {
  KernelLog log = parse_kernel_log(
      // "DMAR: IOMMU enabled" as bytes; the device from _KERNEL_DEVICE
      "{ \"_TRANSPORT\" : \"kernel\", \"_KERNEL_DEVICE\" : \"+pci:0000:00:00.2\", \"MESSAGE\" : "
      "[68,77,65,82,58,32,73,79,77,77,85,32,101,110,97,98,108,101,100] }\n"
      "{ \"_TRANSPORT\" : \"kernel\", \"MESSAGE\" : [300] }\n"  // no byte
      "{ \"_TRANSPORT\" : \"kernel\", \"MESSAGE\" : \"NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\" }\n"
      "{ \"_TRANSPORT\" : \"kernel\", \"MESSAGE\" : \"NVRM: Xid (PCI:0000:01:00): 7\n");  // cut inside the object
  EXPECT_EQ(log.format, KernelLogFormat::kJournalJson);
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{2, 4}));
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].kind, KernelEventKind::kIommuEnabled);
  EXPECT_EQ(log.events[0].device, "0000:00:00.2");
  EXPECT_EQ(log.events[1].code, 79);
  EXPECT_FALSE(log.events[1].uptime_s);  // no _SOURCE_MONOTONIC_TIMESTAMP
}

TEST(KernelLogFormsTest, AConcatenationReadsEachLineInItsOwnForm) {
  KernelLog log = parse_kernel_log(
      "6,1,412233,-;DMAR: IOMMU enabled\n"
      " SUBSYSTEM=pci\n"
      "[ 3605.250010] NVRM: Xid (PCI:0000:01:00): 48, DBE\n"
      "-- Boot 0f3c6b1e2d8a4c47a1b2c3d4e5f60718 --\n"
      "May 06 13:02:14 gpu-node-17 kernel: NVRM: Xid (PCI:0000:91:00): 79, GPU has fallen off the bus.\n"
      "May 06 13:02:15 gpu-node-17 kernel: NVRM: Xid (PCI:0000:91:00): 79, GPU has fallen off the bus.\n");
  EXPECT_TRUE(log.malformed_lines.empty());
  EXPECT_EQ(log.forms,
            (std::vector<KernelLogFormat>{KernelLogFormat::kKmsg, KernelLogFormat::kDmesg, KernelLogFormat::kSyslog}));
  EXPECT_EQ(log.format, KernelLogFormat::kSyslog);  // two of its four kernel lines
  ASSERT_EQ(log.events.size(), 4u);
  EXPECT_EQ(log.events[1].code, 48);
  EXPECT_EQ(log.events[3].line, 6);
}

TEST(KernelLogFormsTest, BareTextIsAKernelLogOnlyWhenItShowsOne) {
  // Any text file: no kernel event, no boot banner. Not "a kernel log without Xid".
  KernelLog text = parse_kernel_log("Quarterly report\n\nAll GPUs were delivered on time.\n");
  EXPECT_EQ(text.format, KernelLogFormat::kUnknown);
  EXPECT_EQ(text.malformed_lines, (std::vector<int>{1, 3}));
  // `dmesg -t` of a quiet boot: the banner shows it is the kernel's.
  KernelLog quiet = parse_kernel_log(
      "Linux version 5.15.0-105-generic (buildd@lcy02-amd64-054) #115-Ubuntu SMP\n"
      "Command line: BOOT_IMAGE=/vmlinuz-5.15.0-105-generic ro\n"
      "usb 1-1: new high-speed USB device number 2 using xhci_hcd\n");
  EXPECT_EQ(quiet.format, KernelLogFormat::kDmesgNoTime);
  EXPECT_TRUE(quiet.malformed_lines.empty());
  EXPECT_TRUE(quiet.events.empty());
  // In a stamped log the same bare line is junk.
  KernelLog stamped = parse_kernel_log("[    1.000000] DMAR: IOMMU enabled\nusb 1-1: new high-speed USB device\n");
  EXPECT_EQ(stamped.malformed_lines, (std::vector<int>{2}));
}

TEST(KernelLogFormsTest, TheSameRecordInTwoLogsCountsOnce) {
  // dmesg and the journal's JSON of the same boot: the Xid and both SXids at the same µs.
  KernelLog merged = parse_kernel_logs(
      {{read_fixture("gpud-dmesg-xid79-sxid.log"), "dmesg"}, {read_fixture("journalctl-json.log"), "journal"}});
  EXPECT_EQ(merged.duplicates, 4);  // the Xid, the driver's "GPU has fallen off the bus" and two SXids
  EXPECT_EQ(of_kind(merged, KernelEventKind::kXid).size(), 1u);
  EXPECT_EQ(of_kind(merged, KernelEventKind::kGpuLost).size(), 1u);
  EXPECT_EQ(of_kind(merged, KernelEventKind::kSxid).size(), 8u);  // all of dmesg's
  EXPECT_EQ(merged.events[0].source, "dmesg");
  EXPECT_EQ(merged.lines, 13 + 7);
  ASSERT_EQ(merged.parts.size(), 2u);
  EXPECT_EQ(merged.parts[1].format, KernelLogFormat::kJournalJson);
  // kern.log and /var/log/messages of one host share the wall clock as written.
  KernelLog syslog =
      parse_kernel_logs({{read_fixture("kern-log.log"), "kern.log"}, {read_fixture("messages.log"), "messages"}});
  EXPECT_EQ(syslog.duplicates, 4);
  EXPECT_EQ(syslog.events.size(), 4u);  // Xid 79, GPU lost, two SXids
  // Without any stamp two equal messages cannot be told from one kept twice: both count.
  KernelLog bare =
      parse_kernel_logs({{read_fixture("dmesg-notime.log"), "a"}, {read_fixture("dmesg-notime.log"), "b"}});
  EXPECT_EQ(bare.duplicates, 0);
  EXPECT_EQ(of_kind(bare, KernelEventKind::kXid).size(), 2u);
  // One log of two in no form: its part says so; the other still reads.
  KernelLog mixed = parse_kernel_logs({{read_fixture("kern-log.log"), "kern.log"}, {"hello\n", "notes.txt"}});
  ASSERT_EQ(mixed.parts.size(), 2u);
  EXPECT_EQ(mixed.parts[0].format, KernelLogFormat::kSyslog);
  EXPECT_EQ(mixed.parts[1].format, KernelLogFormat::kUnknown);
  EXPECT_EQ(mixed.parts[1].malformed_lines, (std::vector<int>{1}));
  EXPECT_EQ(mixed.format, KernelLogFormat::kSyslog);
}

TEST(KernelLogFormsTest, NewFormNamesAreStable) {
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kDmesgNoTime), "dmesg-notime");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kSyslog), "syslog");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kSyslogIso), "syslog-iso");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kRfc5424), "rfc5424");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kJournalMonotonic), "journal-monotonic");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kJournalJson), "journal-json");
}

}  // namespace
}  // namespace gpuplan::probe
