// smartctl's terminal output for an NVMe drive. The labels are smartctl's own
// (smartmontools nvmeprint.cpp): they are stable across 6.x and 7.x, while the column where
// values start is not (it follows the longest label printed), so a line is read as
// "label: value" whatever the spacing.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/text.h"
#include "probe/tools.h"

namespace gpuplan::probe {
namespace {

// "2,354,229,498", "6 251 884" (a locale's grouping), "837 355 [428 GB]" → the count; nullopt
// when the value is not a whole number.
std::optional<uint64_t> grouped_count(std::string_view v) {
  if (size_t bracket = v.find('['); bracket != std::string_view::npos) v = v.substr(0, bracket);
  std::string digits;
  for (char c : trim(v)) {
    if (c == ',' || c == ' ' || c == '\'' || c == '.') continue;
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    digits += c;
  }
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

// "0x04" → 4.
std::optional<uint64_t> hex_value(std::string_view v) {
  v = trim(v);
  if (v.size() < 3 || v.size() > 18 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return std::nullopt;
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data() + 2, v.data() + v.size(), n, 16);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return n;
}

}  // namespace

Result<SmartNvme> parse_smartctl_text(std::string_view text) {
  SmartNvme s;
  bool health_log = false;
  int line_no = 0;
  size_t at = 0;
  auto bad = [&](const char* field, const char* expected) { return Error{"", line_no, field, Phrase(expected)}; };
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(at, end - at));
    at = end + 1;
    ++line_no;
    // A pasted command names the device: "# smartctl -a /dev/nvme0", "$ sudo smartctl -x /dev/nvme1n1".
    if (s.device.empty() && line.find("smartctl ") != std::string_view::npos) {
      if (size_t dev = line.find("/dev/"); dev != std::string_view::npos)
        s.device = std::string(line.substr(dev, line.find_first_of(" \t", dev) - dev));
    }
    if (line.rfind("SMART/Health Information (NVMe Log 0x02", 0) == 0) health_log = true;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view label = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (label == "Model Number") {
      s.model = std::string(value);
    } else if (label == "Serial Number") {
      s.serial = std::string(value);
    } else if (label == "Firmware Version") {
      s.firmware = std::string(value);
    } else if (label == "SMART overall-health self-assessment test result") {
      // "PASSED", or "FAILED!" followed by the reason on the next lines.
      if (value.rfind("PASSED", 0) == 0)
        s.smart_passed = true;
      else if (value.rfind("FAILED", 0) == 0)
        s.smart_passed = false;
    } else if (health_log && label == "Critical Warning") {
      if (!(s.critical_warning = hex_value(value))) return bad("Critical Warning", "error.smart.text_hex");
    } else if (health_log && label == "Percentage Used") {
      auto used =
          value.empty() || value.back() != '%' ? std::nullopt : grouped_count(value.substr(0, value.size() - 1));
      if (!used) return bad("Percentage Used", "error.smart.text_percent");
      // NVMe lets the estimate pass 100 (up to 255) once the rated endurance is used up.
      if (*used > 255)
        return Error{"", line_no, "Percentage Used",
                     Phrase("error.smart.percentage_range").fact("got", std::to_string(*used))};
      s.percentage_used = static_cast<int>(*used);
    } else if (health_log && label == "Media and Data Integrity Errors") {
      if (!(s.media_errors = grouped_count(value)))
        return bad("Media and Data Integrity Errors", "error.smart.text_count");
    }
  }
  if (!health_log) return Error{"", 0, "", Phrase("error.smart.text_no_health_log")};
  return s;
}

Result<SmartNvme> parse_smartctl(std::string_view text) {
  const std::string_view body = trim(text);
  if (!body.empty() && body.front() == '{') return parse_smartctl_json(text);
  return parse_smartctl_text(text);
}

}  // namespace gpuplan::probe
