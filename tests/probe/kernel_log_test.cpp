// The kernel-log parser on one captured log per dmesg form (the same boot written four ways: raw
// /dev/kmsg, dmesg, dmesg --ctime, dmesg --time-format=iso), on a log with binary junk and a
// cut-off last line, and on small inline logs for each event and each malformed case. The
// journal and syslog forms are in kernel_log_forms_test.cpp.
#include "probe/kernel_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::source_path;

std::string read_fixture(const std::string& name) {
  return gpuplan::testing::read_file(source_path("tests/fixtures/kernel-logs/" + name));
}

const KernelEvent* event_at(const KernelLog& log, int line) {
  for (const KernelEvent& e : log.events)
    if (e.line == line) return &e;
  return nullptr;
}

// The events of the dmesg, ctime and iso fixtures: the same 23 lines, so the same line numbers.
//   3 DMAR: IOMMU enabled, 7 DMAR: Intel(R) Virtualization Technology for Directed I/O,
//  11 AER Corrected on 01:00.0 (12-14 its detail), 15 AER Non-Fatal on nvme 02:00.0 (16),
//  17 Xid 48, 18 SXid 12028, 20 Xid 79, 21 the driver's "GPU has fallen off the bus" (a GPU lost),
//  22 AER Fatal on the root port 00:03.1.
void expect_fixture_events(const KernelLog& log) {
  EXPECT_EQ(log.lines, 23);
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 9u);
  const int lines[] = {3, 7, 11, 15, 17, 18, 20, 21, 22};
  const KernelEventKind kinds[] = {
      KernelEventKind::kIommuEnabled, KernelEventKind::kIommuEnabled, KernelEventKind::kAer,
      KernelEventKind::kAer,          KernelEventKind::kXid,          KernelEventKind::kSxid,
      KernelEventKind::kXid,          KernelEventKind::kGpuLost,      KernelEventKind::kAer};
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(log.events[i].line, lines[i]) << i;
    EXPECT_EQ(log.events[i].kind, kinds[i]) << i;
  }
  const KernelEvent& corrected = log.events[2];
  EXPECT_EQ(corrected.device, "0000:01:00.0");
  EXPECT_EQ(corrected.severity, "Corrected");
  EXPECT_EQ(corrected.aer_type, "Physical Layer");
  EXPECT_EQ(corrected.detail_lines, (std::vector<int>{12, 13, 14}));
  EXPECT_EQ(corrected.text, "pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0");

  const KernelEvent& non_fatal = log.events[3];
  EXPECT_EQ(non_fatal.device, "0000:02:00.0");
  EXPECT_EQ(non_fatal.severity, "Uncorrected (Non-Fatal)");
  EXPECT_EQ(non_fatal.aer_type, "Transaction Layer");
  EXPECT_EQ(non_fatal.detail_lines, (std::vector<int>{16}));

  EXPECT_EQ(log.events[4].code, 48);
  EXPECT_EQ(log.events[4].device, "0000:01:00.0");
  EXPECT_EQ(log.events[5].code, 12028);
  EXPECT_EQ(log.events[5].device, "0000:c1:00.0");
  EXPECT_EQ(log.events[6].code, 79);
  EXPECT_EQ(log.events[6].device, "0000:01:00.0");
  EXPECT_EQ(log.events[6].text, "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python, GPU has fallen off the bus.");

  const KernelEvent& fatal = log.events[8];
  EXPECT_EQ(fatal.severity, "Uncorrected (Fatal)");
  EXPECT_EQ(fatal.device, "0000:00:03.1");  // no source named: the reporting port
  EXPECT_TRUE(fatal.detail_lines.empty());
  for (const KernelEvent& e : log.events) {
    if (e.kind != KernelEventKind::kXid && e.kind != KernelEventKind::kSxid) {
      EXPECT_FALSE(e.code) << e.line;
    }
  }
}

// --- the four forms ------------------------------------------------------------------------------

TEST(KernelLogTest, KmsgRecordsGiveXid79WithItsDevice) {
  KernelLog log = parse_kernel_log(read_fixture("kmsg.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kKmsg);
  // 23 records plus two records' dictionaries of two lines each.
  EXPECT_EQ(log.lines, 27);
  EXPECT_TRUE(log.malformed_lines.empty());
  const KernelEvent* xid = event_at(log, 22);
  ASSERT_NE(xid, nullptr);
  EXPECT_EQ(xid->kind, KernelEventKind::kXid);
  EXPECT_EQ(xid->code, 79);
  EXPECT_EQ(xid->device, "0000:01:00.0");
  ASSERT_TRUE(xid->uptime_s);
  EXPECT_DOUBLE_EQ(*xid->uptime_s, 3605.25001);  // 3605250010 µs
  EXPECT_FALSE(xid->wall);
}

TEST(KernelLogTest, KmsgDictionaryLinesBelongToTheirRecord) {
  KernelLog log = parse_kernel_log(read_fixture("kmsg.log"));
  ASSERT_EQ(log.events.size(), 9u);  // with the GPU lost at record line 25
  EXPECT_EQ(event_at(log, 25)->kind, KernelEventKind::kGpuLost);
  // The Corrected error at record line 11 folds its bus-error line (12) and the two status
  // lines (15, 16); the dictionary lines 13-14 between them are neither events nor malformed.
  const KernelEvent* aer = event_at(log, 11);
  ASSERT_NE(aer, nullptr);
  EXPECT_EQ(aer->detail_lines, (std::vector<int>{12, 15, 16}));
  EXPECT_EQ(aer->severity, "Corrected");
  EXPECT_EQ(event_at(log, 17)->severity, "Uncorrected (Non-Fatal)");
  EXPECT_EQ(event_at(log, 19)->code, 48);
  EXPECT_EQ(event_at(log, 20)->code, 12028);
  EXPECT_EQ(event_at(log, 26)->severity, "Uncorrected (Fatal)");
  EXPECT_EQ(event_at(log, 3)->kind, KernelEventKind::kIommuEnabled);
  EXPECT_DOUBLE_EQ(*event_at(log, 3)->uptime_s, 0.412233);
}

TEST(KernelLogTest, PlainDmesgGivesEveryEventWithUptime) {
  KernelLog log = parse_kernel_log(read_fixture("dmesg-plain.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kDmesg);
  expect_fixture_events(log);
  ASSERT_TRUE(log.events[6].uptime_s);
  EXPECT_DOUBLE_EQ(*log.events[6].uptime_s, 3605.25001);
  EXPECT_DOUBLE_EQ(*log.events[2].uptime_s, 612.345678);
  EXPECT_FALSE(log.events[6].wall);
}

TEST(KernelLogTest, CtimeDmesgKeepsTheWallClockAsWritten) {
  KernelLog log = parse_kernel_log(read_fixture("dmesg-ctime.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kDmesgCtime);
  expect_fixture_events(log);
  // Boot at 10:00:00 plus 3605.25 s.
  EXPECT_EQ(log.events[6].wall, "Mon May  6 11:00:05 2024");
  EXPECT_EQ(log.events[0].wall, "Mon May  6 10:00:00 2024");
  EXPECT_FALSE(log.events[6].uptime_s);
}

TEST(KernelLogTest, IsoDmesgKeepsTheWallClockAsWritten) {
  KernelLog log = parse_kernel_log(read_fixture("dmesg-iso.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kDmesgIso);
  expect_fixture_events(log);
  EXPECT_EQ(log.events[6].wall, "2024-05-06T11:00:05,250010+00:00");
  EXPECT_FALSE(log.events[6].uptime_s);
}

TEST(KernelLogTest, FormatNamesAreStable) {
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kKmsg), "kmsg");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kDmesg), "dmesg");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kDmesgCtime), "dmesg-ctime");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kDmesgIso), "dmesg-iso");
  EXPECT_STREQ(kernel_log_format_name(KernelLogFormat::kUnknown), "unknown");
}

TEST(KernelLogTest, IsoWithDotFractionAndCompactZoneIsIso) {
  KernelLog log = parse_kernel_log("2024-05-06T10:00:01.5-0700 DMAR: IOMMU enabled\n");
  EXPECT_EQ(log.format, KernelLogFormat::kDmesgIso);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].wall, "2024-05-06T10:00:01.5-0700");
}

TEST(KernelLogTest, KmsgWithCallerFieldAndFacilityIsKmsg) {
  // Newer kernels add ",caller=T1"; priority 14 is facility user (1) + info (6).
  KernelLog log = parse_kernel_log("14,7,2000000,-,caller=T1;NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception\n");
  EXPECT_EQ(log.format, KernelLogFormat::kKmsg);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].code, 13);
  EXPECT_EQ(log.events[0].device, "0000:41:00.0");
  EXPECT_DOUBLE_EQ(*log.events[0].uptime_s, 2.0);
}

// --- malformed input -----------------------------------------------------------------------------

TEST(KernelLogTest, BinaryJunkAndTruncatedLastLineAreMalformed) {
  KernelLog log = parse_kernel_log(read_fixture("dmesg-truncated-junk.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kDmesg);
  EXPECT_EQ(log.lines, 8);
  // 3: binary junk, 4: no closing bracket, 7: a ctime stamp without brackets in a dmesg log,
  // 8: "…): 7" cut off without a newline. The blank line 5 is ignored.
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{3, 4, 7, 8}));
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].kind, KernelEventKind::kIommuEnabled);
  EXPECT_EQ(log.events[0].line, 2);
  EXPECT_EQ(log.events[1].code, 79);
  EXPECT_EQ(log.events[1].line, 6);
}

TEST(KernelLogTest, TruncatedKmsgRecordIsMalformedNotAnEvent) {
  KernelLog log = parse_kernel_log("6,1,100,-;DMAR: IOMMU enabled\n4,2,3605250010,-;NVRM: Xid (PCI:0000:01:00): 7");
  EXPECT_EQ(log.lines, 2);
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{2}));
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].kind, KernelEventKind::kIommuEnabled);
}

TEST(KernelLogTest, CutInsideTheTimestampIsMalformed) {
  KernelLog log = parse_kernel_log("[    1.000000] DMAR: IOMMU enabled\n[  512.3");
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{2}));
  EXPECT_EQ(log.events.size(), 1u);
}

TEST(KernelLogTest, TextInNoFormIsUnknownAndEveryLineMalformed) {
  KernelLog log = parse_kernel_log("hello\n\nGPU has fallen off the bus.\n");
  EXPECT_EQ(log.format, KernelLogFormat::kUnknown);
  EXPECT_EQ(log.lines, 3);
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{1, 3}));
  EXPECT_TRUE(log.events.empty());
}

TEST(KernelLogTest, UnstampedTextWithAnXidIsADmesgNoTimeLog) {
  // `dmesg -t`: the Xid shows the text is the kernel's, so its other line is a message too.
  KernelLog log = parse_kernel_log("hello\n\nNVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n");
  EXPECT_EQ(log.format, KernelLogFormat::kDmesgNoTime);
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].code, 79);
  EXPECT_EQ(log.events[0].line, 3);
}

TEST(KernelLogTest, EmptyTextHasNoLines) {
  KernelLog log = parse_kernel_log("");
  EXPECT_EQ(log.format, KernelLogFormat::kUnknown);
  EXPECT_EQ(log.lines, 0);
  EXPECT_TRUE(log.malformed_lines.empty());
  EXPECT_TRUE(log.events.empty());
}

TEST(KernelLogTest, LineInAnotherFormThanTheRestIsReadInItsOwn) {
  // The form is found per line: a concatenation of two captures reads whole.
  KernelLog log = parse_kernel_log(
      "[    1.000000] DMAR: IOMMU enabled\n"
      "2024-05-06T10:00:01,000000+00:00 NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
      "[    2.000000] NVRM: Xid (PCI:0000:01:00): 48, DBE\n");
  EXPECT_EQ(log.format, KernelLogFormat::kDmesg);
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 3u);
  EXPECT_EQ(log.events[1].code, 79);
  EXPECT_EQ(log.events[1].wall, "2024-05-06T10:00:01,000000+00:00");
  EXPECT_EQ(log.events[2].code, 48);
}

TEST(KernelLogTest, ContinuationLineWithoutARecordIsMalformed) {
  KernelLog log = parse_kernel_log(" SUBSYSTEM=pci\n6,1,100,-;DMAR: IOMMU enabled\n SUBSYSTEM=pci\n");
  EXPECT_EQ(log.format, KernelLogFormat::kKmsg);
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{1}));
  EXPECT_EQ(log.events.size(), 1u);
}

TEST(KernelLogTest, ContinuationInADmesgLogIsMalformed) {
  KernelLog log = parse_kernel_log("[    1.000000] DMAR: IOMMU enabled\n SUBSYSTEM=pci\n");
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{2}));
}

TEST(KernelLogTest, BadKmsgPrefixesAreMalformed) {
  KernelLog log = parse_kernel_log(
      "6,1,100,-;DMAR: IOMMU enabled\n"
      "6,x,100,-;not a sequence number\n"
      "6,2,100;no flags field\n"
      "6,3,1e5,-;not microseconds\n"
      "no semicolon at all\n");
  EXPECT_EQ(log.format, KernelLogFormat::kKmsg);
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{2, 3, 4, 5}));
}

TEST(KernelLogTest, BadCtimeStampsAreMalformed) {
  KernelLog log = parse_kernel_log(
      "[Mon May  6 10:00:01 2024] DMAR: IOMMU enabled\n"
      "[Xyz May  6 10:00:01 2024] unknown day\n"
      "[Mon Foo  6 10:00:01 2024] unknown month\n"
      "[Mon May  6 10-00-01 2024] wrong separators\n"
      "[Mon May  6 10:00:01 2024]no space\n");
  EXPECT_EQ(log.format, KernelLogFormat::kDmesgCtime);
  EXPECT_EQ(log.malformed_lines, (std::vector<int>{2, 3, 4, 5}));
}

TEST(KernelLogTest, CrLfLinesParse) {
  KernelLog log = parse_kernel_log("[    1.000000] DMAR: IOMMU enabled\r\n[    2.000000] x\r\n");
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].text, "DMAR: IOMMU enabled");
}

// --- events --------------------------------------------------------------------------------------

TEST(KernelLogTest, OnlyMessagesThatProveAnIommuCount) {
  KernelLog log = parse_kernel_log(
      "[    0.100000] iommu: Default domain type: Translated\n"
      "[    0.200000] AMD-Vi: AMD IOMMUv2 loaded and initialized\n"
      "[    0.300000] pci 0000:00:00.2: AMD-Vi: Found IOMMU cap 0x40\n"
      "[    0.400000] AMD-Vi: Interrupt remapping enabled\n");
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].kind, KernelEventKind::kIommuEnabled);
  EXPECT_EQ(log.events[0].line, 4);
}

TEST(KernelLogTest, OlderXidWithoutPciPrefixIsNormalised) {
  KernelLog log = parse_kernel_log("[  100.000000] NVRM: Xid (0000:3B:00): 31, Ch 0000000b, engmask 00000120\n");
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].code, 31);
  EXPECT_EQ(log.events[0].device, "0000:3b:00.0");
}

TEST(KernelLogTest, XidWithoutANumberIsNoEvent) {
  KernelLog log = parse_kernel_log(
      "[  1.000000] NVRM: Xid (PCI:0000:01:00): pid=1, no code\n"
      "[  2.000000] NVRM: Xid (PCI:zz): 79, bad address\n");
  EXPECT_TRUE(log.events.empty());
  EXPECT_TRUE(log.malformed_lines.empty());  // the lines fit the form; only the message is odd
}

TEST(KernelLogTest, StandaloneBusErrorIsItsOwnEvent) {
  KernelLog log = parse_kernel_log(
      "[  1.000000] nvme 0000:02:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, "
      "(Requester ID)\n"
      "[  2.000000] nvme 0000:02:00.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)\n");
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].severity, "Uncorrected (Non-Fatal)");
  EXPECT_EQ(log.events[0].device, "0000:02:00.0");
  EXPECT_EQ(log.events[1].severity, "Corrected");
  EXPECT_EQ(log.events[1].aer_type, "Data Link Layer");
}

TEST(KernelLogTest, MultipleErrorHeaderIsOneAerEvent) {
  KernelLog log =
      parse_kernel_log("[  1.000000] pcieport 0000:00:01.1: AER: Multiple Corrected error received: 0000:01:00.0\n");
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].severity, "Corrected");
  EXPECT_EQ(log.events[0].device, "0000:01:00.0");
}

// dmesg-newer-aer.log, as a 6.8 kernel words AER ("Correctable", "Uncorrectable (...)", "error
// message received from"). By hand: line 3 Correctable from 00:01.0 folds 4 (Physical Layer),
// 5 and 6; line 7 Multiple Uncorrectable (Non-Fatal) from 73:00.1 folds 8 (mlx5 73:00.1,
// Transaction Layer), 9, 10; line 11 Uncorrectable (Fatal) from 01:00.0 folds 12-14; line 15,
// a bus error while line 11's event already has its type, is its own Correctable event on nvme
// 02:00.0. Severities carry the older names.
TEST(KernelLogTest, NewerCorrectableUncorrectableWordingIsReadAsTheOlderSeverities) {
  KernelLog log = parse_kernel_log(read_fixture("dmesg-newer-aer.log"));
  EXPECT_EQ(log.format, KernelLogFormat::kDmesg);
  EXPECT_EQ(log.lines, 15);
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 4u);
  const int lines[] = {3, 7, 11, 15};
  const char* devices[] = {"0000:00:01.0", "0000:73:00.1", "0000:01:00.0", "0000:02:00.0"};
  const char* severities[] = {"Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)", "Corrected"};
  const char* types[] = {"Physical Layer", "Transaction Layer", "Transaction Layer", "Data Link Layer"};
  const std::vector<int> details[] = {{4, 5, 6}, {8, 9, 10}, {12, 13, 14}, {}};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(log.events[i].kind, KernelEventKind::kAer);
    EXPECT_EQ(log.events[i].line, lines[i]);
    EXPECT_EQ(log.events[i].device, devices[i]);
    EXPECT_EQ(log.events[i].severity, severities[i]);
    EXPECT_EQ(log.events[i].aer_type, types[i]);
    EXPECT_EQ(log.events[i].detail_lines, details[i]);
  }
}

TEST(KernelLogTest, NewerHeaderWithoutASourceNamesTheReportingPort) {
  KernelLog log = parse_kernel_log(
      "[  1.000000] pcieport 0000:00:03.1: AER: Uncorrectable (Fatal) error message received\n"
      "[  2.000000] pcieport 0000:00:03.1: AER: Correctable error messages received from 0000:00:03.1\n");
  // Line 2 is neither wording ("messages"): chatter, not an event.
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].severity, "Uncorrected (Fatal)");
  EXPECT_EQ(log.events[0].device, "0000:00:03.1");
}

TEST(KernelLogTest, KmsgDictionaryNamesTheDeviceOfABareMessage) {
  KernelLog log = parse_kernel_log(
      "3,1,100,-;AER: Uncorrected (Fatal) error received\n"
      " SUBSYSTEM=pci\n"
      " DEVICE=+pci:0000:00:03.1\n");
  EXPECT_TRUE(log.malformed_lines.empty());
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].severity, "Uncorrected (Fatal)");
  EXPECT_EQ(log.events[0].device, "0000:00:03.1");
}

TEST(KernelLogTest, PciAddressesNormalise) {
  EXPECT_EQ(normalise_pci_address("0000:17:00"), "0000:17:00.0");
  EXPECT_EQ(normalise_pci_address("0000:C1:00.0"), "0000:c1:00.0");
  EXPECT_EQ(normalise_pci_address("3b:00.1"), "0000:3b:00.1");
  EXPECT_EQ(normalise_pci_address("0001:10:1c"), "0001:10:1c.0");
  EXPECT_EQ(normalise_pci_address("0000:17:00x"), "");    // trailing text
  EXPECT_EQ(normalise_pci_address("0000:17:00.0 "), "");  // trailing space
  EXPECT_EQ(normalise_pci_address("0000:17"), "");
  EXPECT_EQ(normalise_pci_address("17:00"), "");
  EXPECT_EQ(normalise_pci_address("zz"), "");
  EXPECT_EQ(normalise_pci_address(""), "");
}

}  // namespace
}  // namespace gpuplan::probe
