// Messages: every user-facing title, explanation and table heading, in English and Chinese,
// in one table. Findings carry data (id, variant, facts); the renderer looks their words up
// here and fills `{fact}` placeholders from the finding's facts.
#pragma once

#include <string>
#include <string_view>

#include "core/finding.h"

namespace gpuplan::report {

enum class Lang { kEn, kZh };

// "zh..." in LANG/LC_ALL selects Chinese; anything else English.
Lang lang_from_env();
bool parse_lang(std::string_view s, Lang& out);

struct LocalizedFinding {
  std::string title;
  std::string detail;
};

LocalizedFinding localize(const Finding& f, Lang lang);

// A heading or label: ui("total", lang).
std::string ui(std::string_view key, Lang lang);

// Replaces each {name} in `text` with the finding's fact of that name.
std::string fill(std::string_view text, const Finding& f);

// Every message key known, for the test that each finding the code can raise has words.
bool has_message(std::string_view key);

}  // namespace gpuplan::report
