#include "probe/lspci.h"

#include <cctype>
#include <charconv>
#include <regex>

#include "core/text.h"

namespace gpuplan::probe {
namespace {

// "19:00.0 3D controller: …", "0000:19:00.0 …": a header starts its line, unindented.
bool header(std::string_view line, std::string& address, std::string& description) {
  static const std::regex head(R"(^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.+)$)");
  if (line.empty() || std::isspace(static_cast<unsigned char>(line.front()))) return false;
  if (line.size() > 512) return false;
  const std::string s(line);
  std::smatch m;
  if (!std::regex_match(s, m, head)) return false;
  address = lower(m[1].str());
  if (address.size() == 7) address = "0000:" + address;
  description = m[2].str();
  return true;
}

// "Speed 32GT/s (ok), Width x16 (ok)", "Port #0, Speed 2.5GT/s, Width x16, ASPM L1" → the link;
// an Error when a Speed or Width is written but is not a number.
Result<PciLink> link_of(std::string_view value, int line) {
  PciLink link;
  const std::string s(value);
  static const std::regex speed(R"(\bSpeed\s+([^,\s(]+))");
  static const std::regex width(R"(\bWidth\s+x([^,\s(]+))");
  std::smatch m;
  if (std::regex_search(s, m, speed)) {
    std::string v = m[1].str();
    if (v.size() > 4 && v.compare(v.size() - 4, 4, "GT/s") == 0) v.resize(v.size() - 4);
    double gts = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), gts);
    // A link that is down shows "Speed unknown": no speed, not an error.
    if (m[1].str() != "unknown") {
      if (ec != std::errc() || end != v.data() + v.size() || gts <= 0)
        return Error{"", line, "Speed", Phrase("error.lspci.speed").fact("got", m[1].str())};
      link.speed_gts = gts;
    }
  }
  if (std::regex_search(s, m, width)) {
    int lanes = 0;
    const std::string v = m[1].str();
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), lanes);
    if (ec != std::errc() || end != v.data() + v.size() || lanes < 0 || lanes > 32)
      return Error{"", line, "Width", Phrase("error.lspci.width").fact("got", "x" + v)};
    if (lanes > 0) link.width = lanes;  // a link that is down shows "Width x0"
  }
  return link;
}

// "RxErr+ BadTLP+ BadDLLP- Timeout+" → {"RxErr", "BadTLP", "Timeout"}.
std::vector<std::string> set_bits(std::string_view value) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < value.size()) {
    size_t end = value.find_first_of(" \t", at);
    if (end == std::string_view::npos) end = value.size();
    std::string_view word = value.substr(at, end - at);
    if (word.size() > 1 && word.back() == '+') out.emplace_back(word.substr(0, word.size() - 1));
    at = end + 1;
  }
  return out;
}

}  // namespace

bool LspciDevice::nvidia_gpu() const {
  const bool display =
      description.rfind("3D controller:", 0) == 0 || description.rfind("VGA compatible controller:", 0) == 0;
  return display && description.find("NVIDIA") != std::string::npos;
}

Result<std::vector<LspciDevice>> parse_lspci_vvv(std::string_view text) {
  std::vector<LspciDevice> out;
  bool any_status = false;
  int line_no = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string address, description;
    if (header(raw, address, description)) {
      LspciDevice d;
      d.address = address;
      d.description = description;
      d.line = line_no;
      out.push_back(std::move(d));
      continue;
    }
    const std::string_view line = trim(raw);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view label = line.substr(0, colon);
    const std::string_view value = trim(line.substr(colon + 1));
    const bool link_line = label == "LnkCap" || label == "LnkSta";
    const bool aer_line = label == "UESta" || label == "CESta";
    if (!link_line && !aer_line) continue;
    if (out.empty()) {  // a paste cut above its device
      LspciDevice d;
      d.line = line_no;
      out.push_back(std::move(d));
    }
    LspciDevice& d = out.back();
    if (link_line) {
      auto link = link_of(value, line_no);
      if (!link) return link.error();
      if (label == "LnkCap") {
        d.capability = *link;
      } else {
        d.status = *link;
        d.status_line = line_no;
        static const std::regex speed_down(R"(\bSpeed\s+\S+\s+\(downgraded\))");
        static const std::regex width_down(R"(\bWidth\s+x\S+\s+\(downgraded\))");
        const std::string v(value);
        d.speed_downgraded = std::regex_search(v, speed_down);
        d.width_downgraded = std::regex_search(v, width_down);
        any_status = true;
      }
      continue;
    }
    std::vector<std::string> bits = set_bits(value);
    if (!bits.empty() && d.aer_line == 0) d.aer_line = line_no;
    (label == "UESta" ? d.uncorrectable : d.correctable) = std::move(bits);
  }
  if (!any_status) return Error{"", 0, "LnkSta", Phrase("error.lspci.no_link_status")};
  return out;
}

}  // namespace gpuplan::probe
