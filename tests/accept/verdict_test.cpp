// The overall verdict of `gpuplan accept` (issue 12, item 3): pass only when every check passed
// (warnings included), incomplete when nothing failed but a check needs evidence, fail when a
// check failed; the headline says which checks the verdict rests on, JSON carries the word, and
// --require-complete makes incomplete exit 1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "accept/accept.h"
#include "report/accept_render.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using nlohmann::json;
using report::Lang;
using testing::run_gpuplan;
using testing::source_path;

// The fifteen check ids in report order (accept.h).
const std::vector<std::string> kIds = {
    "soak",      "pcie.topology", "pcie.aer",          "infiniband",  "versions",        "load",
    "pcie.aspm", "iommu",         "firmware.versions", "performance", "firmware.hashes", "health.archive",
    "xid",       "ecc",           "gpu.count"};

// A report whose checks have the given severities, the rest pass.
AcceptReport report_with(const std::map<std::string, Severity>& severities) {
  AcceptReport r;
  r.host = "hgx-a100-8gpu";
  for (const auto& id : kIds) {
    Finding c;
    c.id = id;
    c.source = "S1 §5";
    const auto it = severities.find(id);
    c.severity = it == severities.end() ? Severity::kPass : it->second;
    r.checks.push_back(c);
  }
  r.verdict = verdict_of(r.checks);
  return r;
}

// The seven checks the healthy HGX fixture host passes on its tree alone, the eight it cannot judge.
std::map<std::string, Severity> hgx_tree_only() {
  std::map<std::string, Severity> s;
  for (const char* id :
       {"soak", "infiniband", "load", "firmware.versions", "performance", "firmware.hashes", "health.archive", "ecc"})
    s[id] = Severity::kNeedsEvidence;
  return s;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

report::Style plain(Lang lang) {
  report::Style s;
  s.lang = lang;
  s.colour = false;
  return s;
}

TEST(VerdictTest, VerdictIsTheWorstOfFailThenNeedsEvidence) {
  EXPECT_EQ(report_with({}).verdict, Verdict::kPass);
  // A warning asks a person to look: not a failure, not missing evidence.
  EXPECT_EQ(report_with({{"pcie.topology", Severity::kWarn}}).verdict, Verdict::kPass);
  EXPECT_EQ(report_with({{"soak", Severity::kNeedsEvidence}, {"pcie.topology", Severity::kWarn}}).verdict,
            Verdict::kIncomplete);
  EXPECT_EQ(report_with({{"soak", Severity::kNeedsEvidence}, {"xid", Severity::kFail}}).verdict, Verdict::kFail);
  EXPECT_STREQ(verdict_name(Verdict::kPass), "pass");
  EXPECT_STREQ(verdict_name(Verdict::kIncomplete), "incomplete");
  EXPECT_STREQ(verdict_name(Verdict::kFail), "fail");
  // Nothing given at all: every check needs evidence, so never a pass.
  EXPECT_EQ(run_acceptance({}, testing::default_catalog()).verdict, Verdict::kIncomplete);
}

TEST(VerdictTest, IncompleteHeadlineCountsThePassedAndNamesWhatNeedsEvidence) {
  const AcceptReport r = report_with(hgx_tree_only());
  // 15 checks − 8 needing evidence = 7 passed; the ids in report order.
  EXPECT_EQ(first_line(report::render_accept(r, report::Format::kTable, plain(Lang::kEn))),
            "Acceptance of hgx-a100-8gpu: INCOMPLETE: 7 of 15 checks passed, 8 need evidence: soak, infiniband, load, "
            "firmware.versions, performance, firmware.hashes, health.archive, ecc");
  EXPECT_EQ(first_line(report::render_accept(r, report::Format::kTable, plain(Lang::kZh))),
            "hgx-a100-8gpu 验收结论：未完成：15 项检查中 7 项通过，8 项待补证据：soak、infiniband、load、"
            "firmware.versions、performance、firmware.hashes、health.archive、ecc");
  const json j = report::accept_json(r, Lang::kEn);
  EXPECT_EQ(j.at("verdict"), "incomplete");
  EXPECT_EQ(j.at("counts"), json({{"pass", 7}, {"warn", 0}, {"fail", 0}, {"needs-evidence", 8}}));
  // The pages carry the same words: the title, then what the verdict rests on.
  const std::string md = report::render_accept(r, report::Format::kMarkdown, plain(Lang::kEn));
  EXPECT_EQ(first_line(md), "# Acceptance of hgx-a100-8gpu: INCOMPLETE");
  EXPECT_NE(md.find("7 of 15 checks passed, 8 need evidence: soak,"), std::string::npos) << md;
}

TEST(VerdictTest, FailHeadlineNamesTheFailedBeforeTheUnproven) {
  auto s = hgx_tree_only();
  s["pcie.aspm"] = Severity::kFail;
  s["iommu"] = Severity::kFail;
  s["pcie.topology"] = Severity::kWarn;
  const AcceptReport r = report_with(s);
  // 15 − 8 − 2 − 1 = 4 passed.
  EXPECT_EQ(first_line(report::render_accept(r, report::Format::kTable, plain(Lang::kEn))),
            "Acceptance of hgx-a100-8gpu: FAIL: 4 of 15 checks passed, 2 failed: pcie.aspm, iommu; 8 need evidence: "
            "soak, infiniband, load, firmware.versions, performance, firmware.hashes, health.archive, ecc; 1 with "
            "warnings: pcie.topology");
  EXPECT_EQ(report::accept_json(r, Lang::kEn).at("verdict"), "fail");
}

TEST(VerdictTest, PassHeadlineSaysAllPassedOrNamesTheWarnings) {
  EXPECT_EQ(first_line(report::render_accept(report_with({}), report::Format::kTable, plain(Lang::kEn))),
            "Acceptance of hgx-a100-8gpu: PASS: all 15 checks passed");
  const AcceptReport warned = report_with({{"pcie.topology", Severity::kWarn}});
  EXPECT_EQ(first_line(report::render_accept(warned, report::Format::kTable, plain(Lang::kEn))),
            "Acceptance of hgx-a100-8gpu: PASS: 14 of 15 checks passed, 1 with warnings: pcie.topology");
  EXPECT_EQ(first_line(report::render_accept(warned, report::Format::kTable, plain(Lang::kZh))),
            "hgx-a100-8gpu 验收结论：通过：15 项检查中 14 项通过，1 项有警告：pcie.topology");
  EXPECT_EQ(report::accept_json(warned, Lang::kEn).at("verdict"), "pass");
}

// --- the command ---------------------------------------------------------------------------------

std::string hgx() {
  return source_path("tests/fixtures/hosts/hgx-a100-8gpu");
}

TEST(VerdictTest, AHostWithChecksNeedingEvidenceIsIncompleteAndExits0) {
  auto r = run_gpuplan("accept --root " + hgx() + " --no-color --lang en");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      first_line(r.out).rfind("Acceptance of hgx-a100-8gpu: INCOMPLETE: 7 of 15 checks passed, 8 need evidence: ", 0),
      0u)
      << r.out;
  EXPECT_EQ(r.out.find("PASS:"), std::string::npos) << r.out;
  auto j = run_gpuplan("accept --root " + hgx() + " --format json");
  EXPECT_EQ(json::parse(j.out).at("verdict"), "incomplete");
}

TEST(VerdictTest, RequireCompleteMakesIncompleteExit1AndLeavesFailAt1) {
  auto incomplete = run_gpuplan("accept --root " + hgx() + " --require-complete --format json");
  EXPECT_EQ(incomplete.exit_code, 1) << incomplete.err;
  EXPECT_EQ(json::parse(incomplete.out).at("verdict"), "incomplete");  // the verdict itself is unchanged
  auto failed = run_gpuplan("accept --root " + source_path("tests/fixtures/hosts/aspm-iommu-a100") +
                            " --require-complete --format json");
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_EQ(json::parse(failed.out).at("verdict"), "fail");
  auto help = run_gpuplan("accept --help --lang en");
  EXPECT_NE(help.out.find("--require-complete"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace gpuplan::accept
