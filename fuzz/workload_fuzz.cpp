// `gpuplan recommend --workload FILE`: the workload YAML (the reader takes only a path).
#include "fuzz_support.h"
#include "plan/workload_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)plan::read_workload_file(fuzz::input_file(data, size, "workload.yaml"), plan::WorkloadFields{});
  return 0;
}
