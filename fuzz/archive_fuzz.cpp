// The health archive `gpuplan watch` writes, given as bytes (an SQLite file): every reader
// `usage`, `accept` and `diagnose` use on it.
#include "archive/archive.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  std::string path = fuzz::input_file(data, size, "health.db");
  if (!archive::read_header(path)) return 0;
  (void)archive::read_events(path);
  (void)archive::read_rollups(path);
  (void)archive::read_hourly(path);
  size_t readings = 0;
  (void)archive::read_readings(path, INT64_MIN, INT64_MAX,
                               [&](const archive::Reading&) { return ++readings < 100'000; });
  return 0;
}
