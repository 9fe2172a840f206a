#include "core/text.h"

#include <algorithm>
#include <numeric>

namespace gpuplan {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = word.size() / 3 + 1;  // this far or farther is not a typo
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    // On a tie a same-length candidate wins: a mistyped letter is likelier than a dropped one.
    bool tie_wins = d == best_distance && c.size() == word.size() && best.size() != word.size();
    if (d < best_distance || tie_wins) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string n = nearest(word, candidates);
  return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

}  // namespace gpuplan
