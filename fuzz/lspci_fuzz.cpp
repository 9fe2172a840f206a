// `lspci -vvv`, attached to pcie.topology or pcie.aer: each device's LnkCap, LnkSta and AER status.
#include "fuzz_support.h"
#include "probe/lspci.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gpuplan::probe::parse_lspci_vvv(gpuplan::fuzz::bytes(data, size));
  return 0;
}
