// `nvidia-smi nvlink --status`: each GPU's links and their speeds.
#include "fuzz_support.h"
#include "probe/tools.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gpuplan::probe::parse_nvlink_status(gpuplan::fuzz::bytes(data, size));
  return 0;
}
