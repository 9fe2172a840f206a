// Kernel log: the events acceptance and diagnosis care about, from any of the forms a buyer can
// capture: raw /dev/kmsg records ("4,1234,5678901,-;message"), plain `dmesg` ("[  12.345678]
// message"), `dmesg --ctime` ("[Mon May  6 10:00:01 2024] message") and `dmesg --time-format=iso`
// ("2024-05-06T10:00:01,123456+00:00 message").
//
// A caller may rely on: every line is either an event, ignored as unrelated, or counted as
// malformed with its line number; a truncated last line never crashes. Events keep the line
// number and the line as written, so evidence can quote it.
//
// The format is the one most of the first 20 non-blank lines fit; a line in another form is
// malformed. Both dmesg and /dev/kmsg end every record with a newline, so a last line without
// one is taken as cut off and counted malformed, never as an event (its Xid number or address
// may be incomplete). Blank lines are ignored.
//
// One PCIe AER error is one event: the "AER: ... error received" header (newer kernels: "AER:
// ... error message received from"), the "PCIe Bus Error:" line and the indented status lines
// that follow it for the same device are folded into the first of them (their line numbers in
// detail_lines).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::probe {

enum class KernelLogFormat { kKmsg, kDmesg, kDmesgCtime, kDmesgIso, kUnknown };
const char* kernel_log_format_name(KernelLogFormat f);  // "kmsg", "dmesg", "dmesg-ctime", "dmesg-iso", "unknown"

enum class KernelEventKind {
  kAer,           // "pcieport 0000:00:01.0: AER: Corrected error received: 0000:17:00.0" and its detail lines, "PCIe Bus Error"
  kXid,           // "NVRM: Xid (PCI:0000:17:00): 79, pid=..., GPU has fallen off the bus."
  kSxid,          // "nvidia-nvswitch0: SXid (PCI:0000:c1:00.0): 12028, ..."
  // Only messages the kernel prints once an IOMMU is really on: "DMAR: IOMMU enabled",
  // "DMAR: Intel(R) Virtualization Technology for Directed I/O", "AMD-Vi: Interrupt remapping
  // enabled". Not "iommu: Default domain type: ..." (the IOMMU core prints it on every kernel
  // built with IOMMU support, IOMMU or not) nor "AMD IOMMUv2 loaded and initialized" (the
  // optional iommu_v2 module about itself); see kernel_log.cpp.
  kIommuEnabled,
};

struct KernelEvent {
  KernelEventKind kind;
  int line = 0;                       // 1-based in the log
  std::optional<double> uptime_s;     // kmsg / dmesg timestamps: seconds since boot
  std::optional<std::string> wall;    // ctime / iso timestamps as written
  std::string device;                 // PCI address the event names, normalised "0000:17:00.0"; "" when none
  std::optional<int> code;            // Xid / SXid number
  // AER: "Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)", whichever wording the
  // kernel used (newer kernels' "Correctable" and "Uncorrectable (...)" read as these); else "".
  std::string severity;
  std::string text;                   // the message without its timestamp
  std::string aer_type;               // AER: "Physical Layer", "Data Link Layer", "Transaction Layer"; else ""
  std::vector<int> detail_lines;      // AER: the lines folded into this event
};

struct KernelLog {
  KernelLogFormat format = KernelLogFormat::kUnknown;
  std::vector<KernelEvent> events;
  int lines = 0;
  std::vector<int> malformed_lines;  // lines that fit no known form (a truncated record, binary junk)
};

KernelLog parse_kernel_log(std::string_view text);

// "0000:17:00" (NVRM's, once its "PCI:" is stripped), "0000:17:00.0", "3b:00.1" → "0000:17:00.0"
// (lower case): the whole of `s` as core/pci_address.h's PciAddress::scan reads an address; ""
// when `s` is no PCI address or has more text after it.
std::string normalise_pci_address(std::string_view s);

}  // namespace gpuplan::probe
