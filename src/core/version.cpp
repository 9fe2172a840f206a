#include "core/version.h"

#include <algorithm>

namespace gpuplan {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The dot-separated components of `v`, each reduced to its leading digits without leading zeros
// ("03" → "3", "0" → "", "140abc" → "140"): two such strings compare as numbers by length, then
// lexically, whatever their length.
std::vector<std::string_view> components(std::string_view v) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (true) {
    size_t dot = v.find('.', at);
    std::string_view part = v.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at);
    size_t digits = 0;
    while (digits < part.size() && is_digit(part[digits])) ++digits;
    part = part.substr(0, digits);
    while (!part.empty() && part.front() == '0') part.remove_prefix(1);
    out.push_back(part);
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  return out;
}

int compare_number(std::string_view x, std::string_view y) {
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  int c = x.compare(y);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  auto pa = components(a), pb = components(b);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    std::string_view x = i < pa.size() ? pa[i] : std::string_view(), y = i < pb.size() ? pb[i] : std::string_view();
    if (int c = compare_number(x, y)) return c;
  }
  return 0;
}

bool version_in(std::string_view v, const std::vector<std::string>& allowed) {
  auto pv = components(v);
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) {
    if (compare_versions(v, a) == 0) return true;
    // A release of `a`: more components than `a`, the first ones equal to a's.
    auto pa = components(a);
    if (pv.size() <= pa.size()) return false;
    for (size_t i = 0; i < pa.size(); ++i)
      if (compare_number(pv[i], pa[i]) != 0) return false;
    return true;
  });
}

}  // namespace gpuplan
