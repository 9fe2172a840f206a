#include "core/pci_address.h"

#include <fmt/format.h>

#include "core/text.h"

namespace gpuplan {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_digit(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The value of the n hex digits at text[at], or nullopt when they are not all there.
std::optional<uint32_t> hex_at(std::string_view text, size_t at, size_t n) {
  if (at + n > text.size()) return std::nullopt;
  uint32_t v = 0;
  for (size_t i = at; i < at + n; ++i) {
    const int d = hex_digit(text[i]);
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

// "bb:dd" and the ".f" that may follow it at text[at], into `a`; the characters read, 0 when
// there is no "bb:dd".
size_t bus_device_function_at(std::string_view text, size_t at, PciAddress& a) {
  auto bus = hex_at(text, at, 2), device = hex_at(text, at + 3, 2);
  if (!bus || !device || text[at + 2] != ':') return 0;
  a.bus = static_cast<uint8_t>(*bus);
  a.device = static_cast<uint8_t>(*device);
  a.function = 0;
  const size_t fn = at + 5;
  if (fn + 1 < text.size() && text[fn] == '.' && is_digit(text[fn + 1])) {
    a.function = static_cast<uint8_t>(text[fn + 1] - '0');
    return 7;
  }
  return 5;
}

}  // namespace

std::optional<PciAddress> PciAddress::parse(std::string_view text) {
  PciAddress a;
  const size_t first = text.find(':');
  if (first == std::string_view::npos) return std::nullopt;
  // "domain:bus:dev.fn" has two colons; "bus:dev.fn" one.
  if (text.find(':', first + 1) != std::string_view::npos) {
    std::string_view domain = text.substr(0, first);
    while (!domain.empty() && domain.front() == '0') domain.remove_prefix(1);
    auto value = domain.size() <= 8 ? hex_at(domain, 0, domain.size()) : std::nullopt;  // "" is 0
    if (!value) return std::nullopt;
    a.domain = *value;
    text.remove_prefix(first + 1);
  }
  const size_t used = bus_device_function_at(text, 0, a);
  if (used == 0 || used != text.size()) return std::nullopt;
  return a;
}

std::optional<PciAddress> PciAddress::scan(std::string_view text, size_t& used) {
  used = 0;
  PciAddress a;
  size_t at = 0;
  const auto domain = hex_at(text, 0, 4);
  if (domain && text.size() > 4 && text[4] == ':') {
    a.domain = *domain;
    at = 5;
  }
  const size_t n = bus_device_function_at(text, at, a);
  if (n == 0) return std::nullopt;
  if (n == 5 && at == 0) return std::nullopt;  // "bb:dd" alone is too ambiguous (a time, a ratio)
  if (at + n < text.size() && hex_digit(text[at + n]) >= 0) return std::nullopt;  // part of a longer hex word
  used = at + n;
  return a;
}

std::string PciAddress::str() const {
  return fmt::format("{:04x}:{:02x}:{:02x}.{}", domain, bus, device, function);
}

std::string pci_address_key(std::string_view text) {
  std::string s = lower(std::string(text));
  if (auto a = PciAddress::parse(s)) return a->str();
  return s;
}

}  // namespace gpuplan
