// Messages: every word a user reads, in English and Chinese, in one table (its parts live in
// report/messages/, one file per verb family). Domain code returns phrases and findings (an id
// and facts); this module words them in the reader's language and fills each `{fact}`
// placeholder from the facts.
//
// A caller may rely on: a key with no message is shown as the key itself (a test keeps every
// key the code uses in the table, with words in both languages); a placeholder with no fact is
// left as "{name}".
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/finding.h"
#include "core/phrase.h"

namespace gpuplan::report {

enum class Lang { kEn, kZh };

// "zh..." in LC_ALL, LC_MESSAGES or LANG (the first one set) selects Chinese; else English.
Lang lang_from_env();
// "en" or "zh"; nullopt for anything else.
std::optional<Lang> parse_lang(std::string_view s);

// The words of `key` in `lang` with each {name} filled from `facts`.
std::string say(std::string_view key, Lang lang, const Facts& facts = {});
std::string say(const Phrase& p, Lang lang);
// A heading or label without facts: ui("total", lang).
std::string ui(std::string_view key, Lang lang);
// The message `key` with each {name} filled from `values`: ui_with("tco_months", lang, {{"n", "36"}}).
std::string ui_with(std::string_view key, Lang lang,
                    std::initializer_list<std::pair<std::string_view, std::string>> values);
// A fact as `lang` shows it: its value, its Chinese name, or its phrases as a list.
std::string word(const Fact& f, Lang lang);
// Replaces each {name} in `text` with the fact of that name.
std::string fill(std::string_view text, const Facts& facts, Lang lang);

// The colon after a label: ": " / "：" (without the space when `then_space` is false).
std::string colon(Lang lang, bool then_space = true);

// "a, b, c" / "a、b、c".
std::string list(const std::vector<std::string>& items, Lang lang);
// Clauses joined into one sentence: "a; b." / "a；b。".
std::string clauses(const std::vector<std::string>& items, Lang lang);
// Sentences one after another: "A. B." / "A。B。" (each already ends in its full stop).
std::string sentences(const std::vector<std::string>& items, Lang lang);

struct LocalizedFinding {
  std::string title;
  std::string detail;  // the message's detail, then the notes as one sentence
};
LocalizedFinding localize(const Finding& f, Lang lang);
// The finding's evidence lines in `lang`.
std::vector<std::string> evidence_lines(const Finding& f, Lang lang);
// Where a reader looks the rule up: "docs/rules.md#power.rack; S0 §3.3 “…”; docs/sources.md#…".
std::string citation(const Finding& f, Lang lang);
// One reference (an article section "S1 §5 #6" or a reference id) as `lang` cites it.
std::string cite_reference(std::string_view ref, Lang lang);
// A severity as a report tag: "FAIL" / "失败".
std::string severity_label(Severity s, Lang lang);

// "file:line: field: " and the error's message in `lang`.
std::string error_text(const Error& e, Lang lang);

// Every message key known, for the tests that keep the table complete.
bool has_message(std::string_view key);
std::vector<std::string> message_keys();
struct MessageText {
  std::string_view en_title, en, zh_title, zh;
};
const MessageText* find_message(std::string_view key);

}  // namespace gpuplan::report
