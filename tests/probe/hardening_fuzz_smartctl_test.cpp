// Inputs the fuzz targets (fuzz/) found crashing a probe parser, kept as regression tests.
// smartctl --json: a number beyond a double ("61e3084", from a mutated smartctl-nvme0.json; the
// whole reproducer is fuzz/corpus/smartctl/crash-number-overflow.json) made nlohmann throw
// out_of_range.406, which parse_smartctl_json did not catch: std::terminate, every verb that
// reads an attached smartctl file aborted.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "probe/tools.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

TEST(HardeningFuzzSmartctlTest, ANumberBeyondADoubleIsNotJsonNotACrash) {
  auto s = parse_smartctl_json(
      R"({"json_format_version": [1, 0], "nvme_smart_health_information_log": {"temperature": 61e3084}})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.key, "error.smart.not_json");
  // nlohmann's own words name the number, so the user sees which value.
  const std::string* why = gpuplan::testing::fact_in(s.error().message, "why");
  ASSERT_NE(why, nullptr);
  EXPECT_NE(why->find("61e3084"), std::string::npos) << *why;
}

TEST(HardeningFuzzSmartctlTest, TheFuzzersReproducerIsAnError) {
  const std::string text =
      gpuplan::testing::read_file(gpuplan::testing::source_path("fuzz/corpus/smartctl/crash-number-overflow.json"));
  ASSERT_FALSE(text.empty());
  auto s = parse_smartctl_json(text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.key, "error.smart.not_json");
}

}  // namespace
}  // namespace gpuplan::probe
