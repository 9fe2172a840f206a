// `lspci -vvv` (as root, so the capabilities are shown): per device, its link capability
// (LnkCap) and the link it trained to (LnkSta), and the AER status registers' set bits (UESta,
// CESta). Pure: the caller reads the file, this reads the text.
// A caller may rely on: a device is a block from its header line ("19:00.0 3D controller:
// NVIDIA …", with or without the domain) to the next; lines before any header (a paste cut above
// the device) form one block with no address, which says no more than its lines do; a speed or
// width that is not one is an Error naming the line; a text with no LnkSta line at all is an
// Error, never a healthy bus.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "probe/pci.h"

namespace gpuplan::probe {

struct LspciDevice {
  std::string address;      // "0000:19:00.0" (domain added when lspci left it out); "" for a block without a header
  std::string description;  // "3D controller: NVIDIA Corporation Device 2330 (rev a1)"
  int line = 0;             // 1-based line of the header (of the block's first line when it has none)
  PciLink capability;       // LnkCap
  PciLink status;           // LnkSta
  int status_line = 0;      // 1-based line of LnkSta; 0 when the block has none
  // lspci's own "(downgraded)" after LnkSta's speed or width (lspci 3.6 and later compare it
  // with LnkCap), which says so even where LnkCap is not in the text.
  bool speed_downgraded = false, width_downgraded = false;
  std::vector<std::string> uncorrectable;  // UESta bits set ("CmpltTO"), since the last reset
  std::vector<std::string> correctable;    // CESta bits set ("RxErr")
  int aer_line = 0;                        // 1-based line of UESta or CESta, whichever has bits set first

  // An NVIDIA display or 3D controller, by lspci's own words.
  bool nvidia_gpu() const;
};

Result<std::vector<LspciDevice>> parse_lspci_vvv(std::string_view text);

}  // namespace gpuplan::probe
