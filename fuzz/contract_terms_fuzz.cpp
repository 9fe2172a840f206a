// The contract-term wordings of a vendor quote (plan/contract_terms.h): each line of the input is
// given to every reader, as a quote's `contract:` and `service:` values are.
#include "fuzz_support.h"
#include "plan/contract_terms.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  fuzz::for_each_line(fuzz::bytes(data, size), [](std::string_view line) {
    (void)plan::read_gpu_wording(line, fuzz::catalog());
    (void)plan::read_driver_wording(line);
    (void)plan::read_cuda_wording(line);
    (void)plan::read_rack_wording(line);
    (void)plan::read_public_bandwidth_wording(line);
    (void)plan::read_internal_network_wording(line);
    (void)plan::read_performance_wording(line, 8);
    (void)plan::read_performance_wording(line, std::nullopt);
    (void)plan::read_hours_wording(line);
    (void)plan::read_minutes_wording(line);
    (void)plan::read_service_hours_wording(line);
    (void)plan::read_penalty_wording(line);
  });
  return 0;
}
