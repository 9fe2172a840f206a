#include "accept/buyer_files.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <regex>

#include "accept/check_helpers.h"
#include "core/text.h"

namespace gpuplan::accept {

using detail::base_name;

namespace {

bool is_sha256(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

Result<std::map<std::string, std::string>> parse_checksums(std::string_view text, const std::string& file) {
  std::map<std::string, std::string> out;
  int line_no = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(at, end - at));
    ++line_no;
    at = end + 1;
    if (line.empty() || line.front() == '#') continue;
    std::string hash, name;
    // BSD style, as `sha256sum --tag` and macOS `shasum` write it: "SHA256 (name) = hex".
    if (line.rfind("SHA256 (", 0) == 0) {
      size_t close = line.rfind(") = ");
      if (close != std::string_view::npos) {
        name = std::string(line.substr(8, close - 8));
        hash = std::string(trim(line.substr(close + 4)));
      }
    } else {
      size_t space = line.find_first_of(" \t");
      if (space != std::string_view::npos) {
        hash = std::string(line.substr(0, space));
        std::string_view rest = trim(line.substr(space));
        if (!rest.empty() && rest.front() == '*') rest.remove_prefix(1);  // binary-mode marker
        name = std::string(rest);
      }
    }
    if (!is_sha256(hash) || name.empty()) return Error{file, line_no, "", Phrase("error.checksums.malformed")};
    out[base_name(name)] = lower(hash);
  }
  return out;
}

namespace {

// Benchmark lines are short ("total images/sec: 1875.30"); std::regex recurses once per character
// it matches, so a multi-megabyte line (a progress bar without newlines, binary junk) could
// overflow the stack. Longer lines are skipped unread.
constexpr size_t kMaxBenchmarkLine = 1024;

// "14,800" → 14800; nullopt when the number does not fit a finite double (a 400-digit figure).
std::optional<double> figure_value(std::string digits) {
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> parse_images_per_second(std::string_view text) {
  // "images/sec: 1875.3" (tf_cnn_benchmarks) names the figure after its label; "1875 img/s" and
  // "throughput: 14800 images/s" after the number. A label followed by ':' belongs to the first
  // form, so "100 images/sec: 1870" (a step number before the label) is not read as 100.
  static const std::regex label_first(
      R"((?:images?|img)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?\s*[:=]\s*([0-9][0-9,]*(?:\.[0-9]+)?))", std::regex::icase);
  static const std::regex number_first(
      R"(([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:images?|img)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?\b(?!\s*[:=]))",
      std::regex::icase);
  std::optional<double> best;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.size() > kMaxBenchmarkLine) continue;
    // The figure furthest right on the line; lines come in order, so the last line's wins.
    std::optional<double> in_line;
    std::ptrdiff_t best_at = -1;
    const std::string s(line);
    for (const std::regex* re : {&label_first, &number_first}) {
      for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator(); ++it) {
        std::ptrdiff_t pos = it->position(1);
        if (pos < best_at) continue;
        auto v = figure_value((*it)[1].str());
        if (!v) continue;
        in_line = v;
        best_at = pos;
      }
    }
    if (in_line) best = in_line;
  }
  return best;
}

}  // namespace gpuplan::accept
