// Shared test helpers: the repository's catalog, catalogs with extra entries laid over it,
// resolved configurations from YAML text, and running the real binary.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "core/phrase.h"
#include "plan/config.h"
#include "plan/quote.h"

// The test objects are shared by both test executables, so the binary's path is looked up, not
// compiled in (binary_path.cpp alone has it as a definition).
#ifndef GPUPLAN_BINARY
#define GPUPLAN_BINARY (::gpuplan::testing::gpuplan_binary())
#endif

namespace gpuplan {
// How GoogleTest prints a phrase in a failure: its key and facts.
void PrintTo(const Phrase& p, std::ostream* os);
std::ostream& operator<<(std::ostream& os, const Phrase& p);
}  // namespace gpuplan

namespace gpuplan::testing {

// The value of the fact `key` in `p` or in any phrase nested in its facts; nullptr when none.
const std::string* fact_in(const Phrase& p, const std::string& key);
// A phrase in English, for a test that checks how a message reads.
std::string english(const Phrase& p);
// The words of a key or a phrase as a renderer says them, so that a test checks where the
// renderer puts the table's words and the figures, not how the words read.
std::string en(std::string_view key);
std::string en(const Phrase& p);
std::string zh(std::string_view key);
std::string zh(const Phrase& p);

std::string source_path(const std::string& relative);  // inside the repository

// The gpuplan binary under test (asan/gpuplan for gpuplan_tests_asan) and the build tree that
// built it; tests/binary_path.cpp, compiled for each test executable.
const char* gpuplan_binary();
const char* build_dir();
// True in gpuplan_tests_asan, whose binary runs several times slower under the sanitizers.
bool binary_is_sanitized();

const catalog::Catalog& default_catalog();

// The default catalog with `files` (name -> YAML text) laid over it from a temporary directory.
catalog::Catalog catalog_with(const std::vector<std::pair<std::string, std::string>>& files);

// A new, empty temporary directory (mkdtemp, so never one a killed test process left behind),
// removed at exit.
std::string temp_dir();
std::string write_file(const std::string& dir, const std::string& name, const std::string& text);
// The bytes of the file at `path`; "" when it cannot be read.
std::string read_file(const std::string& path);

// Parses and resolves a configuration; the test fails on an error.
plan::ServerConfig config_from(const std::string& yaml, const catalog::Catalog& cat = default_catalog());
// The quote of that configuration with the default catalog.
plan::Quote quote_from(const std::string& yaml);

// The top-level keys of a JSON object, and how often `needle` occurs in `text`.
std::set<std::string> keys_of(const nlohmann::json& j);
size_t count_of(const std::string& text, const std::string& needle);

// An HTML report is one page in `lang` with `svgs` inline charts and nothing external: no
// scripts, links, imports or URLs but the SVG namespace.
void expect_self_contained_html(const std::string& out, const std::string& lang, size_t svgs);

std::vector<Finding> findings_with_id(const std::vector<Finding>& all, const std::string& id);

// A host tree in a temporary directory, for probe tests: files and links at host paths.
class HostTree {
 public:
  HostTree();
  const std::string& root() const { return root_; }
  void file(const std::string& host_path, const std::string& text) const;
  void link(const std::string& host_path, const std::string& target) const;
  // A PCI function directory under /sys/devices holding `files`, linked from /sys/bus/pci/devices.
  void device(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) const;

 private:
  std::string root_;
};

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs the built gpuplan binary with `args` (shell-quoted by the caller) and `env` prefix.
CliResult run_gpuplan(const std::string& args, const std::string& env = "");

}  // namespace gpuplan::testing
