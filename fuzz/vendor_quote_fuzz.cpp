// `gpuplan audit QUOTE`: a vendor's quote YAML, lines and contract terms, read against the catalog.
#include "fuzz_support.h"
#include "plan/audit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)plan::parse_vendor_quote(std::string(fuzz::bytes(data, size)), "quote.yaml", fuzz::catalog());
  return 0;
}
