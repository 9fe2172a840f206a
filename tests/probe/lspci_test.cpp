// `lspci -vvv` (issue 26): LnkCap against LnkSta and the AER status registers, read from real
// pastes (tests/fixtures/tools/README.md names each source): TABs or spaces, with or without the
// domain, a paste cut below its device's header. A text with no LnkSta is refused, and a speed
// or width that is not one is an error naming its line.
#include "probe/lspci.h"

#include <gtest/gtest.h>

#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::read_file;
using gpuplan::testing::source_path;

std::string fixture(const std::string& name) {
  return read_file(source_path("tests/fixtures/tools/" + name));
}

using Bits = std::vector<std::string>;

TEST(LspciTest, AnH100AtFullLinkWithCorrectableErrorBitsSet) {
  auto devices = parse_lspci_vvv(fixture("lspci-vvv-h100-gpud.txt"));
  ASSERT_TRUE(devices) << report::error_text(devices.error(), report::Lang::kEn);
  ASSERT_EQ(devices->size(), 2u);
  const LspciDevice& gpu = (*devices)[0];
  EXPECT_EQ(gpu.address, "0000:19:00.0");  // lspci left out the domain
  EXPECT_TRUE(gpu.nvidia_gpu());
  EXPECT_EQ(gpu.line, 1);
  EXPECT_EQ(gpu.capability.str(), "Gen5 x16");  // LnkCap: Speed 32GT/s, Width x16 (line 24)
  EXPECT_EQ(gpu.status.str(), "Gen5 x16");      // LnkSta: Speed 32GT/s (ok), Width x16 (ok)
  EXPECT_EQ(gpu.status_line, 28);
  EXPECT_EQ(gpu.correctable, (Bits{"RxErr", "BadTLP", "Timeout"}));  // CESta, line 42
  EXPECT_TRUE(gpu.uncorrectable.empty());
  EXPECT_EQ(gpu.aer_line, 42);
  const LspciDevice& nic = (*devices)[1];
  EXPECT_EQ(nic.address, "0000:1a:00.0");
  EXPECT_FALSE(nic.nvidia_gpu());  // an Ethernet controller
  EXPECT_EQ(nic.status_line, 0);
}

TEST(LspciTest, APasteCutBelowItsHeaderIsADeviceWithoutAnAddress) {
  auto pi = parse_lspci_vvv(fixture("lspci-vvv-quadro-pi-fragment.txt"));
  ASSERT_TRUE(pi) << report::error_text(pi.error(), report::Lang::kEn);
  ASSERT_EQ(pi->size(), 1u);
  const LspciDevice& d = (*pi)[0];
  EXPECT_EQ(d.address, "");
  EXPECT_FALSE(d.nvidia_gpu());
  EXPECT_EQ(d.status.str(), "Gen2 x1");  // Speed 5GT/s (downgraded), Width x1 (downgraded)
  EXPECT_EQ(d.capability.str(), "?");    // its LnkCap is above the paste
  EXPECT_TRUE(d.speed_downgraded);
  EXPECT_TRUE(d.width_downgraded);
  EXPECT_TRUE(d.uncorrectable.empty());
  EXPECT_EQ(d.correctable, (Bits{"AdvNonFatalErr"}));
  EXPECT_EQ(d.aer_line, 20);
  // Two lines indented by spaces (janhq/jan 183): a 4090 at Gen1 of its Gen4.
  auto spaces = parse_lspci_vvv(fixture("lspci-lnksta-4090-spaces.txt"));
  ASSERT_TRUE(spaces);
  ASSERT_EQ(spaces->size(), 1u);
  EXPECT_EQ((*spaces)[0].capability.str(), "Gen4 x16");
  EXPECT_EQ((*spaces)[0].status.str(), "Gen1 x16");
  EXPECT_EQ((*spaces)[0].status_line, 2);
  EXPECT_TRUE((*spaces)[0].speed_downgraded);
  EXPECT_FALSE((*spaces)[0].width_downgraded);  // "Width x16 (ok)"
}

TEST(LspciTest, WhatIsNotLspciIsRefused) {
  auto nothing = parse_lspci_vvv("00:00.0 Host bridge: Intel Corporation Device 09a2 (rev 04)\n");
  ASSERT_FALSE(nothing);  // lspci without -vvv, or not as root: no link is shown
  EXPECT_EQ(nothing.error().message.key, "error.lspci.no_link_status");
  auto speed =
      parse_lspci_vvv("17:00.0 3D controller: NVIDIA Corporation GA100\n\t\tLnkSta:\tSpeed fastGT/s, Width x16\n");
  ASSERT_FALSE(speed);
  EXPECT_EQ(speed.error().line, 2);
  EXPECT_EQ(speed.error().field, "Speed");
  EXPECT_EQ(speed.error().message.key, "error.lspci.speed");
  auto width =
      parse_lspci_vvv("17:00.0 3D controller: NVIDIA Corporation GA100\n\t\tLnkSta:\tSpeed 16GT/s, Width x99\n");
  ASSERT_FALSE(width);
  EXPECT_EQ(width.error().field, "Width");
  // A link that is down shows "Speed unknown (downgraded), Width x0 (downgraded)": no link, no error.
  auto down = parse_lspci_vvv(
      "00:01.0 PCI bridge: Intel Corporation Device 09a4\n\t\tLnkSta:\tSpeed unknown (downgraded), Width x0 "
      "(downgraded)\n");
  ASSERT_TRUE(down) << report::error_text(down.error(), report::Lang::kEn);
  EXPECT_FALSE((*down)[0].status.speed_gts.has_value());
  EXPECT_FALSE((*down)[0].status.width.has_value());
}

}  // namespace
}  // namespace gpuplan::probe
