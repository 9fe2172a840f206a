// Prometheus HTTP API reader: asks the server for hourly means (the aggregation runs there, as
// PromQL avg_over_time over 1 h windows via /api/v1/query_range with a 1 h step) and returns
// them as HourlyData, so `gpuplan usage --prometheus URL` downloads hours, not samples.
// Utilization and memory are hourly means (avg_over_time); temperature the hourly maximum; the
// held shares means of `metric > bool floor` over a 1 min subquery.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/error.h"
#include "telemetry/hourly.h"

namespace gpuplan::telemetry {

struct PromQuery {
  std::string url;      // e.g. http://127.0.0.1:9090
  int64_t from_s = 0;   // Unix seconds, inclusive; rounded down to the hour
  int64_t to_s = 0;     // Unix seconds, exclusive; rounded up to the hour
  std::string util_metric = "DCGM_FI_DEV_GPU_UTIL";
  std::string memory_metric = "DCGM_FI_DEV_FB_USED";
  std::string temperature_metric = "DCGM_FI_DEV_GPU_TEMP";
  // With a rule, two more queries ask for each hour's share of readings that show the GPU held
  // (utilization, memory used above the rule's floors), as HourAcc::util_held and mem_held.
  std::optional<HeldRule> held;
  int retries = 3;           // on connection errors and 5xx, with backoff
  double timeout_s = 30;
};

// Errors name the URL and say what failed: server down, HTTP status, metric absent, bad JSON.
Result<HourlyData> query_prometheus(const PromQuery& q);

// One query_range answer's JSON (hours [first_hour, end_hour) since 1970), read as query_prometheus
// reads the utilization metric's: the same checks, the same Errors (naming "answer"). For the fuzz
// target and tests; query_prometheus itself reads the server's answers through the same code.
Result<HourlyData> read_query_range_answer(const std::string& body, int64_t first_hour, int64_t end_hour);

// Whether the JSON text `body` holds at most `max` values (objects, arrays, object keys and
// scalars), counted without building anything. Text that is not JSON is counted up to its first
// error, which the parse after it reports. An answer is parsed into a tree only once this bounds
// the tree.
bool json_values_at_most(const std::string& body, int64_t max);

// "90d", "36h", "2w" → seconds; for --since.
Result<int64_t> parse_duration(const std::string& text);

}  // namespace gpuplan::telemetry
