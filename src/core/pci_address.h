// PciAddress: one PCI function's address (domain, bus, device, function) as a value. It reads the
// forms the tools write, in either case: sysfs's "0000:17:00.0", NVML's eight-digit domain
// "00000000:17:00.0", an Intel VMD domain "10000:e1:00.0", NVRM's "0000:17:00" (function 0) and
// "17:00.0" (domain 0); two addresses compare equal when they name the same function, and str()
// writes the canonical "0000:17:00.0". Kernel logs wrap an address in more text: scan() reads one
// at the start of it (the "PCI:" before NVRM's is the log parser's to strip).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan {

struct PciAddress {
  uint32_t domain = 0;
  uint8_t bus = 0;
  uint8_t device = 0;    // two hex digits as written (a real device number is below 0x20)
  uint8_t function = 0;  // one decimal digit as written (a real function is 0-7)

  // The whole of `text`: "[domain:]bus:device[.function]", bus and device two hex digits each.
  // The domain is hex, any number of leading zeros, at most 32 bits; it may be left out (or
  // empty) for domain 0. nullopt when `text` is anything else.
  static std::optional<PciAddress> parse(std::string_view text);

  // The address at the start of `text` as the kernel writes it: "dddd:bb:dd.f", "bb:dd.f" or
  // "dddd:bb:dd" (function 0), the domain exactly four hex digits; `used` is its length. nullopt
  // (and `used` 0) when none starts there, when "bb:dd" stands alone (as likely a time or a ratio)
  // or when more hex digits follow it.
  static std::optional<PciAddress> scan(std::string_view text, size_t& used);

  // "0000:17:00.0": lower case, the domain in at least four digits.
  std::string str() const;

  friend auto operator<=>(const PciAddress&, const PciAddress&) = default;
};

// The text acceptance and diagnosis match PCI functions by: "00000000:17:00.0" and "0000:17:00.0"
// both give "0000:17:00.0", and a VMD domain "10000:01:00.0" keeps its own. Text that is no
// address comes back lower-cased, so it still equals only itself.
std::string pci_address_key(std::string_view text);

}  // namespace gpuplan
