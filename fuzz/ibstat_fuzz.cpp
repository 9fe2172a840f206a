// `ibstat`, `ibstatus`, `sminfo`, `ibdiagnet` output attached to `accept`.
#include "fuzz_support.h"
#include "probe/attached_tools.h"
#include "probe/tools.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)probe::parse_ibstat(fuzz::bytes(data, size));
  (void)probe::read_ib_evidence(fuzz::bytes(data, size));
  return 0;
}
