// The forms of a kernel-log line (private to probe/kernel_log*.cpp): which form one line is in,
// its stamps and its message. The forms and what each looks like are listed in kernel_log.h.
//
// A caller may rely on: classify_line never throws and reads nothing past `line`; a line is
// classified on its own, so what a line means in its log (a bare line in a stamped log, a
// dictionary line without its record) is the caller's to decide.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "probe/kernel_log.h"

namespace gpuplan::probe::detail {

enum class LineKind {
  kKernel,        // a kernel message in `form`
  kContinuation,  // starts with a space: a kmsg dictionary line (" SUBSYSTEM=pci"), or an indented bare line
  kIgnored,       // a journal header or another program's line
  kBare,          // in no stamped form: a `dmesg -t` message, or junk in a stamped log
  kMalformed,     // control characters, a JSON line that does not parse, a syslog line without a tag
};

struct ClassifiedLine {
  LineKind kind = LineKind::kMalformed;
  KernelLogFormat form = KernelLogFormat::kUnknown;
  std::optional<double> uptime_s;
  std::optional<std::string> wall;
  std::string message;
  std::string device;  // the journal's _KERNEL_DEVICE ("+pci:0000:01:00.0"), normalised; else ""
};

ClassifiedLine classify_line(std::string_view line);

bool is_digit(char c);
bool all_digits(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);

}  // namespace gpuplan::probe::detail
