#include "core/phrase.h"

#include <algorithm>

namespace gpuplan {

const Fact* find_fact(const Facts& facts, const std::string& key) {
  auto it = std::find_if(facts.begin(), facts.end(), [&](const Fact& f) { return f.key == key; });
  return it == facts.end() ? nullptr : &*it;
}

Phrase& Phrase::fact(std::string k, std::string v) {
  facts.push_back({std::move(k), std::move(v), std::nullopt, {}, {}});
  return *this;
}

Phrase& Phrase::fact(std::string k, std::string v, std::string v_zh) {
  facts.push_back({std::move(k), std::move(v), std::move(v_zh), {}, {}});
  return *this;
}

Phrase& Phrase::fact(std::string k, std::vector<Phrase> phrases) {
  facts.push_back({std::move(k), {}, std::nullopt, std::move(phrases), {}});
  return *this;
}

Phrase& Phrase::fact(Fact f) {
  facts.push_back(std::move(f));
  return *this;
}

const std::string* Phrase::value(const std::string& k) const {
  const Fact* f = find_fact(facts, k);
  return f ? &f->value : nullptr;
}

Fact list_of(std::string key, const std::vector<std::string>& values) {
  Fact f{std::move(key), {}, std::nullopt, {}, {}};
  for (const auto& v : values) {
    f.value += (f.value.empty() ? "" : ", ") + v;
    f.phrases.push_back(Phrase("list.item").fact("value", v));
  }
  return f;
}

bool operator==(const Fact& a, const Fact& b) {
  return a.key == b.key && a.value == b.value && a.value_zh == b.value_zh && a.phrases == b.phrases &&
         a.separator == b.separator;
}

bool operator==(const Phrase& a, const Phrase& b) {
  return a.key == b.key && a.facts == b.facts;
}

}  // namespace gpuplan
