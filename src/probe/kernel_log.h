// Kernel log: the events acceptance and diagnosis care about, from any of the forms a buyer can
// capture: raw /dev/kmsg records ("4,1234,5678901,-;message"), plain `dmesg` ("[  12.345678]
// message"), `dmesg --ctime` ("[Mon May  6 10:00:01 2024] message") and `dmesg --time-format=iso`
// ("2024-05-06T10:00:01,123456+00:00 message").
//
// A caller may rely on: every line is either an event, ignored as unrelated, or counted as
// malformed with its line number; a truncated last line never crashes. Events keep the line
// number and the line as written, so evidence can quote it.
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
  kIommuEnabled,  // "DMAR: IOMMU enabled", "AMD-Vi: ... IOMMU ... enabled", "iommu: Default domain type: ..."
};

struct KernelEvent {
  KernelEventKind kind;
  int line = 0;                       // 1-based in the log
  std::optional<double> uptime_s;     // kmsg / dmesg timestamps: seconds since boot
  std::optional<std::string> wall;    // ctime / iso timestamps as written
  std::string device;                 // PCI address the event names, normalised "0000:17:00.0"; "" when none
  std::optional<int> code;            // Xid / SXid number
  std::string severity;               // AER: "Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)"; else ""
  std::string text;                   // the message without its timestamp
};

struct KernelLog {
  KernelLogFormat format = KernelLogFormat::kUnknown;
  std::vector<KernelEvent> events;
  int lines = 0;
  std::vector<int> malformed_lines;  // lines that fit no known form (a truncated record, binary junk)
};

KernelLog parse_kernel_log(std::string_view text);

}  // namespace gpuplan::probe
