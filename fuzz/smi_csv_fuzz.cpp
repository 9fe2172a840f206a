// `gpuplan usage` / `diagnose` input: an `nvidia-smi --query-gpu=... --format=csv -l` log, read with its format named.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::read_log(data, size, gpuplan::telemetry::SourceFormat::kSmiCsv, "smi_csv.log");
  return 0;
}
