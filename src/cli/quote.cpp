// gpuplan quote: a server configuration (a file, flags, or both) priced from the catalog.
#include "plan/quote.h"

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/verb.h"
#include "core/bounds.h"
#include "core/text.h"
#include "plan/config.h"
#include "report/render.h"

namespace gpuplan::cli {
namespace {

struct QuoteArgs {
  std::string file;
  std::string gpu, region, task;
  std::optional<int> gpus, nodes;
  std::optional<double> rack_amps, memory_gb;
};

// Flags override the file (quick what-ifs).
Result<void> apply_flags(const QuoteArgs& args, plan::ConfigInput& input) {
  plan::ServerConfig& c = input.config;
  if (!args.gpu.empty()) c.gpu = args.gpu;
  // Every figure through core/bounds.h: NaN, infinity and 1e30 are refused, not costed.
  if (args.gpus) {
    auto gpus = bounds::flag_count("--gpus", *args.gpus, 1);
    if (!gpus) return gpus.error();
    c.gpus = *gpus;
    if (!args.file.empty()) c.platform.clear();
  }
  if (args.nodes) {
    auto nodes = bounds::flag_count("--nodes", *args.nodes, 1);
    if (!nodes) return nodes.error();
    c.nodes = *nodes;
  }
  if (args.rack_amps) {
    auto amps = bounds::flag_positive("--rack-amps", *args.rack_amps);
    if (!amps) return amps.error();
    c.rack.clear();
    input.rack_amps = *amps;
  }
  if (args.memory_gb) {
    auto memory = bounds::flag_positive("--memory-gb", *args.memory_gb);
    if (!memory) return memory.error();
    c.memory = {};
    input.memory_gb = *memory;
  }
  if (!args.region.empty()) c.region = args.region;
  if (!args.task.empty()) {
    auto t = plan::parse_task(args.task);
    if (!t) return Error{{}, 0, "--task", not_one_of(args.task, plan::task_names())};
    c.task = *t;
  }
  return {};
}

int run_quote(const Common& common, const QuoteArgs& args) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  plan::ConfigInput input;
  if (!args.file.empty()) {
    auto parsed = plan::read_config_file(args.file);
    if (!parsed) return bad_input(parsed.error());
    input = *parsed;
  } else if (args.gpu.empty() || !args.gpus) {
    return bad_input(Phrase("cli.quote.needs_input"));
  }
  if (auto applied = apply_flags(args, input); !applied) return bad_input(applied.error());
  auto resolved = plan::resolve_config(input, ctx.catalog);
  if (!resolved) {
    Error e = resolved.error();
    if (args.file.empty()) {  // from flags: name the flag
      std::replace(e.field.begin(), e.field.end(), '_', '-');
      e.field = "--" + e.field;
    }
    return bad_input(e);
  }
  plan::Quote q = plan::build_quote(*resolved, ctx.catalog);
  plan::date_prices(q, ctx.today, ctx.catalog);
  // The inputs are bounded so this cannot happen; if it did, no negative or infinite price is printed.
  if (!bounds::sane_money(q.total_buy) || !bounds::sane_money(q.total_rent_monthly))
    return bad_input(Error{args.file, 0, args.file.empty() ? "--nodes" : "nodes",
                           bounds::money_overflow(q.total_buy.high)});
  std::cout << report::render_quote(q, ctx.format, ctx.style);
  return kOk;
}

}  // namespace

Run add_quote(CLI::App& cmd) {
  auto args = std::make_shared<QuoteArgs>();
  cmd.add_option("config", args->file, ui("cli.help.quote.config"))->type_name("CONFIG.yaml");
  cmd.add_option("--gpu", args->gpu, ui("cli.help.quote.gpu"));
  cmd.add_option("--gpus", args->gpus, ui("cli.help.quote.gpus"));
  cmd.add_option("--nodes", args->nodes, ui("cli.help.quote.nodes"));
  cmd.add_option("--rack-amps", args->rack_amps, ui("cli.help.quote.rack_amps"));
  cmd.add_option("--memory-gb", args->memory_gb, ui("cli.help.quote.memory_gb"));
  cmd.add_option("--region", args->region, ui("cli.help.quote.region"));
  cmd.add_option("--task", args->task, task_help());
  cmd.footer(examples({"gpuplan quote examples/a100-8gpu-training.yaml",
                       "gpuplan quote --gpu a100-80gb-sxm --gpus 8 --rack-amps 16 --format json"}));
  return [args](const Common& common) { return run_quote(common, *args); };
}

}  // namespace gpuplan::cli
