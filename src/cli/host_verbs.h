// The verbs that look at a server: `accept` (the 12 acceptance actions with evidence),
// `diagnose` (troubleshooting findings) and `snapshot` (a tarball for offline checks). Each
// gathers its inputs from the live host or a snapshot/fixture root, calls one domain module
// and renders; see README "Accepting a delivered server".
#pragma once

#include <CLI/CLI.hpp>

#include "cli/common.h"

namespace gpuplan::cli {

class HostVerbs {
 public:
  // Adds the three subcommands to `app`; their flags are read into this object.
  void add_to(CLI::App& app);
  // Runs the one that was given; returns false (and leaves exit_code) when none was.
  bool run(const Common& common, int& exit_code);

  struct Args;
  HostVerbs();
  ~HostVerbs();

 private:
  std::unique_ptr<Args> args_;
  CLI::App* accept_ = nullptr;
  CLI::App* diagnose_ = nullptr;
  CLI::App* snapshot_ = nullptr;
};

}  // namespace gpuplan::cli
