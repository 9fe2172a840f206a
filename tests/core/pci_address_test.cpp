#include "core/pci_address.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

std::string parsed(std::string_view text) {
  auto a = PciAddress::parse(text);
  return a ? a->str() : "none";
}

TEST(PciAddressTest, ParsesTheFormsTheToolsWrite) {
  EXPECT_EQ(parsed("0000:17:00.0"), "0000:17:00.0");       // sysfs
  EXPECT_EQ(parsed("00000000:17:00.0"), "0000:17:00.0");   // NVML's 8-digit domain
  EXPECT_EQ(parsed("0000:C1:00.0"), "0000:c1:00.0");       // either case, written in lower case
  EXPECT_EQ(parsed("0000:17:00"), "0000:17:00.0");         // NVRM's, function 0
  EXPECT_EQ(parsed("17:00.1"), "0000:17:00.1");            // no domain: 0
  EXPECT_EQ(parsed("10000:e1:00.7"), "10000:e1:00.7");     // an Intel VMD domain, 0x10000
  EXPECT_EQ(parsed("00010000:E1:00.7"), "10000:e1:00.7");  // the same as NVML writes it
  EXPECT_EQ(parsed("ffffffff:00:00.0"), "ffffffff:00:00.0");
}

TEST(PciAddressTest, RefusesWhatIsNoAddress) {
  for (const char* text : {"", "17", "0000:17", "0000:17:00.", "0000:17:00.0 ", " 0000:17:00.0", "0000:17:00.0x",
                           "0000:1g:00.0", "0000:17:000.0", "0000:17:0.0", "zz:17:00.0", "0x0000:17:00.0",
                           "100000000:17:00.0", "PCI:0000:17:00", "0000:00:17:00.0"})
    EXPECT_EQ(parsed(text), "none") << text;
}

TEST(PciAddressTest, ComparesByValue) {
  auto sysfs = PciAddress::parse("0000:17:00.0"), nvml = PciAddress::parse("00000000:17:00.0");
  ASSERT_TRUE(sysfs && nvml);
  EXPECT_EQ(*sysfs, *nvml);
  EXPECT_NE(*PciAddress::parse("10000:01:00.0"), *PciAddress::parse("0000:01:00.0"));  // VMD is its own domain
  // Domain first, then bus, device, function: the order lspci lists them in.
  EXPECT_LT(*PciAddress::parse("0000:ff:1f.7"), *PciAddress::parse("0001:00:00.0"));
  EXPECT_LT(*PciAddress::parse("0000:17:00.0"), *PciAddress::parse("0000:17:00.1"));
  const PciAddress a{0x10000, 0xe1, 0x00, 7};
  EXPECT_EQ(a.str(), "10000:e1:00.7");
}

TEST(PciAddressTest, ScansAnAddressAtTheStartOfKernelText) {
  size_t used = 99;
  auto a = PciAddress::scan("0000:01:00.0: PCIe Bus Error", used);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->str(), "0000:01:00.0");
  EXPECT_EQ(used, 12u);
  EXPECT_EQ(PciAddress::scan("3b:00.1 rest", used)->str(), "0000:3b:00.1");
  EXPECT_EQ(used, 7u);
  EXPECT_EQ(PciAddress::scan("0001:10:1c): 79", used)->str(), "0001:10:1c.0");  // NVRM's, function 0
  EXPECT_EQ(used, 10u);
  // "bb:dd" alone is as likely a time or a ratio; more hex digits make it part of a longer word;
  // the kernel writes four-digit domains only.
  for (const char* text : {"12:30 done", "0000:17:00.0a", "0000:17:00a", "00000000:17:00.0", "x0000:17:00.0"}) {
    EXPECT_FALSE(PciAddress::scan(text, used)) << text;
    EXPECT_EQ(used, 0u) << text;
  }
}

TEST(PciAddressTest, KeyMatchesNvmlAndSysfsAndKeepsVmdDomainsApart) {
  EXPECT_EQ(pci_address_key("00000000:17:00.0"), "0000:17:00.0");  // NVML's 8-digit domain
  EXPECT_EQ(pci_address_key("0000:17:00.0"), "0000:17:00.0");      // sysfs
  EXPECT_EQ(pci_address_key("0000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(pci_address_key("10000:01:00.0"), "10000:01:00.0");     // VMD domain 0x10000
  EXPECT_EQ(pci_address_key("00010000:01:00.0"), "10000:01:00.0");  // the same, as NVML writes it
  EXPECT_NE(pci_address_key("10000:01:00.0"), pci_address_key("00000000:01:00.0"));
  EXPECT_EQ(pci_address_key("17:00.0"), "0000:17:00.0");
  EXPECT_EQ(pci_address_key("GPU-0A"), "gpu-0a");  // no address: itself, lower-cased
}

}  // namespace
}  // namespace gpuplan
