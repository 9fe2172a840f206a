// The thresholds gpuplan reads: the list Catalog::load checks stays in step with the code, and a
// catalog without one of them is bad input naming the id (exit 2), in `catalog check` and in
// every verb, never an internal error.
#include "catalog/required_thresholds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "catalog/catalog.h"
#include "test_support.h"

namespace gpuplan::catalog {
namespace {

namespace fs = std::filesystem;
using gpuplan::testing::CliResult;
using gpuplan::testing::run_gpuplan;
using gpuplan::testing::read_file;
using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;

bool required(const std::string& id) {
  const auto& ids = required_thresholds();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Every source file under src/ but the list itself, as text.
std::vector<std::pair<std::string, std::string>> sources() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& de : fs::recursive_directory_iterator(source_path("src"))) {
    const std::string ext = de.path().extension().string();
    if ((ext == ".cpp" || ext == ".h") && de.path().filename() != "required_thresholds.cpp")
      out.emplace_back(de.path().string(), read_file(de.path()));
  }
  return out;
}

// A copy of the shipped catalog without the threshold entry `id`.
std::string catalog_without(const std::string& id) {
  const std::string dir = temp_dir() + "/catalog";
  fs::copy(source_path("catalog"), dir, fs::copy_options::recursive);
  std::string text = read_file(dir + "/threshold.yaml");
  const size_t begin = text.find("  - id: " + id + "\n");
  EXPECT_NE(begin, std::string::npos) << id;
  const size_t end = text.find("\n  - id: ", begin + 1);
  text.erase(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
  std::ofstream(dir + "/threshold.yaml") << text;
  return dir;
}

const std::string kEnEnv = "env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8";

TEST(RequiredThresholdsTest, ListsEveryThresholdTheCodeReads) {
  const std::regex read(R"re(threshold(?:_range|_entry)?\("([^"]+)")re");
  size_t reads = 0;
  for (const auto& [file, text] : sources())
    for (std::sregex_iterator it(text.begin(), text.end(), read), end; it != end; ++it, ++reads)
      EXPECT_TRUE(required((*it)[1])) << file << " reads threshold " << (*it)[1] << ", not in required_thresholds()";
  EXPECT_GT(reads, 50u);
}

TEST(RequiredThresholdsTest, EveryListedThresholdIsReadSomewhere) {
  const auto all = sources();
  for (std::string_view id : required_thresholds()) {
    const std::string quoted = "\"" + std::string(id) + "\"";
    EXPECT_TRUE(
        std::any_of(all.begin(), all.end(), [&](const auto& f) { return f.second.find(quoted) != std::string::npos; }))
        << id << " is listed but no source file names it";
  }
  const std::set<std::string_view> unique(required_thresholds().begin(), required_thresholds().end());
  EXPECT_EQ(unique.size(), required_thresholds().size());
}

TEST(RequiredThresholdsTest, LoadNamesAMissingThreshold) {
  std::vector<Error> problems;
  Catalog c = Catalog::load({catalog_without("memory.min_gb")}, problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "memory.min_gb");
  EXPECT_EQ(problems[0].message.key, "error.catalog.missing_threshold");
  EXPECT_EQ(c.find("memory.min_gb"), nullptr);
}

TEST(RequiredThresholdsTest, AVerbWithoutAThresholdIsBadInputNamingIt) {
  const std::string env = kEnEnv + " GPUPLAN_CATALOG=" + catalog_without("memory.min_gb");
  CliResult r = run_gpuplan("quote --gpu a100-80gb-sxm --gpus 8", env);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("memory.min_gb"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(RequiredThresholdsTest, CatalogCheckListsAMissingThreshold) {
  const std::string env = kEnEnv + " GPUPLAN_CATALOG=" + catalog_without("tco.mc_draws");
  CliResult r = run_gpuplan("catalog check", env);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("tco.mc_draws: no threshold 'tco.mc_draws' in the catalog"), std::string::npos) << r.out;
  CliResult j = run_gpuplan("catalog check --format json", env);
  EXPECT_NE(j.out.find("\"field\": \"tco.mc_draws\""), std::string::npos) << j.out;
}

}  // namespace
}  // namespace gpuplan::catalog
