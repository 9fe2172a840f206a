#include "report/messages.h"

#include <cstdlib>
#include <string>
#include <unordered_map>

#include "core/text.h"
#include "report/escape.h"
#include "report/messages/tables.h"

namespace gpuplan::report {
namespace {

using Table = std::unordered_map<std::string_view, MessageText>;

const Table& table() {
  static const Table t = [] {
    Table out;
    for (auto part : {messages::plan_findings(), messages::accept_findings(), messages::diagnose_findings()})
      for (const auto& m : part) out.emplace(m.key, MessageText{m.en_title, m.en, m.zh_title, m.zh});
    for (auto part :
         {messages::plan_words(), messages::diagnose_words(), messages::accept_words(), messages::report_words(),
          messages::tco_words(), messages::cli_words(), messages::error_words(), messages::jobs_words(),
          messages::watch_daemon_words(), messages::watch_archive_words(), messages::watch_exporter_words()})
      for (const auto& m : part) out.emplace(m.key, MessageText{{}, m.en, {}, m.zh});
    return out;
  }();
  return t;
}

std::string_view text_of(const MessageText& m, Lang lang) {
  return lang == Lang::kZh ? m.zh : m.en;
}
std::string_view title_of(const MessageText& m, Lang lang) {
  return lang == Lang::kZh ? m.zh_title : m.en_title;
}

// An article section cited as "S0 §3.3" or "S1 §5 #6": the article tag and the rest.
bool is_article(std::string_view ref) {
  return ref.size() > 3 && ref[0] == 'S' && (ref[1] == '0' || ref[1] == '1') && ref[2] == ' ';
}

}  // namespace

Lang lang_from_env() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::string_view(v).substr(0, 2) == "zh" ? Lang::kZh : Lang::kEn;
  }
  return Lang::kEn;
}

std::optional<Lang> parse_lang(std::string_view s) {
  if (s == "en") return Lang::kEn;
  if (s == "zh") return Lang::kZh;
  return std::nullopt;
}

const MessageText* find_message(std::string_view key) {
  auto it = table().find(key);
  return it == table().end() ? nullptr : &it->second;
}

bool has_message(std::string_view key) {
  return find_message(key) != nullptr;
}

std::vector<std::string> message_keys() {
  std::vector<std::string> out;
  for (const auto& [key, m] : table()) out.emplace_back(key);
  return out;
}

std::string colon(Lang lang, bool then_space) {
  if (lang == Lang::kZh) return "：";
  return then_space ? ": " : ":";
}

std::string list(const std::vector<std::string>& items, Lang lang) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? (lang == Lang::kZh ? "、" : ", ") : "") + items[i];
  return out;
}

std::string clauses(const std::vector<std::string>& items, Lang lang) {
  // A clause may be a whole sentence of its own (a finding's detail): its full stop gives way
  // to the separator, and the joined sentence ends in one.
  auto bare = [](std::string s) {
    for (std::string_view stop : {".", "。"})
      if (s.size() >= stop.size() && s.compare(s.size() - stop.size(), stop.size(), stop) == 0)
        s.resize(s.size() - stop.size());
    return s;
  };
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? (lang == Lang::kZh ? "；" : "; ") : "") + bare(items[i]);
  return out.empty() ? out : out + (lang == Lang::kZh ? "。" : ".");
}

std::string sentences(const std::vector<std::string>& items, Lang lang) {
  std::string out;
  for (const auto& s : items) {
    if (s.empty()) continue;
    if (!out.empty() && lang == Lang::kEn) out += ' ';
    out += s;
  }
  return out;
}

std::string word(const Fact& f, Lang lang) {
  if (!f.phrases.empty()) {
    std::vector<std::string> items;
    for (const auto& p : f.phrases) items.push_back(say(p, lang));
    if (f.separator.empty()) return list(items, lang);
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? f.separator : "") + items[i];
    return out;
  }
  // A fact's value may come from outside (a name in YAML, a path, an HTTP body): no control
  // character in it reaches a terminal or a Markdown report as it is.
  if (lang == Lang::kZh && f.value_zh) return escape_controls(*f.value_zh);
  return escape_controls(f.value);
}

std::string fill(std::string_view text, const Facts& facts, Lang lang) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('{', i);
    size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out += text.substr(i);
      break;
    }
    out += text.substr(i, open - i);
    std::string name(text.substr(open + 1, close - open - 1));
    const Fact* fact = find_fact(facts, name);
    out += fact ? word(*fact, lang) : "{" + name + "}";
    i = close + 1;
  }
  return out;
}

std::string say(std::string_view key, Lang lang, const Facts& facts) {
  const MessageText* m = find_message(key);
  if (!m) return std::string(key);
  return fill(text_of(*m, lang), facts, lang);
}

std::string say(const Phrase& p, Lang lang) {
  return say(p.key, lang, p.facts);
}

std::string ui(std::string_view key, Lang lang) {
  return say(key, lang);
}

std::string ui_with(std::string_view key, Lang lang,
                    std::initializer_list<std::pair<std::string_view, std::string>> values) {
  Phrase p{std::string(key)};
  for (const auto& [name, value] : values) p.fact(std::string(name), value);
  return say(p, lang);
}

LocalizedFinding localize(const Finding& f, Lang lang) {
  const MessageText* m = find_message(f.message_key());
  const MessageText* base = f.variant.empty() ? m : find_message(f.id);
  LocalizedFinding out;
  // A variant may leave its title to the id's (an acceptance check keeps one title).
  if (m && !title_of(*m, lang).empty())
    out.title = title_of(*m, lang);
  else if (base)
    out.title = title_of(*base, lang);
  else
    out.title = f.id;
  std::vector<std::string> parts;
  if (m) parts.push_back(fill(text_of(*m, lang), f.facts, lang));
  std::vector<std::string> notes;
  for (const auto& n : f.notes) notes.push_back(say(n, lang));
  parts.push_back(clauses(notes, lang));
  out.detail = sentences(parts, lang);
  return out;
}

std::vector<std::string> evidence_lines(const Finding& f, Lang lang) {
  std::vector<std::string> out;
  for (const auto& e : f.evidence) out.push_back(say(e, lang));
  return out;
}

std::string cite_reference(std::string_view ref, Lang lang) {
  if (is_article(ref)) {
    const std::string tag(ref.substr(0, 2));
    return std::string(ref) + " " + say("source." + tag, lang);
  }
  return "docs/sources.md#" + std::string(ref);
}

std::string citation(const Finding& f, Lang lang) {
  std::string out = "docs/rules.md#" + f.id;
  std::string_view refs = f.source;
  while (!refs.empty()) {
    size_t semi = refs.find(';');
    std::string_view ref = trim_chars(refs.substr(0, semi), " ");  // spaces only: a tab stays part of the ref
    refs = semi == std::string_view::npos ? std::string_view{} : refs.substr(semi + 1);
    if (!ref.empty()) out += (lang == Lang::kZh ? "；" : "; ") + cite_reference(ref, lang);
  }
  return out;
}

std::string error_text(const Error& e, Lang lang) {
  return say(e.phrase(), lang);
}

std::string severity_label(Severity s, Lang lang) {
  return say(std::string("severity.") + severity_name(s), lang);
}

}  // namespace gpuplan::report
