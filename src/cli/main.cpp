// gpuplan: price, check, recommend and audit GPU server configurations, decide rent or buy, and
// accept and diagnose delivered servers. This file only builds the command line from the verb
// table, parses it and runs the verb given; exit codes: 0 done, 1 the verdict failed (audit,
// accept, diagnose), 2 bad input or usage, 3 internal error.
#include <CLI/CLI.hpp>
#include <iostream>
#include <utility>
#include <vector>

#include "cli/common.h"
#include "cli/parse_error.h"
#include "cli/verb.h"
#include "cli/version.h"
#include "core/output_file.h"

namespace gpuplan::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {
      {"quote", "cli.help.quote", add_quote},          {"recommend", "cli.help.recommend", add_recommend},
      {"audit", "cli.help.audit", add_audit},          {"tco", "cli.help.tco", add_tco},
      {"usage", "cli.help.usage", add_usage},          {"catalog", "cli.help.catalog", add_catalog},
      {"accept", "cli.help.accept", add_accept},       {"diagnose", "cli.help.diagnose", add_diagnose},
      {"snapshot", "cli.help.snapshot", add_snapshot}, {"watch", "cli.help.watch", add_watch},
  };
  return table;
}

namespace {

int run(int argc, char** argv) {
  set_language(language_of(argc, argv));
  CLI::App app{ui("cli.help.app"), "gpuplan"};
  // Before any subcommand is added: each copies the formatter and the help flag's words.
  app.formatter(help_formatter());
  app.set_help_flag("-h,--help", ui("cli.help.help"));
  const std::string commit = kBuildCommit;  // "" when built outside git
  const Phrase version = commit.empty() ? Phrase("cli.version.no_commit").fact("version", GPUPLAN_VERSION)
                                        : Phrase("cli.version").fact("version", GPUPLAN_VERSION).fact("commit", commit);
  app.set_version_flag("--version", say(version), ui("cli.help.version"));
  app.require_subcommand(1);
  Common common;
  app.add_option("--catalog", common.catalogs, ui("cli.help.catalog_dir"))->type_name("DIR");
  app.add_option("--format", common.format, ui("cli.help.format"))->type_name("FORMAT")->capture_default_str();
  app.add_option("--lang", common.lang, ui("cli.help.lang"));
  app.add_flag("--no-color", common.no_color, ui("cli.help.no_color"));
  app.add_option("--today", common.today, ui("cli.help.today"))->type_name("DATE");
  app.footer(ui("cli.help.footer"));

  std::vector<std::pair<CLI::App*, Run>> commands;
  for (const Verb& verb : verbs()) {
    CLI::App* cmd = app.add_subcommand(verb.name, ui(verb.help));
    commands.emplace_back(cmd, verb.add(*cmd));
    cmd->fallthrough();
  }
  localize_help(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    bad_input(parse_error(e, app));
    std::cerr << say(Phrase("cli.parse.see_help").fact("command", command_of(deepest(app)))) << "\n";
    return kBadInput;
  }
  for (const auto& [cmd, run_verb] : commands)
    if (*cmd) return run_verb(common);
  return kBadInput;  // require_subcommand(1) lets no parse through without one
}

}  // namespace
}  // namespace gpuplan::cli

int main(int argc, char** argv) {
  int code = 3;
  try {
    code = gpuplan::cli::run(argc, argv);
  } catch (const std::exception& e) {
    gpuplan::cli::note(gpuplan::Phrase("cli.internal_error").fact("why", e.what()));
  }
  // A report that never reached standard output (a full disk behind `> file`, /dev/full) is not
  // a report: exit 2 with the reason rather than 0.
  if (auto flushed = gpuplan::flush_standard_output(); !flushed) return gpuplan::cli::bad_input(flushed.error());
  return code;
}
