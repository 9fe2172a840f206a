// Kernel-log captures from public bug reports and forums (tests/fixtures/kernel-logs/README.md,
// the field-*.log rows, names each source): a GPU lost without an Xid line, Xid chains, APEI GHES
// records, EDAC reports, multi-line NVRM records, AER reports in newer kernels' wording and in
// `dmesg -H`. Each was misread before: passed as clean, counted twice or called malformed.
// Expected counts and line numbers are counted by hand in the fixture files.
#include <gtest/gtest.h>

#include "probe/kernel_log.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

KernelLog parsed(const std::string& name) {
  return parse_kernel_log(gpuplan::testing::read_file(gpuplan::testing::source_path("tests/fixtures/kernel-logs/" + name)));
}

std::vector<const KernelEvent*> of_kind(const KernelLog& log, KernelEventKind kind) {
  std::vector<const KernelEvent*> out;
  for (const KernelEvent& e : log.events)
    if (e.kind == kind) out.push_back(&e);
  return out;
}

TEST(KernelLogFieldTest, TheThreeLineProbeRecordIsAGpuLostNotThreeMalformedLines) {
  // NVSentinel issue 155 (dmesg): "NVRM: The NVIDIA GPU 0000:b3:00.0" and two indented,
  // unstamped continuation lines ending "fallen off the bus and is not responding to commands."
  KernelLog dmesg = parsed("field-nvrm-lost-probe-dmesg.log");
  EXPECT_TRUE(dmesg.malformed_lines.empty());  // lines 2 and 3 were malformed
  auto lost = of_kind(dmesg, KernelEventKind::kGpuLost);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]->device, "0000:b3:00.0");
  EXPECT_EQ(lost[0]->line, 1);
  EXPECT_EQ(lost[0]->detail_lines, (std::vector<int>{2, 3}));
  EXPECT_TRUE(of_kind(dmesg, KernelEventKind::kXid).empty());
  // gpud's journalctl -k capture of a B200: the same record, continuation lines indented to the
  // message column.
  KernelLog journal = parsed("field-nvrm-lost-probe-journal.log");
  EXPECT_EQ(journal.format, KernelLogFormat::kSyslog);
  EXPECT_TRUE(journal.malformed_lines.empty());
  lost = of_kind(journal, KernelEventKind::kGpuLost);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]->device, "0000:18:00.0");
  EXPECT_EQ(lost[0]->line, 2);
}

TEST(KernelLogFieldTest, TheOlderOneLineWordingIsAGpuLostEachTime) {
  // Bumblebee issue 554: "NVRM: GPU at 0000:01:00.0 has fallen off the bus." on lines 1 and 4.
  KernelLog log = parsed("field-nvrm-lost-legacy.log");
  auto lost = of_kind(log, KernelEventKind::kGpuLost);
  ASSERT_EQ(lost.size(), 2u);
  EXPECT_EQ(lost[0]->device, "0000:01:00.0");
  EXPECT_EQ(lost[0]->line, 1);
  EXPECT_EQ(lost[1]->line, 4);
}

TEST(KernelLogFieldTest, CurrentDriversWordingBesideItsXid79IsAlsoAGpuLost) {
  // The driver's own line "NVRM: GPU 0000:06:00.0: GPU has fallen off the bus." (osinit.c),
  // and not the "NVRM: GPU at PCI:0000:06:00: GPU-<uuid>" header before an Xid.
  KernelLog log = parse_kernel_log(
      "[ 10.000001] NVRM: GPU at PCI:0000:06:00: GPU-0b6b7808-c002-f593-ac86-cd8e57757b94\n"
      "[ 10.000002] NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.\n"
      "[ 10.000003] NVRM: GPU 0000:06:00.0: GPU has fallen off the bus.\n");
  auto lost = of_kind(log, KernelEventKind::kGpuLost);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]->device, "0000:06:00.0");
  EXPECT_EQ(lost[0]->line, 3);
  EXPECT_EQ(of_kind(log, KernelEventKind::kXid).size(), 1u);
}

TEST(KernelLogFieldTest, Xid45KeepsTheXidThatCausedIt) {
  // open-gpu-kernel-modules issue 1150: seven Xid 45 lines, two "caused by previous Xid 149"
  // (lines 1 and 5, both on 0000:dc:00), five by 145.
  KernelLog log = parsed("field-xid45-caused-by.log");
  auto xids = of_kind(log, KernelEventKind::kXid);
  ASSERT_EQ(xids.size(), 7u);
  int by_149 = 0, by_145 = 0;
  for (const KernelEvent* e : xids) {
    EXPECT_EQ(e->code, 45);
    ASSERT_TRUE(e->cause_code.has_value()) << e->text;
    (*e->cause_code == 149 ? by_149 : by_145) += 1;
  }
  EXPECT_EQ(by_149, 2);
  EXPECT_EQ(by_145, 5);
  EXPECT_EQ(xids[0]->device, "0000:dc:00.0");
  EXPECT_EQ(*xids[0]->cause_code, 149);
}

TEST(KernelLogFieldTest, AGhesRecordIsOneEventWithItsSeveritySectionAndDevice) {
  // The fatal record of a Dell R540 (13 "{1}[Hardware Error]:" lines, then a kernel panic):
  // one event, severity fatal, the root port 0000:3a:00.0 from "device_id:" (not the vendor
  // line's "device_id: 0x2030").
  KernelLog fatal = parsed("field-ghes-pcie-fatal.log");
  auto ghes = of_kind(fatal, KernelEventKind::kGhes);
  ASSERT_EQ(ghes.size(), 1u);
  EXPECT_EQ(ghes[0]->line, 1);
  EXPECT_EQ(ghes[0]->severity, "fatal");
  EXPECT_EQ(ghes[0]->section, "PCIe error");
  EXPECT_EQ(ghes[0]->device, "0000:3a:00.0");
  EXPECT_EQ(ghes[0]->detail_lines.size(), 12u);  // lines 2-13
  // A recoverable error on a Samsung NVMe (0000:5e:00.0), with mce and EDAC lines in between.
  KernelLog nvme = parsed("field-ghes-pcie-recoverable.log");
  ghes = of_kind(nvme, KernelEventKind::kGhes);
  ASSERT_EQ(ghes.size(), 1u);
  EXPECT_EQ(ghes[0]->severity, "recoverable");
  EXPECT_EQ(ghes[0]->device, "0000:5e:00.0");
  EXPECT_TRUE(of_kind(nvme, KernelEventKind::kEdac).empty());  // "EDAC skx MC3: HANDLING MCE ..." reports nothing
  // A memory-error record in syslog form.
  KernelLog memory = parsed("field-ghes-memory.log");
  ghes = of_kind(memory, KernelEventKind::kGhes);
  ASSERT_EQ(ghes.size(), 1u);
  EXPECT_EQ(ghes[0]->severity, "recoverable");
  EXPECT_EQ(ghes[0]->section, "memory error");
  EXPECT_EQ(ghes[0]->device, "");
}

TEST(KernelLogFieldTest, EdacReportsItsUncorrectedAndCorrectedCounts) {
  KernelLog ue = parsed("field-edac-ue.log");  // "EDAC MC3: 1 UE memory read error on ..."
  auto edac = of_kind(ue, KernelEventKind::kEdac);
  ASSERT_EQ(edac.size(), 1u);
  EXPECT_EQ(edac[0]->severity, "UE");
  EXPECT_EQ(edac[0]->count, 1);
  // openstreetmap operations issue 300: "EDAC MC0: 4 CE error", "2 CE", "6 CE" (line 1 is mce's).
  KernelLog ce = parsed("field-edac-ce.log");
  edac = of_kind(ce, KernelEventKind::kEdac);
  ASSERT_EQ(edac.size(), 3u);
  EXPECT_EQ(edac[0]->severity, "CE");
  EXPECT_EQ(edac[0]->count, 4);
  EXPECT_EQ(edac[1]->count, 2);
  EXPECT_EQ(edac[2]->count, 6);
  EXPECT_EQ(edac[2]->line, 4);
}

TEST(KernelLogFieldTest, TwoLineBarRecordsAreNotMalformed) {
  // gpu-operator issue 492: "NVRM: This PCI I/O region assigned to your NVIDIA device is
  // invalid:" then an indented, unstamped "NVRM: BAR1 is 0M @ 0x0 (PCI:0000:14:00.0)", twice.
  KernelLog log = parsed("field-nvrm-bar-invalid.log");
  EXPECT_EQ(log.lines, 9);
  EXPECT_TRUE(log.malformed_lines.empty());  // lines 2 and 6 were malformed
}

TEST(KernelLogFieldTest, NewerKernelsReportFromTheRootPortAndTheDetailNamesTheDevice) {
  // pop-os issue 3363 (6.x wording): "AER: Correctable error message received from
  // 0000:00:00.0" on pcieport 0000:00:03.1, whose "PCIe Bus Error" line follows. Two reports,
  // not four: each header and its detail are one error, on 0000:00:03.1.
  KernelLog log = parsed("field-aer-correctable-6x.log");
  auto aer = of_kind(log, KernelEventKind::kAer);
  ASSERT_EQ(aer.size(), 2u);
  EXPECT_EQ(aer[0]->device, "0000:00:03.1");
  EXPECT_EQ(aer[0]->severity, "Corrected");
  EXPECT_EQ(aer[0]->aer_type, "Data Link Layer");
  EXPECT_EQ(aer[0]->detail_lines, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(aer[1]->line, 5);
}

TEST(KernelLogFieldTest, DmesgHumanStampsAreReadAndOneFatalReportIsOneEvent) {
  // returnn issue 1500 (`dmesg -H`, "[  +0.000001]" deltas): one Multiple Uncorrected (Fatal)
  // report (lines 4-8). The stamps were read as part of the message, so the header and its
  // "PCIe Bus Error" line named different devices and counted twice.
  KernelLog log = parsed("field-aer-dmesg-human.log");
  EXPECT_EQ(log.format, KernelLogFormat::kDmesg);
  EXPECT_TRUE(log.malformed_lines.empty());
  auto aer = of_kind(log, KernelEventKind::kAer);
  ASSERT_EQ(aer.size(), 1u);
  EXPECT_EQ(aer[0]->line, 4);
  EXPECT_EQ(aer[0]->device, "0000:00:03.0");
  EXPECT_EQ(aer[0]->severity, "Uncorrected (Fatal)");
  EXPECT_FALSE(aer[0]->uptime_s.has_value());  // a delta is no time since boot
}

}  // namespace
}  // namespace gpuplan::probe
