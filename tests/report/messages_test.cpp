// The message table is complete and the code keeps its words there: every message has words in
// both languages with the same placeholders; every message key the source names has an entry;
// every finding and check id has its heading in docs/rules.md; and the domain folders (tco,
// usage, accept, diagnose) hold no English sentence, only message keys with facts.
#include "report/messages.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test_support.h"

namespace gpuplan::report {
namespace {

namespace fs = std::filesystem;
using gpuplan::testing::default_catalog;
using gpuplan::testing::read_file;
using gpuplan::testing::source_path;

std::set<std::string> placeholders(std::string_view text) {
  std::set<std::string> out;
  static const std::regex ph(R"(\{([a-z_]+)\})");
  const std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), ph); it != std::sregex_iterator(); ++it) out.insert((*it)[1]);
  return out;
}

// The string literals of a C++ source file with the line each starts on, comments left out.
struct Literal {
  std::string text;
  int line;
};
std::vector<Literal> literals(const std::string& src) {
  std::vector<Literal> out;
  int line = 1;
  for (size_t i = 0; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '\n') ++line;
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') ++i;
      ++line;
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      for (i += 2; i + 1 < src.size() && !(src[i] == '*' && src[i + 1] == '/'); ++i)
        if (src[i] == '\n') ++line;
      ++i;
    } else if (c == '\'') {
      for (++i; i < src.size() && src[i] != '\''; ++i)
        if (src[i] == '\\') ++i;
    } else if (c == 'R' && i + 1 < src.size() && src[i + 1] == '"' &&
               (i == 0 || !std::isalnum(static_cast<unsigned char>(src[i - 1])))) {
      const size_t open = src.find('(', i + 2);
      const std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      const size_t end = src.find(close, open);
      Literal l{src.substr(open + 1, end - open - 1), line};
      for (size_t k = i; k < end; ++k)
        if (src[k] == '\n') ++line;
      out.push_back(l);
      i = end + close.size() - 1;
    } else if (c == '"') {
      Literal l{"", line};
      for (++i; i < src.size() && src[i] != '"'; ++i) {
        if (src[i] == '\\' && i + 1 < src.size()) {
          l.text += src[++i] == 'n' ? '\n' : src[i];
          continue;
        }
        l.text += src[i];
      }
      out.push_back(l);
    }
  }
  return out;
}

std::vector<fs::path> sources_under(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(source_path(dir)))
    if (e.path().extension() == ".cpp" || e.path().extension() == ".h") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MessagesTest, EveryMessageHasWordsInBothLanguagesWithTheSamePlaceholders) {
  const std::vector<std::string> keys = message_keys();
  ASSERT_GT(keys.size(), 500u);
  for (const std::string& key : keys) {
    const MessageText* m = find_message(key);
    ASSERT_TRUE(m) << key;
    EXPECT_FALSE(m->en.empty() && m->en_title.empty()) << key;
    EXPECT_EQ(m->en.empty(), m->zh.empty()) << key << ": words in one language only";
    EXPECT_EQ(m->en_title.empty(), m->zh_title.empty()) << key << ": a title in one language only";
    EXPECT_EQ(placeholders(m->en), placeholders(m->zh)) << key << "\n  en: " << m->en << "\n  zh: " << m->zh;
    EXPECT_EQ(placeholders(m->en_title), placeholders(m->zh_title)) << key;
    // A Chinese message that is the English one again was never translated; ids and forms made
    // of placeholders, units and symbols are the same in both.
    static const std::regex word(R"([A-Za-z][a-z]{2,} [a-z]{2,} [a-z]{2,})");
    if (std::regex_search(std::string(m->en), word)) {
      EXPECT_NE(m->en, m->zh) << key;
    }
  }
}

// A phrase key: the prefix of one of the table's areas (report/messages/*.cpp), dotted parts.
// Finding ids are checked through make_finding below (their messages may all be variants); a
// literal naming a file ("report.json") is no key.
const std::regex kKeyLiteral(
    R"(^(?:accept|error|skip|tco|usage|cli|quote|report|severity|source|kind|list|diagnose|recommend|audit)(?:\.[a-z0-9_\-]+)+$)");
const std::regex kFileName(R"(\.(?:json|md|html|csv|txt|yaml|log|gz)$)");

TEST(MessagesTest, EveryKeyTheSourceNamesHasAnEntry) {
  std::set<std::string> catalog_ids;
  for (const auto& e : default_catalog().entries()) catalog_ids.insert(e.id);
  static const std::regex finding(R"re(make_finding\("([a-z0-9_.]+)",\s*[^,]+,\s*"([a-z0-9_]+)")re");
  static const std::regex finding_id(R"re(make_finding\("([a-z0-9_.]+)",)re");
  // Finding ids name their messages with a variant ("diagnose.thermal/airflow"): checked below.
  std::set<std::string> finding_ids;
  for (const fs::path& file : sources_under("src")) {
    const std::string src = read_file(file);
    for (auto it = std::sregex_iterator(src.begin(), src.end(), finding_id); it != std::sregex_iterator(); ++it)
      finding_ids.insert((*it)[1]);
  }
  size_t checked = 0;
  for (const fs::path& file : sources_under("src")) {
    if (file.parent_path().filename() == "messages") continue;
    const std::string src = read_file(file);
    for (const Literal& l : literals(src)) {
      if (!std::regex_match(l.text, kKeyLiteral) || std::regex_search(l.text, kFileName) || catalog_ids.count(l.text) ||
          finding_ids.count(l.text))
        continue;
      ++checked;
      EXPECT_TRUE(has_message(l.text)) << file.string() << ":" << l.line << ": no message \"" << l.text << "\"";
    }
    for (auto it = std::sregex_iterator(src.begin(), src.end(), finding); it != std::sregex_iterator(); ++it) {
      ++checked;
      EXPECT_TRUE(has_message((*it)[1].str() + "/" + (*it)[2].str()))
          << file.string() << ": no message \"" << (*it)[1] << "/" << (*it)[2] << "\"";
    }
  }
  EXPECT_GT(checked, 400u);
}

TEST(MessagesTest, EveryMessageIsUsed) {
  // The string literals of the source outside the table: a key is used when it stands there
  // whole, or when a literal it starts with is the prefix the code builds it from ("severity."
  // + name); a finding's "id/variant" when its variant stands there too.
  std::set<std::string> named;
  for (const fs::path& file : sources_under("src")) {
    if (file.parent_path().filename() == "messages") continue;
    for (const Literal& l : literals(read_file(file))) named.insert(l.text);
  }
  auto used = [&](const std::string& key) {
    if (named.count(key)) return true;
    for (const auto& n : named)
      if (n.size() >= 5 && (n.back() == '.' || n.back() == '_') && key.rfind(n, 0) == 0) return true;
    return false;
  };
  for (const std::string& key : message_keys()) {
    const size_t slash = key.find('/');
    const bool ok =
        slash == std::string::npos ? used(key) : used(key.substr(0, slash)) && named.count(key.substr(slash + 1));
    EXPECT_TRUE(ok) << "message \"" << key << "\" is never used";
  }
}

TEST(MessagesTest, EveryFindingAndCheckIdHasItsHeadingInRulesMd) {
  std::set<std::string> headings;
  std::istringstream doc(read_file(source_path("docs/rules.md")));
  for (std::string line; std::getline(doc, line);)
    if (line.rfind("### ", 0) == 0) headings.insert(line.substr(4));
  std::set<std::string> ids;
  static const std::regex finding(R"re(make_finding\("([a-z0-9_.]+)",)re"),
      check(R"re(\{"([a-z0-9_.]+)", "[^"]*", check_[a-z_]+\})re");
  for (const fs::path& file : sources_under("src")) {
    const std::string src = read_file(file);
    for (const auto* re : {&finding, &check})
      for (auto it = std::sregex_iterator(src.begin(), src.end(), *re); it != std::sregex_iterator(); ++it)
        ids.insert((*it)[1]);
  }
  for (const char* field : {"gpu_model", "driver_version", "cuda_version", "internal_bandwidth", "public_bandwidth",
                            "rack_current", "reboot_sla", "installation", "performance_clause"})
    ids.insert(std::string("contract.") + field);  // made as "contract." + field
  for (const char* id : {"soak", "xid", "gpu.count", "power.rack", "diagnose.used_card"})
    EXPECT_TRUE(ids.count(id)) << id;
  for (const auto& id : ids) EXPECT_TRUE(headings.count(id)) << "docs/rules.md has no heading \"### " << id << "\"";
}

// A sentence: three or more English words in a row.
const std::regex kSentence(R"(\b[A-Za-z][a-z]+(?:(?: |, )[A-Za-z][a-z]+\b){2,})");

TEST(MessagesTest, DomainFoldersHoldNoEnglishSentences) {
  for (const char* dir : {"src/tco", "src/usage", "src/accept", "src/diagnose"})
    for (const fs::path& file : sources_under(dir)) {
      // usage synth writes telemetry in the tools' own formats: their headers and HELP lines are
      // data to be read back, not words for a user.
      const bool tool_output = file.filename() == "synth.cpp";
      for (const Literal& l : literals(read_file(file))) {
        std::smatch m;
        if (tool_output || !std::regex_search(l.text, m, kSentence)) continue;
        ADD_FAILURE() << file.string() << ":" << l.line << ": an English sentence, not a message key: \"" << l.text
                      << "\"";
      }
    }
}

}  // namespace
}  // namespace gpuplan::report
