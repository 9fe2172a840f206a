// The Prometheus HTTP API reader against a canned HTTP server on loopback (labels, hour
// mapping, retries, each failure), and against a real Prometheus loaded with 90 days of
// synthetic history, which must agree with reading the same history from an nvidia-smi CSV.
#include "telemetry/prometheus.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "prometheus_process.h"
#include "telemetry/hourly.h"
#include "test_support.h"
#include "usage/synth.h"

namespace gpuplan::telemetry {
namespace {

using gpuplan::testing::fact_in;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

// 2024-04-29 00:00:00 UTC, hour 476208 since 1970; 01:00 is 1714352400.
constexpr int64_t kMidnight = 1714348800;
constexpr int64_t kMidnightHour = kMidnight / 3600;

struct Reply {
  int status = 200;
  std::string body;
};

// A one-request-per-connection HTTP server on 127.0.0.1 and an ephemeral port, answering every
// GET with handler(path and query); it records the targets it was asked for.
class CannedServer {
 public:
  using Handler = std::function<Reply(const std::string& target)>;

  explicit CannedServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 16) != 0)
      ADD_FAILURE() << "cannot listen on 127.0.0.1: " << std::strerror(errno);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CannedServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> targets() {
    std::lock_guard lock(mutex_);
    return targets_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) continue;
      answer(client);
      ::close(client);
    }
  }

  void answer(int client) {
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      pollfd p{client, POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) return;
      ssize_t got = ::recv(client, buf, sizeof buf, 0);
      if (got <= 0) return;
      request.append(buf, static_cast<size_t>(got));
    }
    // "GET /api/v1/query_range?query=… HTTP/1.1"
    auto first_space = request.find(' ');
    std::string target = request.substr(first_space + 1, request.find(' ', first_space + 1) - first_space - 1);
    {
      std::lock_guard lock(mutex_);
      targets_.push_back(target);
    }
    Reply reply = handler_(target);
    std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " Canned\r\nContent-Type: application/json\r\n" +
                      "Content-Length: " + std::to_string(reply.body.size()) + "\r\nConnection: close\r\n\r\n" +
                      reply.body;
    for (size_t sent = 0; sent < out.size();) {
      ssize_t n = ::send(client, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> targets_;
};

// The value of `name` in a query string, percent-decoded.
std::string query_param(const std::string& target, const std::string& name) {
  auto q = target.find('?');
  std::string rest = q == std::string::npos ? "" : target.substr(q + 1);
  std::istringstream in(rest);
  std::string pair;
  while (std::getline(in, pair, '&')) {
    if (pair.rfind(name + "=", 0) != 0) continue;
    int len = 0;
    std::string raw = pair.substr(name.size() + 1);
    char* decoded = curl_easy_unescape(nullptr, raw.c_str(), static_cast<int>(raw.size()), &len);
    std::string out(decoded, static_cast<size_t>(len));
    curl_free(decoded);
    return out;
  }
  return "";
}

std::string success(const std::string& result) {
  return R"({"status":"success","data":{"resultType":"matrix","result":[)" + result + "]}}";
}
const std::string kEmpty = success("");

// Answers each metric's query with its canned result; anything else is empty.
CannedServer::Handler by_metric(std::string util, std::string memory = kEmpty, std::string temperature = kEmpty) {
  return [=](const std::string& target) -> Reply {
    std::string query = query_param(target, "query");
    if (query.find("DCGM_FI_DEV_GPU_UTIL") != std::string::npos) return {200, util};
    if (query.find("DCGM_FI_DEV_FB_USED") != std::string::npos) return {200, memory};
    if (query.find("DCGM_FI_DEV_GPU_TEMP") != std::string::npos) return {200, temperature};
    return {404, "not found"};
  };
}

// The first two hours of 2024-04-29, UTC.
PromQuery two_hours(const std::string& url) {
  PromQuery q;
  q.url = url;
  q.from_s = kMidnight;
  q.to_s = kMidnight + 2 * 3600;
  q.retries = 2;
  q.timeout_s = 5;
  return q;
}

TEST(PrometheusTest, LabelsBecomeHostSlashGpuNamesInOrderOfFirstAppearance) {
  // dcgm-exporter's Hostname and gpu; without them, instance and UUID.
  CannedServer server(by_metric(
      success(
          R"({"metric":{"__name__":"x","Hostname":"node7","gpu":"1","UUID":"GPU-b"},"values":[[1714352399.999,"10"]]},)"
          R"({"metric":{"Hostname":"node7","gpu":"0","UUID":"GPU-a"},"values":[[1714352399.999,"20"]]})"),
      success(R"({"metric":{"instance":"10.0.0.5:9400","UUID":"GPU-c"},"values":[[1714352399.999,"4096"]]},)"
              R"({"metric":{"Hostname":"node7","gpu":"0"},"values":[[1714352399.999,"1024"]]})")));
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_TRUE(data) << data.error().str();
  EXPECT_EQ(data->gpus, (std::vector<std::string>{"node7/1", "node7/0", "10.0.0.5:9400/GPU-c"}));
  ASSERT_EQ(data->hours.size(), 1u);
  const auto& row = data->hours.at(kMidnightHour);
  ASSERT_EQ(row.size(), 3u);
  EXPECT_EQ(row[0].mean_util(), 10.0);
  EXPECT_EQ(row[1].mean_util(), 20.0);
  EXPECT_EQ(row[1].mean_mem(), 1024.0);
  EXPECT_EQ(row[2].mean_util(), std::nullopt);
  EXPECT_EQ(row[2].mean_mem(), 4096.0);
}

TEST(PrometheusTest, AValueAtTheEndOfAnHourIsThatHoursMean) {
  // 1714352400 is 2024-04-29 01:00:00 UTC: the mean of 00:00–01:00, hour 1714352400/3600 − 1.
  // The reader evaluates 1 ms before the hour's end, so Prometheus answers 1714352399.999; a
  // proxy that aligns timestamps to the step answers 1714352400: both are that hour.
  CannedServer server(by_metric(
      success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"37.5"],[1714356000,"80"]]})"),
      success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"2048.5"]]})"),
      success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"71"]]})")));
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_TRUE(data) << data.error().str();
  ASSERT_EQ(data->hours.count(1714352400 / 3600 - 1), 1u);
  const HourAcc& first = data->hours.at(1714352400 / 3600 - 1)[0];
  EXPECT_EQ(first.count, 1u);
  EXPECT_EQ(first.util_count, 1u);
  EXPECT_EQ(first.util_sum, 37.5);
  EXPECT_EQ(first.mem_count, 1u);
  EXPECT_EQ(first.mem_sum, 2048.5);
  EXPECT_EQ(first.temp_max, 71.0f);
  const HourAcc& second = data->hours.at(1714356000 / 3600 - 1)[0];
  EXPECT_EQ(second.mean_util(), 80.0);
  EXPECT_EQ(second.mean_mem(), std::nullopt);
  EXPECT_EQ(data->stats.samples, 4);

  // What was asked: hourly means (hottest reading for temperature), one point per hour.
  auto targets = server.targets();
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].substr(0, targets[0].find('?')), "/api/v1/query_range");
  EXPECT_EQ(query_param(targets[0], "query"), "avg_over_time(DCGM_FI_DEV_GPU_UTIL[1h])");
  EXPECT_EQ(query_param(targets[1], "query"), "avg_over_time(DCGM_FI_DEV_FB_USED[1h])");
  EXPECT_EQ(query_param(targets[2], "query"), "max_over_time(DCGM_FI_DEV_GPU_TEMP[1h])");
  EXPECT_EQ(query_param(targets[0], "start"), "1714352399.999");
  EXPECT_EQ(query_param(targets[0], "end"), "1714355999.999");
  EXPECT_EQ(query_param(targets[0], "step"), "3600");
}

TEST(PrometheusTest, RangeIsWidenedToWholeHours) {
  CannedServer server(by_metric(success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"1"]]})")));
  PromQuery q = two_hours(server.url());
  q.from_s = kMidnight + 1800;    // 00:30 → from 00:00
  q.to_s = kMidnight + 3600 + 1;  // 01:00:01 → to 02:00
  ASSERT_TRUE(query_prometheus(q));
  auto targets = server.targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(query_param(targets[0], "start"), "1714352399.999");
  EXPECT_EQ(query_param(targets[0], "end"), "1714355999.999");
}

TEST(PrometheusTest, NaNValuesAreSkipped) {
  CannedServer server(by_metric(
      success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"NaN"],[1714355999.999,"50"]]})")));
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_TRUE(data) << data.error().str();
  EXPECT_EQ(data->hours.count(kMidnightHour), 0u);
  ASSERT_EQ(data->hours.count(kMidnightHour + 1), 1u);
  EXPECT_EQ(data->hours.at(kMidnightHour + 1)[0].mean_util(), 50.0);
}

TEST(PrometheusTest, MissingMemoryAndTemperatureMetricsLeaveThoseFieldsEmpty) {
  CannedServer server(by_metric(success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"12"]]})")));
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_TRUE(data) << data.error().str();
  const HourAcc& acc = data->hours.at(kMidnightHour)[0];
  EXPECT_EQ(acc.mean_util(), 12.0);
  EXPECT_EQ(acc.mem_count, 0u);
  EXPECT_EQ(acc.mean_mem(), std::nullopt);
  EXPECT_EQ(acc.temp_max, std::nullopt);
}

TEST(PrometheusTest, NoUtilizationSeriesIsAnErrorNamingTheMetric) {
  CannedServer server(by_metric(kEmpty));
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().file, server.url());
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.no_series");
  EXPECT_EQ(*fact_in(m, "metric"), "DCGM_FI_DEV_GPU_UTIL");
  EXPECT_EQ(*fact_in(m, "from"), "2024-04-29 00:00 UTC");
  EXPECT_EQ(*fact_in(m, "to"), "2024-04-29 02:00 UTC");
  EXPECT_EQ(*fact_in(m, "url"), server.url());
}

TEST(PrometheusTest, Http500IsRetriedThenSucceeds) {
  std::atomic<int> util_calls{0};
  auto ok = by_metric(success(R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,"42"]]})"));
  CannedServer server([&](const std::string& target) -> Reply {
    if (query_param(target, "query").find("GPU_UTIL") != std::string::npos && ++util_calls <= 2)
      return {500, "internal error"};
    return ok(target);
  });
  auto data = query_prometheus(two_hours(server.url()));  // 2 retries: the third try answers
  ASSERT_TRUE(data) << data.error().str();
  EXPECT_EQ(util_calls, 3);
  EXPECT_EQ(data->hours.at(kMidnightHour)[0].mean_util(), 42.0);
}

TEST(PrometheusTest, Http503OnEveryTryIsAnErrorAfterTheRetries) {
  CannedServer server([](const std::string&) -> Reply {
    return {503, R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})"};
  });
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_FALSE(data);
  EXPECT_EQ(server.targets().size(), 3u);  // 1 try + 2 retries
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.http_status_after_tries");
  EXPECT_EQ(*fact_in(m, "status"), "503");
  EXPECT_EQ(*fact_in(m, "url"), server.url());
  EXPECT_EQ(*fact_in(m, "tries"), "3");
  EXPECT_EQ(*fact_in(m, "why"), "timeout: query timed out in expression evaluation");
}

TEST(PrometheusTest, Http400IsNotRetriedAndShowsPrometheusError) {
  CannedServer server([](const std::string&) -> Reply {
    return {
        400,
        R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:15: parse error: unexpected \"]\""})"};
  });
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_FALSE(data);
  EXPECT_EQ(server.targets().size(), 1u);
  EXPECT_EQ(data.error().field, "avg_over_time(DCGM_FI_DEV_GPU_UTIL[1h])");
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.http_status");
  EXPECT_EQ(*fact_in(m, "status"), "400");
  EXPECT_EQ(*fact_in(m, "url"), server.url());
  EXPECT_EQ(fact_in(m, "tries"), nullptr);
  EXPECT_EQ(*fact_in(m, "why"), "bad_data: invalid parameter \"query\": 1:15: parse error: unexpected \"]\"");
}

TEST(PrometheusTest, GarbageBodyIsAnError) {
  CannedServer server([](const std::string&) -> Reply { return {200, "<html>not prometheus"}; });
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_FALSE(data);
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.not_query_range");
  EXPECT_EQ(*fact_in(m, "url"), server.url());
  ASSERT_EQ(find_fact(m.facts, "why")->phrases.size(), 1u);
  EXPECT_EQ(find_fact(m.facts, "why")->phrases[0].key, "error.prom.answer.not_json");
}

TEST(PrometheusTest, StatusOtherThanSuccessIsAnError) {
  CannedServer server([](const std::string&) -> Reply { return {200, R"({"status":"pending","data":{}})"}; });
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_FALSE(data);
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.not_query_range") << data.error().str();
  ASSERT_EQ(find_fact(m.facts, "why")->phrases.size(), 1u);
  EXPECT_EQ(find_fact(m.facts, "why")->phrases[0].key, "error.prom.answer.status");
  EXPECT_EQ(*fact_in(m, "status"), "pending");
}

TEST(PrometheusTest, HostileAnswersAreRejected) {
  struct Case {
    std::string series;
    std::string why;          // the error.prom.answer.* phrase
    std::string fact, value;  // its fact, when it has one
  };
  const Case cases[] = {
      {R"({"metric":{"gpu":"0"},"values":[[1714352399.999,"12abc"]]})", "error.prom.answer.not_number", "value",
       "12abc"},
      {R"({"metric":{"gpu":"0"},"values":[[1714352399.999,12]]})", "error.prom.answer.bad_point", "", ""},
      {R"({"metric":{"gpu":"0"},"values":[[1e300,"12"]]})", "error.prom.answer.outside_hours", "time", "1e+300"},
      {R"({"metric":{"gpu":"0"},"values":[[1714341600,"12"]]})", "error.prom.answer.outside_hours", "time",
       "1714341600"},
      {R"({"values":[]})", "error.prom.answer.bad_series", "", ""},
  };
  for (const auto& c : cases) {
    CannedServer server(by_metric(success(c.series)));
    auto data = query_prometheus(two_hours(server.url()));
    ASSERT_FALSE(data) << c.series;
    const Phrase& m = data.error().message;
    EXPECT_EQ(m.key, "error.prom.not_query_range") << data.error().str();
    const Fact* why = find_fact(m.facts, "why");
    ASSERT_TRUE(why && why->phrases.size() == 1u) << data.error().str();
    EXPECT_EQ(why->phrases[0].key, c.why) << data.error().str();
    if (!c.fact.empty()) {
      ASSERT_TRUE(fact_in(m, c.fact)) << data.error().str();
      EXPECT_EQ(*fact_in(m, c.fact), c.value);
    }
  }
}

TEST(PrometheusTest, ASlowServerTimesOutWithoutRetries) {
  CannedServer server([](const std::string&) -> Reply {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    return {200, kEmpty};
  });
  PromQuery q = two_hours(server.url());
  q.timeout_s = 0.2;
  auto data = query_prometheus(q);
  ASSERT_FALSE(data);
  EXPECT_EQ(server.targets().size(), 1u);
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.timeout");
  EXPECT_EQ(*fact_in(m, "url"), server.url());
  EXPECT_EQ(*fact_in(m, "seconds"), "0.2");
}

TEST(PrometheusTest, RedirectIsNotFollowed) {
  CannedServer server([](const std::string&) -> Reply { return {302, ""}; });
  auto data = query_prometheus(two_hours(server.url()));
  ASSERT_FALSE(data);
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.redirect") << data.error().str();
  EXPECT_EQ(*fact_in(m, "status"), "302");
  EXPECT_EQ(*fact_in(m, "url"), server.url());
}

TEST(PrometheusTest, LongRangesAreSplitIntoQueriesOfAtMost10000Hours) {
  // 25,000 hours: 10,000 + 10,000 + 5,000. Each answer is one point at its chunk's first hour.
  CannedServer server([](const std::string& target) -> Reply {
    if (query_param(target, "query").find("GPU_UTIL") == std::string::npos) return {200, kEmpty};
    return {200, success(R"({"metric":{"gpu":"0"},"values":[[)" + query_param(target, "start") + R"(,"5"]]})")};
  });
  PromQuery q = two_hours(server.url());
  q.from_s = kMidnight;
  q.to_s = kMidnight + 25000 * 3600LL;
  auto data = query_prometheus(q);
  ASSERT_TRUE(data) << data.error().str();
  auto targets = server.targets();
  ASSERT_EQ(targets.size(), 9u);  // 3 chunks × 3 metrics
  EXPECT_EQ(query_param(targets[1], "start"), std::to_string(kMidnight + 10001 * 3600LL - 1) + ".999");
  EXPECT_EQ(query_param(targets[2], "end"), std::to_string(kMidnight + 25000 * 3600LL - 1) + ".999");
  std::vector<int64_t> hours;
  for (const auto& [hour, row] : data->hours) hours.push_back(hour - kMidnightHour);
  EXPECT_EQ(hours, (std::vector<int64_t>{0, 10000, 20000}));
}

TEST(PrometheusTest, ConnectionRefusedNamesTheUrlWithinBoundedTime) {
  // A port that was free a moment ago: nobody listens there.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));

  auto started = std::chrono::steady_clock::now();
  auto data = query_prometheus(two_hours(url));  // 2 retries: 100 ms + 200 ms of backoff
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().file, url);
  EXPECT_EQ(data.error().field, "--prometheus");
  const Phrase& m = data.error().message;
  EXPECT_EQ(m.key, "error.prom.after_tries");
  EXPECT_EQ(*fact_in(m, "tries"), "3");
  const Fact* what = find_fact(m.facts, "what");
  ASSERT_TRUE(what && what->phrases.size() == 1u) << data.error().str();
  EXPECT_EQ(what->phrases[0].key, "error.prom.cannot_connect");
  EXPECT_EQ(*fact_in(m, "url"), url);
  EXPECT_EQ(*fact_in(m, "why"), "Connection refused");
  EXPECT_GE(seconds, 0.3);
  EXPECT_LT(seconds, 5.0);
}

TEST(PrometheusTest, UrlMustBeHttp) {
  PromQuery q = two_hours("ftp://127.0.0.1:9090");
  auto data = query_prometheus(q);
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().field, "--prometheus");
  EXPECT_EQ(data.error().message.key, "error.prom.not_http");
  EXPECT_EQ(*fact_in(data.error().message, "url"), "ftp://127.0.0.1:9090");
}

TEST(PrometheusTest, ParseDurationReadsMinutesHoursDaysWeeks) {
  EXPECT_EQ(*parse_duration("90d"), 90 * 86400);
  EXPECT_EQ(*parse_duration("36h"), 36 * 3600);
  EXPECT_EQ(*parse_duration("2w"), 14 * 86400);
  EXPECT_EQ(*parse_duration("30m"), 1800);
  for (const char* bad : {"", "d", "90", "90x", "-5d", "0d", "1.5h", " 90d", "90d ", "+3h", "99999999999999999999d",
                          "999999999999999999w"}) {
    auto r = parse_duration(bad);
    EXPECT_FALSE(r) << "'" << bad << "'";
    if (!r) {
      EXPECT_EQ(r.error().field, "--since");
      EXPECT_EQ(r.error().message.key, "error.prom.not_duration");
      EXPECT_EQ(*fact_in(r.error().message, "text"), bad);
    }
  }
}

// --- Real Prometheus ------------------------------------------------------------------------

TEST(PrometheusTest, RealPrometheusMatchesTheCsvHeatmap) {
  namespace fs = std::filesystem;
  ASSERT_TRUE(fs::exists(gpuplan::testing::kPrometheus) && fs::exists(gpuplan::testing::kPromtool))
      << gpuplan::testing::kPrometheus << " or " << gpuplan::testing::kPromtool
      << " is missing: run scripts/install-deps.sh (it installs Debian's "
      << "prometheus package, which CI installs too)";

  // 90 days for 2 GPUs every 60 s, ending a day ago: Prometheus keeps it with a 10 y retention.
  // synth writes wall-clock stamps without a zone; both sides read them as UTC.
  usage::SynthOptions o;
  o.pattern = usage::SynthPattern::kNightlyPeak;
  o.gpus = 2;
  o.days = 90;
  o.interval_s = 60;
  o.seed = 3;
  o.start_s = (static_cast<int64_t>(std::time(nullptr)) - 91 * 86400) / 3600 * 3600;
  const std::string dir = temp_dir();
  const std::string openmetrics = dir + "/history.om";
  const std::string csv = dir + "/node1.csv";
  {
    o.format = usage::SynthFormat::kOpenMetrics;
    std::ofstream out(openmetrics);
    usage::synthesize(o, out);
    o.format = usage::SynthFormat::kSmiCsv;
    std::ofstream out_csv(csv);
    usage::synthesize(o, out_csv);
  }

  // Blocks as long as the data (promtool's default of 2 h makes 1,080 blocks and takes minutes).
  const std::string data_dir = dir + "/tsdb";
  ASSERT_EQ(gpuplan::testing::run_command({gpuplan::testing::kPromtool, "tsdb", "create-blocks-from", "openmetrics",
                                           "--max-block-duration=2400h", openmetrics, data_dir},
                                          dir + "/promtool.log"),
            0)
      << gpuplan::testing::log_tail(dir + "/promtool.log");
  const std::string config = write_file(dir, "prometheus.yml", "global:\n  scrape_interval: 1m\nscrape_configs: []\n");

  std::unique_ptr<gpuplan::testing::PrometheusProcess> prometheus;
  const std::string url = gpuplan::testing::start_prometheus(prometheus, config, data_dir, dir + "/prometheus.log",
                                                             {"--storage.tsdb.retention.time=10y"});
  ASSERT_FALSE(url.empty()) << "prometheus did not become ready:\n" << prometheus->log();

  PromQuery q;
  q.url = url;
  q.from_s = o.start_s;
  q.to_s = o.start_s + 90 * 86400;
  q.held = HeldRule{0, 64};  // the catalog's rule: the held shares' PromQL runs on a real server
  auto from_prometheus = query_prometheus(q);
  ASSERT_TRUE(from_prometheus) << from_prometheus.error().str() << "\n" << prometheus->log();
  ReadOptions held;
  held.held = HeldRule{0, 64};
  auto from_csv = read_hourly({csv}, SourceFormat::kSmiCsv, {}, held);
  ASSERT_TRUE(from_csv) << from_csv.error().str();

  // The same two GPUs. The CSV reader names a GPU by its uuid column and lists GPUs as the log
  // does (index 0 first); Prometheus's series carry gpu="0"/"1" and come in label order, so
  // CSV GPU g is Prometheus's "node1/g".
  ASSERT_EQ(from_csv->gpus.size(), 2u);
  ASSERT_EQ(from_prometheus->gpus.size(), 2u);
  std::vector<size_t> prom_id;
  for (size_t g = 0; g < from_csv->gpus.size(); ++g) {
    std::string name = "node1/" + std::to_string(g);
    auto it = std::find(from_prometheus->gpus.begin(), from_prometheus->gpus.end(), name);
    ASSERT_NE(it, from_prometheus->gpus.end()) << name << " is not among Prometheus's GPUs";
    prom_id.push_back(static_cast<size_t>(it - from_prometheus->gpus.begin()));
  }

  int64_t csv_gpu_hours = 0, in_both = 0, disagree = 0;
  std::string first_disagreements;
  for (const auto& [hour, row] : from_csv->hours) {
    for (size_t g = 0; g < row.size(); ++g) {
      auto csv_mean = row[g].mean_util();
      if (!csv_mean) continue;
      ++csv_gpu_hours;
      auto it = from_prometheus->hours.find(hour);
      if (it == from_prometheus->hours.end()) continue;
      const HourAcc& acc = it->second[prom_id[g]];
      auto prom_mean = acc.mean_util();
      if (!prom_mean) continue;
      ++in_both;
      // Both sides see the same integer samples; only rounding may differ.
      // The held share: the subquery samples each minute, as the CSV has a reading a minute.
      bool same = std::abs(*prom_mean - *csv_mean) <= 0.5 && acc.mean_mem() && row[g].mean_mem() &&
                  std::abs(*acc.mean_mem() - *row[g].mean_mem()) <= 0.5 && acc.temp_max == row[g].temp_max &&
                  acc.held_share() && row[g].held_share() &&
                  std::abs(*acc.held_share() - *row[g].held_share()) <= 1.0 / 60 + 1e-9;
      if (!same && ++disagree <= 5)
        first_disagreements +=
            fmt::format("hour {} GPU {}: util {} vs {}, memory {} vs {}, temperature {} vs {}, held {} vs {}\n", hour,
                        g, *prom_mean, *csv_mean, acc.mean_mem().value_or(-1), row[g].mean_mem().value_or(-1),
                        acc.temp_max.value_or(-1), row[g].temp_max.value_or(-1), acc.held_share().value_or(-1),
                        row[g].held_share().value_or(-1));
    }
  }
  EXPECT_EQ(csv_gpu_hours, 2 * 90 * 24);
  EXPECT_EQ(disagree, 0) << "(Prometheus first, then the CSV)\n" << first_disagreements;
  EXPECT_GE(in_both, csv_gpu_hours * 95 / 100) << in_both << " of " << csv_gpu_hours << " CSV GPU-hours in Prometheus";
}

// With a held rule (issue 27), two more queries ask for each hour's share of readings that show
// the GPU held: `metric > bool floor` averaged over a one-minute subquery. The shares land in
// util_held and mem_held against the hour's one reading; held_share keeps the larger: 0.75.
TEST(PrometheusTest, HeldSharesAreAskedWithTheRulesFloors) {
  CannedServer server([](const std::string& target) -> Reply {
    const std::string query = query_param(target, "query");
    const std::string point = R"({"metric":{"Hostname":"n","gpu":"0"},"values":[[1714352399.999,")";
    if (query == "avg_over_time((DCGM_FI_DEV_GPU_UTIL > bool 5)[1h:1m])") return {200, success(point + R"(0.25"]]})")};
    if (query == "avg_over_time((DCGM_FI_DEV_FB_USED > bool 64)[1h:1m])") return {200, success(point + R"(0.75"]]})")};
    if (query.find("DCGM_FI_DEV_GPU_UTIL") != std::string::npos) return {200, success(point + R"(20"]]})")};
    if (query.find("DCGM_FI_DEV_FB_USED") != std::string::npos) return {200, success(point + R"(30000"]]})")};
    return {200, kEmpty};
  });
  PromQuery q = two_hours(server.url());
  q.held = HeldRule{5, 64};
  auto data = query_prometheus(q);
  ASSERT_TRUE(data) << data.error().str();
  const HourAcc& acc = data->hours.at(kMidnightHour)[0];
  EXPECT_EQ(acc.util_held, 0.25);
  EXPECT_EQ(acc.mem_held, 0.75);
  EXPECT_EQ(acc.held_share(), 0.75);
  EXPECT_EQ(server.targets().size(), 5u);
}

}  // namespace
}  // namespace gpuplan::telemetry
