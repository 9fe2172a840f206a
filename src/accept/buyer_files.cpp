#include "accept/buyer_files.h"

#include <algorithm>
#include <cctype>

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

}  // namespace gpuplan::accept
