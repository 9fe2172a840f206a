#include "probe/kernel_log_forms.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/dates.h"

namespace gpuplan::probe::detail {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

namespace {

constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

template <typename List>
bool one_of(std::string_view w, const List& list) {
  for (std::string_view x : list)
    if (w == x) return true;
  return false;
}

// "hh:mm:ss" at the start of `s`.
bool clock_at(std::string_view s) {
  return s.size() >= 8 && is_digit(s[0]) && is_digit(s[1]) && s[2] == ':' && is_digit(s[3]) && is_digit(s[4]) &&
         s[5] == ':' && is_digit(s[6]) && is_digit(s[7]);
}

// Drops one leading space (the separator after a stamp); false when something else follows.
bool after_stamp(std::string_view& rest) {
  if (rest.empty()) return true;
  if (rest.front() != ' ') return false;
  rest.remove_prefix(1);
  return true;
}

// "6,1234,5678901,-;message": priority, sequence, microseconds since boot, flags, and on newer
// kernels further comma fields (",caller=T1") before the ';'.
bool parse_kmsg(std::string_view line, ClassifiedLine& out) {
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
  out.message = std::string(line.substr(semi + 1));
  return true;
}

// "[   12.345678]" at the start of `line`: the seconds, and what follows the ']' in `rest`.
bool uptime_stamp(std::string_view line, double& seconds, std::string_view& rest) {
  if (line.size() < 4 || line[0] != '[') return false;
  size_t close = line.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view stamp = line.substr(1, close - 1);
  while (!stamp.empty() && stamp.front() == ' ') stamp.remove_prefix(1);
  size_t dot = stamp.find('.');
  if (dot == std::string_view::npos || !all_digits(stamp.substr(0, dot)) || !all_digits(stamp.substr(dot + 1)))
    return false;
  auto [p, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), seconds);
  if (ec != std::errc() || p != stamp.data() + stamp.size()) return false;
  rest = line.substr(close + 1);
  return true;
}

// `dmesg -H` (and `-wH`): "[May 6 10:00]" (util-linux's "%b%e %H:%M", so also "[Jan21 09:05]")
// on the first line of a minute, then "[  +0.000844]", the time since the line before. Neither is
// time since boot nor a full wall clock, so the line keeps no stamp.
bool human_stamp(std::string_view line, std::string_view& rest) {
  if (line.size() < 4 || line[0] != '[') return false;
  size_t close = line.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view stamp = line.substr(1, close - 1);
  rest = line.substr(close + 1);
  while (!stamp.empty() && stamp.front() == ' ') stamp.remove_prefix(1);
  if (!stamp.empty() && stamp.front() == '+') {
    stamp.remove_prefix(1);
    size_t dot = stamp.find('.');
    return dot != std::string_view::npos && dot > 0 && all_digits(stamp.substr(0, dot)) &&
           dot + 1 < stamp.size() && all_digits(stamp.substr(dot + 1));
  }
  if (stamp.size() < 10 || !one_of(stamp.substr(0, 3), kMonths)) return false;
  stamp.remove_prefix(3);
  if (stamp.front() == ' ') stamp.remove_prefix(1);
  size_t digits = 0;
  while (digits < stamp.size() && digits < 2 && is_digit(stamp[digits])) ++digits;
  if (digits == 0 || digits >= stamp.size() || stamp[digits] != ' ') return false;
  stamp.remove_prefix(digits + 1);
  return stamp.size() == 5 && is_digit(stamp[0]) && is_digit(stamp[1]) && stamp[2] == ':' && is_digit(stamp[3]) &&
         is_digit(stamp[4]);
}

// "[Mon May  6 10:00:01 2024]": the asctime layout, day of month padded with a space.
bool ctime_stamp(std::string_view line, std::string_view& stamp, std::string_view& rest) {
  constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  if (line.size() < 26 || line[0] != '[' || line[25] != ']') return false;
  std::string_view s = line.substr(1, 24);
  if (!one_of(s.substr(0, 3), kDays) || s[3] != ' ' || !one_of(s.substr(4, 3), kMonths) || s[7] != ' ') return false;
  if (!(s[8] == ' ' || is_digit(s[8])) || !is_digit(s[9]) || s[10] != ' ') return false;
  if (!clock_at(s.substr(11)) || s[19] != ' ' || !all_digits(s.substr(20, 4))) return false;
  stamp = s;
  rest = line.substr(26);
  return true;
}

// "2024-05-06T10:00:01,123456+00:00" (also ".123456", no fraction, "-0700", "Z") up to the first
// space; `comma` says whether the fraction followed a ',' (dmesg's own way of writing it).
bool iso_stamp(std::string_view line, std::string_view& stamp, std::string_view& rest, bool& comma) {
  size_t space = line.find(' ');
  std::string_view s = line.substr(0, space);
  if (s.size() < 20) return false;
  const char* p = s.data();
  if (!all_digits(s.substr(0, 4)) || p[4] != '-' || !all_digits(s.substr(5, 2)) || p[7] != '-' ||
      !all_digits(s.substr(8, 2)) || p[10] != 'T' || !clock_at(s.substr(11)))
    return false;
  size_t i = 19;
  comma = false;
  if (i < s.size() && (s[i] == ',' || s[i] == '.')) {
    comma = s[i] == ',';
    ++i;
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  }
  std::string_view zone = s.substr(i);
  const bool sign = !zone.empty() && (zone[0] == '+' || zone[0] == '-');
  const bool hh_mm =
      zone.size() == 6 && zone[3] == ':' && all_digits(zone.substr(1, 2)) && all_digits(zone.substr(4, 2));
  const bool hhmm = zone.size() == 5 && all_digits(zone.substr(1));
  if (!(zone == "Z" || (sign && (hh_mm || hhmm)))) return false;
  stamp = s;
  rest = space == std::string_view::npos ? std::string_view() : line.substr(space);
  return true;
}

// "May  6 13:02:14" (syslog), "May 06 13:02:14" (journalctl short), "May 06 13:02:14.548779"
// (short-precise).
bool month_stamp(std::string_view line, std::string_view& stamp, std::string_view& rest) {
  if (line.size() < 15 || !one_of(line.substr(0, 3), kMonths) || line[3] != ' ') return false;
  if (!(line[4] == ' ' || is_digit(line[4])) || !is_digit(line[5]) || line[6] != ' ' || !clock_at(line.substr(7)))
    return false;
  size_t end = 15;
  if (end < line.size() && line[end] == '.') {
    size_t start = ++end;
    while (end < line.size() && is_digit(line[end])) ++end;
    if (end == start) return false;
  }
  stamp = line.substr(0, end);
  rest = line.substr(end);
  return true;
}

// A syslog tag: "kernel", "systemd[1]", "CRON[4242]", "sudo".
bool is_tag(std::string_view t) {
  if (t.empty()) return false;
  size_t open = t.find('[');
  std::string_view name = t.substr(0, open);
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/' || c == '@'))
      return false;
  if (open == std::string_view::npos) return true;
  return t.back() == ']' && all_digits(t.substr(open + 1, t.size() - open - 2));
}

struct Tagged {
  bool found = false;   // "host tag: " (or "tag: " with no host) after the stamp
  bool kernel = false;  // the tag is "kernel"
  bool pid = false;     // the tag carries "[pid]": surely a program, not a kernel message
  std::string_view message;
};

// After a syslog or journal stamp: " host tag: message" or, as some tools print it, " tag: message".
Tagged host_and_tag(std::string_view rest) {
  Tagged t;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  auto tag_at = [&](std::string_view s) {
    size_t colon = s.find(':');
    if (colon == std::string_view::npos || (colon + 1 < s.size() && s[colon + 1] != ' ')) return false;
    std::string_view tag = s.substr(0, colon);
    if (tag.find(' ') != std::string_view::npos || !is_tag(tag)) return false;
    t.found = true;
    t.kernel = tag == "kernel";
    t.pid = tag.find('[') != std::string_view::npos;
    t.message = s.substr(std::min(s.size(), colon + 2));
    return true;
  };
  if (starts_with(rest, "kernel:") && tag_at(rest)) return t;  // no host written
  size_t space = rest.find(' ');
  if (space == std::string_view::npos) return t;
  std::string_view host = rest.substr(0, space);
  if (host.empty() || host.find(':') != std::string_view::npos) return t;
  tag_at(rest.substr(space + 1));
  return t;
}

// A syslog-kept kernel message: rsyslog's "[6781741.548779] " uptime (not a stack trace's "[<c0149>]").
void kernel_message(std::string_view message, ClassifiedLine& out) {
  double seconds = 0;
  std::string_view rest;
  if (uptime_stamp(message, seconds, rest) && after_stamp(rest)) {
    out.uptime_s = seconds;
    message = rest;
  }
  out.kind = LineKind::kKernel;
  out.message = std::string(message);
}

// A syslog or journal line after its stamp: the kernel's message, or another program's line.
void syslog_line(std::string_view stamp, std::string_view rest, KernelLogFormat form, ClassifiedLine& out) {
  Tagged t = host_and_tag(rest);
  out.form = form;
  if (!t.found) {
    out.kind = LineKind::kMalformed;
    return;
  }
  out.wall = std::string(stamp);
  if (!t.kernel) {
    out.kind = LineKind::kIgnored;
    return;
  }
  kernel_message(t.message, out);
}

// "<4>1 2024-05-06T13:02:14.123456+00:00 host kernel - - - msg": after the version, the
// timestamp, host, app, procid, msgid, structured data ("-" or "[...]" elements) and the message.
bool parse_rfc5424(std::string_view line, ClassifiedLine& out) {
  if (line.size() < 4 || line[0] != '<') return false;
  size_t close = line.find('>');
  if (close == std::string_view::npos || close > 4 || !all_digits(line.substr(1, close - 1))) return false;
  std::string_view rest = line.substr(close + 1);
  if (!starts_with(rest, "1 ")) return false;
  rest.remove_prefix(2);
  std::array<std::string_view, 5> f;  // timestamp, host, app, procid, msgid
  for (auto& field : f) {
    size_t space = rest.find(' ');
    if (space == std::string_view::npos) return false;
    field = rest.substr(0, space);
    rest.remove_prefix(space + 1);
  }
  if (rest.empty()) return false;
  if (rest.front() == '-') {
    rest.remove_prefix(1);
  } else {
    while (!rest.empty() && rest.front() == '[') {  // SD elements; "\]" inside a value is escaped
      size_t i = 1;
      while (i < rest.size() && !(rest[i] == ']' && rest[i - 1] != '\\')) ++i;
      if (i == rest.size()) return false;
      rest.remove_prefix(i + 1);
    }
  }
  if (!after_stamp(rest)) return false;
  if (starts_with(rest, "\xEF\xBB\xBF")) rest.remove_prefix(3);  // the BOM RFC 5424 allows before UTF-8 text
  out.form = KernelLogFormat::kRfc5424;
  if (f[0] != "-") out.wall = std::string(f[0]);
  if (f[2] != "kernel") {
    out.kind = LineKind::kIgnored;
    return true;
  }
  kernel_message(rest, out);
  return true;
}

// A string field of a journal entry; "" when absent or not a string.
std::string json_text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// `journalctl -o json`: MESSAGE is a string, or an array of byte values when it is not valid
// UTF-8 text (or holds control characters); the kernel's own entries have _TRANSPORT=kernel.
void parse_json(std::string_view line, ClassifiedLine& out) {
  out.form = KernelLogFormat::kJournalJson;
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    out.kind = LineKind::kMalformed;
    return;
  }
  if (json_text(j, "_TRANSPORT") != "kernel" && json_text(j, "SYSLOG_IDENTIFIER") != "kernel") {
    out.kind = LineKind::kIgnored;
    return;
  }
  std::string message;
  auto m = j.find("MESSAGE");
  if (m != j.end() && m->is_string()) {
    message = m->get<std::string>();
  } else if (m != j.end() && m->is_array()) {
    for (const auto& b : *m) {
      if (!b.is_number_unsigned() || b.get<uint64_t>() > 255) {
        out.kind = LineKind::kMalformed;
        return;
      }
      message += static_cast<char>(b.get<uint64_t>());
    }
  } else {
    out.kind = LineKind::kIgnored;  // journald drops MESSAGE (null) past its field size limit
    return;
  }
  message = message.substr(0, message.find('\n'));
  // Since boot as the kernel stamped the record, the same number /dev/kmsg shows.
  std::string mono = json_text(j, "_SOURCE_MONOTONIC_TIMESTAMP");
  uint64_t usec = 0;
  if (all_digits(mono) && std::from_chars(mono.data(), mono.data() + mono.size(), usec).ec == std::errc())
    out.uptime_s = static_cast<double>(usec) / 1e6;
  std::string real = json_text(j, "__REALTIME_TIMESTAMP");
  // Beyond what the system clock holds (about the year 2262) is no time a record was written: left
  // without one rather than overflowed into another.
  constexpr auto kClockMax = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::duration::max());
  if (all_digits(real) && std::from_chars(real.data(), real.data() + real.size(), usec).ec == std::errc() &&
      usec <= static_cast<uint64_t>(kClockMax.count()))
    out.wall = iso_utc(std::chrono::system_clock::time_point(std::chrono::microseconds(usec)));
  std::string device = json_text(j, "_KERNEL_DEVICE");
  if (starts_with(device, "+pci:")) out.device = normalise_pci_address(std::string_view(device).substr(5));
  out.kind = LineKind::kKernel;
  out.message = std::move(message);
}

// `dmesg --decode` (-x) writes the facility and level first, each padded: "kern  :warn  : ".
std::string_view without_decode_prefix(std::string_view line) {
  size_t i = 0;
  auto word = [&] {
    size_t start = i;
    while (i < line.size() && line[i] >= 'a' && line[i] <= 'z') ++i;
    const bool any = i > start;
    while (i < line.size() && line[i] == ' ') ++i;
    return any && i < line.size() && line[i] == ':';
  };
  if (!word()) return line;
  ++i;
  if (!word() || i + 1 >= line.size() || line[i + 1] != ' ') return line;
  return line.substr(i + 2);
}

bool has_control_characters(std::string_view line) {
  for (char c : line)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return true;
  return false;
}

// The stamped forms that begin with '[' or a date; false when the line is in none of them.
bool parse_stamped(std::string_view line, ClassifiedLine& out) {
  std::string_view stamp, rest;
  double seconds = 0;
  bool comma = false;
  if (ctime_stamp(line, stamp, rest)) {
    if (!after_stamp(rest)) return false;
    out.kind = LineKind::kKernel;
    out.form = KernelLogFormat::kDmesgCtime;
    out.wall = std::string(stamp);
    out.message = std::string(rest);
    return true;
  }
  if (uptime_stamp(line, seconds, rest)) {
    if (!after_stamp(rest)) return false;
    out.uptime_s = seconds;
    // `journalctl -o short-monotonic` writes the host and "kernel:" after the stamp; dmesg never does.
    if (Tagged t = host_and_tag(rest); t.found && t.kernel) {
      out.form = KernelLogFormat::kJournalMonotonic;
      out.kind = LineKind::kKernel;
      out.message = std::string(t.message);
      return true;
    }
    out.kind = LineKind::kKernel;
    out.form = KernelLogFormat::kDmesg;
    out.message = std::string(rest);
    return true;
  }
  if (iso_stamp(line, stamp, rest, comma)) {
    // dmesg writes its fraction after a ','; journalctl and rsyslog after a '.'. A '.'-stamped
    // line is syslog when a host and the tag "kernel:" or a "program[pid]:" follow; else dmesg's.
    Tagged t = comma ? Tagged{} : host_and_tag(rest);
    if (t.found && (t.kernel || t.pid)) {
      syslog_line(stamp, rest, KernelLogFormat::kSyslogIso, out);
      return true;
    }
    if (!after_stamp(rest)) return false;
    out.kind = LineKind::kKernel;
    out.form = KernelLogFormat::kDmesgIso;
    out.wall = std::string(stamp);
    out.message = std::string(rest);
    return true;
  }
  if (month_stamp(line, stamp, rest)) {
    syslog_line(stamp, rest, KernelLogFormat::kSyslog, out);
    return true;
  }
  if (human_stamp(line, rest)) {
    if (!after_stamp(rest)) return false;
    out.kind = LineKind::kKernel;
    out.form = KernelLogFormat::kDmesg;
    out.message = std::string(rest);
    return true;
  }
  return false;
}

}  // namespace

ClassifiedLine classify_line(std::string_view line) {
  ClassifiedLine out;
  if (line.front() == '{') {
    parse_json(line, out);
    return out;
  }
  if (has_control_characters(line)) return out;
  if (starts_with(line, "-- ")) {  // a journal header: "-- Boot 0f3c... --", "-- No entries --"
    out.kind = LineKind::kIgnored;
    return out;
  }
  line = without_decode_prefix(line);
  if (line.empty()) return out;
  if (line.front() == ' ') {
    out.kind = LineKind::kContinuation;
    out.message = std::string(line);
    return out;
  }
  out.form = KernelLogFormat::kKmsg;
  if (parse_kmsg(line, out)) {
    out.kind = LineKind::kKernel;
    return out;
  }
  out = ClassifiedLine{};
  if (parse_rfc5424(line, out)) return out;
  out = ClassifiedLine{};
  std::string_view body = line;
  // `dmesg -r` and syslog lines forwarded raw start with the "<priority>" the kernel gave them.
  if (body.front() == '<') {
    size_t close = body.find('>');
    if (close != std::string_view::npos && close <= 4 && all_digits(body.substr(1, close - 1)))
      body.remove_prefix(close + 1);
  }
  if (!body.empty() && parse_stamped(body, out)) return out;
  out = ClassifiedLine{};
  out.kind = LineKind::kBare;
  out.form = KernelLogFormat::kDmesgNoTime;
  out.message = std::string(line);
  return out;
}

}  // namespace gpuplan::probe::detail
