// `gpuplan quote --config FILE`: the server configuration YAML, parsed and then resolved against
// the catalog as the verb does.
#include "fuzz_support.h"
#include "plan/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  auto input = plan::parse_config_yaml(std::string(fuzz::bytes(data, size)), "fuzz.yaml");
  if (input) (void)plan::resolve_config(*input, fuzz::catalog());
  return 0;
}
