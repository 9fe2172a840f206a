// `gpuplan usage --prometheus URL`: one /api/v1/query_range answer's JSON, read as the client
// reads the server's (telemetry::read_query_range_answer), over the 48 hours after 2026-03-02.
#include "fuzz_support.h"
#include "telemetry/prometheus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  constexpr int64_t kFirstHour = 1772409600 / 3600;
  (void)telemetry::read_query_range_answer(std::string(fuzz::bytes(data, size)), kFirstHour, kFirstHour + 48);
  return 0;
}
