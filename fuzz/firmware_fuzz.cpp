// Firmware evidence attached to `accept`: `nvidia-smi -q` (VBIOS per GPU), `ipmitool mc info`
// (BMC) and `dmidecode -t bios`, one reader for all three, and `dmidecode -t memory`.
#include "fuzz_support.h"
#include "probe/attached_tools.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  (void)probe::read_firmware_evidence(fuzz::bytes(data, size));
  (void)probe::parse_dmidecode_memory(fuzz::bytes(data, size));
  return 0;
}
