// `accept --benchmark FILE`: a training benchmark's output (tf_cnn_benchmarks,
// DeepLearningExamples, MLPerf logs, a vendor's own wording), for its images/s figure.
#include "accept/benchmark_output.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)accept::parse_benchmark(fuzz::bytes(data, size));
  (void)accept::parse_images_per_second(fuzz::bytes(data, size));
  return 0;
}
