// End to end through the real binary: exit codes, output formats, error messages that name
// file:line:field, catalog overrides and the installed layout.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/dates.h"
#include "core/text.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;
using gpuplan::testing::count_of;
using gpuplan::testing::keys_of;
using nlohmann::json;
using report::Lang;
using testing::CliResult;
using testing::run_gpuplan;
using testing::source_path;
using testing::temp_dir;
using testing::write_file;

std::string example(const std::string& name) { return shell_quoted(source_path("examples/" + name)); }

json parse_json(const CliResult& r) {
  json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) ADD_FAILURE() << "not JSON:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Runs a shell command line, capturing stdout and stderr like run_gpuplan.
CliResult run_shell(const std::string& command) {
  std::string dir = temp_dir();
  int status = std::system((command + " >" + dir + "/out 2>" + dir + "/err </dev/null").c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = testing::read_file(dir + "/out");
  r.err = testing::read_file(dir + "/err");
  return r;
}

// What gpuplan prints on standard error for bad input: the error worded through the message table.
std::string error_line(const Error& e, Lang lang) {
  return "gpuplan: " + report::ui("cli.error", lang) + (lang == Lang::kZh ? "：" : ": ") + report::error_text(e, lang) + "\n";
}

// The line after a command-line error that points to the command's --help.
std::string see_help(const std::string& command, Lang lang) {
  return report::say(Phrase("cli.parse.see_help").fact("command", command), lang) + "\n";
}

// Environment prefixes for run_gpuplan: the language a Chinese or English user's shell sets.
const std::string kZhEnv = "env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8";
const std::string kEnEnv = "env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8";

// The verbs whose --help is checked, and the key of each one's description.
const std::vector<std::pair<std::string, std::string>> kVerbs = {
    {"quote", "cli.help.quote"},
    {"recommend", "cli.help.recommend"},
    {"audit", "cli.help.audit"},
    {"tco", "cli.help.tco"},
    {"usage", "cli.help.usage"},
    {"usage synth", "cli.help.synth"},
    {"catalog", "cli.help.catalog"},
    {"catalog list", "cli.help.catalog.list"},
    {"catalog show", "cli.help.catalog.show"},
    {"catalog check", "cli.help.catalog.check"},
    {"accept", "cli.help.accept"},
    {"diagnose", "cli.help.diagnose"},
    {"snapshot", "cli.help.snapshot"},
    {"watch", "cli.help.watch"},
};

// All the fields catalog/gpu.yaml requires of a gpu entry except id, buy and source, on one line,
// so that each flow-style entry below sits on one known line.
const std::string kGpuFields =
    "name: G, form_factor: sxm, memory_gb: 80, memory_bandwidth_gbs: 2039, tdp_w: 400, fp16_tflops_dense: 312, "
    "bf16_tflops_dense: 312, nvlink_gen: 3, nvlink_bandwidth_gbs: 600, pcie_gen: 4, pcie_lanes: 16, "
    "family: a100-80gb, as_of: \"2024-06\"";

// --- Usage ----------------------------------------------------------------------------------

TEST(CliTest, HelpExits0AndPointsToTheVerbs) {
  CliResult r = run_gpuplan("--help", kEnEnv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [verb, key] : kVerbs)
    if (verb.find(' ') == std::string::npos) {
      EXPECT_TRUE(contains(r.out, "\n  " + verb + " ")) << verb << " in\n" << r.out;
      EXPECT_TRUE(contains(r.out, report::ui(key, Lang::kEn))) << key << " in\n" << r.out;
    }
  EXPECT_TRUE(contains(r.out, report::ui("cli.help.footer", Lang::kEn))) << r.out;
}

TEST(CliTest, HelpUnderAChineseLangIsChineseThroughout) {
  // Every word --help shows comes from the table: under LANG=zh_CN none of the English is left,
  // at the top and in every verb.
  std::vector<std::pair<std::string, std::string>> pages = {{"", "cli.help.app"}};
  pages.insert(pages.end(), kVerbs.begin(), kVerbs.end());
  std::vector<std::string> english;
  for (const std::string& key : report::message_keys()) {
    const report::MessageText* m = report::find_message(key);
    const bool shown_in_help =
        key.rfind("cli.help.", 0) == 0 || key.rfind("cli.label.", 0) == 0 || key.rfind("cli.type.", 0) == 0;
    if (shown_in_help && m->en != m->zh) english.emplace_back(m->en);
  }
  for (const char* needle : {"Print this help message", "Display program version", "Usage:", "Options:", "Positionals:",
                             "Subcommands:", "OPTIONS", "SUBCOMMAND", "REQUIRED", "TEXT", "INT"})
    english.emplace_back(needle);
  for (const auto& [verb, key] : pages) {
    CliResult r = run_gpuplan(verb + " --help", kZhEnv);
    ASSERT_EQ(r.exit_code, 0) << verb << r.err;
    EXPECT_EQ(r.out.rfind(report::ui(key, Lang::kZh), 0), 0u) << verb << ":\n" << r.out;
    EXPECT_TRUE(contains(r.out, "\n" + report::ui("cli.label.usage", Lang::kZh) + "：gpuplan")) << r.out;
    EXPECT_TRUE(contains(r.out, "用法")) << r.out;
    for (const std::string& words : english) EXPECT_FALSE(contains(r.out, words)) << "'" << words << "' in\n" << r.out;
  }
  // Commands in the examples stay as they are.
  EXPECT_TRUE(contains(run_gpuplan("quote --help", kZhEnv).out, "gpuplan quote examples/a100-8gpu-training.yaml"));
}

TEST(CliTest, LangFlagWinsOverTheEnvironment) {
  for (const std::string flag : {"--lang en", "--lang=en"}) {
    CliResult r = run_gpuplan(flag + " --help", kZhEnv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind(report::ui("cli.help.app", Lang::kEn), 0), 0u) << r.out;
    EXPECT_TRUE(contains(r.out, "Usage: gpuplan")) << r.out;
    EXPECT_FALSE(contains(r.out, "用法")) << r.out;
  }
  // After the verb too, and the other way round.
  CliResult zh = run_gpuplan("quote --help --lang zh", kEnEnv);
  EXPECT_TRUE(contains(zh.out, report::ui("cli.help.quote.gpus", Lang::kZh))) << zh.out;
  EXPECT_FALSE(contains(zh.out, report::ui("cli.help.quote.gpus", Lang::kEn))) << zh.out;
}

TEST(CliTest, ParseErrorSpeaksTheLanguageAndNamesTheFlagAndValue) {
  CliResult r = run_gpuplan("quote --gpus x --lang zh", kEnEnv);
  EXPECT_EQ(r.exit_code, 2);
  Phrase invalid("cli.parse.not_valid");
  invalid.fact("value", "x")
      .fact("expected", {Phrase("cli.parse.expected").fact("type", report::ui("cli.type.int", Lang::kZh))});
  EXPECT_EQ(r.err, error_line(Error{{}, 0, "--gpus", invalid}, Lang::kZh) + see_help("gpuplan quote", Lang::kZh));
  EXPECT_TRUE(r.out.empty()) << r.out;

  CliResult en = run_gpuplan("quote --gpus x", kEnEnv);
  EXPECT_EQ(en.exit_code, 2);
  invalid.facts.back().phrases = {Phrase("cli.parse.expected").fact("type", report::ui("cli.type.int", Lang::kEn))};
  EXPECT_EQ(en.err, error_line(Error{{}, 0, "--gpus", invalid}, Lang::kEn) + see_help("gpuplan quote", Lang::kEn));
}

TEST(CliTest, ParseErrorsNameWhatWasWrong) {
  struct Case {
    std::string args;
    Error error;
    std::string command;
  };
  const std::vector<std::string> verbs = {"quote",   "recommend", "audit",    "tco",     "usage",
                                          "catalog", "accept",    "diagnose", "snapshot", "watch"};
  Phrase unknown_verb("cli.parse.unknown_verb");
  unknown_verb.facts.push_back(did_you_mean("quoet", verbs));
  unknown_verb.fact("got", "quoet").fact("command", "gpuplan").fact(list_of("verbs", verbs));
  const std::vector<Case> cases = {
      {"", Error{{}, 0, {}, Phrase("cli.parse.verb_required").fact("command", "gpuplan").fact(list_of("verbs", verbs))},
       "gpuplan"},
      {"quoet", Error{{}, 0, {}, unknown_verb}, "gpuplan"},
      {"catalog",
       Error{{},
             0,
             {},
             Phrase("cli.parse.verb_required")
                 .fact("command", "gpuplan catalog")
                 .fact(list_of("verbs", {"list", "show", "check"}))},
       "gpuplan catalog"},
      {"quote --gpus", Error{{}, 0, "--gpus", Phrase("cli.parse.missing_value")}, "gpuplan quote"},
      {"audit", Error{{}, 0, {}, Phrase("cli.parse.required").fact("name", "quote")}, "gpuplan audit"},
      {"quote a.yaml b.yaml", Error{{}, 0, {}, Phrase("cli.parse.unexpected").fact("args", "b.yaml")}, "gpuplan quote"},
      {"accept --nvml sometimes", Error{{}, 0, "--nvml", not_one_of("sometimes", {"auto", "live", "snapshot", "off"})},
       "gpuplan accept"},
      {"quote --lang LANG --lang LANG",
       Error{{}, 0, "--lang", Phrase("cli.parse.too_many").fact("max", "1").fact("got", "2")}, "gpuplan quote"},
  };
  for (const Case& c : cases)
    for (Lang lang : {Lang::kEn, Lang::kZh}) {
      const std::string args = std::regex_replace(c.args, std::regex("LANG"), lang == Lang::kZh ? "zh" : "en");
      CliResult r = run_gpuplan(args, lang == Lang::kZh ? kZhEnv : kEnEnv);
      EXPECT_EQ(r.exit_code, 2) << c.args;
      EXPECT_EQ(r.err, error_line(c.error, lang) + see_help(c.command, lang)) << c.args;
    }
}

// An unknown --gpu lists every GPU the catalog knows, in both languages, exit 2.
TEST(CliTest, AnUnknownGpuListsTheValidIds) {
  std::string ids_en, ids_zh;
  for (const auto& id : testing::default_catalog().ids_of_kind("gpu")) {
    ids_en += (ids_en.empty() ? "" : ", ") + id;
    ids_zh += (ids_zh.empty() ? "" : "、") + id;
  }
  CliResult en = run_gpuplan("quote --gpu a800 --gpus 8", kEnEnv);
  EXPECT_EQ(en.exit_code, 2);
  EXPECT_TRUE(contains(en.err, "unknown GPU 'a800'; known: " + ids_en)) << en.err;
  CliResult zh = run_gpuplan("quote --gpu a800 --gpus 8 --lang zh", kEnEnv);
  EXPECT_EQ(zh.exit_code, 2);
  EXPECT_TRUE(contains(zh.err, "未知的GPU“a800”；可用：" + ids_zh)) << zh.err;
}

TEST(CliTest, BadInputIsChineseUnderLangZhAndStillExits2) {
  CliResult r = run_gpuplan("quote --gpu a100-80gb-sxm --gpus 0 --lang zh", kEnEnv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, error_line(Error{{}, 0, "--gpus", Phrase("cli.value.at_least").fact("min", "1").fact("got", "0")},
                              Lang::kZh));
  // LANG alone does it too.
  CliResult env = run_gpuplan("usage synth --gpus 2000", kZhEnv);
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_EQ(env.err, error_line(Error{{},
                                      0,
                                      "--gpus",
                                      Phrase("cli.value.between")
                                          .fact("min", "1")
                                          .fact("max", "1,024")
                                          .fact("got", "2000")
                                          .fact("note", std::vector<Phrase>{})},
                                Lang::kZh));
}

TEST(CliTest, EveryCliKeyHasWordsInBothLanguages) {
  // The keys the command line uses, read from its sources, each with English and Chinese words.
  const std::regex key("\"(cli\\.[a-z0-9_.]+)\"");
  size_t keys = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("src/cli"))) {
    const std::string file = entry.path().string();
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    ASSERT_FALSE(text.empty()) << file;
    for (std::sregex_iterator it(text.begin(), text.end(), key), end; it != end; ++it, ++keys) {
      const report::MessageText* m = report::find_message((*it)[1].str());
      ASSERT_NE(m, nullptr) << (*it)[1] << " in " << file;
      EXPECT_FALSE(m->en.empty()) << (*it)[1];
      EXPECT_FALSE(m->zh.empty()) << (*it)[1];
    }
  }
  EXPECT_GT(keys, 100u);
}

TEST(CliTest, QuoteHelpExits0AndPrintsAnExample) {
  CliResult r = run_gpuplan("quote --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "gpuplan quote examples/a100-8gpu-training.yaml")) << r.out;
}

TEST(CliTest, NoVerbExits2) {
  CliResult r = run_gpuplan("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliTest, UnknownFlagExits2NamingTheFlag) {
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml") + " --bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--bogus")) << r.err;
}

// --- quote ----------------------------------------------------------------------------------

TEST(CliTest, QuoteExamplePrintsTheTotal) {
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Buy: 8 GPUs 560,000–800,000 + HGX 100,000–200,000 + 2 CPUs 24,000–40,000 + 16 DIMMs 24,000–40,000
  //   + 2 × 0.96 TB × 1,000–1,600 = 1,920–3,072 + 4 × 3.84 TB × 800–1,500 × 2 = 24,576–46,080
  //   + 2 NICs 3,000–6,000 + premium support 55,000 × 3 years = 165,000  ->  902,496–1,300,152.
  EXPECT_TRUE(contains(r.out, "¥902,496–1,300,152")) << r.out;
  // Rent: 8-GPU market 12,000–15,000 × cn-east 1.0 + image 100–500 = 12,100–15,500 a month.
  EXPECT_TRUE(contains(r.out, "¥12,100–15,500")) << r.out;
}

TEST(CliTest, QuoteJsonHasThePublicShape) {
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  for (const char* key : {"currency", "config", "lines", "totals", "per_gpu", "hidden_costs", "findings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["currency"], "CNY");
  EXPECT_EQ(j["config"]["gpus"], 8);
  EXPECT_EQ(j["config"]["nodes"], 1);
  const std::set<std::string> range{"low", "high"};
  for (const auto& line : j["lines"]) {
    EXPECT_EQ(keys_of(line), (std::set<std::string>{"id", "item", "qty", "buy", "rent_monthly", "source"}));
    EXPECT_EQ(keys_of(line["buy"]), range);
    EXPECT_EQ(keys_of(line["rent_monthly"]), range);
  }
  for (const char* key : {"totals", "per_gpu"}) {
    EXPECT_EQ(keys_of(j[key]), (std::set<std::string>{"buy", "rent_monthly"})) << key;
    EXPECT_EQ(keys_of(j[key]["buy"]), range);
    EXPECT_EQ(keys_of(j[key]["rent_monthly"]), range);
  }
  ASSERT_TRUE(j["hidden_costs"].is_array());
  ASSERT_FALSE(j["findings"].empty());
  for (const auto& f : j["findings"])
    for (const char* key : {"id", "severity", "title", "detail", "source"}) EXPECT_TRUE(f.contains(key)) << key;

  // The GPU line: 8 × ¥70,000–100,000 [S0 §1].
  const json& gpu = j["lines"][0];
  EXPECT_EQ(gpu["id"], "a100-80gb-sxm");
  EXPECT_EQ(gpu["qty"], 8);
  EXPECT_EQ(gpu["buy"], (json{{"low", 560000}, {"high", 800000}}));
  EXPECT_EQ(j["totals"]["buy"], (json{{"low", 902496}, {"high", 1300152}}));
  EXPECT_EQ(j["per_gpu"]["buy"], (json{{"low", 112812}, {"high", 162519}}));  // 902,496 / 8, 1,300,152 / 8
}

TEST(CliTest, TodayDatesThePricesAndDefaultsToTheSystemDate) {
  // 2024-06-01 (the A100 card's price) to 2026-12-07: 30 whole months, past the 6-month limit.
  CliResult r = run_gpuplan("--today 2026-12-07 --format json quote " + example("a100-8gpu-training.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(j["price_age"]["today"], "2026-12-07");
  EXPECT_EQ(j["price_age"]["as_of"], "2024-06");
  EXPECT_EQ(j["price_age"]["months"], 30);
  EXPECT_EQ(j["price_age"]["max_months"], 6);
  EXPECT_EQ(j["price_age"]["stale"], true);
  EXPECT_EQ(keys_of(j["price_age"]),
            (std::set<std::string>{"today", "as_of", "kind", "id", "entries", "months", "max_months", "stale"}));
  // On 2024-09-15 they are 3 months old: the report says so and warns of nothing.
  CliResult fresh = run_gpuplan("--today 2024-09-15 quote " + example("a100-8gpu-training.yaml"));
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_TRUE(contains(fresh.out, "3 months before 2024-09-15")) << fresh.out;
  EXPECT_FALSE(contains(fresh.out, "prices.age")) << fresh.out;

  CliResult plain = run_gpuplan("--format json quote " + example("a100-8gpu-training.yaml"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string today = civil_from_seconds(static_cast<int64_t>(std::time(nullptr))).date();
  EXPECT_EQ(parse_json(plain)["price_age"]["today"], today);
}

TEST(CliTest, ABadTodayExits2NamingTheFlag) {
  for (const char* bad : {"2026-13-01", "2026-02-30", "yesterday", "2026-12"}) {
    CliResult r = run_gpuplan(std::string("--today ") + bad + " quote --gpu a100-80gb-sxm --gpus 1");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(contains(r.err, "--today")) << r.err;
    EXPECT_TRUE(contains(r.err, bad)) << r.err;
  }
}

TEST(CliTest, QuoteMarkdownPrintsATable) {
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml") + " --format md --lang en");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\n|---")) << r.out;
  EXPECT_TRUE(contains(
      r.out, "| **" + report::ui("total", Lang::kEn) + "** | | **¥902,496–1,300,152** | **¥12,100–15,500** | |"))
      << r.out;
}

TEST(CliTest, LangZhPrintsChineseHeadings) {
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml") + " --lang zh");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, report::ui("total", Lang::kZh))) << r.out;
  EXPECT_TRUE(contains(r.out, report::ui("quote", Lang::kZh) + report::colon(Lang::kZh))) << r.out;
  EXPECT_FALSE(contains(r.out, report::ui("total", Lang::kEn))) << r.out;
}

TEST(CliTest, QuickWhatIfOn8ARackFailsPowerCheck) {
  CliResult r = run_gpuplan("quote --gpu a100-80gb-sxm --gpus 8 --rack-amps 8 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  std::vector<json> rack;
  for (const auto& f : j["findings"])
    if (f["id"] == "power.rack") rack.push_back(f);
  ASSERT_EQ(rack.size(), 1u) << j["findings"].dump(2);
  EXPECT_EQ(rack[0]["severity"], "fail");
  // The GPUs alone draw 8 × 400 W = 3,200 W; the circuit carries 8 A × 220 V = 1,760 W.
  EXPECT_EQ(rack[0]["evidence"]["gpu_draw"], "3,200 W");
  EXPECT_EQ(rack[0]["evidence"]["capacity"], "1,760 W");
}

// --- Bad input ------------------------------------------------------------------------------

TEST(CliTest, MissingConfigFileExits2NamingThePath) {
  std::string path = temp_dir() + "/no-such-config.yaml";
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path)) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliTest, MalformedYamlExits2NamingFileAndLine) {
  // Line 3 has two colons: "illegal map value".
  std::string path = write_file(temp_dir(), "test.yaml", "name: x\ngpu: a100-80gb-sxm\ngpus: 8: 9\nnodes: 1\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":3: ")) << r.err;
}

TEST(CliTest, UnknownGpuIdExits2SuggestingTheNearest) {
  std::string path = write_file(temp_dir(), "test.yaml", "gpu: a100-80gb-sxn\ngpus: 8\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":1: gpu: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "a100-80gb-sxn")) << r.err;
  EXPECT_TRUE(contains(r.err, "a100-80gb-sxm")) << r.err;  // the nearest id
}

TEST(CliTest, ZeroGpusExits2NamingTheField) {
  std::string path = write_file(temp_dir(), "test.yaml", "gpu: a100-80gb-sxm\ngpus: 0\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":2: gpus: ")) << r.err;
}

TEST(CliTest, NegativeGpusExits2NamingTheField) {
  std::string path = write_file(temp_dir(), "test.yaml", "gpu: a100-80gb-sxm\ngpus: -2\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":2: gpus: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "-2")) << r.err;
}

TEST(CliTest, GpusAsAWordExits2NamingTheField) {
  std::string path = write_file(temp_dir(), "test.yaml", "gpu: a100-80gb-sxm\ngpus: eight\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":2: gpus: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "eight")) << r.err;
}

TEST(CliTest, UnitTypoExits2NamingTheUnit) {
  std::string path = write_file(temp_dir(), "test.yaml", "gpu: a100-80gb-sxm\ngpus: 8\nmemory: 512 GBB\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":3: memory: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "GBB")) << r.err;
  EXPECT_TRUE(contains(r.err, "GiB")) << r.err;  // lists the units accepted
}

TEST(CliTest, UnknownFieldGpuzSuggestsGpus) {
  // `gpu:` is given, `gpus:` is not: the typo `gpuz` can only mean gpus.
  std::string path = write_file(temp_dir(), "test.yaml", "gpu: a100-80gb-sxm\ngpuz: 8\n");
  CliResult r = run_gpuplan("quote " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":2: gpuz: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "gpus")) << r.err;  // the nearest field
}

TEST(CliTest, ZeroGpusFlagExits2) {
  CliResult r = run_gpuplan("quote --gpu a100-80gb-sxm --gpus 0 --lang en");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, error_line(Error{{}, 0, "--gpus", Phrase("cli.value.at_least").fact("min", "1").fact("got", "0")},
                              Lang::kEn));
}

TEST(CliTest, RackAmpsWithoutACatalogCircuitExits2NamingTheFlag) {
  CliResult r = run_gpuplan("quote --gpu a100-80gb-sxm --gpus 8 --rack-amps 12");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--rack-amps: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "12")) << r.err;    // the circuit asked for
  EXPECT_TRUE(contains(r.err, "32 A")) << r.err;  // and the ones the catalog has
}

TEST(CliTest, UnknownFormatExits2) {
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml") + " --format xml --lang en");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, error_line(Error{{}, 0, "--format", not_one_of("xml", {"table", "json", "md", "html"})}, Lang::kEn));
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliTest, UnknownLangExits2) {
  // The words are LANG's: an unknown --lang cannot choose them.
  CliResult r = run_gpuplan("quote " + example("a100-8gpu-training.yaml") + " --lang fr", kZhEnv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, error_line(Error{{}, 0, "--lang", not_one_of("fr", {"en", "zh"})}, Lang::kZh));
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// --- recommend ------------------------------------------------------------------------------

TEST(CliTest, RecommendJsonIsAPricedConfigurationWithReasons) {
  CliResult r = run_gpuplan("recommend --task finetune --params 13B --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  ASSERT_FALSE(j["recommendations"].empty());
  const json& rec = j["recommendations"][0];
  // catalog recommend_rule finetune-10-100b: floor 4 GPUs [S0 §2.1]; 13B × 16 bytes × 1.2 =
  // 249.6 GB ÷ 72 GB usable = 3.47 -> 4 GPUs × 1 node.
  EXPECT_EQ(rec["config"]["gpus"], 4);
  EXPECT_EQ(rec["config"]["nodes"], 1);
  EXPECT_EQ(keys_of(rec["quote"]["totals"]), (std::set<std::string>{"buy", "rent_monthly"}));
  EXPECT_GT(rec["quote"]["totals"]["buy"]["low"].get<double>(), 0);
  ASSERT_FALSE(rec["why"].empty());
  EXPECT_EQ(rec["why"][0]["rule"], "recommend.rule");
  EXPECT_EQ(rec["why"][0]["evidence"]["rule"], "finetune-10-100b");
}

TEST(CliTest, RecommendWriteRoundTripsThroughQuote) {
  std::string file = temp_dir() + "/rec.yaml";
  CliResult rec = run_gpuplan("recommend --task finetune --params 13B --format json --write " + file);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  CliResult quote = run_gpuplan("quote " + file + " --format json");
  ASSERT_EQ(quote.exit_code, 0) << quote.err;
  json recommended = parse_json(rec)["recommendations"][0]["quote"];
  json quoted = parse_json(quote);
  EXPECT_EQ(quoted["totals"], recommended["totals"]);
  EXPECT_EQ(quoted["lines"], recommended["lines"]);
  EXPECT_EQ(quoted["config"], recommended["config"]);
}

TEST(CliTest, RecommendedConfigurationPassesItsOwnChecks) {
  CliResult r = run_gpuplan("recommend --task finetune --params 13B --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json quote = parse_json(r)["recommendations"][0]["quote"];
  std::vector<std::string> fails;
  for (const auto& f : quote["findings"])
    if (f["severity"] == "fail") fails.push_back(f["id"]);
  EXPECT_TRUE(fails.empty()) << "rack " << quote["config"]["rack"] << ", node peak " << quote["power_w"]["node_peak"];
}

TEST(CliTest, RecommendWithUnknownSizeUnitExits2) {
  CliResult r = run_gpuplan("recommend --task finetune --params 13Q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--params: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "13Q")) << r.err;
}

TEST(CliTest, RecommendWithUnknownTaskExits2) {
  CliResult r = run_gpuplan("recommend --task dance --params 13B --lang en");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      error_line(
          Error{{}, 0, "--task", not_one_of("dance", {"inference", "finetune", "train", "pretrain", "simulation"})},
          Lang::kEn));
}

// --- audit ----------------------------------------------------------------------------------

TEST(CliTest, AuditOfPaddedQuoteExits1WithVerdictFail) {
  CliResult r = run_gpuplan("audit " + example("vendor-quote-padded.yaml") + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(j["verdict"], "fail");
  // 8 × 98,000 + 180,000 + 2 × 19,000 + 16 × 4,200 + 4 × 21,000 + 8 × 26,000 + 30,000 = 1,391,200
  EXPECT_EQ(j["totals"]["once"], (json{{"low", 1391200}, {"high", 1391200}}));
  EXPECT_EQ(j["per_gpu"]["buy"], (json{{"low", 173900}, {"high", 173900}}));  // / 8
}

TEST(CliTest, AuditOfCleanQuoteExits0WithVerdictPass) {
  CliResult r = run_gpuplan("audit " + example("vendor-quote-clean.yaml") + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(parse_json(r)["verdict"], "pass");
}

TEST(CliTest, AuditWithUnknownPartExits2SuggestingTheNearest) {
  std::string path = write_file(temp_dir(), "q.yaml",
                                "vendor: V\ngpus: 8\nlines:\n"
                                "  - {item: card, part: a100-80gb-sxn, qty: 8, unit_price: 90000}\n");
  CliResult r = run_gpuplan("audit " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path + ":4: lines[0].part: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "a100-80gb-sxn")) << r.err;
  EXPECT_TRUE(contains(r.err, "a100-80gb-sxm")) << r.err;  // the nearest part
}

TEST(CliTest, AuditOfMissingFileExits2NamingThePath) {
  std::string path = temp_dir() + "/no-such-quote.yaml";
  CliResult r = run_gpuplan("audit " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, path)) << r.err;
}

// --- catalog --------------------------------------------------------------------------------

TEST(CliTest, CatalogListJsonEntriesCarryIdKindSourceAndDate) {
  CliResult r = run_gpuplan("catalog list --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  ASSERT_TRUE(j.is_array());
  ASSERT_FALSE(j.empty());
  for (const auto& e : j)
    for (const char* key : {"id", "kind", "source", "as_of"})
      EXPECT_TRUE(e.contains(key) && e[key].is_string() && !e[key].get<std::string>().empty()) << key << " in " << e.dump();
}

TEST(CliTest, CatalogListOfOneKind) {
  CliResult r = run_gpuplan("catalog list gpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "a100-80gb-pcie")) << r.out;
  EXPECT_FALSE(contains(r.out, "epyc-7763")) << r.out;  // a cpu
}

TEST(CliTest, CatalogListSpeaksTheLanguageWithChineseNames) {
  // catalog/cuda_driver.yaml gives each entry a name_zh.
  const catalog::Entry* cuda12 = testing::default_catalog().find("cuda-12-driver");
  ASSERT_NE(cuda12, nullptr);
  ASSERT_NE(cuda12->name_zh, cuda12->name);
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    const std::string flag = lang == Lang::kZh ? " --lang zh" : " --lang en";
    for (const std::string format : {"table", "md"}) {
      CliResult r = run_gpuplan("catalog list cuda_driver --format " + format + flag);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      for (const char* key : {"cli.catalog.col.id", "cli.catalog.col.kind", "cli.catalog.col.name",
                              "cli.catalog.col.as_of", "cli.catalog.col.source"})
        EXPECT_TRUE(contains(r.out, report::ui(key, lang))) << key << " in\n" << r.out;
      EXPECT_TRUE(contains(r.out, lang == Lang::kZh ? cuda12->name_zh : cuda12->name)) << r.out;
      EXPECT_FALSE(contains(r.out, lang == Lang::kZh ? cuda12->name : cuda12->name_zh)) << r.out;
    }
  }
  // JSON keeps its shape in either language.
  CliResult en = run_gpuplan("catalog list cuda_driver --format json --lang en");
  CliResult zh = run_gpuplan("catalog list cuda_driver --format json --lang zh");
  EXPECT_EQ(parse_json(en), parse_json(zh));
}

TEST(CliTest, CatalogShowJsonGivesTheDataSheetFigures) {
  CliResult r = run_gpuplan("catalog show a100-80gb-sxm --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(j["tdp_w"], 400);  // A100 80GB SXM data sheet (SPEC §J: not 300 W)
  EXPECT_EQ(j["kind"], "gpu");
}

TEST(CliTest, CatalogShowOfUnknownIdExits2) {
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    CliResult r = run_gpuplan(std::string("catalog show nosuch --lang ") + (lang == Lang::kZh ? "zh" : "en"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, "nosuch")) << r.err;
    EXPECT_TRUE(contains(r.err, report::ui("kind.catalog_entry", lang))) << r.err;
  }
}

// The summary line `catalog check` ends with: "N entries, M problem(s)" in `lang`.
std::string catalog_summary(size_t entries, size_t problems, Lang lang) {
  return report::say(Phrase("cli.catalog.summary")
                         .fact("entries", std::to_string(entries))
                         .fact("problems", std::to_string(problems)),
                     lang) +
         "\n";
}

TEST(CliTest, CatalogCheckPassesOnTheShippedCatalog) {
  const size_t entries = testing::default_catalog().entries().size();
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    CliResult r = run_gpuplan(std::string("catalog check --lang ") + (lang == Lang::kZh ? "zh" : "en"));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, catalog_summary(entries, 0, lang));
  }
}

TEST(CliTest, CatalogCheckReportsEachProblemWithFileAndLine) {
  std::string dir = temp_dir();
  std::string gpu = write_file(dir, "gpu.yaml",
                               "kind: gpu\n"
                               "entries:\n"
                               "  - {id: bad-key, " + kGpuFields + ", buy: 1, source: s, colour: red}\n"  // line 3
                               "  - {id: no-source, " + kGpuFields + ", buy: 1}\n"                         // line 4
                               "  - {id: low-high, " + kGpuFields + ", buy: [100000, 70000], source: s}\n" // line 5
                               "  - {id: negative, " + kGpuFields + ", buy: -5, source: s}\n"              // line 6
                               "  - {id: twice, " + kGpuFields + ", buy: 1, source: s}\n"                  // line 7
                               "  - {id: twice, " + kGpuFields + ", buy: 1, source: s}\n");                // line 8
  std::string offer = write_file(dir, "cloud_offer.yaml",
                                 "kind: cloud_offer\n"
                                 "entries:\n"
                                 "  - {id: bad-ref, name: X, provider: P, instance: i, gpu: a100-80gb-sxn, gpus: 1, "
                                 "region: r, currency: USD, on_demand_hour: 1, source: s, as_of: \"2024\"}\n");
  CliResult r = run_gpuplan("catalog check " + dir + " --lang en");
  EXPECT_EQ(r.exit_code, 2);
  // Each problem's file:line: entry.field, and what names it.
  EXPECT_TRUE(contains(r.out, gpu + ":3: bad-key.colour: ")) << r.out;
  EXPECT_TRUE(contains(r.out, gpu + ":4: no-source.source: ")) << r.out;
  EXPECT_TRUE(contains(r.out, gpu + ":5: low-high.buy: ")) << r.out;
  EXPECT_TRUE(contains(r.out, gpu + ":6: negative.buy: ")) << r.out;
  EXPECT_TRUE(contains(r.out, gpu + ":8: twice.id: ")) << r.out;
  EXPECT_TRUE(contains(r.out, gpu + ":7")) << r.out;  // where the first `twice` is
  EXPECT_TRUE(contains(r.out, offer + ":3: bad-ref.gpu: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "a100-80gb-sxn")) << r.out;
  CliResult j = run_gpuplan("catalog check " + dir + " --format json");
  EXPECT_EQ(j.exit_code, 2);
  const json checked = parse_json(j);
  EXPECT_EQ(checked["problems"].size(), 6u) << checked.dump(2);
  const std::string summary = catalog_summary(checked["entries"].get<size_t>(), 6, Lang::kEn);
  EXPECT_EQ(r.out.substr(r.out.size() - std::min(r.out.size(), summary.size())), summary) << r.out;
}

TEST(CliTest, CatalogOverrideChangesTheGpuPrice) {
  std::string dir = temp_dir();
  write_file(dir, "gpu.yaml",
             "kind: gpu\n"
             "entries:\n"
             "  - {id: a100-80gb-sxm, " + kGpuFields + ", buy: [50000, 60000], source: \"my vendor, 2024-06\"}\n");
  CliResult r = run_gpuplan("--catalog " + dir + " quote " + example("a100-8gpu-training.yaml") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(j["lines"][0]["id"], "a100-80gb-sxm");
  EXPECT_EQ(j["lines"][0]["buy"], (json{{"low", 400000}, {"high", 480000}}));  // 8 × ¥50,000–60,000
  // The total moves by the same amount: 902,496 − 160,000 and 1,300,152 − 320,000.
  EXPECT_EQ(j["totals"]["buy"], (json{{"low", 742496}, {"high", 980152}}));
}

// --- Installed layout -----------------------------------------------------------------------

TEST(CliTest, InstalledBinaryFindsItsCatalogFromAnyDirectory) {
  const std::string build_dir = testing::build_dir();  // the tree that installs, for both test executables
  const std::string prefix = temp_dir() + "/prefix";
  CliResult install = run_shell("cmake --install " + shell_quoted(build_dir) + " --prefix " + shell_quoted(prefix));
  ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  EXPECT_TRUE(fs::exists(prefix + "/share/gpuplan/catalog/gpu.yaml"));

  const std::string bin = shell_quoted(prefix + "/bin/gpuplan");
  CliResult list = run_shell("cd / && env -u GPUPLAN_CATALOG " + bin + " catalog list gpu");
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(contains(list.out, "a100-80gb-sxm")) << list.out;

  // The entry comes from the installed copy, not from the source tree the binary was built in.
  CliResult show = run_shell("cd / && env -u GPUPLAN_CATALOG " + bin + " catalog show a100-80gb-sxm --format json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  json j = parse_json(show);
  const std::string installed = fs::weakly_canonical(prefix + "/share/gpuplan/catalog/gpu.yaml").string();
  EXPECT_EQ(j["file"].get<std::string>().rfind(installed + ":", 0), 0u) << j["file"];
}

// --- Colour ---------------------------------------------------------------------------------

TEST(CliTest, PipedOutputHasNoEscapeCodes) {
  CliResult r = run_gpuplan("audit " + example("vendor-quote-padded.yaml") + " --lang en");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, report::severity_label(Severity::kFail, Lang::kEn))) << r.out;
  EXPECT_FALSE(contains(r.out, "\x1b[")) << r.out;
}

TEST(CliTest, NoColorTurnsOffColourOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "needs script(1) for a pseudo-terminal";
  // script(1) gives gpuplan a terminal, where it colours the verdict unless told not to.
  const std::string cmd = std::string(GPUPLAN_BINARY) + " audit --lang en " + source_path("examples/vendor-quote-padded.yaml");
  CliResult tty = run_shell("env -u NO_COLOR script -qec " + shell_quoted(cmd) + " /dev/null");
  EXPECT_TRUE(contains(tty.out, "\x1b[1;31mfail\x1b[0m")) << tty.out;
  const std::string verdict = report::ui("verdict", Lang::kEn) + ": " + report::ui("fail", Lang::kEn);
  CliResult no_color = run_shell("NO_COLOR=1 script -qec " + shell_quoted(cmd) + " /dev/null");
  EXPECT_TRUE(contains(no_color.out, verdict)) << no_color.out;
  EXPECT_FALSE(contains(no_color.out, "\x1b[")) << no_color.out;
  CliResult flag = run_shell("env -u NO_COLOR script -qec " + shell_quoted(cmd + " --no-color") + " /dev/null");
  EXPECT_TRUE(contains(flag.out, verdict)) << flag.out;
  EXPECT_FALSE(contains(flag.out, "\x1b[")) << flag.out;
}

// --- tco -----------------------------------------------------------------------------------

TEST(CliTest, TcoDualExampleRentsAndSaysWhy) {
  CliResult r = run_gpuplan("tco " + example("tco-dual-a100.yaml") + " --format json --draws 200");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(keys_of(j), (std::set<std::string>{"name", "currency", "horizon_months", "demand", "strategies",
                                               "break_even", "hybrid", "investments", "sensitivity", "recommendation",
                                               "non_financial", "prices", "price_age"}));
  // Every price names its basis: the example's on-demand price at its line, with its source.
  ASSERT_FALSE(j["prices"].empty());
  EXPECT_EQ(keys_of(j["prices"][0]), (std::set<std::string>{"field", "value", "unit", "from", "where", "catalog",
                                                            "stated_as", "gpus_per_server", "source", "fx", "basis"}));
  const auto on_demand = std::find_if(j["prices"].begin(), j["prices"].end(),
                                      [](const json& p) { return p["field"] == "rent.on_demand_gpu_hour"; });
  ASSERT_NE(on_demand, j["prices"].end());
  EXPECT_EQ((*on_demand)["where"], source_path("examples/tco-dual-a100.yaml") + ":19");
  EXPECT_EQ((*on_demand)["value"]["low"], 12.8);
  EXPECT_TRUE(contains((*on_demand)["source"].get<std::string>(), "[S1 §4]"));
  EXPECT_EQ(j["horizon_months"], 36);
  double rent = 0;
  for (const auto& s : j["strategies"])
    if (s["id"] == "rent_hourly") rent = s["total"];
  EXPECT_NEAR(rent, 336384, 1e-6);  // 2 × 0.5 × 26,280 × 12.8
  EXPECT_EQ(j["recommendation"]["strategy"], "rent_hourly");
  EXPECT_EQ(j["sensitivity"]["monte_carlo"]["draws"], 200);
}

TEST(CliTest, TcoHtmlReportIsWrittenToTheOutputFile) {
  std::string out = temp_dir() + "/tco.html";
  CliResult r = run_gpuplan("tco " + example("tco-hybrid-nightly.yaml") + " --format html --draws 100 --output " + shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = testing::read_file(out);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(html, "<svg"));
  EXPECT_FALSE(contains(html, "<script"));
}

TEST(CliTest, HtmlIsRefusedWhereNotOffered) {
  CliResult r = run_gpuplan("catalog list --format html");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--format")) << r.err;
}

TEST(CliTest, QuoteRecommendAndAuditWriteOneHtmlPage) {
  for (const std::string& args : {"quote " + example("a100-8gpu-training.yaml"),
                                 std::string("recommend --task finetune --params 13B --dataset-tb 2"),
                                 "audit " + example("vendor-quote-clean.yaml")}) {
    CliResult r = run_gpuplan(args + " --format html --lang zh");
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    testing::expect_self_contained_html(r.out, "zh-CN", 0);
    EXPECT_EQ(r.out.substr(r.out.size() - 8), "</html>\n") << args;
  }
}

TEST(CliTest, BadScenariosExit2NamingFileLineAndField) {
  const std::string dir = temp_dir();
  const std::string head = "owned: {gpus: 2, price: 780000, power_kw: 0}\nrent: {on_demand_gpu_hour: 12.8}\n";
  struct Case {
    std::string yaml;
    std::string expected;  // in stderr
  };
  const std::vector<Case> cases = {
      {"horizon: -5 months\n" + head + "demand: {utilization: 50%}\n", "s.yaml:1: horizon:"},
      {"horizon: 36 months\n" + head + "demand: {utilization: 130%}\n", "s.yaml:4: demand.utilization:"},
      {"horizon: 36 months\nowned: {gpus: 2, price: 780000, power_kw: 0, pue: 0.9}\nrent: {on_demand_gpu_hour: 12.8}\n"
       "demand: {utilization: 50%}\n",
       "s.yaml:2: owned.pue:"},
      {"horizon: 36 months\nowned: {gpus: 2, price: 780000, power_kw: 0}\nrent: {source: x}\ndemand: {utilization: 50%}\n",
       "s.yaml:3: rent"},
  };
  for (const Case& c : cases) {
    std::string path = write_file(dir, "s.yaml", c.yaml);
    CliResult r = run_gpuplan("tco " + shell_quoted(path));
    EXPECT_EQ(r.exit_code, 2) << c.yaml;
    EXPECT_TRUE(contains(r.err, c.expected)) << "expected '" << c.expected << "' in: " << r.err;
  }
  // A demand file with a gap names the CSV's own line.
  write_file(dir, "gap.csv", "hour,busy_gpus\n0,1\n1,1\n3,1\n");
  std::string path = write_file(dir, "s.yaml", "horizon: 4 h\n" + head + "demand: {file: gap.csv}\n");
  CliResult r = run_gpuplan("tco " + shell_quoted(path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "gap.csv:4:")) << r.err;
}

// --- usage ---------------------------------------------------------------------------------

TEST(CliTest, UsageSynthThenAnalyseGivesHeatmapPatternAndCosts) {
  const std::string dir = temp_dir();
  CliResult synth = run_gpuplan("usage synth --pattern nightly-peak --gpus 4 --days 7 --interval 5min --output " + shell_quoted(dir + "/n.csv"));
  ASSERT_EQ(synth.exit_code, 0) << synth.err;
  // PCIe cards, bought one by one (an HGX board would be owned whole or not at all).
  // On demand only, at the global market's ¥9.90 a GPU-hour, the evening peak is cheaper rented.
  CliResult r = run_gpuplan("usage " + shell_quoted(dir + "/n.csv") +
                            " --gpu a100-80gb-pcie --rent hourly --market global --format json --write-demand " +
                            shell_quoted(dir + "/demand.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(j["hours"], 168);
  EXPECT_EQ(j["gpus"], 4);
  EXPECT_EQ(j["pattern"]["verdict"], "hybrid");
  EXPECT_EQ(j["recommendation"]["owned_gpus"], 2);  // the half busy all day
  EXPECT_EQ(j["heatmap"]["by_weekday"]["rows"].size(), 7u);
  // The demand profile is a tco demand file: 2 GPUs × 20 h + 4 × 4 h = 56 busy GPU-hours a day.
  std::ifstream in(dir + "/demand.csv");
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header, "hour,busy_gpus");
  double busy = 0;
  while (std::getline(in, row)) busy += std::stod(row.substr(row.find(',') + 1));
  EXPECT_EQ(busy, 56 * 7);
}

TEST(CliTest, UsageBadInputExits2) {
  CliResult missing = run_gpuplan("usage /nonexistent/gpu.csv");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "/nonexistent/gpu.csv")) << missing.err;
  CliResult none = run_gpuplan("usage");
  EXPECT_EQ(none.exit_code, 2);
  CliResult down = run_gpuplan("usage --prometheus http://127.0.0.1:9 --since 1d");
  EXPECT_EQ(down.exit_code, 2);
  EXPECT_TRUE(contains(down.err, "127.0.0.1:9")) << down.err;
  CliResult since = run_gpuplan("usage --prometheus http://127.0.0.1:9 --since 90x");
  EXPECT_EQ(since.exit_code, 2);
  CliResult pattern = run_gpuplan("usage synth --pattern chaos");
  EXPECT_EQ(pattern.exit_code, 2);
}

TEST(CliTest, UsageReportsSkippedLinesWithFileAndLine) {
  const std::string dir = temp_dir();
  std::string path = write_file(dir, "bad.csv",
                                "timestamp, index, utilization.gpu [%]\n2024/05/01 12:00:00.000, 0, 40 %\nnot a row\n"
                                "2024/05/01 12:00:01.000, 0, 41 %\n");
  CliResult r = run_gpuplan("usage " + shell_quoted(path) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r);
  EXPECT_EQ(j["skipped_count"], 1);
  EXPECT_EQ(j["skipped"][0]["line"], 3);
  EXPECT_TRUE(contains(r.err, "bad.csv:3")) << r.err;
  // The note and "wrote FILE" in Chinese: the count, the file:line and where the report went.
  const std::string out = dir + "/usage.md";
  CliResult zh = run_gpuplan("usage " + shell_quoted(path) + " --format md --lang zh --output " + shell_quoted(out));
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  const std::string note = report::say(Phrase("cli.skipped_lines").fact("count", "1").fact("first", ""), Lang::kZh);
  EXPECT_TRUE(contains(zh.err, "gpuplan: " + note)) << zh.err;
  EXPECT_TRUE(contains(zh.err, path + ":3")) << zh.err;
  EXPECT_TRUE(contains(zh.err, "gpuplan: " + report::say(Phrase("cli.wrote").fact("path", out), Lang::kZh) + "\n"))
      << zh.err;
  EXPECT_TRUE(fs::is_regular_file(out));
}

}  // namespace
}  // namespace gpuplan
