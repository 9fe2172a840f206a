// Small text helpers shared by parsers: nearest-name suggestions for typos.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a likely typo.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpuplan
