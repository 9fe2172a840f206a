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

}  // namespace
}  // namespace gpuplan
