// `gpuplan usage` / `diagnose` input: a Prometheus text scrape (dcgm-exporter, node exporter), read with its format
// named.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::read_log(data, size, gpuplan::telemetry::SourceFormat::kPromText, "prom_scrape.log");
  return 0;
}
