// `accept --checksums FILE`: a sha256sum list of the delivered images.
#include "accept/buyer_files.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gpuplan::accept::parse_checksums(gpuplan::fuzz::bytes(data, size), "SHA256SUMS");
  return 0;
}
