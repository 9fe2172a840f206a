#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace gpuplan {

std::string_view trim(std::string_view s) {
  return trim_chars(s, " \t\n\v\f\r");
}

std::string_view trim_chars(std::string_view s, std::string_view front, std::string_view back) {
  while (!s.empty() && front.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
  while (!s.empty() && back.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  return s;
}

std::string shell_quoted(std::string_view text) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:@%+=,-").find(c) != std::string_view::npos;
  };
  bool all_plain = !text.empty();
  for (char c : text) all_plain = all_plain && plain(c);
  if (all_plain) return std::string(text);
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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

Fact did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string n = nearest(word, candidates);
  Fact hint{"hint", {}, std::nullopt, {}, {}};
  if (!n.empty()) hint.phrases.push_back(Phrase("error.did_you_mean").fact("nearest", n));
  return hint;
}

Phrase unknown_id(std::string kind, std::string id, const std::vector<std::string>& candidates) {
  // A list a reader can scan is given whole; a longer one is left to `gpuplan catalog list`.
  constexpr size_t kListedIds = 24;
  Phrase p("error.unknown_id");
  p.fact(Fact{"kind", kind, std::nullopt, {Phrase("kind." + kind)}, {}});
  p.facts.push_back(did_you_mean(id, candidates));
  p.fact("id", std::move(id));
  Phrase known =
      candidates.size() <= kListedIds
          ? Phrase("error.known_ids").fact(list_of("ids", candidates))
          : Phrase("error.known_ids_many").fact("count", std::to_string(candidates.size())).fact("kind_id", kind);
  if (!candidates.empty()) p.fact("known", std::vector<Phrase>{known});
  return p;
}

Phrase unknown_unit(std::string unit, std::string text, std::string units, const std::vector<std::string>& candidates) {
  Phrase p("error.unknown_unit");
  p.facts.push_back(did_you_mean(unit, candidates));
  p.fact("unit", std::move(unit)).fact("text", std::move(text)).fact("units", std::move(units));
  return p;
}

Phrase not_one_of(std::string got, const std::vector<std::string>& allowed) {
  Phrase p("error.not_one_of");
  p.facts.push_back(did_you_mean(got, allowed));
  p.fact("got", std::move(got));
  p.facts.push_back(list_of("allowed", allowed));
  return p;
}

}  // namespace gpuplan
