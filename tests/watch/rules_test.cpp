// The alerting rules: their expressions from the default catalog (figures read from
// catalog/threshold.yaml and catalog/xid.yaml by hand), promtool's check, and promtool's unit
// test (tests/fixtures/watch/rules_test.yml) firing each rule in Prometheus's own rule engine.
#include "watch/rules.h"

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "watch/exporter_shell.h"

namespace gpuplan::watch {
namespace {

const AlertRule& rule(const std::vector<AlertRule>& rules, const std::string& name) {
  for (const AlertRule& r : rules)
    if (r.name == name) return r;
  throw std::runtime_error("no rule " + name);
}

TEST(Rules, ThresholdsComeFromTheCatalog) {
  auto rules = alert_rules(testing::default_catalog());
  ASSERT_EQ(rules.size(), 6u);
  EXPECT_EQ(rule(rules, "GpuplanGpuTooHot").expr, "DCGM_FI_DEV_GPU_TEMP > 85");  // accept.soak.max_temperature_c
  EXPECT_EQ(rule(rules, "GpuplanGpuTooHot").for_minutes, 5);                     // watch.alert.for_minutes
  EXPECT_EQ(rule(rules, "GpuplanEccCorrectedRising").expr, "increase(DCGM_FI_DEV_ECC_SBE_AGG_TOTAL[24h]) > 0");
  const std::string& xid = rule(rules, "GpuplanXidFailClass").expr;
  const std::string codes = "|" + xid.substr(xid.find('"') + 1, xid.rfind('"') - xid.find('"') - 1) + "|";
  EXPECT_NE(codes.find("|79|"), std::string::npos) << xid;  // Xid 79: fail in catalog/xid.yaml
  EXPECT_EQ(codes.find("|13|"), std::string::npos) << xid;  // Xid 13: warn, not alerted on
}

TEST(Rules, ACatalogOverrideMovesTheTemperatureLimit) {
  auto cat = testing::catalog_with({{"threshold.yaml", R"(kind: threshold
entries:
  - id: accept.soak.max_temperature_c
    name: Highest GPU temperature allowed during the soak
    value: 80
    unit: °C
    source: "gpuplan default: a test override"
    as_of: "2026-12"
)"}});
  EXPECT_EQ(rule(alert_rules(cat), "GpuplanGpuTooHot").expr, "DCGM_FI_DEV_GPU_TEMP > 80");
}

std::string write_rules(const std::string& dir, bool keys_as_words) {
  auto words = [keys_as_words](const Phrase& p) { return keys_as_words ? p.key : testing::zh(p); };
  return testing::write_file(dir, "gpuplan.rules.yml", rules_yaml(alert_rules(testing::default_catalog()), words));
}

TEST(Rules, PromtoolChecksTheRulesClean) {
  const std::string file = write_rules(testing::temp_dir(), false);  // Chinese words: UTF-8 must pass too
  auto [rc, out] = testing::shell("/usr/bin/promtool check rules " + file);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("SUCCESS: 6 rules found"), std::string::npos) << out;
}

TEST(Rules, PromtoolUnitTestFiresEveryRule) {
  const std::string dir = testing::temp_dir() + "/promtool-unit";
  std::filesystem::create_directories(dir);
  write_rules(dir, true);
  std::filesystem::copy_file(testing::source_path("tests/fixtures/watch/rules_test.yml"), dir + "/rules_test.yml",
                             std::filesystem::copy_options::overwrite_existing);
  auto [rc, out] = testing::shell("cd " + dir + " && /usr/bin/promtool test rules rules_test.yml");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("SUCCESS"), std::string::npos) << out;
}

// `watch rules > FILE` on a full disk: exit 2, never a rules file that passes for written.
TEST(Rules, CliRulesToAFullDeviceIsAnError) {
  const std::string cmd = std::string(GPUPLAN_BINARY) + " watch rules >/dev/full 2>/dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

TEST(Rules, CliWritesTheRulesInTheRunsLanguage) {
  auto en = testing::run_gpuplan("watch rules --lang en");
  ASSERT_EQ(en.exit_code, 0) << en.err;
  EXPECT_NE(en.out.find("summary: \"GPU {{ $labels.gpu }} of {{ $labels.Hostname }} fell off the bus\""),
            std::string::npos)
      << en.out;
  auto zh = testing::run_gpuplan("watch rules --lang zh");
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("summary: \"{{ $labels.Hostname }} 的 GPU {{ $labels.gpu }} 已从总线上掉卡\""),
            std::string::npos)
      << zh.out;
}

}  // namespace
}  // namespace gpuplan::watch
