#include "probe/kernel_log.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "core/pci_address.h"
#include "core/text.h"
#include "probe/kernel_log_forms.h"

namespace gpuplan::probe {
namespace {

using detail::ClassifiedLine;
using detail::LineKind;
using detail::starts_with;

constexpr int kAerDetailWindow = 6;  // lines after an AER header that may still belong to it
constexpr size_t kForms = static_cast<size_t>(KernelLogFormat::kUnknown);
using FormLines = std::array<int, kForms>;  // kernel lines read in each form

bool is_digit(char c) {
  return detail::is_digit(c);
}
bool contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

// --- events --------------------------------------------------------------------------------------

// The "dddd:bb:dd.f" address at the start of `s` (or "bb:dd.f", "dddd:bb:dd") as events carry it,
// its length in `used`; "" when there is none.
std::string pci_address_at(std::string_view s, size_t& used) {
  auto address = PciAddress::scan(s, used);
  return address ? address->str() : "";
}

// The device a driver message is about: "nvidia 0000:01:00.0: ..." → "0000:01:00.0", and the
// kernel documentation's AER example, which has no driver name: "0000:50:00.0: PCIe Bus Error: ...".
std::string prefix_device(std::string_view msg) {
  size_t used = 0;
  std::string dev = pci_address_at(msg, used);
  if (!dev.empty() && used < msg.size() && msg[used] == ':') return dev;
  size_t space = msg.find(' ');
  if (space == std::string_view::npos) return "";
  dev = pci_address_at(msg.substr(space + 1), used);
  if (dev.empty() || space + 1 + used >= msg.size() || msg[space + 1 + used] != ':') return "";
  return dev;
}

// AER severities as the kernel spells them, each with the name events carry. Older kernels
// print "Corrected" / "Uncorrected (...)"; newer ones use the PCIe spec's "Correctable" /
// "Uncorrectable (...)" (commit "PCI/AER: Use 'Correctable' and 'Uncorrectable' spec terms for
// errors"). Events keep the older names so callers need not know which kernel wrote the log.
// Longest first so "Uncorrected (Non-Fatal)" is not read as a bare "Uncorrected".
struct AerSeverity {
  std::string_view spelled;
  std::string_view normalised;
};
constexpr AerSeverity kAerSeverities[] = {
    {"Uncorrectable (Non-Fatal)", "Uncorrected (Non-Fatal)"},
    {"Uncorrectable (Fatal)", "Uncorrected (Fatal)"},
    {"Correctable", "Corrected"},
    {"Uncorrected (Non-Fatal)", "Uncorrected (Non-Fatal)"},
    {"Uncorrected (Fatal)", "Uncorrected (Fatal)"},
    {"Corrected", "Corrected"},
};

// The severity `s` starts with; nullptr when none.
const AerSeverity* aer_severity_in(std::string_view s) {
  for (const AerSeverity& sev : kAerSeverities)
    if (starts_with(s, sev.spelled)) return &sev;
  return nullptr;
}

// "AER: Corrected error received: 0000:01:00.0", "AER: Multiple Uncorrected (Non-Fatal) error
// received: ...", "AER: Uncorrected (Fatal) error received", and on newer kernels "AER: Correctable
// error message received from 0000:00:01.0", "AER: Multiple Uncorrectable (Non-Fatal) error
// message received from 0000:73:00.1". Not "AER: enabled with IRQ 30" and the other boot-time
// AER lines, which are no errors.
bool parse_aer_header(std::string_view msg, KernelEvent& ev) {
  size_t at = msg.find("AER: ");
  if (at == std::string_view::npos) return false;
  std::string_view rest = msg.substr(at + 5);
  if (starts_with(rest, "Multiple ")) rest.remove_prefix(9);
  const AerSeverity* sev = aer_severity_in(rest);
  if (!sev) return false;
  rest.remove_prefix(sev->spelled.size());
  // The reporting device follows ": " in the older wording and " from " in the newer one.
  constexpr std::string_view kOld = " error received", kNew = " error message received";
  std::string_view source_prefix;
  if (starts_with(rest, kOld)) {
    rest.remove_prefix(kOld.size());
    source_prefix = ": ";
  } else if (starts_with(rest, kNew)) {
    rest.remove_prefix(kNew.size());
    source_prefix = " from ";
  } else {
    return false;
  }
  ev.severity = std::string(sev->normalised);
  ev.device = prefix_device(msg);
  if (starts_with(rest, source_prefix)) {  // the device that reported it, which the event is about
    size_t used = 0;
    std::string source = pci_address_at(rest.substr(source_prefix.size()), used);
    if (!source.empty()) ev.device = source;
  }
  return true;
}

// "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)";
// on newer kernels "severity=Correctable", "severity=Uncorrectable (Non-Fatal)".
bool parse_bus_error(std::string_view msg, KernelEvent& ev) {
  size_t at = msg.find("PCIe Bus Error: ");
  if (at == std::string_view::npos) return false;
  std::string_view rest = msg.substr(at + 16);
  if (!starts_with(rest, "severity=")) return false;
  const AerSeverity* sev = aer_severity_in(rest.substr(9));
  if (!sev) return false;
  ev.severity = std::string(sev->normalised);
  size_t type = rest.find("type=");
  if (type != std::string_view::npos) {
    std::string_view t = rest.substr(type + 5);
    ev.aer_type = std::string(t.substr(0, t.find(',')));
  }
  ev.device = prefix_device(msg);
  return true;
}

// "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, ..." and the older "NVRM: Xid (0000:01:00): 79, ...";
// "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 12028, Non-fatal, ...".
bool parse_xid(std::string_view msg, std::string_view tag, KernelEvent& ev) {
  size_t at = msg.find(tag);
  if (at == std::string_view::npos) return false;
  std::string_view rest = msg.substr(at + tag.size());
  size_t close = rest.find("): ");
  if (close == std::string_view::npos) return false;
  std::string_view addr = rest.substr(0, close);
  if (starts_with(addr, "PCI:")) addr.remove_prefix(4);
  std::string device = normalise_pci_address(addr);
  if (device.empty()) return false;
  rest.remove_prefix(close + 3);
  size_t n = 0;
  while (n < rest.size() && is_digit(rest[n])) ++n;
  if (n == 0 || n > 6 || (n < rest.size() && rest[n] != ',' && rest[n] != ' ')) return false;
  int code = 0;
  std::from_chars(rest.data(), rest.data() + n, code);
  ev.device = device;
  ev.code = code;
  constexpr std::string_view kCause = " caused by previous Xid ";
  if (size_t cause = rest.find(kCause); cause != std::string_view::npos) {
    std::string_view digits = rest.substr(cause + kCause.size());
    size_t d = 0;
    while (d < digits.size() && d < 6 && is_digit(digits[d])) ++d;
    int cause_code = 0;
    if (d > 0 && std::from_chars(digits.data(), digits.data() + d, cause_code).ec == std::errc())
      ev.cause_code = cause_code;
  }
  return true;
}

// The GPU the driver lost, from the one-line wordings of kernel_log.h's kGpuLost: "NVRM: GPU
// 0000:06:00.0: GPU has fallen off the bus." and "NVRM: GPU at 0000:01:00.0 has fallen off the
// bus."; "" when `msg` is neither. Not the "NVRM: GPU at PCI:0000:06:00: GPU-<uuid>" header.
std::string lost_gpu(std::string_view msg) {
  constexpr std::string_view kTag = "NVRM: GPU ";
  size_t at = msg.find(kTag);
  if (at == std::string_view::npos || !contains(msg, "has fallen off the bus")) return "";
  std::string_view rest = msg.substr(at + kTag.size());
  if (starts_with(rest, "at ")) rest.remove_prefix(3);
  size_t used = 0;
  std::string dev = pci_address_at(rest, used);
  if (dev.empty()) return "";
  rest.remove_prefix(used);
  return starts_with(rest, ": GPU has fallen off the bus") || starts_with(rest, " has fallen off the bus") ? dev : "";
}

// "NVRM: The NVIDIA GPU 0000:b3:00.0": the first line of the three-line probe-time record; its
// address, or "" for any other message.
std::string probe_record_gpu(std::string_view msg) {
  constexpr std::string_view kTag = "NVRM: The NVIDIA GPU ";
  size_t at = msg.find(kTag);
  if (at == std::string_view::npos) return "";
  size_t used = 0;
  std::string dev = pci_address_at(msg.substr(at + kTag.size()), used);
  return at + kTag.size() + used == msg.size() ? dev : "";
}

// "{1}[Hardware Error]: rest" → record "1" and "rest"; records without a number ("[Hardware
// Error]: ...", older kernels) have record "". False for any other message.
bool ghes_line(std::string_view msg, std::string& record, std::string_view& rest) {
  constexpr std::string_view kTag = "[Hardware Error]: ";
  size_t at = msg.find(kTag);
  if (at == std::string_view::npos) return false;
  record.clear();
  if (at > 0 && msg[at - 1] == '}') {
    size_t open = msg.rfind('{', at);
    if (open != std::string_view::npos) record = std::string(msg.substr(open + 1, at - open - 2));
  }
  rest = trim(msg.substr(at + kTag.size()));
  return true;
}

// "EDAC MC3: 1 UE memory read error on ...", "EDAC MC0: 4 CE error on ...": the count and "UE" or
// "CE"; false for the other EDAC lines ("EDAC skx MC3: HANDLING MCE MEMORY ERROR", "EDAC MC0:
// Giving out device to module ...").
bool parse_edac(std::string_view msg, KernelEvent& ev) {
  constexpr std::string_view kTag = "EDAC MC";
  size_t at = msg.find(kTag);
  if (at == std::string_view::npos) return false;
  std::string_view rest = msg.substr(at + kTag.size());
  size_t n = 0;
  while (n < rest.size() && is_digit(rest[n])) ++n;
  if (n == 0 || !starts_with(rest.substr(n), ": ")) return false;
  rest.remove_prefix(n + 2);
  size_t d = 0;
  while (d < rest.size() && d < 9 && is_digit(rest[d])) ++d;
  int count = 0;
  if (d == 0 || std::from_chars(rest.data(), rest.data() + d, count).ec != std::errc()) return false;
  rest.remove_prefix(d);
  if (!starts_with(rest, " UE ") && !starts_with(rest, " CE ")) return false;
  ev.severity = std::string(rest.substr(1, 2));
  ev.count = count;
  return true;
}

// Which messages prove an IOMMU translates DMA, and why the others do not:
//  - "DMAR: IOMMU enabled": intel_iommu=on (or a kernel built with it on) took effect.
//  - "DMAR: Intel(R) Virtualization Technology for Directed I/O": printed when VT-d init finished.
//  - "AMD-Vi: Interrupt remapping enabled": printed only after the AMD IOMMUs were initialised.
//  - not "iommu: Default domain type: ...": the IOMMU core prints it on any kernel built with
//    IOMMU support, before and whether or not a hardware IOMMU is found.
//  - not "AMD-Vi: AMD IOMMUv2 loaded and initialized": the optional iommu_v2 (PASID) module
//    reporting its own load; it says nothing the interrupt-remapping line would not.
constexpr std::string_view kIommuProof[] = {
    "DMAR: IOMMU enabled",
    "DMAR: Intel(R) Virtualization Technology for Directed I/O",
    "AMD-Vi: Interrupt remapping enabled",
};

bool is_iommu_proof(std::string_view msg) {
  for (std::string_view p : kIommuProof)
    if (contains(msg, p)) return true;
  return false;
}

// --- lines ---------------------------------------------------------------------------------------

struct Line {
  std::string_view text;
  bool complete;  // ended with a newline
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, nl != std::string_view::npos});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

bool indented(std::string_view s) {
  return !s.empty() && (s.front() == ' ' || s.front() == '\t');
}

bool blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t') return false;
  return true;
}

// The kernel's boot banner: what shows a `dmesg -t` capture without events is a kernel log.
bool is_boot_banner(std::string_view msg) {
  return starts_with(msg, "Linux version ") || starts_with(msg, "Command line: ") ||
         starts_with(msg, "Kernel command line: ");
}

// Each line classified on its own, then as its log places it: a line starting with a space is a
// kmsg record's dictionary after such a record and an indented bare line otherwise.
class LineReader {
 public:
  ClassifiedLine next(const Line& line) {
    ClassifiedLine c;
    if (!line.complete) {
      c.kind = LineKind::kMalformed;  // cut off: never an event
    } else if (blank(line.text)) {
      c.kind = LineKind::kIgnored;
      return c;
    } else {
      c = detail::classify_line(line.text);
    }
    if (c.kind == LineKind::kContinuation && !after_kmsg_) {
      c.kind = LineKind::kBare;
      c.form = KernelLogFormat::kDmesgNoTime;
      c.message.erase(0, c.message.find_first_not_of(' '));
    }
    if (c.kind != LineKind::kContinuation)
      after_kmsg_ = c.kind == LineKind::kKernel && c.form == KernelLogFormat::kKmsg;
    return c;
  }

 private:
  bool after_kmsg_ = false;
};

// Whether any line has a stamp (a kernel line or another program's line in a stamped form): bare
// lines are junk in such a log. Stops at the first.
bool any_stamped(const std::vector<Line>& lines) {
  LineReader reader;
  for (const Line& line : lines) {
    ClassifiedLine c = reader.next(line);
    if ((c.kind == LineKind::kKernel || c.kind == LineKind::kIgnored) && c.form != KernelLogFormat::kUnknown)
      return true;
  }
  return false;
}

// The events of one log, message by message.
struct EventReader {
  KernelLog& log;
  int last_record_event = -1;  // index in events of the event the current record made
  int open_aer = -1;           // the AER event later detail lines may still fold into
  bool last_nvrm = false;      // the last message was the driver's: an indented NVRM line continues it
  std::string probe_gpu;       // "The NVIDIA GPU <address>" seen: its continuation may say it was lost
  KernelEvent probe_event;     // that first line's number and stamps
  std::map<std::string, int> open_ghes;  // GHES record number → its event, until the number comes again

  // A kmsg dictionary line (" SUBSYSTEM=pci", " DEVICE=+pci:0000:01:00.0") or the journal's
  // _KERNEL_DEVICE: it may name the device a message without an address is about.
  void record_device(const std::string& device) {
    if (last_record_event >= 0 && !device.empty() && log.events[last_record_event].device.empty())
      log.events[last_record_event].device = device;
  }

  void dictionary(std::string_view raw) {
    constexpr std::string_view kDevice = " DEVICE=+pci:";
    if (starts_with(raw, kDevice)) record_device(normalise_pci_address(raw.substr(kDevice.size())));
  }

  // An indented "NVRM: ..." line after an NVRM message: the rest of a multi-line record.
  bool nvrm_continuation(int line_no, std::string_view msg) {
    if (!last_nvrm || !starts_with(msg, "NVRM: ")) return false;
    if (probe_gpu.empty()) {
      if (last_record_event >= 0) log.events[last_record_event].detail_lines.push_back(line_no);
      return true;
    }
    probe_event.detail_lines.push_back(line_no);
    if (contains(msg, "fallen off the bus")) {
      probe_event.kind = KernelEventKind::kGpuLost;
      probe_event.device = probe_gpu;
      log.events.push_back(std::move(probe_event));
      last_record_event = static_cast<int>(log.events.size()) - 1;
      probe_gpu.clear();
    }
    return true;
  }

  void message(int line_no, const ClassifiedLine& c) {
    last_record_event = -1;
    last_nvrm = contains(c.message, "NVRM: ");
    probe_gpu.clear();
    KernelEvent ev;
    ev.kind = KernelEventKind::kAer;  // set for real below; never copied indeterminate
    ev.line = line_no;
    ev.uptime_s = c.uptime_s;
    ev.wall = c.wall;
    ev.text = c.message;
    std::string_view msg = c.message;
    if (!aer(line_no, msg, ev) && !ghes(line_no, msg, ev)) other(msg, ev);
    record_device(c.device);
  }

  // One GHES record: its header opens an event, its numbered lines fill it in.
  bool ghes(int line_no, std::string_view msg, const KernelEvent& ev) {
    std::string record;
    std::string_view rest;
    if (!ghes_line(msg, record, rest)) return false;
    if (starts_with(rest, "Hardware error from APEI Generic Hardware Error Source")) {
      KernelEvent head = ev;
      head.kind = KernelEventKind::kGhes;
      log.events.push_back(std::move(head));
      open_ghes[record] = last_record_event = static_cast<int>(log.events.size()) - 1;
      return true;
    }
    auto open = open_ghes.find(record);
    if (open == open_ghes.end()) return true;  // a record whose header the capture cut off
    KernelEvent& head = log.events[open->second];
    head.detail_lines.push_back(line_no);
    auto value_of = [&](std::string_view key) -> std::optional<std::string_view> {
      if (!starts_with(rest, key)) return std::nullopt;
      return trim(rest.substr(key.size()));
    };
    if (auto v = value_of("event severity:"); v && head.severity.empty()) head.severity = std::string(*v);
    if (auto v = value_of("section_type:"); v && head.section.empty()) head.section = std::string(*v);
    if (auto v = value_of("device_id:"); v && head.device.empty()) head.device = normalise_pci_address(*v);
    return true;
  }

  bool aer(int line_no, std::string_view msg, const KernelEvent& ev) {
    if (open_aer >= 0 && line_no - log.events[open_aer].line > kAerDetailWindow) open_aer = -1;
    KernelEvent aer = ev;
    if (parse_bus_error(msg, aer)) {
      // The detail line of the header just before it, for the same device: one error, one event.
      // The header names the error source the root port logged (on newer kernels often
      // "from 0000:00:00.0"); the detail lines name the device whose registers hold the error,
      // which is what the event is about.
      if (open_aer >= 0) {
        KernelEvent& head = log.events[open_aer];
        if (head.aer_type.empty() && head.severity == aer.severity) {
          head.aer_type = aer.aer_type;
          if (!aer.device.empty()) head.device = aer.device;
          head.detail_lines.push_back(line_no);
          return true;
        }
      }
      log.events.push_back(std::move(aer));
      open_aer = last_record_event = static_cast<int>(log.events.size()) - 1;
      return true;
    }
    if (parse_aer_header(msg, aer)) {
      log.events.push_back(std::move(aer));
      open_aer = last_record_event = static_cast<int>(log.events.size()) - 1;
      return true;
    }
    if (open_aer >= 0) {
      // "nvidia 0000:01:00.0:   device [10de:20b5] error status/mask=..." and "[ 0] RxErr":
      // indented lines from the device of the open error.
      // Kernels 5.x put "AER: " before them: "pcieport 0000:00:1c.5: AER:   device [8086:9d15] ...".
      std::string dev = prefix_device(msg);
      size_t colon = msg.find(": ");
      std::string_view after = colon == std::string_view::npos ? std::string_view() : msg.substr(colon + 1);
      if (starts_with(after, " AER: ")) after.remove_prefix(5);
      if (!dev.empty() && dev == log.events[open_aer].device && colon != std::string_view::npos &&
          (starts_with(after, "   ") || starts_with(after, " device [") || starts_with(after, " ["))) {
        log.events[open_aer].detail_lines.push_back(line_no);
        return true;
      }
    }
    return false;
  }

  void other(std::string_view msg, KernelEvent& ev) {
    if (parse_xid(msg, "NVRM: Xid (", ev)) {
      ev.kind = KernelEventKind::kXid;
    } else if (parse_xid(msg, "SXid (", ev)) {
      ev.kind = KernelEventKind::kSxid;
    } else if (std::string lost = lost_gpu(msg); !lost.empty()) {
      ev.kind = KernelEventKind::kGpuLost;
      ev.device = lost;
    } else if (parse_edac(msg, ev)) {
      ev.kind = KernelEventKind::kEdac;
    } else if (is_iommu_proof(msg)) {
      ev.kind = KernelEventKind::kIommuEnabled;
    } else {
      probe_gpu = probe_record_gpu(msg);
      if (!probe_gpu.empty()) probe_event = ev;
      return;  // ordinary kernel chatter
    }
    log.events.push_back(std::move(ev));
    last_record_event = static_cast<int>(log.events.size()) - 1;
  }
};

// One log: its events, lines, malformed lines, and the kernel lines read in each form.
KernelLog parse_one(std::string_view text, FormLines& form_lines) {
  KernelLog log;
  std::vector<Line> lines = split_lines(text);
  log.lines = static_cast<int>(lines.size());
  // Two passes, so that no line's classification is kept: a kernel log may be large.
  const bool stamped = any_stamped(lines);
  LineReader line_reader;
  EventReader reader{log, -1, -1, false, {}, {}, {}};
  bool banner = false;
  std::vector<int> bare_lines;
  form_lines.fill(0);
  for (size_t i = 0; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    const ClassifiedLine c = line_reader.next(lines[i]);
    switch (c.kind) {
      case LineKind::kIgnored:
        continue;
      case LineKind::kMalformed:
        log.malformed_lines.push_back(line_no);
        continue;
      case LineKind::kContinuation:
        reader.dictionary(lines[i].text);
        continue;
      case LineKind::kBare:
        if (indented(lines[i].text) && reader.nvrm_continuation(line_no, c.message)) continue;
        if (stamped) {
          log.malformed_lines.push_back(line_no);
          continue;
        }
        bare_lines.push_back(line_no);
        banner = banner || is_boot_banner(c.message);
        break;
      case LineKind::kKernel:
        break;
    }
    ++form_lines[static_cast<size_t>(c.form)];
    reader.message(line_no, c);
  }
  if (!bare_lines.empty() && log.events.empty() && !banner) {
    // Nothing shows this unstamped text is a kernel log: read none of it.
    form_lines[static_cast<size_t>(KernelLogFormat::kDmesgNoTime)] = 0;
    log.malformed_lines.insert(log.malformed_lines.end(), bare_lines.begin(), bare_lines.end());
    std::sort(log.malformed_lines.begin(), log.malformed_lines.end());
  }
  return log;
}

// The form most kernel lines were read in; kUnknown when none.
KernelLogFormat main_form(const FormLines& form_lines) {
  size_t best = 0;
  for (size_t i = 1; i < kForms; ++i)
    if (form_lines[i] > form_lines[best]) best = i;
  return form_lines[best] > 0 ? static_cast<KernelLogFormat>(best) : KernelLogFormat::kUnknown;
}

// What tells the same record kept by two logs apart from two records (see kernel_log.h): one key
// for its time since boot, one for its wall clock as written; none without a stamp.
std::vector<std::string> record_keys(const KernelEvent& e) {
  const std::string what = std::to_string(static_cast<int>(e.kind)) + "|" + e.device + "|" + e.text;
  std::vector<std::string> keys;
  if (e.uptime_s) keys.push_back("u" + std::to_string(std::llround(*e.uptime_s * 1e6)) + "|" + what);
  if (e.wall) keys.push_back("w" + *e.wall + "|" + what);
  return keys;
}

}  // namespace

const char* kernel_log_format_name(KernelLogFormat f) {
  switch (f) {
    case KernelLogFormat::kKmsg:
      return "kmsg";
    case KernelLogFormat::kDmesg:
      return "dmesg";
    case KernelLogFormat::kDmesgCtime:
      return "dmesg-ctime";
    case KernelLogFormat::kDmesgIso:
      return "dmesg-iso";
    case KernelLogFormat::kDmesgNoTime:
      return "dmesg-notime";
    case KernelLogFormat::kSyslog:
      return "syslog";
    case KernelLogFormat::kSyslogIso:
      return "syslog-iso";
    case KernelLogFormat::kRfc5424:
      return "rfc5424";
    case KernelLogFormat::kJournalMonotonic:
      return "journal-monotonic";
    case KernelLogFormat::kJournalJson:
      return "journal-json";
    case KernelLogFormat::kUnknown:
      break;
  }
  return "unknown";
}

std::string normalise_pci_address(std::string_view s) {
  // scan already takes "0000:01:00" (no function, as NVRM writes it) as function 0.
  size_t used = 0;
  auto address = PciAddress::scan(s, used);
  return address && used == s.size() ? address->str() : "";
}

KernelLog parse_kernel_log(std::string_view text) {
  return parse_kernel_logs({KernelLogText{std::string(text), ""}});
}

KernelLog parse_kernel_logs(const std::vector<KernelLogText>& logs) {
  KernelLog merged;
  FormLines total{};
  std::set<std::string> seen;  // records of the parts before
  for (const KernelLogText& in : logs) {
    FormLines form_lines{};
    KernelLog one = parse_one(in.text, form_lines);
    std::vector<std::string> keys;
    for (KernelEvent& e : one.events) {
      std::vector<std::string> own = record_keys(e);
      if (std::any_of(own.begin(), own.end(), [&](const std::string& k) { return seen.count(k) > 0; })) {
        ++merged.duplicates;
        continue;
      }
      keys.insert(keys.end(), own.begin(), own.end());
      e.source = in.source;
      merged.events.push_back(std::move(e));
    }
    seen.insert(keys.begin(), keys.end());
    for (size_t f = 0; f < kForms; ++f) {
      if (form_lines[f] > 0 && total[f] == 0) merged.forms.push_back(static_cast<KernelLogFormat>(f));
      total[f] += form_lines[f];
    }
    merged.lines += one.lines;
    merged.malformed_lines.insert(merged.malformed_lines.end(), one.malformed_lines.begin(), one.malformed_lines.end());
    merged.parts.push_back({in.source, main_form(form_lines), one.lines, std::move(one.malformed_lines)});
  }
  merged.format = main_form(total);
  return merged;
}

}  // namespace gpuplan::probe
