// What every verb of the command line shares: the common flags, the context built from them
// (catalog, output format, style), exit codes, the run's language, --help in that language, and
// how bad input, notes and reports are written.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "report/render.h"
#include "telemetry/readers.h"

namespace gpuplan::cli {

constexpr int kOk = 0;
constexpr int kVerdictFailed = 1;
constexpr int kBadInput = 2;

struct Common {
  std::vector<std::string> catalogs;
  std::string format = "table";
  std::string lang;
  bool no_color = false;
  std::string today;  // YYYY-MM-DD; empty: the system's date (UTC)
};

struct Context {
  catalog::Catalog catalog;
  report::Format format = report::Format::kTable;
  report::Style style;
  std::string today;  // YYYY-MM-DD the reports date their prices to
};

// The language of this run's words (--lang, else LANG), settled before the command line is
// parsed so that --help and errors speak it too.
void set_language(report::Lang lang);
report::Lang language();
// The language `--lang X` or `--lang=X` in `argv` names (the last one given), else LANG's; an
// unknown value is left to the parsed flag to refuse.
report::Lang language_of(int argc, const char* const* argv);

// Words in the run's language: a label or heading, and a phrase.
std::string ui(std::string_view key);
std::string say(const Phrase& p);
// ":" or "：" after a heading, and ": " or "：" after a label that text follows ("error: …" / "错误：…").
const char* colon();
const char* label_end();
// A figure given on the command line as a fact: "0.001", "-2", "nan".
std::string shown(double value);

// A flag's value out of its range: "--gpus: must be at least 1 (got 0)". `got` is the value as given.
Error at_least(std::string flag, int min, std::string got);
Error above(std::string flag, double got);  // must be more than 0
Error not_negative(std::string flag, double got);
// cli.value.between or between_seconds; `note` fills {note} (" (a week)").
Error between(std::string key, std::string flag, std::string min, std::string max, std::string got,
              std::vector<Phrase> note = {});

// Prints "gpuplan: error: …" in the run's language and returns kBadInput.
int bad_input(const Error& e);
int bad_input(const Phrase& message);
// Prints "gpuplan: …" on standard error.
void note(const Phrase& message);

// The --help formatter for this run's language: CLI11's labels (Usage, OPTIONS, …) and the type
// names of values (FILE, INT, …) in that language, columns aligned by display width. Set it on
// the app before adding subcommands (they share it), then call localize_help once all are added.
std::shared_ptr<CLI::Formatter> help_formatter();
// Names the option groups and subcommand lists of `app` and everything under it in the run's
// language, and gives every type name shown a label.
void localize_help(CLI::App& app);
// A --help footer: "Examples:" and the commands, one a line.
std::string examples(std::initializer_list<std::string_view> commands);
// --task's help: the task names it takes.
std::string task_help();

// Builds the context every verb needs; prints the problem and returns false on bad input.
bool make_context(const Common& common, Context& ctx, int& exit_code, bool html_ok = false);

// A progress bar on standard error for long reads, when it is a terminal and not `quiet`.
telemetry::Progress progress_bar(bool quiet);

// Prints a report, or writes it to `output` when one is given.
int emit(const std::string& text, const std::string& output);

}  // namespace gpuplan::cli
