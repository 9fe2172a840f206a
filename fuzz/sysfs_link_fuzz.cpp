// sysfs attribute strings of a PCI device (current_link_speed "16.0 GT/s PCIe", device
// addresses "0000:17:00.0"): each line of the input given to the readers.
#include "fuzz_support.h"
#include "probe/kernel_log.h"
#include "probe/pci.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  fuzz::for_each_line(fuzz::bytes(data, size), [](std::string_view line) {
    (void)probe::parse_link_speed(line);
    (void)probe::is_pci_address(line);
    (void)probe::normalise_pci_address(line);
  });
  return 0;
}
