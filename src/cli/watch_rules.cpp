// gpuplan watch rules: Prometheus alerting rules from the catalog thresholds, on standard output,
// their summaries and descriptions in the run's language.
#include <iostream>

#include "cli/watch.h"
#include "watch/rules.h"

namespace gpuplan::cli {

Run add_watch_rules(CLI::App& sub) {
  sub.footer(examples({"gpuplan watch rules > /etc/prometheus/rules/gpuplan.rules.yml",
                       "promtool check rules /etc/prometheus/rules/gpuplan.rules.yml"}));
  return [](const Common& common) {
    Context ctx;
    int code = kOk;
    if (!make_context(common, ctx, code)) return code;
    std::cout << watch::rules_yaml(watch::alert_rules(ctx.catalog), [](const Phrase& p) { return say(p); });
    // Rules meant for a file: a write that failed (a full disk) must not pass for a rules file.
    std::cout.flush();
    return std::cout ? kOk : bad_input(Error{{}, 0, {}, Phrase("cli.file.cannot_write")});
  };
}

}  // namespace gpuplan::cli
