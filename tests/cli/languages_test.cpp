// Every verb, on every example and fixture, in both languages, through the real binary:
//   - Chinese output holds no English sentence, English output no Chinese, except what the user
//     or the catalog gave (quoted input: the examples, fixtures and logs read, catalog ids and
//     sources) — ids, units, part numbers and paths are not sentences;
//   - no "{placeholder}" is left unfilled and no message key is shown instead of its words;
//   - every citation printed (docs/rules.md#id, docs/sources.md#id, "S0 §3.3") names a heading
//     in docs/, and nothing cites the internal "SPEC".
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "report/messages.h"
#include "test_support.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;
using testing::default_catalog;
using testing::run_gpuplan;
using testing::source_path;
using testing::read_file;
using testing::temp_dir;
using testing::write_file;

// What a run may quote as it is: every file under the repository's examples and test fixtures,
// the files a test generates, and the catalog's ids and sources in the language being checked.
class Quoted {
 public:
  explicit Quoted(report::Lang lang) {
    for (const char* dir : {"examples", "tests/fixtures"})
      for (const auto& e : fs::recursive_directory_iterator(source_path(dir)))
        if (e.is_regular_file() && e.file_size() < (1 << 20)) text_ += read_file(e.path()) + "\n";
    for (const auto& e : default_catalog().entries()) {
      text_ += e.id + "\n" + (lang == report::Lang::kZh ? e.display_source_zh() : e.source) + "\n";
      // A name without a Chinese form is a product name ("Intel Xeon Silver 4314"), the same in both.
      if (e.name_zh.empty()) text_ += e.name + "\n";
      // Catalog facts shown as they are (component names, switch layouts, Xid actions).
      for (const char* key : {"component", "action", "designed_for", "family", "provider", "instance"})
        if (e.has(key)) text_ += e.text(key) + "\n";
    }
  }
  void add_file(const std::string& path) { text_ += read_file(path) + "\n"; }
  void add(const std::string& text) { text_ += text + "\n"; }
  bool has(const std::string& s) const { return text_.find(s) != std::string::npos; }

 private:
  std::string text_;
};

bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x3000 && c <= 0x303F) ||
         (c >= 0xFF01 && c <= 0xFF5E);
}

// The runs of Chinese characters (and Chinese punctuation) in UTF-8 `text`.
std::vector<std::string> cjk_runs(const std::string& text) {
  std::vector<std::string> out;
  std::string run;
  for (size_t i = 0; i < text.size();) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t c = b < 0x80 ? b : b < 0xE0 ? b & 0x1F : b < 0xF0 ? b & 0x0F : b & 0x07;
    for (size_t k = 1; k < n && i + k < text.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (is_cjk(c)) {
      run += text.substr(i, n);
    } else if (!run.empty()) {
      out.push_back(run);
      run.clear();
    }
    i += n;
  }
  if (!run.empty()) out.push_back(run);
  return out;
}

// Three or more English words in a row: a sentence, not an id ("a100-80gb-sxm"), a unit, a part
// number ("EPYC 7763") or a proper noun of two words ("Fabric Manager").
const std::regex kEnglishRun(R"(\b[A-Za-z][a-z]+(?:(?: |, | / )[A-Za-z][a-z]+\b){2,})");
// Ids, paths, flags, commands and code are not words: a token holding . _ / = - : # @ or a digit
// beside letters ("pcie.aspm", "--soak", "nvidia-smi", "A100"), text in backticks, and a gpuplan
// command line to its end are taken out before looking for English.
std::string without_code(const std::string& line) {
  // Words that are ids a user types: verbs, tasks, acceptance check ids.
  static const std::regex ids(
      R"(\b(?:quote|recommend|audit|tco|usage|catalog|accept|diagnose|snapshot|inference|finetune|train|pretrain|simulation|soak|infiniband|versions|load|iommu|performance|xid|ecc)\b)");
  static const std::regex code(
      R"(`[^`]*`|(?:sudo )?gpuplan (?:quote|recommend|audit|tco|usage|accept|snapshot|diagnose|catalog)\b.*$|[A-Za-z0-9]*[._/=:#@\-][A-Za-z0-9._/=:#@\-]*|[A-Za-z]*[0-9][A-Za-z0-9]*)");
  return std::regex_replace(std::regex_replace(line, code, " ¤ "), ids, " ¤ ");
}

const std::regex kPlaceholder(R"(\{[a-z_]+\})");
// A message key shown instead of its words (area prefix, then two or more dotted parts).
const char* const kKeyAreas[] = {"accept", "error", "skip",      "tco",    "usage",    "cli",
                                 "quote",  "audit", "recommend", "report", "severity", "source"};
const std::regex kRawKey = [] {
  std::string areas;
  for (const char* area : kKeyAreas) areas += std::string(areas.empty() ? "" : "|") + area;
  return std::regex(R"(\b(?:)" + areas + R"()(?:\.[a-z0-9_]+){2,}\b)");
}();
// Whether `line` holds one of kRawKey's areas followed by a dot: where kRawKey may match.
bool has_key_prefix(const std::string& line) {
  for (const char* area : kKeyAreas)
    if (line.find(std::string(area) + ".") != std::string::npos) return true;
  return false;
}
const std::regex kSpec(R"(\bSPEC\b)");
const std::regex kRulesCite(R"(docs/rules\.md#([A-Za-z0-9_.\-]+[A-Za-z0-9_]))");
const std::regex kSourcesCite(R"(docs/sources\.md#([A-Za-z0-9_.\-]+[A-Za-z0-9_]))");
const std::regex kArticleCite(R"(\b(S[01]) §(\d+(?:\.\d+)?(?: #\d+)?))");

// The headings (and explicit anchors) of a Markdown file under docs/.
std::set<std::string> headings(const std::string& file) {
  std::set<std::string> out;
  std::istringstream in(read_file(source_path("docs/" + file)));
  static const std::regex heading(R"(^#{1,4} (.+?)\s*$)"), anchor(R"re(<a id="([^"]+)"></a>)re");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, heading)) out.insert(m[1]);
    if (std::regex_search(line, m, anchor)) out.insert(m[1]);
  }
  return out;
}

struct Command {
  std::string args;
  std::string env;
  bool dumps_catalog = false;  // catalog show / list --format json: the entry's fields as the file has them
};

// Text gpuplan quotes from the system and its libraries, as they gave it: the C library's error
// strings and the YAML parser's messages.
void add_library_texts(Quoted& quoted) {
  for (int e : {ENOENT, EACCES, EISDIR, ENOTDIR}) quoted.add(std::strerror(e));
  quoted.add("end of map flow not found");
  quoted.add("cannot open shared object file");  // dlerror()
}

// What a line says, without markup: HTML tags and styles, and JSON keys (public ids).
std::string words_of(const std::string& line) {
  static const std::regex markup(R"(<style>.*|.*</style>|<[^>]*>|"[^"]*"\s*:)");
  return std::regex_replace(line, markup, " ¤ ");
}

// Runs each command in both languages and reports every word out of place. Against the
// sanitized binary, in Chinese only: the words were checked by the plain run, and the Chinese
// output takes every code path the English does plus the wide-character layout; this suite was a
// quarter of the sanitizers' test time.
void check_runs(const std::vector<Command>& runs, const std::vector<std::string>& generated_inputs) {
  static const std::set<std::string> rules = headings("rules.md"), sources = headings("sources.md");
  std::set<std::string> catalog_ids;
  for (const auto& e : default_catalog().entries()) catalog_ids.insert(e.id);
  std::vector<report::Lang> langs = {report::Lang::kZh, report::Lang::kEn};
  if (testing::binary_is_sanitized()) langs.pop_back();
  for (report::Lang lang : langs) {
    Quoted quoted(lang);
    for (const auto& f : generated_inputs) quoted.add_file(f);
    add_library_texts(quoted);
    const std::string lang_flag = lang == report::Lang::kZh ? " --lang zh" : " --lang en";
    for (const Command& run : runs) {
      const testing::CliResult r = run_gpuplan(run.args + lang_flag, run.env);
      ASSERT_NE(r.exit_code, 3) << run.args << "\n" << r.err;
      const std::string what = run.args + lang_flag;
      auto is_quoted = [&](const std::string& s) { return quoted.has(s); };
      std::istringstream lines(r.out + "\n" + r.err);
      bool in_style = false;
      for (std::string line; std::getline(lines, line);) {
        // An HTML page's style sheet is code.
        if (line.find("<style>") != std::string::npos) in_style = true;
        const bool style_line = in_style;
        if (line.find("</style>") != std::string::npos) in_style = false;
        if (style_line) continue;
        if (run.dumps_catalog) {
          // The entry's fields as the catalog file has them, both languages side by side.
        } else if (lang == report::Lang::kZh) {
          const std::string words = without_code(words_of(line));
          for (auto it = std::sregex_iterator(words.begin(), words.end(), kEnglishRun); it != std::sregex_iterator();
               ++it)
            EXPECT_TRUE(is_quoted(it->str()))
                << what << "\nEnglish in Chinese output: \"" << it->str() << "\"\n  in: " << line;
        } else {
          for (const auto& run_zh : cjk_runs(line))
            EXPECT_TRUE(is_quoted(run_zh))
                << what << "\nChinese in English output: \"" << run_zh << "\"\n  in: " << line;
        }
        // Each pattern only where the text it must contain is (std::regex is slow, and this test
        // reads every line of hundreds of reports).
        auto has = [&line](std::string_view text) { return line.find(text) != std::string::npos; };
        std::smatch m;
        if (has("{")) {
          EXPECT_FALSE(std::regex_search(line, m, kPlaceholder)) << what << "\nunfilled placeholder in: " << line;
        }
        if (has_key_prefix(line)) {
          for (auto it = std::sregex_iterator(line.begin(), line.end(), kRawKey); it != std::sregex_iterator(); ++it)
            EXPECT_TRUE(catalog_ids.count(it->str()) || quoted.has(it->str()))
                << what << "\nmessage key shown instead of words: " << it->str() << "\n  in: " << line;
        }
        if (has("SPEC")) {
          EXPECT_FALSE(std::regex_search(line, m, kSpec)) << what << "\ncites SPEC: " << line;
        }
        if (has("docs/rules.md#")) {
          for (auto it = std::sregex_iterator(line.begin(), line.end(), kRulesCite); it != std::sregex_iterator(); ++it)
            EXPECT_TRUE(rules.count((*it)[1])) << what << "\nno heading docs/rules.md#" << (*it)[1] << "\n  in: " << line;
        }
        if (has("docs/sources.md#")) {
          for (auto it = std::sregex_iterator(line.begin(), line.end(), kSourcesCite); it != std::sregex_iterator(); ++it)
            EXPECT_TRUE(sources.count((*it)[1]))
                << what << "\nno heading docs/sources.md#" << (*it)[1] << "\n  in: " << line;
        }
        if (has("§")) {
          for (auto it = std::sregex_iterator(line.begin(), line.end(), kArticleCite); it != std::sregex_iterator(); ++it)
            EXPECT_TRUE(sources.count((*it)[1].str() + " §" + (*it)[2].str()))
                << what << "\nno heading \"" << it->str() << "\" in docs/sources.md\n  in: " << line;
        }
      }
    }
  }
}

std::string example(const std::string& name) {
  return source_path("examples/" + name);
}
std::string host(const std::string& name) {
  return source_path("tests/fixtures/hosts/" + name);
}
std::string fake_nvml(const std::string& scenario) {
  return std::string("GPUPLAN_NVML_LIBRARY=") + GPUPLAN_FAKE_NVML +
         " GPUPLAN_FAKE_NVML_SCENARIO=" + source_path("tests/fixtures/nvml/" + scenario);
}

const char* const kFormats[] = {"table", "json", "md"};

TEST(LanguagesTest, HelpOfEveryVerb) {
  std::vector<Command> runs = {{"--help", ""}};
  for (const char* verb : {"quote", "recommend", "audit", "tco", "usage", "usage synth", "accept", "snapshot",
                           "diagnose", "catalog", "catalog list", "catalog show", "catalog check"})
    runs.push_back({std::string(verb) + " --help", ""});
  check_runs(runs, {});
}

TEST(LanguagesTest, QuoteRecommendAudit) {
  std::vector<Command> runs;
  for (const char* format : kFormats) {
    for (const char* file : {"a100-8gpu-training.yaml", "a100-1gpu-inference.yaml"})
      runs.push_back({"quote " + example(file) + " --format " + format, ""});
    runs.push_back(
        {"quote --gpu a100-80gb-pcie --gpus 8 --rack-amps 8 --task train --nodes 2 --format " + std::string(format),
         ""});
    runs.push_back({"recommend --task finetune --params 13B --dataset-tb 2 --format " + std::string(format), ""});
    runs.push_back(
        {"recommend --task pretrain --params 175B --latency-ms 5 --budget 1000 --format " + std::string(format), ""});
    runs.push_back(
        {"recommend --task inference --params 7B --concurrency 500 --mode rent --format " + std::string(format), ""});
    for (const char* file : {"vendor-quote-padded.yaml", "vendor-quote-clean.yaml"})
      runs.push_back({"audit " + example(file) + " --format " + format, ""});
  }
  check_runs(runs, {});
}

TEST(LanguagesTest, TcoAndUsage) {
  const std::string dir = temp_dir();
  std::vector<Command> runs;
  for (const char* format : {"table", "json", "md", "html"}) {
    for (const char* file : {"tco-dual-a100.yaml", "tco-burst-8gpu.yaml", "tco-hybrid-nightly.yaml"})
      runs.push_back({"tco " + example(file) + " --draws 200 --format " + format, ""});
  }
  std::vector<std::string> generated;
  for (const char* pattern : {"idle", "steady", "nightly-peak", "weekly-burst"}) {
    const std::string csv = dir + "/" + pattern + ".csv";
    ASSERT_EQ(run_gpuplan(std::string("usage synth --pattern ") + pattern +
                          " --gpus 4 --days 8 --interval 10min --output " + csv)
                  .exit_code,
              0);
    generated.push_back(csv);
    for (const char* format : {"table", "json", "md", "html"})
      runs.push_back({"usage " + csv + " --quiet --format " + format, ""});
  }
  runs.push_back({"usage " + generated[2] + " --quiet --scenario " + example("tco-hybrid-nightly.yaml"), ""});
  check_runs(runs, generated);
}

TEST(LanguagesTest, AcceptDiagnoseSnapshotOnEveryFixtureHost) {
  const std::string dir = temp_dir();
  std::vector<Command> runs;
  for (const char* name : {"hgx-a100-8gpu", "pcie-a100-4gpu-plx", "aer-xid-a100", "aspm-iommu-a100"}) {
    for (const char* format : kFormats) {
      runs.push_back({"accept --root " + host(name) + " --format " + format, ""});
      runs.push_back({"diagnose --root " + host(name) + " --format " + format, ""});
    }
    runs.push_back({"snapshot --root " + host(name) + " --nvml off " + dir + "/" + name + ".tar.gz", ""});
  }
  for (const char* scenario : {"healthy-8xa100.yaml", "rising-ecc.yaml", "thermal-throttle.yaml", "memory-growth.yaml",
                               "engineering-sample.yaml"}) {
    runs.push_back({"accept --root " + host("hgx-a100-8gpu") + " --nvml live --gpus 8", fake_nvml(scenario)});
    runs.push_back(
        {"diagnose --root " + host("hgx-a100-8gpu") + " --nvml live --sample 1 --interval 1", fake_nvml(scenario)});
  }
  // Every kernel-log fixture; not against the sanitized binary, where AcceptKernelLogsTest runs
  // the journal and syslog forms and fuzz.kernel_log replays every fixture.
  if (!testing::binary_is_sanitized())
    for (const auto& log : fs::directory_iterator(source_path("tests/fixtures/kernel-logs")))
      runs.push_back({"accept --root " + host("aer-xid-a100") + " --kernel-log " + log.path().string(), ""});
  for (const char* topo : {"topo-hgx-8gpu.txt", "topo-pcie-4gpu.txt"})
    runs.push_back({"diagnose --root " + host("pcie-a100-4gpu-plx") + " --topo " +
                        source_path("tests/fixtures/tools/" + std::string(topo)),
                    ""});
  check_runs(runs, {});
}

TEST(LanguagesTest, DiagnoseTelemetryLogs) {
  // Logs in which GPUs run hot, stall every minute and fill their memory.
  const std::string dir = temp_dir();
  std::string log =
      "timestamp, index, utilization.gpu [%], temperature.gpu, power.draw [W], power.limit [W], memory.used [MiB], "
      "memory.total [MiB]\n";
  for (int minute = 0; minute < 40; ++minute)
    for (int gpu = 0; gpu < 2; ++gpu) {
      const std::string t =
          "2024/05/06 10:" + std::string(minute < 10 ? "0" : "") + std::to_string(minute) + ":00.000, ";
      const bool stall = gpu == 1 && minute % 4 == 0;
      log += t + std::to_string(gpu) + ", " + (stall ? "5" : "95") + " %, " + (gpu == 0 ? "93" : "70") +
             ", 300 W, 400 W, " + (gpu == 0 ? "80000" : "40000") + " MiB, 81920 MiB\n";
    }
  const std::string csv = write_file(dir, "train.csv", log);
  std::vector<Command> runs;
  for (const char* format : kFormats)
    runs.push_back({"diagnose " + csv + " --nvml off --root " + host("hgx-a100-8gpu") + " --format " + format, ""});
  check_runs(runs, {csv});
}

TEST(LanguagesTest, AcceptWithLogsBenchmarkAndFirmware) {
  // A soak too short and too hot, a load log leaking memory, a sparse archive whose ECC rises, a
  // benchmark below the clause and a firmware image whose hash differs: every check has words.
  const std::string dir = temp_dir();
  std::string soak = "timestamp, index, utilization.gpu [%], temperature.gpu, memory.used [MiB]\n";
  std::string archive =
      "timestamp, index, temperature.gpu, power.draw [W], memory.used [MiB], ecc.errors.corrected.volatile.total, "
      "ecc.errors.uncorrected.volatile.total\n";
  for (int h = 0; h < 12; ++h)
    for (int gpu = 0; gpu < 8; ++gpu) {
      const std::string t = "2024/05/06 " + std::string(h < 10 ? "0" : "") + std::to_string(h) + ":00:00.000, ";
      soak += t + std::to_string(gpu) + ", " + (h == 3 ? "40" : "99") + " %, " + (h == 5 ? "91" : "70") + ", " +
              std::to_string(20000 + 400 * h) + " MiB\n";
      archive +=
          t + std::to_string(gpu) + ", 65, 300 W, 20000 MiB, " + std::to_string(h) + ", " + (h > 6 ? "1" : "0") + "\n";
    }
  const std::string soak_csv = write_file(dir, "soak.csv", soak);
  const std::string archive_csv = write_file(dir, "archive.csv", archive);
  const std::string bench = write_file(dir, "bench.txt", "total images/sec: 9000.00\n");
  const std::string image = write_file(dir, "vbios.rom", "abc");
  const std::string sums = write_file(dir, "SHA256SUMS", std::string(64, '0') + "  vbios.rom\n");
  const std::string smart = source_path("tests/fixtures/tools/smartctl-worn.json");
  const std::string ibstat = source_path("tests/fixtures/tools/ibstat-hdr.txt");
  std::vector<Command> runs;
  for (const char* format : kFormats)
    runs.push_back({"accept --root " + host("pcie-a100-4gpu-plx") + " --soak " + soak_csv + " --load " + soak_csv +
                        " --archive " + archive_csv + " --benchmark " + bench + " --firmware " + image +
                        " --checksums " + sums + " --smartctl " + smart + " --ibstat " + ibstat +
                        " --cuda 12.4 --nccl 2.18.3 --gpus 8 --format " + format,
                    ""});
  check_runs(runs, {soak_csv, archive_csv, bench, sums});
}

TEST(LanguagesTest, CatalogVerbs) {
  check_runs({{"catalog list", ""},
              {"catalog list threshold --format md", ""},
              {"catalog list cpu --format json", "", true},
              {"catalog show a100-80gb-sxm", "", true},
              {"catalog show hgx-a100-8gpu --format json", "", true},
              {"catalog check", ""}},
             {});
}

TEST(LanguagesTest, BadInputIsWordedToo) {
  const std::string dir = temp_dir();
  const std::string broken = write_file(dir, "broken.yaml", "gpu: a100-80gb-sxm\ngpus: 8\nnics: [{part: x\n");
  const std::string typo = write_file(dir, "typo.yaml", "gpu: a100-80gb-sxm\ngpuz: 8\nmemory: 512 GBB\n");
  const std::string csv = write_file(dir, "junk.csv", "not a log at all\n");
  const std::string bad_part =
      write_file(dir, "bad-part.yaml",
                 "vendor: V\ngpus: 8\nlines:\n  - {item: GPU, part: a100-80gb-sxn, qty: 8, unit_price: 80000}\n");
  check_runs({{"quote " + broken, ""},
              {"quote " + typo, ""},
              {"quote " + dir + "/missing.yaml", ""},
              {"quote --gpus x", ""},
              {"quote --gpu a100-80gb-sxm --gpus 8 --region mars", ""},
              {"recommend --task fly --params 13B", ""},
              {"recommend --task finetune --params many", ""},
              {"tco " + dir + "/missing.yaml", ""},
              {"usage " + csv, ""},
              {"accept --root " + dir + "/nowhere", ""},
              {"catalog show nosuch", ""},
              {"catalog list gpux", ""},
              {"audit " + bad_part, ""},
              {"accept --root " + host("hgx-a100-8gpu") + " --nvml live",
               "GPUPLAN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"},
              {"bogus-verb", ""}},
             {broken, typo, csv, bad_part});
}

}  // namespace
}  // namespace gpuplan
