// gpuplan watch [export | rules]: without a subcommand the daemon runs; `export` writes the
// archive back as logs other tools read; `rules` prints Prometheus alerting rules.
#include "cli/watch.h"

namespace gpuplan::cli {

Run add_watch(CLI::App& cmd) {
  cmd.require_subcommand(0, 1);
  auto* exporting = cmd.add_subcommand("export", ui("cli.help.watch.export"));
  auto* rules = cmd.add_subcommand("rules", ui("cli.help.watch.rules"));
  Run run_export = add_watch_export(*exporting);
  Run run_rules = add_watch_rules(*rules);
  Run run_daemon = add_watch_daemon(cmd);
  for (CLI::App* sub : {exporting, rules}) sub->fallthrough();
  return [=](const Common& common) {
    if (*exporting) return run_export(common);
    if (*rules) return run_rules(common);
    return run_daemon(common);
  };
}

}  // namespace gpuplan::cli
