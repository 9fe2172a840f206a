// What every verb of the command line shares: the common flags, the context built from them
// (catalog, output format, style), exit codes, and how bad input and reports are written.
#pragma once

#include <string>
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
};

struct Context {
  catalog::Catalog catalog;
  report::Format format = report::Format::kTable;
  report::Style style;
};

// Prints "gpuplan: error: …" and returns kBadInput.
int bad_input(const std::string& message);
int bad_input(const Error& e);

// Builds the context every verb needs; prints the problem and returns false on bad input.
bool make_context(const Common& common, Context& ctx, int& exit_code, bool html_ok = false);

// A progress bar on standard error for long reads, when it is a terminal and not `quiet`.
telemetry::Progress progress_bar(bool quiet);

// Prints a report, or writes it to `output` when one is given.
int emit(const std::string& text, const std::string& output);

}  // namespace gpuplan::cli
