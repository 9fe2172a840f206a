// smartctl's terminal output for NVMe drives (issue 26): the health log read from real pastes
// (tests/fixtures/tools/README.md names each source), whatever the column its values start in
// and however its counts are grouped; values that are not values are errors naming the line and
// the field; an output without the NVMe health log is refused, never read as a healthy drive.
#include <gtest/gtest.h>

#include "probe/tools.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::read_file;
using gpuplan::testing::source_path;

std::string fixture(const std::string& name) {
  return read_file(source_path("tests/fixtures/tools/" + name));
}

TEST(SmartctlTextTest, SmartctlDashAOfAnAppleNvme) {
  auto s = parse_smartctl_text(fixture("smartctl-a-nvme-apple.txt"));
  ASSERT_TRUE(s) << report::error_text(s.error(), report::Lang::kEn);
  EXPECT_EQ(s->model, "APPLE SSD AP0256Z");
  EXPECT_EQ(s->serial, "0ba01f1144582433");
  EXPECT_EQ(s->firmware, "355");
  EXPECT_EQ(s->device, "");  // no command above it
  EXPECT_EQ(s->smart_passed, true);
  EXPECT_EQ(s->critical_warning, 0u);
  EXPECT_EQ(s->percentage_used, 2);
  EXPECT_EQ(s->media_errors, 0u);
}

TEST(SmartctlTextTest, ThePastedCommandNamesTheDeviceAndLocaleSpacesGroupCounts) {
  auto s = parse_smartctl_text(fixture("smartctl-A-nvme0-locale-prompt.txt"));
  ASSERT_TRUE(s) << report::error_text(s.error(), report::Lang::kEn);
  EXPECT_EQ(s->device, "/dev/nvme0");  // "# smartctl -A /dev/nvme0"
  EXPECT_EQ(s->percentage_used, 0);
  EXPECT_EQ(s->media_errors, 0u);
  EXPECT_EQ(s->critical_warning, 0u);
  EXPECT_FALSE(s->smart_passed.has_value());  // -A prints no overall-health line
  // A count grouped by spaces is one number, not its first group.
  auto grouped =
      parse_smartctl_text("SMART/Health Information (NVMe Log 0x02)\nMedia and Data Integrity Errors:    6 251 884\n");
  ASSERT_TRUE(grouped);
  EXPECT_EQ(grouped->media_errors, 6251884u);
}

TEST(SmartctlTextTest, ANarrowColumnWithACriticalWarning) {
  auto s = parse_smartctl_text(fixture("smartctl-nvme-critical-warning.txt"));
  ASSERT_TRUE(s) << report::error_text(s.error(), report::Lang::kEn);
  EXPECT_EQ(s->critical_warning, 0x04u);
  EXPECT_EQ(s->percentage_used, 100);
  EXPECT_FALSE(s->media_errors.has_value());  // the paste stops before it
}

TEST(SmartctlTextTest, WhatIsNotAnNvmeHealthLogIsRefused) {
  // An ATA drive's attribute table has no NVMe health log: refused, not a drive at 0% wear.
  auto ata = parse_smartctl_text(
      "=== START OF READ SMART DATA SECTION ===\nSMART overall-health self-assessment test result: PASSED\n"
      "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  WHEN_FAILED RAW_VALUE\n"
      "  5 Reallocated_Sector_Ct   0x0033   100   100   010    Pre-fail  Always       -       0\n");
  ASSERT_FALSE(ata);
  EXPECT_EQ(ata.error().message.key, "error.smart.text_no_health_log");
  auto bad_percent = parse_smartctl_text("SMART/Health Information (NVMe Log 0x02)\nPercentage Used:  two\n");
  ASSERT_FALSE(bad_percent);
  EXPECT_EQ(bad_percent.error().line, 2);
  EXPECT_EQ(bad_percent.error().field, "Percentage Used");
  EXPECT_EQ(bad_percent.error().message.key, "error.smart.text_percent");
  auto over = parse_smartctl_text("SMART/Health Information (NVMe Log 0x02)\nPercentage Used:  300%\n");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message.key, "error.smart.percentage_range");
  auto bad_hex = parse_smartctl_text("SMART/Health Information (NVMe Log 0x02)\nCritical Warning:  4\n");
  ASSERT_FALSE(bad_hex);
  EXPECT_EQ(bad_hex.error().line, 2);
  EXPECT_EQ(bad_hex.error().message.key, "error.smart.text_hex");
  auto bad_count =
      parse_smartctl_text("SMART/Health Information (NVMe Log 0x02)\nMedia and Data Integrity Errors:  -3\n");
  ASSERT_FALSE(bad_count);
  EXPECT_EQ(bad_count.error().message.key, "error.smart.text_count");
  // A failed self-assessment is read as failed.
  auto failed = parse_smartctl_text(
      "SMART overall-health self-assessment test result: FAILED!\n- NVM subsystem reliability has been degraded\n"
      "SMART/Health Information (NVMe Log 0x02)\nCritical Warning:  0x04\n");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->smart_passed, false);
}

TEST(SmartctlTextTest, EitherFormIsRead) {
  auto json = parse_smartctl(fixture("smartctl-nvme0.json"));
  ASSERT_TRUE(json);
  EXPECT_EQ(json->device, "/dev/nvme0");
  auto text = parse_smartctl(fixture("smartctl-a-nvme-apple.txt"));
  ASSERT_TRUE(text);
  EXPECT_EQ(text->percentage_used, 2);
}

}  // namespace
}  // namespace gpuplan::probe
