#include "probe/kernel_log.h"

#include <array>
#include <charconv>

#include "core/pci_address.h"

namespace gpuplan::probe {
namespace {

constexpr int kDetectLines = 20;  // non-blank lines that decide the format
constexpr int kAerDetailWindow = 6;  // lines after an AER header that may still belong to it

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// --- the four timestamp forms --------------------------------------------------------------------

struct Stamped {
  std::optional<double> uptime_s;
  std::optional<std::string> wall;
  std::string_view message;
};

// "6,1234,5678901,-;message": priority, sequence, microseconds since boot, flags, and on newer
// kernels further comma fields (",caller=T1") before the ';'.
bool parse_kmsg(std::string_view line, Stamped& out) {
  size_t semi = line.find(';');
  if (semi == std::string_view::npos) return false;
  std::string_view head = line.substr(0, semi);
  std::array<std::string_view, 4> f;
  for (size_t i = 0; i < 4; ++i) {
    size_t comma = head.find(',');
    if (i < 3 && comma == std::string_view::npos) return false;
    f[i] = head.substr(0, comma);
    head = comma == std::string_view::npos ? std::string_view() : head.substr(comma + 1);
  }
  if (!all_digits(f[0]) || !all_digits(f[1]) || !all_digits(f[2]) || f[3].empty()) return false;
  uint64_t usec = 0;
  auto [p, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), usec);
  if (ec != std::errc() || p != f[2].data() + f[2].size()) return false;
  out.uptime_s = static_cast<double>(usec) / 1e6;
  out.message = line.substr(semi + 1);
  return true;
}

// "[   12.345678] message"
bool parse_dmesg(std::string_view line, Stamped& out) {
  if (line.size() < 4 || line[0] != '[') return false;
  size_t close = line.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view stamp = line.substr(1, close - 1);
  while (!stamp.empty() && stamp.front() == ' ') stamp.remove_prefix(1);
  size_t dot = stamp.find('.');
  if (dot == std::string_view::npos || !all_digits(stamp.substr(0, dot)) || !all_digits(stamp.substr(dot + 1)))
    return false;
  double v = 0;
  auto [p, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), v);
  if (ec != std::errc() || p != stamp.data() + stamp.size()) return false;
  std::string_view rest = line.substr(close + 1);
  if (!rest.empty() && rest.front() != ' ') return false;
  if (!rest.empty()) rest.remove_prefix(1);
  out.uptime_s = v;
  out.message = rest;
  return true;
}

// "[Mon May  6 10:00:01 2024] message": the asctime layout, day of month padded with a space.
bool parse_ctime(std::string_view line, Stamped& out) {
  constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  // "[" + "Www Mmm dd hh:mm:ss yyyy" (24) + "]"
  if (line.size() < 26 || line[0] != '[' || line[25] != ']') return false;
  std::string_view s = line.substr(1, 24);
  auto one_of = [](std::string_view w, const auto& list) {
    for (std::string_view x : list)
      if (w == x) return true;
    return false;
  };
  if (!one_of(s.substr(0, 3), kDays) || s[3] != ' ' || !one_of(s.substr(4, 3), kMonths) || s[7] != ' ') return false;
  if (!(s[8] == ' ' || is_digit(s[8])) || !is_digit(s[9]) || s[10] != ' ') return false;
  if (!is_digit(s[11]) || !is_digit(s[12]) || s[13] != ':' || !is_digit(s[14]) || !is_digit(s[15]) || s[16] != ':' ||
      !is_digit(s[17]) || !is_digit(s[18]) || s[19] != ' ' || !all_digits(s.substr(20, 4)))
    return false;
  std::string_view rest = line.substr(26);
  if (!rest.empty() && rest.front() != ' ') return false;
  if (!rest.empty()) rest.remove_prefix(1);
  out.wall = std::string(s);
  out.message = rest;
  return true;
}

// "2024-05-06T10:00:01,123456+00:00 message"
bool parse_iso(std::string_view line, Stamped& out) {
  size_t space = line.find(' ');
  std::string_view s = line.substr(0, space);
  if (s.size() < 20) return false;
  const char* p = s.data();
  if (!all_digits(s.substr(0, 4)) || p[4] != '-' || !all_digits(s.substr(5, 2)) || p[7] != '-' ||
      !all_digits(s.substr(8, 2)) || p[10] != 'T' || !all_digits(s.substr(11, 2)) || p[13] != ':' ||
      !all_digits(s.substr(14, 2)) || p[16] != ':' || !all_digits(s.substr(17, 2)))
    return false;
  size_t i = 19;
  if (i < s.size() && (s[i] == ',' || s[i] == '.')) {
    ++i;
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  }
  // The zone: "+00:00", "-0700" or "Z".
  std::string_view zone = s.substr(i);
  const bool sign = !zone.empty() && (zone[0] == '+' || zone[0] == '-');
  const bool hh_mm = zone.size() == 6 && zone[3] == ':' && all_digits(zone.substr(1, 2)) && all_digits(zone.substr(4, 2));
  const bool hhmm = zone.size() == 5 && all_digits(zone.substr(1));
  const bool zone_ok = zone == "Z" || (sign && (hh_mm || hhmm));
  if (!zone_ok) return false;
  out.wall = std::string(s);
  out.message = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
  return true;
}

using StampParser = bool (*)(std::string_view, Stamped&);

struct Form {
  KernelLogFormat format;
  StampParser parse;
};
constexpr Form kForms[] = {
    {KernelLogFormat::kKmsg, parse_kmsg},
    {KernelLogFormat::kDmesg, parse_dmesg},
    {KernelLogFormat::kDmesgCtime, parse_ctime},
    {KernelLogFormat::kDmesgIso, parse_iso},
};

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

bool blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t') return false;
  return true;
}

KernelLogFormat detect_format(const std::vector<Line>& lines) {
  int votes[std::size(kForms)] = {};
  int seen = 0;
  for (const Line& l : lines) {
    if (seen == kDetectLines) break;
    if (blank(l.text) || l.text.front() == ' ') continue;  // kmsg continuation lines vote for nothing
    ++seen;
    Stamped s;
    for (size_t i = 0; i < std::size(kForms); ++i)
      if (kForms[i].parse(l.text, s)) ++votes[i];
  }
  size_t best = 0;
  for (size_t i = 1; i < std::size(kForms); ++i)
    if (votes[i] > votes[best]) best = i;
  return votes[best] > 0 ? kForms[best].format : KernelLogFormat::kUnknown;
}

// --- events --------------------------------------------------------------------------------------

// The "dddd:bb:dd.f" address at the start of `s` (or "bb:dd.f", "dddd:bb:dd") as events carry it,
// its length in `used`; "" when there is none.
std::string pci_address_at(std::string_view s, size_t& used) {
  auto address = PciAddress::scan(s, used);
  return address ? address->str() : "";
}

// The device a driver message is about: "nvidia 0000:01:00.0: ..." → "0000:01:00.0".
std::string prefix_device(std::string_view msg) {
  size_t space = msg.find(' ');
  if (space == std::string_view::npos) return "";
  size_t used = 0;
  std::string dev = pci_address_at(msg.substr(space + 1), used);
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

}  // namespace

const char* kernel_log_format_name(KernelLogFormat f) {
  switch (f) {
    case KernelLogFormat::kKmsg: return "kmsg";
    case KernelLogFormat::kDmesg: return "dmesg";
    case KernelLogFormat::kDmesgCtime: return "dmesg-ctime";
    case KernelLogFormat::kDmesgIso: return "dmesg-iso";
    case KernelLogFormat::kUnknown: break;
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
  KernelLog log;
  std::vector<Line> lines = split_lines(text);
  log.lines = static_cast<int>(lines.size());
  log.format = detect_format(lines);
  StampParser parse = nullptr;
  for (const Form& f : kForms)
    if (f.format == log.format) parse = f.parse;

  bool have_record = false;   // a kmsg continuation line needs a record before it
  int last_record_event = -1;  // index in events of the event the current kmsg record made
  int open_aer = -1;           // the AER event later detail lines may still fold into
  for (size_t i = 0; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    std::string_view raw = lines[i].text;
    if (blank(raw) && lines[i].complete) continue;
    if (!lines[i].complete || !parse) {
      log.malformed_lines.push_back(line_no);
      continue;
    }
    if (log.format == KernelLogFormat::kKmsg && raw.front() == ' ') {
      if (!have_record) {
        log.malformed_lines.push_back(line_no);
        continue;
      }
      // The record's dictionary (" SUBSYSTEM=pci", " DEVICE=+pci:0000:01:00.0"): it may name
      // the device a message without an address is about.
      constexpr std::string_view kDevice = " DEVICE=+pci:";
      if (last_record_event >= 0 && starts_with(raw, kDevice) && log.events[last_record_event].device.empty())
        log.events[last_record_event].device = normalise_pci_address(raw.substr(kDevice.size()));
      continue;
    }
    Stamped st;
    if (!parse(raw, st)) {
      log.malformed_lines.push_back(line_no);
      continue;
    }
    have_record = true;
    last_record_event = -1;

    KernelEvent ev;
    ev.kind = KernelEventKind::kAer;  // set for real below; never copied indeterminate
    ev.line = line_no;
    ev.uptime_s = st.uptime_s;
    ev.wall = st.wall;
    ev.text = std::string(st.message);
    std::string_view msg = st.message;

    if (open_aer >= 0 && line_no - log.events[open_aer].line > kAerDetailWindow) open_aer = -1;
    KernelEvent aer = ev;
    if (parse_bus_error(msg, aer)) {
      // The detail line of the header just before it, for the same device: one error, one event.
      if (open_aer >= 0) {
        KernelEvent& head = log.events[open_aer];
        if (head.aer_type.empty() && (head.device == aer.device || head.device.empty())) {
          head.aer_type = aer.aer_type;
          if (head.device.empty()) head.device = aer.device;
          head.detail_lines.push_back(line_no);
          continue;
        }
      }
      aer.kind = KernelEventKind::kAer;
      log.events.push_back(std::move(aer));
      open_aer = last_record_event = static_cast<int>(log.events.size()) - 1;
      continue;
    }
    if (parse_aer_header(msg, aer)) {
      aer.kind = KernelEventKind::kAer;
      log.events.push_back(std::move(aer));
      open_aer = last_record_event = static_cast<int>(log.events.size()) - 1;
      continue;
    }
    if (open_aer >= 0) {
      // "nvidia 0000:01:00.0:   device [10de:20b5] error status/mask=..." and "[ 0] RxErr":
      // indented lines from the device of the open error.
      std::string dev = prefix_device(msg);
      size_t colon = msg.find(": ");
      if (!dev.empty() && dev == log.events[open_aer].device && colon != std::string_view::npos &&
          starts_with(msg.substr(colon + 1), "   ")) {
        log.events[open_aer].detail_lines.push_back(line_no);
        continue;
      }
    }
    if (parse_xid(msg, "NVRM: Xid (", ev)) {
      ev.kind = KernelEventKind::kXid;
    } else if (parse_xid(msg, "SXid (", ev)) {
      ev.kind = KernelEventKind::kSxid;
    } else if (is_iommu_proof(msg)) {
      ev.kind = KernelEventKind::kIommuEnabled;
    } else {
      continue;  // ordinary kernel chatter
    }
    log.events.push_back(std::move(ev));
    last_record_event = static_cast<int>(log.events.size()) - 1;
  }
  return log;
}

}  // namespace gpuplan::probe
