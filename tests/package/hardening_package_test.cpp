// The package (README "Package"): `cpack -G DEB` in the build tree, the .deb unpacked with
// `dpkg -x` into a temporary root, its files and its installed binary; --version and the commit it
// names; the generated bash completion run against the real flags of every verb.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.h"
#include "test_support.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;
using testing::source_path;
using testing::read_file;
using testing::temp_dir;

struct Shell {
  int status = -1;
  std::string output;  // standard output and error, interleaved
};

// Runs `command` with /bin/sh, reading what it prints through a pipe.
Shell sh(const std::string& command) {
  Shell r;
  FILE* pipe = popen((command + " 2>&1 </dev/null").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// project(gpuplan VERSION x.y.z) in CMakeLists.txt, read here rather than taken from the build.
std::string project_version() {
  std::smatch m;
  const std::string cmake = read_file(source_path("CMakeLists.txt"));
  EXPECT_TRUE(std::regex_search(cmake, m, std::regex(R"(project\(gpuplan VERSION ([0-9.]+))")));
  return m.size() > 1 ? m[1].str() : "";
}

// The verbs of main.cpp's table, in its order.
const std::vector<std::string> kVerbs = {"quote",   "recommend", "audit",    "tco",      "usage",
                                         "catalog", "accept",    "diagnose", "snapshot", "watch"};

// --- The .deb ---------------------------------------------------------------------------------

TEST(PackageTest, DebUnpacksIntoARootWhereTheBinaryFindsItsCatalog) {
  const std::string dir = temp_dir();
  // -B keeps cpack's staging and the package out of the build tree.
  Shell pack = sh("cd " + shell_quoted(testing::build_dir()) + " && cpack -G DEB -B " + shell_quoted(dir + "/out"));
  ASSERT_EQ(pack.status, 0) << pack.output;
  const std::string arch = sh("dpkg --print-architecture").output;
  const std::string deb = dir + "/out/gpuplan_" + project_version() + "_" + arch.substr(0, arch.find('\n')) + ".deb";
  ASSERT_TRUE(fs::is_regular_file(deb)) << pack.output;

  // dpkg-shlibdeps turned the binary's shared libraries into package dependencies.
  Shell depends = sh("dpkg-deb -f " + shell_quoted(deb) + " Depends");
  EXPECT_EQ(depends.status, 0);
  for (const char* lib : {"libc6", "libyaml-cpp", "libcurl4", "libsqlite3-0", "libarchive13", "libfmt"})
    EXPECT_NE(depends.output.find(lib), std::string::npos) << lib << " in " << depends.output;
  EXPECT_FALSE(sh("dpkg-deb -f " + shell_quoted(deb) + " Maintainer Description").output.empty());

  const std::string root = dir + "/root";
  Shell unpack = sh("dpkg -x " + shell_quoted(deb) + " " + shell_quoted(root));
  ASSERT_EQ(unpack.status, 0) << unpack.output;
  for (const char* file :
       {"usr/bin/gpuplan", "usr/share/man/man1/gpuplan.1.gz", "usr/share/bash-completion/completions/gpuplan",
        "usr/share/zsh/vendor-completions/_gpuplan", "lib/systemd/system/gpuplan-watch.service",
        "usr/share/doc/gpuplan/README.md", "usr/share/doc/gpuplan/README.zh-CN.md"})
    EXPECT_TRUE(fs::is_regular_file(root + "/" + file)) << file;
  EXPECT_NE(fs::status(root + "/usr/bin/gpuplan").permissions() & fs::perms::owner_exec, fs::perms::none);
  // Every catalog file of the repository, under the name the binary looks for.
  size_t yaml = 0;
  for (const auto& e : fs::directory_iterator(source_path("catalog"))) {
    if (e.path().extension() != ".yaml") continue;
    ++yaml;
    EXPECT_TRUE(fs::is_regular_file(root + "/usr/share/gpuplan/catalog/" + e.path().filename().string())) << e.path();
  }
  EXPECT_GT(yaml, 20u);
  EXPECT_EQ(read_file(root + "/lib/systemd/system/gpuplan-watch.service"),
            read_file(source_path("packaging/gpuplan-watch.service")));

  // The man page has a section for every verb, from its --help.
  Shell man = sh("gzip -dc " + shell_quoted(root + "/usr/share/man/man1/gpuplan.1.gz"));
  ASSERT_EQ(man.status, 0) << man.output;
  EXPECT_EQ(man.output.rfind(".TH GPUPLAN 1 ", 0), 0u) << man.output.substr(0, 200);
  for (const std::string& verb : kVerbs)
    EXPECT_NE(man.output.find("\n.SH \"gpuplan " + verb + "\"\n"), std::string::npos) << verb;
  EXPECT_NE(man.output.find("\n.B \\-\\-rack\\-amps FLOAT\n"), std::string::npos);  // quote's flag, escaped for roff

  // The installed binary, from another directory and with no --catalog or $GPUPLAN_CATALOG.
  const std::string bin = "cd / && env -u GPUPLAN_CATALOG " + shell_quoted(root + "/usr/bin/gpuplan");
  Shell version = sh(bin + " --version");
  EXPECT_EQ(version.status, 0);
  EXPECT_TRUE(std::regex_match(
      version.output, std::regex("gpuplan " + std::regex_replace(project_version(), std::regex(R"(\.)"), R"(\.)") +
                                 R"( \(commit ([0-9a-f]{7,}(\+dirty)?|unknown: built outside git)\)\n)")))
      << version.output;
  Shell show = sh(bin + " catalog show a100-80gb-sxm --format json");
  ASSERT_EQ(show.status, 0) << show.output;
  const std::string installed = fs::weakly_canonical(root + "/usr/share/gpuplan/catalog/gpu.yaml").string();
  EXPECT_EQ(nlohmann::json::parse(show.output)["file"].get<std::string>().rfind(installed + ":", 0), 0u) << show.output;
  Shell quote = sh(bin + " quote " + shell_quoted(source_path("examples/a100-8gpu-training.yaml")) + " --format json");
  ASSERT_EQ(quote.status, 0) << quote.output;
  // The README's example: the buy total ¥902,496–1,300,152.
  EXPECT_EQ(nlohmann::json::parse(quote.output)["totals"]["buy"], (nlohmann::json{{"low", 902496}, {"high", 1300152}}));
}

// --- --version ----------------------------------------------------------------------------------

TEST(PackageTest, VersionNamesTheProjectVersionAndTheCommit) {
  const std::string src = source_path("");
  Shell top = sh("git -C " + shell_quoted(src) + " rev-parse --show-toplevel");
  const bool in_git = top.status == 0 && fs::equivalent(top.output.substr(0, top.output.find('\n')), src);
  Shell en = sh(shell_quoted(testing::gpuplan_binary()) + " --lang en --version");
  ASSERT_EQ(en.status, 0) << en.output;
  std::smatch m;
  if (!in_git) {
    EXPECT_EQ(en.output, "gpuplan " + project_version() + " (commit unknown: built outside git)\n");
    return;
  }
  ASSERT_TRUE(std::regex_match(en.output, m, std::regex(R"(gpuplan ([0-9.]+) \(commit ([0-9a-f]{7,})(\+dirty)?\)\n)")))
      << en.output;
  EXPECT_EQ(m[1].str(), project_version());
  // A commit of this repository (HEAD when built; an earlier one if a commit came since).
  EXPECT_EQ(sh("git -C " + shell_quoted(src) + " cat-file -e " + m[2].str() + "^{commit}").status, 0) << m[2];
  Shell zh = sh(shell_quoted(testing::gpuplan_binary()) + " --lang zh --version");
  EXPECT_EQ(zh.output, "gpuplan " + project_version() + "（提交 " + m[2].str() + m[3].str() + "）\n");
}

// packaging/version.cmake, run as the build runs it: the short hash of HEAD in a git work tree,
// "+dirty" once a tracked file changes, "" (unknown) outside git; the file kept when unchanged.
TEST(PackageTest, VersionScriptNamesTheCommitOrNone) {
  const std::string dir = temp_dir();
  const std::string script = shell_quoted(source_path("packaging/version.cmake"));
  auto generate = [&](const std::string& source, const std::string& out) {
    Shell r = sh("cmake -DSOURCE_DIR=" + shell_quoted(source) + " -DOUTPUT=" + shell_quoted(out) + " -P " + script);
    EXPECT_EQ(r.status, 0) << r.output;
    return read_file(out);
  };
  const std::string tarball = dir + "/tarball";  // a source tree inside no repository
  fs::create_directories(tarball);
  EXPECT_NE(generate(tarball, dir + "/none.cpp").find("kBuildCommit = \"\";"), std::string::npos);

  const std::string repo = dir + "/repo";
  const std::string git = "git -C " + shell_quoted(repo) + " -c user.name=t -c user.email=t@t ";
  ASSERT_EQ(sh("git init -q " + shell_quoted(repo)).status, 0);
  std::ofstream(repo + "/a.txt") << "one\n";
  ASSERT_EQ(sh(git + "add a.txt && " + git + "commit -qm one").status, 0);
  const std::string head = sh(git + "rev-parse --short HEAD").output.substr(0, 7);
  ASSERT_EQ(head.size(), 7u);
  const std::string out = dir + "/commit.cpp";
  EXPECT_NE(generate(repo, out).find("kBuildCommit = \"" + head), std::string::npos);
  EXPECT_EQ(generate(repo, out).find("+dirty"), std::string::npos);
  std::ofstream(repo + "/untracked.txt") << "scratch\n";  // untracked: still clean
  EXPECT_EQ(generate(repo, out).find("+dirty"), std::string::npos);
  // Unchanged text is not rewritten, so the build does not recompile it: the inode stays.
  struct stat before {};
  ASSERT_EQ(stat(out.c_str(), &before), 0);
  generate(repo, out);
  struct stat after {};
  ASSERT_EQ(stat(out.c_str(), &after), 0);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  std::ofstream(repo + "/a.txt") << "two\n";
  EXPECT_NE(generate(repo, out).find("\"" + head + "+dirty\""), std::string::npos);
}

// --- Completions ----------------------------------------------------------------------------------

// The non-empty lines of `text`, one completion a line.
std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.insert(line);
  return out;
}

// What the generated bash completion offers for the command line `words` (the last one the word
// being completed), run in bash as the shell runs it.
std::set<std::string> bash_completes(const std::string& words) {
  const std::string script = std::string(testing::build_dir()) + "/packaging/gpuplan.bash";
  Shell r =
      sh("bash -c " + shell_quoted("source " + shell_quoted(script) + "; COMP_WORDS=(" + words +
                             "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _gpuplan; printf '%s\\n' \"${COMPREPLY[@]}\""));
  EXPECT_EQ(r.status, 0) << r.output;
  return lines_of(r.output);
}

// What the generated zsh completion offers for `words`, in zsh: compadd and _files, zsh's
// completion builtins, stand in as functions that print what they are given ("FILES" for files).
std::set<std::string> zsh_completes(const std::string& words) {
  const std::string script = std::string(testing::build_dir()) + "/packaging/_gpuplan";
  Shell r =
      sh("zsh -fc " + shell_quoted("compadd() { [[ $1 == -- ]] && shift; print -rl -- \"$@\" }; _files() { print FILES }; "
                             "source " +
                             shell_quoted(script) + " >/dev/null; words=(" + words + "); CURRENT=${#words}; _gpuplan"));
  EXPECT_EQ(r.status, 0) << r.output;
  return lines_of(r.output);
}

TEST(PackageTest, ZshCompletionOffersWhatTheBashOneDoes) {
  // zsh filters by the typed prefix itself, so an empty word shows the whole list.
  EXPECT_EQ(zsh_completes("gpuplan ''"), std::set<std::string>(kVerbs.begin(), kVerbs.end()));
  EXPECT_EQ(zsh_completes("gpuplan catalog ''"), (std::set<std::string>{"list", "show", "check"}));
  EXPECT_EQ(zsh_completes("gpuplan accept --nvml ''"), (std::set<std::string>{"auto", "live", "snapshot", "off"}));
  EXPECT_EQ(zsh_completes("gpuplan tco --seed 3 ''"), (std::set<std::string>{"FILES"}));
  EXPECT_EQ(zsh_completes("gpuplan watch ''"), (std::set<std::string>{"export", "rules"}));
  for (const std::string& verb : kVerbs)
    EXPECT_EQ(zsh_completes("gpuplan " + verb + " -"), bash_completes("gpuplan " + verb + " -")) << verb;
}

TEST(PackageTest, BashCompletionOffersVerbsSubVerbsAndFixedValues) {
  EXPECT_EQ(bash_completes("gpuplan ''"), std::set<std::string>(kVerbs.begin(), kVerbs.end()));
  EXPECT_EQ(bash_completes("gpuplan catalog ''"), (std::set<std::string>{"list", "show", "check"}));  // no files
  EXPECT_EQ(bash_completes("gpuplan --lang en watch ''").count("export"), 1u);  // a global flag's value skipped
  EXPECT_EQ(bash_completes("gpuplan quote --ra"), (std::set<std::string>{"--rack-amps"}));
  EXPECT_EQ(bash_completes("gpuplan accept --nvml ''"), (std::set<std::string>{"auto", "live", "snapshot", "off"}));
  EXPECT_EQ(bash_completes("gpuplan watch export --format ''"), (std::set<std::string>{"smi-csv", "dmon"}));
  // After a flag that takes a value, the next word is that value, not a sub-verb.
  EXPECT_EQ(bash_completes("gpuplan usage --gpu synth --q"), (std::set<std::string>{"--quiet"}));
}

// Every flag a verb's --help lists (read here with its own pattern), and the top level's that fall
// through to it, is offered after `gpuplan VERB -`.
TEST(PackageTest, BashCompletionOffersEveryFlagOfEveryVerb) {
  const std::regex flag(R"((?:^|\n)  (?:(-[a-z]),)?(--[a-z][a-z-]*))");
  auto flags_of = [&](const std::string& verb) {
    Shell help = sh(shell_quoted(testing::gpuplan_binary()) + " --lang en " + verb + " --help");
    EXPECT_EQ(help.status, 0) << help.output;
    std::set<std::string> out;
    for (std::sregex_iterator it(help.output.begin(), help.output.end(), flag), end; it != end; ++it) {
      if ((*it)[1].matched) out.insert((*it)[1]);
      out.insert((*it)[2]);
    }
    return out;
  };
  std::set<std::string> global = flags_of("");
  EXPECT_TRUE(global.count("--catalog") && global.count("--no-color")) << global.size();
  for (const char* own : {"-h", "--help", "--version"}) global.erase(own);
  for (const std::string& verb : kVerbs) {
    std::set<std::string> expected = flags_of(verb);
    EXPECT_GE(expected.size(), 1u) << verb;
    expected.insert(global.begin(), global.end());
    EXPECT_EQ(bash_completes("gpuplan " + verb + " -"), expected) << verb;
  }
}

}  // namespace
}  // namespace gpuplan
