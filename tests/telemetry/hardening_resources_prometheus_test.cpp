// Bounded resources in the Prometheus reader (issue 16): an answer is measured (series x points,
// GPUs x hours) before anything of it is kept. A hostile server answering 10,000 one-point series
// at 10,000 different hours (a 700 KB body) drove the process to 5.4 GB; now it is an error naming
// the URL and the counts. The answers have the shape of Prometheus's /api/v1/query_range
// ({"status":"success","data":{"resultType":"matrix","result":[{"metric":{…},"values":[[t,"v"]]}]}}),
// served by cpp-httplib on 127.0.0.1.
#include <gtest/gtest.h>
#include <httplib.h>

#include <string>
#include <thread>

#include "core/limits.h"
#include "telemetry/prometheus.h"
#include "test_support.h"

namespace gpuplan::telemetry {
namespace {

using gpuplan::testing::fact_in;

constexpr int64_t kMidnight = 1714348800;  // 2024-04-29 00:00:00 UTC
constexpr int kSeries = 10'000;

// `series` series of one point each, dcgm-exporter's labels; series i's point closes hour
// `hour_of(i)` after kMidnight (a point for hour h is stamped 1 ms before h + 1 ends, as asked).
template <class HourOf>
std::string one_point_series(int series, HourOf hour_of) {
  std::string result;
  for (int i = 0; i < series; ++i) {
    if (i > 0) result += ',';
    const double t = static_cast<double>(kMidnight + (hour_of(i) + 1) * 3600) - 0.001;
    result += R"({"metric":{"Hostname":"node)" + std::to_string(i) + R"(","gpu":"0"},"values":[[)" + std::to_string(t) +
              R"(,"50"]]})";
  }
  return R"({"status":"success","data":{"resultType":"matrix","result":[)" + result + "]}}";
}

// Serves `body` to every query_range for the lifetime of the object.
class Server {
 public:
  explicit Server(std::string body) : body_(std::move(body)) {
    server_.Get("/api/v1/query_range", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(body_, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    // Bound and listening already: a query made before the thread accepts waits in the backlog.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Server() {
    server_.stop();
    thread_.join();
  }
  PromQuery query(int hours) const {
    PromQuery q;
    q.url = "http://127.0.0.1:" + std::to_string(port_);
    q.from_s = kMidnight;
    q.to_s = kMidnight + int64_t{hours} * 3600;
    q.memory_metric.clear();
    q.temperature_metric.clear();
    q.retries = 0;
    q.timeout_s = 20;
    return q;
  }

 private:
  std::string body_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(HardeningResourcesPrometheus, AnAnswersJsonValuesAreCountedBeforeItIsParsedIntoATree) {
  // One series of 3 points: the answer object, "status" and its value, "data" and its object,
  // "resultType" and "matrix", "result" and its array (9); the series object, "metric" and its
  // object with 2 labels (key and value each: 7); "values" and its array (2); 3 per point (9): 27.
  const std::string answer =
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"Hostname":"a","gpu":"0"},)"
      R"("values":[[1714352399.999,"1"],[1714355999.999,"2"],[1714359599.999,"3"]]}]}})";
  EXPECT_TRUE(json_values_at_most(answer, 27));
  EXPECT_FALSE(json_values_at_most(answer, 26));
  // Text that is not JSON is counted to its error: the array and the 1, then the parse stops.
  EXPECT_TRUE(json_values_at_most("[1,", 2));
  EXPECT_FALSE(json_values_at_most("[1,", 1));
  // The limit holds the largest answer kept: one series of kMaxPromPoints points is 18 + 3 per point.
  EXPECT_GE(limits::kMaxPromJsonValues, 18 + 3 * limits::kMaxPromPoints);
}

TEST(HardeningResourcesPrometheus, TenThousandOnePointSeriesAtTenThousandHoursAreRefused) {
  // 10,000 GPUs x 10,000 hours = 10^8 GPU-hours laid out, above limits::kMaxGpuHours (2.5 x 10^7).
  Server server(one_point_series(kSeries, [](int i) { return int64_t{i}; }));
  auto data = query_prometheus(server.query(kSeries));
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().message.key, "error.prom.answer_too_large");
  EXPECT_EQ(*fact_in(data.error().message, "series"), "10000");
  EXPECT_EQ(*fact_in(data.error().message, "points"), "10000");
  EXPECT_EQ(*fact_in(data.error().message, "gpus"), "10000");
  EXPECT_EQ(*fact_in(data.error().message, "hours"), "10000");
  EXPECT_EQ(*fact_in(data.error().message, "limit"), std::to_string(limits::kMaxGpuHours));
}

TEST(HardeningResourcesPrometheus, TenThousandSeriesInOneHourAreKept) {
  // The same series count, every point in hour 0: 10,000 GPU-hours, far within the limit.
  Server server(one_point_series(kSeries, [](int) { return int64_t{0}; }));
  auto data = query_prometheus(server.query(kSeries));
  ASSERT_TRUE(data.ok()) << data.error().str();
  EXPECT_EQ(data->gpus.size(), 10'000u);
  EXPECT_EQ(data->gpus[9'999], "node9999/0");
  ASSERT_EQ(data->hours.size(), 1u);
  EXPECT_EQ(data->hours.begin()->first, kMidnight / 3600);
  EXPECT_EQ(data->stats.samples, 10'000);
}

}  // namespace
}  // namespace gpuplan::telemetry
