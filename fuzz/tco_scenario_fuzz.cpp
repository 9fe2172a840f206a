// `gpuplan tco SCENARIO`: the scenario YAML, read against the catalog.
#include "fuzz_support.h"
#include "tco/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)tco::parse_scenario(std::string(fuzz::bytes(data, size)), "scenario.yaml", fuzz::catalog());
  return 0;
}
