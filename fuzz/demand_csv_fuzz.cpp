// A tco scenario's `demand: {csv: FILE}`: hourly GPU demand (the reader takes only a path).
#include "fuzz_support.h"
#include "tco/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)tco::read_demand_csv(fuzz::input_file(data, size, "demand.csv"));
  return 0;
}
