// A captured plain `nvidia-smi` (its table and process list), read by `diagnose`.
#include "fuzz_support.h"
#include "telemetry/smi_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)telemetry::looks_like_smi_table(fuzz::bytes(data, size));
  (void)telemetry::parse_smi_table(fuzz::bytes(data, size));
  return 0;
}
