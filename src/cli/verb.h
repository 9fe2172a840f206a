// The verb table: each verb of the command line is one row (name, help, flags, run), its flags
// and its run in one file, cli/<verb>.cpp. A verb parses its flags, calls one domain function
// and renders; main.cpp walks the table.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "cli/common.h"

namespace gpuplan::cli {

// What runs a verb once the command line is parsed; returns the exit code.
using Run = std::function<int(const Common&)>;

struct Verb {
  const char* name;  // "quote"
  const char* help;  // message key of its one-line help
  // Adds the verb's flags and subcommands to `cmd`, bound to state the returned Run keeps.
  Run (*add)(CLI::App& cmd);
};

// The verbs in the order --help lists them.
const std::vector<Verb>& verbs();

Run add_quote(CLI::App& cmd);
Run add_recommend(CLI::App& cmd);
Run add_audit(CLI::App& cmd);
Run add_tco(CLI::App& cmd);
Run add_usage(CLI::App& cmd);
Run add_catalog(CLI::App& cmd);
Run add_accept(CLI::App& cmd);
Run add_diagnose(CLI::App& cmd);
Run add_snapshot(CLI::App& cmd);
Run add_watch(CLI::App& cmd);

}  // namespace gpuplan::cli
