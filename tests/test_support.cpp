#include "test_support.h"

#include <ostream>

#include "report/messages.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace gpuplan {
void PrintTo(const Phrase& p, std::ostream* os) { *os << Error{{}, 0, {}, p}.str(); }
std::ostream& operator<<(std::ostream& os, const Phrase& p) {
  PrintTo(p, &os);
  return os;
}
}  // namespace gpuplan

namespace gpuplan::testing {

const std::string* fact_in(const Phrase& p, const std::string& key) {
  for (const Fact& f : p.facts) {
    if (f.key == key && (f.phrases.empty() || !f.value.empty())) return &f.value;
    for (const Phrase& nested : f.phrases)
      if (const std::string* v = fact_in(nested, key)) return v;
  }
  return nullptr;
}

std::string english(const Phrase& p) { return report::say(p, report::Lang::kEn); }
std::string en(std::string_view key) { return report::ui(key, report::Lang::kEn); }
std::string en(const Phrase& p) { return report::say(p, report::Lang::kEn); }
std::string zh(std::string_view key) { return report::ui(key, report::Lang::kZh); }
std::string zh(const Phrase& p) { return report::say(p, report::Lang::kZh); }

namespace fs = std::filesystem;

std::string source_path(const std::string& relative) { return std::string(GPUPLAN_SOURCE_DIR) + "/" + relative; }

const catalog::Catalog& default_catalog() {
  static const catalog::Catalog cat = [] {
    std::vector<Error> problems;
    auto c = catalog::Catalog::load({source_path("catalog")}, problems);
    for (const auto& p : problems) ADD_FAILURE() << p.str();
    return c;
  }();
  return cat;
}

std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "gpuplan-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) ADD_FAILURE() << "mkdtemp " << pattern << ": " << std::strerror(errno);
  static struct Cleanup {
    std::vector<fs::path> dirs;
    ~Cleanup() {
      std::error_code ec;
      for (const auto& d : dirs) fs::remove_all(d, ec);
    }
  } cleanup;
  cleanup.dirs.push_back(pattern);
  return pattern;
}

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

catalog::Catalog catalog_with(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string dir = temp_dir();
  for (const auto& [name, text] : files) write_file(dir, name, text);
  std::vector<Error> problems;
  auto c = catalog::Catalog::load({source_path("catalog"), dir}, problems);
  for (const auto& p : problems) ADD_FAILURE() << p.str();
  return c;
}

plan::ServerConfig config_from(const std::string& yaml, const catalog::Catalog& cat) {
  auto input = plan::parse_config_yaml(yaml, "test.yaml");
  if (!input) {
    ADD_FAILURE() << input.error().str();
    return {};
  }
  auto resolved = plan::resolve_config(*input, cat);
  if (!resolved) {
    ADD_FAILURE() << resolved.error().str();
    return {};
  }
  return *resolved;
}

plan::Quote quote_from(const std::string& yaml) {
  return plan::build_quote(config_from(yaml), default_catalog());
}

std::set<std::string> keys_of(const nlohmann::json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

void expect_self_contained_html(const std::string& out, const std::string& lang, size_t svgs) {
  EXPECT_EQ(out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(out.find("<html lang=\"" + lang + "\">"), std::string::npos);
  EXPECT_EQ(count_of(out, "<svg "), svgs);
  EXPECT_EQ(out.find("<script"), std::string::npos);
  EXPECT_EQ(out.find("<link"), std::string::npos);
  EXPECT_EQ(out.find("url("), std::string::npos);
  EXPECT_EQ(out.find("@import"), std::string::npos);
  const std::string ns = "xmlns=\"http://www.w3.org/2000/svg\"";
  EXPECT_EQ(count_of(out, "http://"), count_of(out, ns));
  EXPECT_EQ(count_of(out, ns), svgs);
  EXPECT_EQ(out.find("https://"), std::string::npos);
}

std::vector<Finding> findings_with_id(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (f.id == id) out.push_back(f);
  return out;
}

HostTree::HostTree() : root_(temp_dir()) {}

void HostTree::file(const std::string& host_path, const std::string& text) const {
  fs::path p = root_ + host_path;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

void HostTree::link(const std::string& host_path, const std::string& target) const {
  fs::path p = root_ + host_path;
  fs::create_directories(p.parent_path());
  fs::create_symlink(target, p);
}

void HostTree::device(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) const {
  for (const auto& [name, text] : files) file(dir + "/" + name, text);
  const std::string address = dir.substr(dir.rfind('/') + 1);
  link("/sys/bus/pci/devices/" + address, "../../.." + dir.substr(4));  // "/sys/devices/…" → "../../../devices/…"
}

CliResult run_gpuplan(const std::string& args, const std::string& env) {
  std::string dir = temp_dir();
  std::string cmd = env + " " + GPUPLAN_BINARY + " " + args + " >" + dir + "/out 2>" + dir + "/err </dev/null";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir + "/out");
  r.err = read_file(dir + "/err");
  return r;
}

}  // namespace gpuplan::testing
