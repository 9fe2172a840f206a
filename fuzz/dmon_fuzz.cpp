// `gpuplan usage` / `diagnose` input: an `nvidia-smi dmon` log (with or without -o DT), read with its format named.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::read_log(data, size, gpuplan::telemetry::SourceFormat::kDmon, "dmon.log");
  return 0;
}
