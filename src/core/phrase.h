// Phrase: what domain code says instead of a sentence. A phrase is a message id and the facts
// that fill it; report/messages holds its words in Chinese and English. Domain code never
// builds a sentence a user reads: it returns phrases, and the renderer words them in the
// reader's language.
//
// A fact is shown one of three ways: as it is (a figure, an id, a path, quoted input), as a
// catalog display name with its Chinese form (`name_zh`), or as phrases of its own, worded in
// the reader's language and joined as a list ("memory, power" / "内存、功耗") or by a separator
// of its own (" ← " between the hops of a PCIe path).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan {

struct Phrase;

struct Fact {
  std::string key;
  std::string value;                    // shown as it is in every language
  std::optional<std::string> value_zh;  // shown instead in Chinese (a catalog name_zh)
  std::vector<Phrase> phrases;          // when not empty: worded and joined instead of `value`
  std::string separator;                // joins the phrases; empty: the language's list separator
};

using Facts = std::vector<Fact>;

// The fact named `key`, or nullptr.
const Fact* find_fact(const Facts& facts, const std::string& key);

struct Phrase {
  std::string key;  // message id, e.g. "accept.soak.hot"
  Facts facts;

  Phrase() = default;
  explicit Phrase(std::string k) : key(std::move(k)) {}

  Phrase& fact(std::string k, std::string value);
  Phrase& fact(std::string k, std::string value, std::string value_zh);
  Phrase& fact(std::string k, std::vector<Phrase> phrases);
  Phrase& fact(Fact f);
  // The value of a plain fact, as every language shows it; nullptr when there is none.
  const std::string* value(const std::string& k) const;
};

// A fact listing values shown as they are (ids, addresses, versions), joined as the reader's
// language joins a list ("11.8, 12.1" / "11.8、12.1"): each value is a "list.item" phrase, and
// `value` keeps them joined by ", " for logs and tests.
Fact list_of(std::string key, const std::vector<std::string>& values);

bool operator==(const Fact& a, const Fact& b);
bool operator==(const Phrase& a, const Phrase& b);

}  // namespace gpuplan
