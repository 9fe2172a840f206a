// read_query_range_answer: the entry point the prom_json fuzz target (fuzz/) feeds, the same
// code query_prometheus reads a server's answers with (tests/telemetry/prometheus_test.cpp
// covers that path through a served answer). Expected values are read off the answers by hand.
#include <gtest/gtest.h>

#include <string>

#include "telemetry/prometheus.h"

namespace gpuplan::telemetry {
namespace {

constexpr int64_t kFirstHour = 1772409600 / 3600;  // 2026-03-02 00:00 UTC, in hours since 1970

std::string answer(const std::string& result) {
  return R"({"status":"success","data":{"resultType":"matrix","result":[)" + result + "]}}";
}

TEST(HardeningFuzzPromJsonTest, AnAnswerIsFoldedIntoHoursPerGpu) {
  // Hour h closes at (h + 1) h − 1 ms: 1772413199.999 closes the first hour, 1772416799.999 the
  // second. GPU 0 of node1 answers 71.5 then NaN (no reading); GPU 1 answers 3 in the second hour.
  auto data = read_query_range_answer(
      answer(R"({"metric":{"gpu":"0","Hostname":"node1"},"values":[[1772413199.999,"71.5"],[1772416799.999,"NaN"]]},)"
             R"({"metric":{"gpu":"1","Hostname":"node1"},"values":[[1772416799.999,"3"]]})"),
      kFirstHour, kFirstHour + 2);
  ASSERT_TRUE(data.ok()) << data.error().str();
  ASSERT_EQ(data->gpus, (std::vector<std::string>{"node1/0", "node1/1"}));
  EXPECT_EQ(data->stats.samples, 2);  // the NaN is no reading
  ASSERT_EQ(data->hours.size(), 2u);
  EXPECT_EQ(data->hours.at(kFirstHour)[0].mean_util(), 71.5);
  EXPECT_EQ(data->hours.at(kFirstHour)[1].mean_util(), std::nullopt);
  EXPECT_EQ(data->hours.at(kFirstHour + 1)[1].mean_util(), 3.0);
}

TEST(HardeningFuzzPromJsonTest, MalformedAnswersAreErrorsNamingWhatIsWrong) {
  auto why = [](const std::string& body) {
    auto data = read_query_range_answer(body, kFirstHour, kFirstHour + 2);
    EXPECT_FALSE(data.ok()) << body;
    if (data.ok()) return std::string();
    EXPECT_EQ(data.error().message.key, "error.prom.not_query_range") << body;
    return data.error().message.facts.empty() ? std::string() : data.error().message.facts.back().phrases.at(0).key;
  };
  EXPECT_EQ(why("{"), "error.prom.answer.not_json");
  EXPECT_EQ(why("[]"), "error.prom.answer.not_object");
  EXPECT_EQ(why(R"({"status":"success","data":{"resultType":"vector","result":[]}})"), "error.prom.answer.not_matrix");
  // A point a day after the hours asked for.
  EXPECT_EQ(why(answer(R"({"metric":{},"values":[[1772499599.999,"1"]]})")), "error.prom.answer.outside_hours");
}

}  // namespace
}  // namespace gpuplan::telemetry
