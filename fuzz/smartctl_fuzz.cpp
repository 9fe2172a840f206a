// `smartctl --json -a /dev/nvme0` or `smartctl -a /dev/nvme0`: an NVMe drive's health.
#include "fuzz_support.h"
#include "probe/tools.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gpuplan::probe::parse_smartctl_json(gpuplan::fuzz::bytes(data, size));
  (void)gpuplan::probe::parse_smartctl_text(gpuplan::fuzz::bytes(data, size));
  return 0;
}
