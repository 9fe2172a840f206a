#include "telemetry/prometheus.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/dates.h"
#include "core/limits.h"
#include "core/url.h"

namespace gpuplan::telemetry {
namespace {

using nlohmann::json;

constexpr int64_t kHour = 3600;
// Prometheus refuses a query_range of more than 11,000 points per series; stay well below.
constexpr int64_t kMaxPointsPerQuery = 10000;
// A response larger than this is not an hourly series of a sane fleet: stop reading it.
constexpr size_t kMaxBodyBytes = size_t{512} << 20;
constexpr const char* kFlag = "--prometheus";

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// "2024-04-29 00:00 UTC", shown as it is in messages.
std::string format_utc(int64_t unix_s) {
  const CivilTime t = civil_from_seconds(unix_s);
  return t.date() + " " + t.hour_minute() + " UTC";
}

void init_curl_once() {
  // curl_global_init is not thread-safe; a function-local static is initialized exactly once.
  static const bool initialized = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }();
  (void)initialized;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

struct HttpReply {
  long status = 0;
  std::string body;
  std::string redirect;  // Location of a 3xx, which is not followed
  int tries = 1;
};

struct Body {
  std::string text;
  bool too_large = false;
};

size_t write_body(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<Body*>(user);
  size_t bytes = size * n;
  if (body->text.size() + bytes > kMaxBodyBytes) {
    body->too_large = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  body->text.append(data, bytes);
  return bytes;
}

// Failures where the server may answer on a second try: nobody listening yet, a dropped
// connection. A timeout is not retried: the same query would take as long again.
bool is_transient(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

// One GET; `transient` says whether a failure is worth another try.
Result<HttpReply> get_once(const std::string& url, const PromQuery& q, const std::string& field, bool& transient) {
  transient = false;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return Error{url_without_credentials(q.url), 0, field, Phrase("error.prom.no_client")};
  Body body;
  char error_text[CURL_ERROR_SIZE] = {};
  // 0 would mean "no timeout" to curl: keep at least 1 ms.
  long timeout_ms = q.timeout_s > 0 ? std::max(1L, std::lround(std::min(q.timeout_s, 86400.0) * 1000)) : 30000;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 10000L));
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect is reported, never followed
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(kMaxBodyBytes));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip if the server offers it
  curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuplan");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);

  CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    if (body.too_large || code == CURLE_FILESIZE_EXCEEDED)
      return Error{url_without_credentials(q.url), 0, field,
                   Phrase("error.prom.too_large").fact("mib", std::to_string(kMaxBodyBytes >> 20))};
    if (code == CURLE_OPERATION_TIMEDOUT)
      return Error{url_without_credentials(q.url), 0, field,
                   Phrase("error.prom.timeout")
                       .fact("url", url_without_credentials(q.url))
                       .fact("seconds", fmt::format("{}", timeout_ms / 1000.0))};
    transient = is_transient(code);
    long os_errno = 0;
    curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
    std::string why = os_errno != 0 ? std::strerror(static_cast<int>(os_errno))
                                    : (error_text[0] ? error_text : curl_easy_strerror(code));
    bool no_connection = code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST;
    return Error{url_without_credentials(q.url), 0, kFlag,
                 Phrase(no_connection ? "error.prom.cannot_connect" : "error.prom.request_failed")
                     .fact("url", url_without_credentials(q.url))
                     .fact("why", why)};
  }
  HttpReply reply;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  char* location = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) reply.redirect = location;
  reply.body = std::move(body.text);
  transient = reply.status >= 500;
  return reply;
}

// GET with retries on connection failures and 5xx: 100 ms, 200 ms, 400 ms… between tries.
Result<HttpReply> get_with_retries(const std::string& url, const PromQuery& q, const std::string& field) {
  int tries = 1 + std::max(0, q.retries);
  for (int attempt = 1;; ++attempt) {
    bool transient = false;
    auto reply = get_once(url, q, field, transient);
    if (!transient || attempt == tries) {
      if (!reply && transient) {
        Error e = reply.error();
        e.message = Phrase("error.prom.after_tries").fact("what", {e.message}).fact("tries", std::to_string(attempt));
        return e;
      }
      if (reply) reply->tries = attempt;
      return reply;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100LL << std::min(attempt - 1, 6)));
  }
}

// Prometheus's error answer: {"status":"error","errorType":"bad_data","error":"…"}; or the
// start of whatever else came (a proxy's page?), on one line.
std::string prometheus_error_text(const std::string& body) {
  std::string text;
  json j = json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_string()) {
    text = j["error"].get<std::string>();
    if (j.contains("errorType") && j["errorType"].is_string()) text = j["errorType"].get<std::string>() + ": " + text;
  } else {
    text = body;
  }
  if (text.size() > 500) text = text.substr(0, 500) + "…";
  std::replace_if(
      text.begin(), text.end(), [](char ch) { return ch == '\n' || ch == '\r'; }, ' ');
  return text;
}

std::string label(const json& metric, const char* name) {
  auto it = metric.find(name);
  if (it == metric.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// dcgm-exporter labels a series with Hostname, gpu and UUID; a plain scrape always has instance.
std::string gpu_name(const json& metric) {
  std::string host = label(metric, "Hostname");
  if (host.empty()) host = label(metric, "instance");
  if (host.empty()) host = "prometheus";
  std::string gpu = label(metric, "gpu");
  if (gpu.empty()) gpu = label(metric, "UUID");
  if (gpu.empty()) gpu = label(metric, "device");
  if (gpu.empty()) gpu = "?";
  return host + "/" + gpu;
}

// "12.5", "NaN", "+Inf" → the value; nullopt for a string that is not a Prometheus number.
std::optional<double> parse_sample_value(const std::string& text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return v;
}

enum class MetricRole { kUtil, kMemory, kTemperature, kUtilHeld, kMemoryHeld };

// Means for utilization and memory; the hottest reading for temperature, as HourAcc::temp_max;
// for the held shares, the mean of 0/1 readings above the floor. A subquery samples the series
// each minute: a range selector cannot be filtered, and a minute is as fine as scrapes usually come.
std::string hourly_promql(const std::string& metric, MetricRole role, double floor = 0) {
  switch (role) {
    case MetricRole::kTemperature:
      return fmt::format("max_over_time({}[1h])", metric);
    case MetricRole::kUtilHeld:
    case MetricRole::kMemoryHeld:
      return fmt::format("avg_over_time(({} > bool {})[1h:1m])", metric, floor);
    default:
      return fmt::format("avg_over_time({}[1h])", metric);
  }
}

// Hours are collected per GPU name, laid into HourlyData once every metric is in.
struct Collector {
  std::vector<std::string> gpus;
  std::map<std::string, uint32_t> ids;
  std::map<int64_t, std::vector<HourAcc>> hours;
  int64_t points = 0;
  int64_t bytes = 0;

  uint32_t id(const std::string& name) {
    auto [it, added] = ids.emplace(name, static_cast<uint32_t>(gpus.size()));
    if (added) gpus.push_back(name);
    return it->second;
  }
  HourAcc& at(int64_t hour, uint32_t gpu) {
    auto& row = hours[hour];
    if (row.size() <= gpu) row.resize(gpus.size());
    return row[gpu];
  }
};

struct Chunk {
  int64_t first_hour = 0;  // hours since 1970
  int64_t end_hour = 0;    // exclusive
};

// Whether an answer's series are well formed and what keeping them would hold stays bounded:
// its points (series x points, limits::kMaxPromPoints) and the GPU-hours laid out once every
// answer is in (GPUs x hours with data, limits::kMaxGpuHours), counted before anything is kept.
// A hostile or mistaken server's 10,000 one-point series at 10,000 hours would be 10^8 cells.
Result<void> check_answer_size(const json& result, const Collector& out, const std::string& url,
                               const std::string& promql) {
  int64_t points = 0;
  std::set<std::string> new_gpus;
  std::set<int64_t> new_hours;
  for (const json& series : result) {
    if (!series.is_object() || !series.contains("metric") || !series["metric"].is_object() ||
        !series.contains("values") || !series["values"].is_array())
      return Error{url, 0, promql,
                   Phrase("error.prom.not_query_range").fact("url", url).fact("why", {Phrase("error.prom.answer.bad_series")})};
    points += static_cast<int64_t>(series["values"].size());
    if (out.points + points > limits::kMaxPromPoints) break;  // refused below, before more is counted
    if (std::string name = gpu_name(series["metric"]); !out.ids.count(name)) new_gpus.insert(std::move(name));
    for (const json& point : series["values"])  // the hour it would land in; a bad point is refused later
      if (point.is_array() && point.size() == 2 && point[0].is_number()) {
        const double t = point[0].get<double>();
        if (std::isfinite(t) && std::fabs(t) < 1e15) {
          const int64_t hour = std::llround(t / kHour) - 1;
          if (!out.hours.count(hour)) new_hours.insert(hour);
        }
      }
  }
  const int64_t series = static_cast<int64_t>(result.size());
  const int64_t gpus = static_cast<int64_t>(out.gpus.size() + new_gpus.size());
  const int64_t hours = static_cast<int64_t>(out.hours.size() + new_hours.size());
  if (out.points + points > limits::kMaxPromPoints || gpus * hours > limits::kMaxGpuHours)
    return Error{url, 0, promql,
                 Phrase("error.prom.answer_too_large")
                     .fact("url", url)
                     .fact("series", std::to_string(series))
                     .fact("points", std::to_string(points))
                     .fact("gpus", std::to_string(gpus))
                     .fact("hours", std::to_string(hours))
                     .fact("limit", std::to_string(limits::kMaxGpuHours))
                     .fact("max_points", std::to_string(limits::kMaxPromPoints))};
  return {};
}

Result<size_t> fold_answer(const std::string& body, const std::string& url, const std::string& promql, MetricRole role,
                           const Chunk& chunk, Collector& out);

HourlyData collected(Collector& out) {
  HourlyData result;
  result.gpus = std::move(out.gpus);
  result.hours = std::move(out.hours);
  for (auto& [hour, row] : result.hours) row.resize(result.gpus.size());
  result.stats.samples = out.points;
  result.stats.bytes = out.bytes;
  return result;
}

// One query_range over `chunk`, folded into `out`. Returns how many series answered.
Result<size_t> query_metric(const PromQuery& q, const std::string& base, const std::string& metric, MetricRole role,
                            const Chunk& chunk, Collector& out) {
  const double floor = !q.held ? 0 : role == MetricRole::kUtilHeld ? q.held->util_above_pct : q.held->memory_above_mib;
  std::string promql = hourly_promql(metric, role, floor);
  // The value for hour h is evaluated 1 ms before its end: Prometheus 2.x range selectors
  // include both ends, so evaluating at the hour's end would count a sample taken exactly on the
  // hour in two hours. At end − 1 ms the window is [start, end) on 3.x (left-open ranges) and
  // [start − 1 ms, end − 1 ms] on 2.x: the hour, but for samples in that one millisecond.
  double start = static_cast<double>((chunk.first_hour + 1) * kHour) - 0.001;
  double end = static_cast<double>(chunk.end_hour * kHour) - 0.001;
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, promql.c_str(), static_cast<int>(promql.size())), &curl_free);
  if (!escaped) return Error{url_without_credentials(q.url), 0, promql, Phrase("error.prom.cannot_encode")};
  std::string url = fmt::format("{}/api/v1/query_range?query={}&start={:.3f}&end={:.3f}&step={}", base, escaped.get(),
                                start, end, kHour);

  auto reply = get_with_retries(url, q, promql);
  if (!reply) return reply.error();
  out.bytes += static_cast<int64_t>(reply->body.size());
  const std::string status_code = std::to_string(reply->status);
  if (reply->status >= 300 && reply->status < 400) {
    Phrase p(reply->redirect.empty() ? "error.prom.redirect" : "error.prom.redirect_to");
    p.fact("status", status_code).fact("url", url_without_credentials(q.url));
    if (!reply->redirect.empty()) p.fact("location", reply->redirect);
    return Error{url_without_credentials(q.url), 0, promql, std::move(p)};
  }
  if (reply->status != 200) {
    Phrase p(reply->tries > 1 ? "error.prom.http_status_after_tries" : "error.prom.http_status");
    p.fact("status", status_code)
        .fact("url", url_without_credentials(q.url))
        .fact("why", prometheus_error_text(reply->body));
    if (reply->tries > 1) p.fact("tries", std::to_string(reply->tries));
    return Error{url_without_credentials(q.url), 0, promql, std::move(p)};
  }

  return fold_answer(reply->body, url_without_credentials(q.url), promql, role, chunk, out);
}

// Counts the values of a JSON text as the parser meets them, and stops it past `max`.
class ValueCounter : public nlohmann::json_sax<json> {
 public:
  explicit ValueCounter(int64_t max) : max_(max) {}
  bool null() override { return one(); }
  bool boolean(bool) override { return one(); }
  bool number_integer(number_integer_t) override { return one(); }
  bool number_unsigned(number_unsigned_t) override { return one(); }
  bool number_float(number_float_t, const string_t&) override { return one(); }
  bool string(string_t&) override { return one(); }
  bool binary(binary_t&) override { return one(); }
  bool start_object(std::size_t) override { return one(); }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return one(); }
  bool end_array() override { return true; }
  bool key(string_t&) override { return one(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  bool too_many() const { return count_ > max_; }

 private:
  bool one() { return ++count_ <= max_; }
  int64_t max_;
  int64_t count_ = 0;
};

// One query_range answer's JSON folded into `out`; returns how many series it holds.
Result<size_t> fold_answer(const std::string& body, const std::string& url, const std::string& promql, MetricRole role,
                           const Chunk& chunk, Collector& out) {
  if (!json_values_at_most(body, limits::kMaxPromJsonValues))
    return Error{url, 0, promql,
                 Phrase("error.prom.answer_too_many_values")
                     .fact("url", url)
                     .fact("max", std::to_string(limits::kMaxPromJsonValues))};
  json doc = json::parse(body, nullptr, false);
  // `what` is one of error.prom.answer.*.
  auto malformed = [&](Phrase what) {
    return Error{url, 0, promql, Phrase("error.prom.not_query_range").fact("url", url).fact("why", {std::move(what)})};
  };
  if (doc.is_discarded()) return malformed(Phrase("error.prom.answer.not_json"));
  if (!doc.is_object()) return malformed(Phrase("error.prom.answer.not_object"));
  std::string status = doc.contains("status") && doc["status"].is_string() ? doc["status"].get<std::string>() : "";
  if (status != "success") {
    if (status == "error")
      return Error{url, 0, promql,
                   Phrase("error.prom.answered").fact("url", url).fact("why", prometheus_error_text(body))};
    return malformed(Phrase("error.prom.answer.status").fact("status", status));
  }
  if (!doc.contains("data") || !doc["data"].is_object()) return malformed(Phrase("error.prom.answer.no_data"));
  const json& data = doc["data"];
  if (!data.contains("resultType") || data["resultType"] != "matrix")
    return malformed(Phrase("error.prom.answer.not_matrix"));
  if (!data.contains("result") || !data["result"].is_array()) return malformed(Phrase("error.prom.answer.no_result"));

  if (auto too_large = check_answer_size(data["result"], out, url, promql); !too_large) return too_large.error();
  for (const json& series : data["result"]) {
    uint32_t gpu = out.id(gpu_name(series["metric"]));
    for (const json& point : series["values"]) {
      if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_string())
        return malformed(Phrase("error.prom.answer.bad_point"));
      double t = point[0].get<double>();
      std::string text = point[1].get<std::string>();
      auto value = parse_sample_value(text);
      if (!value) return malformed(Phrase("error.prom.answer.not_number").fact("value", text.substr(0, 40)));
      if (!std::isfinite(*value)) continue;  // NaN in the source data, or an infinity: no reading
      // The point closes hour h: its timestamp is (h + 1) h − 1 ms (or exactly (h + 1) h from a
      // proxy that aligns timestamps to the step).
      if (!std::isfinite(t) || t < static_cast<double>(chunk.first_hour * kHour) ||
          t > static_cast<double>((chunk.end_hour + 1) * kHour))
        return malformed(Phrase("error.prom.answer.outside_hours").fact("time", fmt::format("{}", t)));
      int64_t hour = std::llround(t / kHour) - 1;
      if (hour < chunk.first_hour || hour >= chunk.end_hour)
        return malformed(Phrase("error.prom.answer.outside_hours").fact("time", fmt::format("{}", t)));
      HourAcc& acc = out.at(hour, gpu);
      switch (role) {
        case MetricRole::kUtil:
          acc.count += 1;
          acc.util_count += 1;
          acc.util_sum += *value;
          break;
        case MetricRole::kMemory:
          acc.mem_count += 1;
          acc.mem_sum += *value;  // DCGM_FI_DEV_FB_USED is MiB, as nvidia-smi's memory.used
          break;
        case MetricRole::kTemperature: {
          float temp = static_cast<float>(*value);
          acc.temp_max = acc.temp_max ? std::max(*acc.temp_max, temp) : temp;
          break;
        }
        case MetricRole::kUtilHeld:
          acc.util_held += std::clamp(*value, 0.0, 1.0);
          break;
        case MetricRole::kMemoryHeld:
          acc.mem_held += std::clamp(*value, 0.0, 1.0);
          break;
      }
      out.points += 1;
    }
  }
  return data["result"].size();
}

}  // namespace

Result<HourlyData> query_prometheus(const PromQuery& q) {
  std::string base = q.url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0)
    return Error{"", 0, kFlag, Phrase("error.prom.not_http").fact("url", url_without_credentials(q.url))};
  int64_t first_hour = floor_div(q.from_s, kHour);
  int64_t end_hour = floor_div(q.to_s + kHour - 1, kHour);
  if (end_hour <= first_hour)
    return Error{"", 0, "--from/--to",
                 Phrase("error.prom.empty_range").fact("from", format_utc(q.from_s)).fact("to", format_utc(q.to_s))};
  if (q.util_metric.empty()) return Error{"", 0, kFlag, Phrase("error.prom.no_util_metric")};

  init_curl_once();
  Collector out;
  const std::string none;
  const std::pair<const std::string*, MetricRole> metrics[] = {
      {&q.util_metric, MetricRole::kUtil},
      {&q.memory_metric, MetricRole::kMemory},
      {&q.temperature_metric, MetricRole::kTemperature},
      {q.held ? &q.util_metric : &none, MetricRole::kUtilHeld},
      {q.held ? &q.memory_metric : &none, MetricRole::kMemoryHeld},
  };
  for (const auto& [metric, role] : metrics) {
    if (metric->empty()) continue;  // an optional metric the caller does not want
    size_t series = 0;
    for (int64_t h = first_hour; h < end_hour; h += kMaxPointsPerQuery) {
      Chunk chunk{h, std::min(end_hour, h + kMaxPointsPerQuery)};
      auto answered = query_metric(q, base, *metric, role, chunk, out);
      if (!answered) return answered.error();
      series += *answered;
    }
    if (series == 0 && role == MetricRole::kUtil)
      return Error{url_without_credentials(q.url), 0, hourly_promql(*metric, role),
                   Phrase("error.prom.no_series")
                       .fact("metric", *metric)
                       .fact("from", format_utc(first_hour * kHour))
                       .fact("to", format_utc(end_hour * kHour))
                       .fact("url", url_without_credentials(q.url))};
  }

  return collected(out);
}

Result<HourlyData> read_query_range_answer(const std::string& body, int64_t first_hour, int64_t end_hour) {
  Collector out;
  out.bytes = static_cast<int64_t>(body.size());
  auto answered = fold_answer(body, "answer", "query_range", MetricRole::kUtil, Chunk{first_hour, end_hour}, out);
  if (!answered) return answered.error();
  return collected(out);
}

bool json_values_at_most(const std::string& body, int64_t max) {
  ValueCounter counter(max);
  (void)json::sax_parse(body, &counter);
  return !counter.too_many();
}

Result<int64_t> parse_duration(const std::string& text) {
  auto bad = [&] { return Error{"", 0, "--since", Phrase("error.prom.not_duration").fact("text", text)}; };
  if (text.size() < 2) return bad();
  int64_t unit = 0;
  switch (text.back()) {
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = kHour;
      break;
    case 'd':
      unit = 24 * kHour;
      break;
    case 'w':
      unit = 7 * 24 * kHour;
      break;
    default:
      return bad();
  }
  int64_t n = 0;
  const char* end = text.data() + text.size() - 1;
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || ptr != end || n <= 0) return bad();
  if (n > std::numeric_limits<int64_t>::max() / unit) return bad();
  return n * unit;
}

}  // namespace gpuplan::telemetry
