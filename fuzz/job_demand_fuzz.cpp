// Job accounting → GPU demand: Slurm sacct parsable output and kube-state-metrics scrapes, the
// bytes read as each format by name and through a file (gzip or not, the format detected).
#include "fuzz_support.h"
#include "telemetry/job_demand.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  const std::string_view text = fuzz::bytes(data, size);
  (void)telemetry::parse_sacct(text, "jobs.txt");
  (void)telemetry::parse_kube_requests(text, "ksm-1714564800.prom");
  (void)telemetry::read_job_demand({fuzz::input_file(data, size, "jobs")});
  return 0;
}
