// gpuplan tco: a scenario's strategies (buy, rent, spot, hybrid) costed over its horizon.
#include "tco/tco.h"

#include <memory>

#include "cli/verb.h"
#include "core/bounds.h"
#include "report/tco_render.h"
#include "tco/scenario.h"

namespace gpuplan::cli {
namespace {

struct TcoArgs {
  std::string file, output;
  std::optional<int> draws;
  std::optional<unsigned> seed;
};

int run_tco(const Common& common, const TcoArgs& args) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  auto scenario = tco::read_scenario(args.file, ctx.catalog);
  if (!scenario) return bad_input(scenario.error());
  if (args.draws) {
    if (auto p = bounds::between(*args.draws, 0, 100000000, std::to_string(*args.draws), "cli.value.between", "0",
                                 "100,000,000"))
      return bad_input(Error{{}, 0, "--draws", std::move(*p)});
    scenario->mc_draws = *args.draws;
  }
  if (args.seed) scenario->mc_seed = *args.seed;
  tco::TcoResult result = tco::analyse(*scenario, ctx.catalog);
  tco::date_prices(result, ctx.today, ctx.catalog);
  // Every figure is bounded as it is read; a strategy costed at ¥nan or ¥inf is still refused.
  for (const tco::StrategyResult& s : result.strategies)
    if (!bounds::sane_money(s.total))
      return bad_input(Error{args.file, 0, s.id, bounds::money_overflow(s.total)});
  return emit(report::render_tco(result, ctx.format, ctx.style), args.output);
}

}  // namespace

Run add_tco(CLI::App& cmd) {
  auto args = std::make_shared<TcoArgs>();
  cmd.add_option("scenario", args->file, ui("cli.help.tco.scenario"))->required()->type_name("SCENARIO.yaml");
  cmd.add_option("--draws", args->draws, ui("cli.help.tco.draws"));
  cmd.add_option("--seed", args->seed, ui("cli.help.tco.seed"));
  cmd.add_option("--output", args->output, ui("cli.help.output_instead"))->type_name("FILE");
  cmd.footer(examples({"gpuplan tco examples/tco-dual-a100.yaml",
                       "gpuplan tco examples/tco-hybrid-nightly.yaml --format html --output tco.html"}));
  return [args](const Common& common) { return run_tco(common, *args); };
}

}  // namespace gpuplan::cli
