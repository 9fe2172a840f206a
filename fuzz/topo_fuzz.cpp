// `nvidia-smi topo -m`: the GPU interconnect matrix.
#include "fuzz_support.h"
#include "probe/tools.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gpuplan::probe::parse_topo_matrix(gpuplan::fuzz::bytes(data, size));
  return 0;
}
