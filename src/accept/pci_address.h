// One PCI function as acceptance and diagnosis compare it: NVML's "00000000:17:00.0" and sysfs's
// "0000:17:00.0" name the same function and get the same key; a VMD domain "10000:17:00.0" keeps
// its own (comparing the last 12 characters, as this replaced, took it for "0000:17:00.0").
// Header-only, shared by accept/ and diagnose/.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

#include "probe/kernel_log.h"

namespace gpuplan::accept {

// "00000000:17:00.0" → "0000:17:00.0", "10000:01:00.0" → "10000:01:00.0", "17:00.0" →
// "0000:17:00.0" (lower case): the domain without its padding (at least 4 digits), then bus,
// device and function as probe::normalise_pci_address writes them. A string that is no PCI
// address comes back lower-cased, so it still equals only itself.
inline std::string pci_address_key(std::string_view address) {
  std::string s(address);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // "domain:bus:dev.fn" has two colons; "bus:dev.fn" one.
  size_t first = s.find(':');
  if (first == std::string::npos) return s;
  std::string domain = "0000", rest = s;
  if (s.find(':', first + 1) != std::string::npos) {
    domain = s.substr(0, first);
    rest = s.substr(first + 1);
    size_t nonzero = domain.find_first_not_of('0');
    domain = nonzero == std::string::npos ? "" : domain.substr(nonzero);
    if (domain.size() < 4) domain.insert(0, 4 - domain.size(), '0');
  }
  // Bus, device and function through the probe's parser, behind a placeholder domain.
  std::string bdf = probe::normalise_pci_address("0000:" + rest);
  if (bdf.size() != 12) return s;
  return domain + bdf.substr(4);
}

}  // namespace gpuplan::accept
