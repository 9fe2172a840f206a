// End to end: `gpuplan accept` on the healthy HGX fixture host with its kernel log replaced by a
// log in each form operators keep (tests/fixtures/kernel-logs/README.md). The Xid 79 record fails
// `xid` in every journalctl and syslog form, the kernel documentation's AER example (no time
// prefix) fails `pcie.aer`, several logs holding one record count it once, and text in no form
// leaves `xid` needing evidence with the forms that are read named.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::run_gpuplan;
using testing::source_path;

std::string log_path(const std::string& name) {
  return source_path("tests/fixtures/kernel-logs/" + name);
}

json accept_with(const std::string& kernel_logs, int expected_exit) {
  auto r = run_gpuplan("accept --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") + kernel_logs +
                       " --format json");
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return json::parse(r.out);
}

const json& check(const json& report, const std::string& id) {
  for (const auto& c : report.at("checks"))
    if (c.at("id") == id) return c;
  throw std::runtime_error("no check " + id);
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(AcceptKernelLogsTest, Xid79FailsXidInEveryJournalAndSyslogForm) {
  // file → the line of its Xid 79 (counted in the file)
  const std::pair<const char*, int> logs[] = {
      {"journalctl-short.log", 4},
      {"journalctl-short-iso.log", 4},
      {"journalctl-short-precise.log", 3},
      {"journalctl-short-monotonic.log", 3},
      {"journalctl-json.log", 3},
      {"kern-log.log", 4},
      {"kern.log.2.gz", 4},
      {"messages.log", 4},
      {"rfc5424.log", 4},
      {"rsyslog-precise.log", 3},
      {"dmesg-notime.log", 3},
  };
  for (const auto& [file, line] : logs) {
    SCOPED_TRACE(file);
    const json j = accept_with(" --kernel-log " + log_path(file), 1);
    const json& xid = check(j, "xid");
    EXPECT_EQ(xid.at("status"), "fail");
    const std::string detail = xid.at("detail");
    EXPECT_NE(detail.find("Xid 79"), std::string::npos) << detail;
    const std::string evidence = xid.at("evidence").dump();
    EXPECT_NE(evidence.find(log_path(file) + ":" + std::to_string(line)), std::string::npos) << evidence;
    EXPECT_EQ(check(j, "pcie.aer").at("status"), "pass");  // no AER in these logs, none in sysfs
  }
}

TEST(AcceptKernelLogsTest, TheKernelDocumentationsFatalAerExampleFailsPcieAer) {
  const json j = accept_with(" --kernel-log " + log_path("aer-kernel-doc.log"), 1);
  const json& aer = check(j, "pcie.aer");
  EXPECT_EQ(aer.at("status"), "fail");
  const std::string evidence = aer.at("evidence").dump();
  EXPECT_NE(evidence.find("aer-kernel-doc.log:1"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("Uncorrected (Fatal)"), std::string::npos) << evidence;
  EXPECT_EQ(check(j, "xid").at("status"), "pass");  // a kernel log, and no Xid in it
}

TEST(AcceptKernelLogsTest, ARecordKeptByTwoLogsIsOneXid) {
  const json j =
      accept_with(" --kernel-log " + log_path("kern-log.log") + " --kernel-log " + log_path("kern.log.2.gz"), 1);
  const json& xid = check(j, "xid");
  EXPECT_EQ(xid.at("status"), "fail");
  const std::string evidence = xid.at("evidence").dump();
  EXPECT_EQ(count_of(evidence, "Xid 79"), 1u) << evidence;
  EXPECT_NE(evidence.find(log_path("kern-log.log") + ":4"), std::string::npos) << evidence;
}

TEST(AcceptKernelLogsTest, TextInNoFormNeedsEvidenceAndNamesTheFormsRead) {
  const std::string notes =
      testing::write_file(testing::temp_dir(), "notes.txt", "Quarterly report\n\nAll GPUs were delivered on time.\n");
  const json j = accept_with(" --kernel-log " + notes, 0);
  for (const char* id : {"xid", "pcie.aer"}) {
    const json& c = check(j, id);
    EXPECT_EQ(c.at("status"), "needs-evidence") << id;
    const std::string detail = c.at("detail");
    for (const char* form : {"journalctl -k", "/var/log/kern.log", "dmesg", "RFC 5424"})
      EXPECT_NE(detail.find(form), std::string::npos) << id << ": " << detail;
  }
}

TEST(AcceptKernelLogsTest, OneLogInNoFormAmongReadableOnesIsNamedAndTheXidStillFails) {
  const std::string notes = testing::write_file(testing::temp_dir(), "notes.txt", "All GPUs were delivered on time.\n");
  const json j = accept_with(" --kernel-log " + log_path("kern-log.log") + " --kernel-log " + notes, 1);
  const json& xid = check(j, "xid");
  EXPECT_EQ(xid.at("status"), "fail");  // the Xid 79 kern.log holds; notes.txt cannot clear it
  const std::string detail = xid.at("detail");
  EXPECT_NE(detail.find(notes + " is in no form gpuplan reads (1 of 1 lines unreadable)"), std::string::npos) << detail;
  EXPECT_EQ(detail.find(log_path("kern-log.log") + " is in no form"), std::string::npos) << detail;
}

// --- Field captures (issue 26): what real logs showed, judged on an empty root ---------------------

// `gpuplan accept --root EMPTY --nvml off --kernel-log FILE`: nothing but the log is evidence.
json accept_log_alone(const std::string& file, int expected_exit) {
  auto r = run_gpuplan("accept --root " + testing::temp_dir() + " --nvml off --kernel-log " + log_path(file) +
                       " --format json --lang en");
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return json::parse(r.out);
}

TEST(AcceptKernelLogsTest, AGpuFallenOffTheBusWithoutAnXidFailsXid) {
  // Each wording passed as "no Xid" before: NVSentinel 155 (dmesg), gpud's B200 (journalctl),
  // Bumblebee 554 (the older one-line wording, twice).
  const std::pair<const char*, const char*> logs[] = {
      {"field-nvrm-lost-probe-dmesg.log", "GPU 0000:b3:00.0 fallen off the bus"},
      {"field-nvrm-lost-probe-journal.log", "GPU 0000:18:00.0 fallen off the bus"},
      {"field-nvrm-lost-legacy.log", "2 × GPU 0000:01:00.0 fallen off the bus"},
  };
  for (const auto& [file, says] : logs) {
    SCOPED_TRACE(file);
    const json xid = check(accept_log_alone(file, 1), "xid");
    EXPECT_EQ(xid.at("status"), "fail");
    const std::string detail = xid.at("detail");
    EXPECT_NE(detail.find(says), std::string::npos) << detail;
    EXPECT_EQ(detail.find("malformed"), std::string::npos) << detail;  // the continuation lines are the record's
  }
}

TEST(AcceptKernelLogsTest, Xid45IsJudgedByTheXidThatCausedIt) {
  // Seven Xid 45 "caused by previous Xid 145/149": 45 alone is info (it passed); 145 and 149 are
  // not in the catalog, so the chain is investigated: warn.
  const json xid = check(accept_log_alone("field-xid45-caused-by.log", 0), "xid");
  EXPECT_EQ(xid.at("status"), "warn");
  const std::string detail = xid.at("detail");
  EXPECT_NE(detail.find("5 × Xid 45 caused by Xid 145"), std::string::npos) << detail;
  EXPECT_NE(detail.find("2 × Xid 45 caused by Xid 149"), std::string::npos) << detail;
}

TEST(AcceptKernelLogsTest, GhesPcieRecordsFailPcieAer) {
  // A fatal record on a root port and a recoverable one on an NVMe: both uncorrected. Neither
  // log has an AER line; both passed.
  for (const char* file : {"field-ghes-pcie-fatal.log", "field-ghes-pcie-recoverable.log"}) {
    SCOPED_TRACE(file);
    const json aer = check(accept_log_alone(file, 1), "pcie.aer");
    EXPECT_EQ(aer.at("status"), "fail");
    EXPECT_NE(aer.at("detail").get<std::string>().find("1 uncorrected"), std::string::npos) << aer.at("detail");
    EXPECT_NE(aer.at("evidence").dump().find("APEI GHES PCIe error record"), std::string::npos) << aer.at("evidence");
  }
}

TEST(AcceptKernelLogsTest, HostMemoryErrorsInTheKernelLogJudgeEccEvenWithoutNvml) {
  // EDAC UE and a GHES memory error: uncorrected, fail. EDAC CE 4 + 2 + 6 = 12: warn.
  for (const char* file : {"field-edac-ue.log", "field-ghes-memory.log"}) {
    SCOPED_TRACE(file);
    const json ecc = check(accept_log_alone(file, 1), "ecc");
    EXPECT_EQ(ecc.at("status"), "fail");
    EXPECT_NE(ecc.at("detail").get<std::string>().find("1 uncorrected host memory error"), std::string::npos)
        << ecc.at("detail");
  }
  const json ce = check(accept_log_alone("field-edac-ce.log", 0), "ecc");
  EXPECT_EQ(ce.at("status"), "warn");
  EXPECT_NE(ce.at("detail").get<std::string>().find("12 corrected host memory error"), std::string::npos)
      << ce.at("detail");
  // GPU ECC was not read: the check says so as well.
  EXPECT_NE(ce.at("detail").get<std::string>().find("NVML not read"), std::string::npos) << ce.at("detail");
}

TEST(AcceptKernelLogsTest, OneAerReportIsCountedOnceInNewerKernelsAndDmesgH) {
  const json newer = check(accept_log_alone("field-aer-correctable-6x.log", 0), "pcie.aer");
  EXPECT_EQ(newer.at("status"), "warn");
  EXPECT_NE(newer.at("detail").get<std::string>().find("2 corrected-only AER report(s)"), std::string::npos)
      << newer.at("detail");  // was 4
  const json human = check(accept_log_alone("field-aer-dmesg-human.log", 1), "pcie.aer");
  EXPECT_NE(human.at("detail").get<std::string>().find("1 uncorrected"), std::string::npos)
      << human.at("detail");  // was 2
}

TEST(AcceptKernelLogsTest, AnEmptyRootAndALogWithoutIommuLinesNeedEvidenceForIommu) {
  // gpud's Xid 79 capture has no IOMMU line, and an empty root has no /sys: iommu failed.
  const json j = accept_log_alone("gpud-dmesg-xid79-sxid.log", 1);
  EXPECT_EQ(check(j, "iommu").at("status"), "needs-evidence");
  EXPECT_EQ(check(j, "xid").at("status"), "fail");
}

}  // namespace
}  // namespace gpuplan
