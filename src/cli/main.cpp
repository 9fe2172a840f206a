// gpuplan: price, check, recommend and audit GPU server configurations. This file only
// parses arguments, calls one module per verb and renders; exit codes: 0 done, 1 the verdict
// failed (audit found a failure), 2 bad input or usage, 3 internal error.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/schema.h"
#include "cli/catalog_path.h"
#include "cli/common.h"
#include "cli/host_verbs.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "plan/audit.h"
#include "plan/config.h"
#include "plan/quote.h"
#include "plan/recommend.h"
#include "report/render.h"
#include "report/table.h"
#include "report/tco_render.h"
#include "report/usage_render.h"
#include "telemetry/hourly.h"
#include "telemetry/prometheus.h"
#include "usage/synth.h"
#include "usage/usage.h"
#include "tco/scenario.h"
#include "tco/tco.h"

namespace gpuplan::cli {
namespace {

// --- quote -------------------------------------------------------------------------------

struct QuoteArgs {
  std::string file;
  std::string gpu, region, task;
  std::optional<int> gpus, nodes;
  std::optional<double> rack_amps, memory_gb;
};

int run_quote(const Common& common, const QuoteArgs& args) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  plan::ConfigInput input;
  if (!args.file.empty()) {
    auto parsed = plan::read_config_file(args.file);
    if (!parsed) return bad_input(parsed.error());
    input = *parsed;
  } else if (args.gpu.empty() || !args.gpus) {
    return bad_input("quote needs CONFIG.yaml, or --gpu ID and --gpus N (see gpuplan quote --help)");
  }
  // Flags override the file (quick what-ifs).
  plan::ServerConfig& c = input.config;
  if (!args.gpu.empty()) c.gpu = args.gpu;
  if (args.gpus) {
    if (*args.gpus < 1) return bad_input("--gpus: must be at least 1");
    c.gpus = *args.gpus;
    if (!args.file.empty()) c.platform.clear();
  }
  if (args.nodes) {
    if (*args.nodes < 1) return bad_input("--nodes: must be at least 1");
    c.nodes = *args.nodes;
  }
  if (args.rack_amps) {
    if (*args.rack_amps <= 0) return bad_input("--rack-amps: must be more than 0");
    c.rack.clear();
    input.rack_amps = args.rack_amps;
  }
  if (args.memory_gb) {
    if (*args.memory_gb <= 0) return bad_input("--memory-gb: must be more than 0");
    c.memory = {};
    input.memory_gb = args.memory_gb;
  }
  if (!args.region.empty()) c.region = args.region;
  if (!args.task.empty()) {
    auto t = plan::parse_task(args.task);
    if (!t) return bad_input("--task: '" + args.task + "' is not one of " + plan::kTaskNames);
    c.task = *t;
  }
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
  std::cout << report::render_quote(q, ctx.format, ctx.style);
  return kOk;
}

// --- recommend ---------------------------------------------------------------------------

struct RecommendArgs {
  std::string file, task, params, mode, gpu, write;
  std::optional<int> concurrency;
  std::optional<double> latency_ms, dataset_tb, budget;
};

int run_recommend(const Common& common, const RecommendArgs& args) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  RecommendArgs a = args;
  if (!a.file.empty()) {
    // A workload file gives the same fields as the flags; flags win.
    auto text = read_text_file(a.file);
    if (!text) return bad_input(text.error());
    try {
      YamlReader r(a.file);
      YAML::Node root = r.load(*text);
      r.check_keys(root, "", {"task", "params", "concurrency", "latency_ms", "dataset_tb", "budget", "mode", "gpu"});
      auto str = [&](const char* k, std::string& out) {
        if (root[k] && out.empty()) out = r.text(root[k], k);
      };
      str("task", a.task);
      str("params", a.params);
      str("mode", a.mode);
      str("gpu", a.gpu);
      if (root["concurrency"] && !a.concurrency) a.concurrency = r.count(root["concurrency"], "concurrency", 0);
      if (root["latency_ms"] && !a.latency_ms) a.latency_ms = r.non_negative(root["latency_ms"], "latency_ms");
      if (root["dataset_tb"] && !a.dataset_tb) a.dataset_tb = r.non_negative(root["dataset_tb"], "dataset_tb");
      if (root["budget"] && !a.budget) a.budget = r.non_negative(root["budget"], "budget");
    } catch (const ParseFailure& f) {
      return bad_input(f.error);
    }
  }
  plan::Workload w;
  if (a.task.empty()) return bad_input("--task: required (" + std::string(plan::kTaskNames) + ")");
  auto task = plan::parse_task(a.task);
  if (!task) return bad_input("--task: '" + a.task + "' is not one of " + plan::kTaskNames);
  w.task = *task;
  if (a.params.empty()) return bad_input("--params: required (model size, e.g. 13B)");
  auto params = plan::parse_params(a.params);
  if (!params) return bad_input(params.error());
  w.params_b = *params;
  if (a.concurrency) {
    if (*a.concurrency < 0) return bad_input("--concurrency: must not be negative");
    w.concurrency = *a.concurrency;
  }
  if (a.latency_ms) {
    if (*a.latency_ms <= 0) return bad_input("--latency-ms: must be more than 0");
    w.latency_ms = a.latency_ms;
  }
  if (a.dataset_tb) {
    if (*a.dataset_tb < 0) return bad_input("--dataset-tb: must not be negative");
    w.dataset_tb = *a.dataset_tb;
  }
  if (a.budget) {
    if (*a.budget <= 0) return bad_input("--budget: must be more than 0");
    w.budget = a.budget;
  }
  if (!a.mode.empty()) {
    if (a.mode != "rent" && a.mode != "buy") return bad_input("--mode: '" + a.mode + "' is not one of rent, buy");
    w.mode = a.mode == "rent" ? plan::Mode::kRent : plan::Mode::kBuy;
  }
  w.gpu = a.gpu;
  auto rec = plan::recommend(w, ctx.catalog);
  if (!rec) return bad_input(rec.error());
  if (!a.write.empty()) {
    std::ofstream out(a.write);
    out << plan::write_config_yaml(rec->config);
    if (!out) return bad_input(Error{a.write, 0, "--write", "cannot write the configuration"});
  }
  std::cout << report::render_recommendation(*rec, ctx.format, ctx.style);
  return kOk;
}

// --- audit -------------------------------------------------------------------------------

int run_audit(const Common& common, const std::string& file) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  auto quote = plan::read_vendor_quote(file);
  if (!quote) return bad_input(quote.error());
  if (auto problem = plan::check_parts(*quote, ctx.catalog)) return bad_input(*problem);
  plan::AuditResult result = plan::audit_quote(*quote, ctx.catalog);
  std::cout << report::render_audit(result, ctx.format, ctx.style);
  return result.failed() ? kVerdictFailed : kOk;
}

// --- tco ---------------------------------------------------------------------------------

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
    if (*args.draws < 0 || *args.draws > 100000000) return bad_input("--draws: must be between 0 and 100,000,000");
    scenario->mc_draws = *args.draws;
  }
  if (args.seed) scenario->mc_seed = *args.seed;
  tco::TcoResult result = tco::analyse(*scenario, ctx.catalog);
  return emit(report::render_tco(result, ctx.format, ctx.style), args.output);
}

// --- usage -------------------------------------------------------------------------------

struct UsageArgs {
  std::vector<std::string> sources;
  std::string prometheus, since, from, to, source_format = "auto", scenario, gpu = "a100-80gb-sxm", write_demand, output,
      dmon_start;
  int dmon_interval = 1;
  double busy_threshold = 0;
  bool quiet = false;
};

// "2024-05-01", "2024-05-01T12:00:00" (UTC) or Unix seconds.
std::optional<int64_t> parse_time(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d%c", &y, &mo, &d, &h, &mi, &se, &tail) == 6 ||
      std::sscanf(s.c_str(), "%d-%d-%d%c", &y, &mo, &d, &tail) == 3) {
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
    return (telemetry::days_from_civil(y, mo, d) * 24 + h) * 3600 + mi * 60 + se;
  }
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (!s.empty() && end && *end == 0 && v > 0) return v;
  return std::nullopt;
}


int run_usage(const Common& common, const UsageArgs& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  if (a.sources.empty() == a.prometheus.empty())
    return bad_input("usage needs log files or directories, or --prometheus URL (not both); see gpuplan usage --help");
  if (a.busy_threshold < 0 || a.busy_threshold > 100) return bad_input("--busy-threshold: must be between 0 and 100 (%)");
  Result<telemetry::HourlyData> data = Error{};
  if (!a.prometheus.empty()) {
    telemetry::PromQuery q;
    q.url = a.prometheus;
    // The hour in progress is not complete: end at the last full hour.
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    q.to_s = now - now % 3600;
    if (!a.to.empty()) {
      auto t = parse_time(a.to);
      if (!t) return bad_input("--to: '" + a.to + "' is not a date (2024-05-01, 2024-05-01T12:00:00 UTC, or Unix seconds)");
      q.to_s = *t;
    }
    if (!a.from.empty()) {
      auto t = parse_time(a.from);
      if (!t) return bad_input("--from: '" + a.from + "' is not a date (2024-05-01, 2024-05-01T12:00:00 UTC, or Unix seconds)");
      q.from_s = *t;
    } else {
      auto d = telemetry::parse_duration(a.since.empty() ? "90d" : a.since);
      if (!d) return bad_input(Error{{}, 0, "--since", d.error().message});
      q.from_s = q.to_s - *d;
    }
    if (q.from_s >= q.to_s) return bad_input("--from must be before --to");
    data = telemetry::query_prometheus(q);
  } else {
    telemetry::SourceFormat f = telemetry::SourceFormat::kAuto;
    if (a.source_format == "smi-csv") f = telemetry::SourceFormat::kSmiCsv;
    else if (a.source_format == "dmon") f = telemetry::SourceFormat::kDmon;
    else if (a.source_format == "prom") f = telemetry::SourceFormat::kPromText;
    else if (a.source_format != "auto") return bad_input("--source-format: '" + a.source_format + "' is not one of auto, smi-csv, dmon, prom");
    telemetry::ReadOptions read_options;
    if (!a.dmon_start.empty()) {
      auto t = parse_time(a.dmon_start);
      if (!t) return bad_input("--dmon-start: '" + a.dmon_start + "' is not a date (2024-05-01T12:00:00, or Unix seconds)");
      read_options.dmon_start_ms = *t * 1000;
    }
    if (a.dmon_interval < 1 || a.dmon_interval > 86400) return bad_input("--dmon-interval: must be between 1 and 86,400 seconds");
    read_options.dmon_interval_s = a.dmon_interval;
    data = telemetry::read_hourly(a.sources, f, progress_bar(a.quiet), read_options);
  }
  if (!data) return bad_input(data.error());
  usage::Options options;
  options.busy_threshold_pct = a.busy_threshold;
  options.gpu = a.gpu;
  if (!ctx.catalog.find("gpu", a.gpu)) return bad_input("--gpu: unknown gpu '" + a.gpu + "'" + did_you_mean(a.gpu, ctx.catalog.ids_of_kind("gpu")));
  if (!a.scenario.empty()) {
    auto sc = tco::read_scenario(a.scenario, ctx.catalog);
    if (!sc) return bad_input(sc.error());
    options.scenario = *sc;
  }
  usage::UsageResult result = usage::analyse(*data, options, ctx.catalog);
  if (!a.quiet && data->stats.skipped_count > 0)
    std::cerr << "gpuplan: skipped " << data->stats.skipped_count << " malformed line(s)"
              << (data->stats.skipped.empty() ? "" : ": " + data->stats.skipped[0].file + ":" +
                                                         std::to_string(data->stats.skipped[0].line) + " " +
                                                         data->stats.skipped[0].reason)
              << "\n";
  if (!a.write_demand.empty()) {
    std::ofstream out(a.write_demand);
    out << usage::demand_csv(result);
    if (!out) return bad_input(Error{a.write_demand, 0, "--write-demand", "cannot write the demand profile"});
  }
  return emit(report::render_usage(result, ctx.format, ctx.style), a.output);
}

struct SynthArgs {
  std::string pattern = "steady", format = "smi-csv", interval = "1s", output;
  int gpus = 8, days = 7;
  unsigned seed = 1;
};

int run_synth(const SynthArgs& a) {
  usage::SynthOptions o;
  if (!usage::parse_synth_pattern(a.pattern, o.pattern))
    return bad_input("--pattern: '" + a.pattern + "' is not one of idle, steady, nightly-peak, weekly-burst");
  if (!usage::parse_synth_format(a.format, o.format))
    return bad_input("--format: '" + a.format + "' is not one of smi-csv, dmon, prom, openmetrics");
  auto interval = parse_quantity(a.interval, Dimension::kTime, "s");
  if (!interval || *interval * 3600 < 1 - 1e-9 || std::fmod(*interval * 3600, 1) > 1e-9)
    return bad_input("--interval: '" + a.interval + "' is not a whole number of seconds (e.g. 1s, 5s, 1min)");
  if (a.gpus < 1 || a.gpus > 1024) return bad_input("--gpus: must be between 1 and 1,024");
  if (a.days < 1 || a.days > 3660) return bad_input("--days: must be between 1 and 3,660");
  o.interval_s = static_cast<int>(std::lround(*interval * 3600));
  o.gpus = a.gpus;
  o.days = a.days;
  o.seed = a.seed;
  if (a.output.empty()) {
    usage::synthesize(o, std::cout);
    return kOk;
  }
  std::ofstream out(a.output, std::ios::binary);
  usage::synthesize(o, out);
  if (!out) return bad_input(Error{a.output, 0, "--output", "cannot write"});
  return kOk;
}

// --- catalog -----------------------------------------------------------------------------

nlohmann::json yaml_to_json(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.Scalar()] = yaml_to_json(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& item : n) j.push_back(yaml_to_json(item));
    return j;
  }
  if (!n.IsScalar()) return nullptr;
  // Plain scalars that read as numbers or booleans become them; quoted ones stay strings.
  if (n.Tag() != "!") {
    try {
      return n.as<double>();
    } catch (const YAML::Exception&) {
    }
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  return n.Scalar();
}

int run_catalog_list(const Common& common, const std::string& kind) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  if (!kind.empty() && !catalog::find_kind(kind)) {
    std::vector<std::string> names;
    for (const auto& k : catalog::kinds()) names.push_back(k.kind);
    return bad_input("unknown kind '" + kind + "'" + did_you_mean(kind, names));
  }
  std::vector<const catalog::Entry*> entries;
  for (const auto& e : ctx.catalog.entries())
    if (kind.empty() || e.kind == kind) entries.push_back(&e);
  if (ctx.format == report::Format::kJson) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto* e : entries) {
      nlohmann::json j = yaml_to_json(e->node);
      j["kind"] = e->kind;
      j["file"] = e->file;
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return kOk;
  }
  if (ctx.format == report::Format::kMarkdown) {
    std::cout << "| id | kind | name | as_of | source |\n|---|---|---|---|---|\n";
    for (const auto* e : entries) std::cout << "| " << e->id << " | " << e->kind << " | " << e->name << " | " << e->as_of << " | " << e->source << " |\n";
    return kOk;
  }
  report::TextTable t({"id", "kind", "name", "as_of", "source"});
  for (const auto* e : entries) {
    std::string source = e->source.size() > 60 ? e->source.substr(0, e->source.rfind(' ', 57)) + " …" : e->source;
    t.add_row({e->id, e->kind, e->name, e->as_of, source});
  }
  std::cout << t.str();
  return kOk;
}

int run_catalog_show(const Common& common, const std::string& id) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  const catalog::Entry* e = ctx.catalog.find(id);
  if (!e) {
    std::vector<std::string> ids;
    for (const auto& x : ctx.catalog.entries()) ids.push_back(x.id);
    return bad_input("no catalog entry '" + id + "'" + did_you_mean(id, ids));
  }
  nlohmann::json j = yaml_to_json(e->node);
  j["kind"] = e->kind;
  j["file"] = e->file + ":" + std::to_string(e->line);
  if (ctx.format == report::Format::kJson) {
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  for (const auto& [key, value] : j.items())
    std::cout << key << ": " << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
  return kOk;
}

int run_catalog_check(const Common& common, const std::string& dir) {
  std::vector<std::string> overrides = common.catalogs;
  if (!dir.empty()) overrides.push_back(dir);
  std::vector<Error> problems;
  catalog::Catalog cat = catalog::Catalog::load(catalog_dirs(overrides), problems);
  report::Format format = report::Format::kTable;
  report::parse_format(common.format, format);
  if (format == report::Format::kJson) {
    nlohmann::json j = {{"entries", cat.entries().size()}, {"problems", nlohmann::json::array()}};
    for (const auto& p : problems)
      j["problems"].push_back({{"file", p.file}, {"line", p.line}, {"field", p.field}, {"message", p.message}});
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& p : problems) std::cout << p.str() << "\n";
    std::cout << cat.entries().size() << " entries, " << problems.size() << " problem(s)\n";
  }
  return problems.empty() ? kOk : kBadInput;
}

int run(int argc, char** argv) {
  CLI::App app{"gpuplan: price, check, recommend and audit NVIDIA GPU servers (A100 80GB first), and decide rent vs buy.\n"
               "Prices come from a dated, sourced catalog (gpuplan catalog list); override it with --catalog DIR.",
               "gpuplan"};
  app.set_version_flag("--version", std::string("gpuplan ") + GPUPLAN_VERSION);
  app.require_subcommand(1);
  Common common;
  app.add_option("--catalog", common.catalogs, "Directory of catalog YAML laid over the default (repeatable)")
      ->type_name("DIR");
  app.add_option("--format", common.format, "Output: table, json or md (tco also html)")->type_name("FORMAT")->capture_default_str();
  app.add_option("--lang", common.lang, "Language of titles and headings: en or zh (default from LANG)");
  app.add_flag("--no-color", common.no_color, "Never colour the output (NO_COLOR is honoured too)");
  app.footer("Exit codes: 0 done, 1 the verdict failed (audit, accept, diagnose), 2 bad input or usage, 3 internal error.\n"
             "Run `gpuplan VERB --help` for a verb's flags and an example.");

  QuoteArgs qa;
  auto* quote = app.add_subcommand("quote", "Price a server configuration: bill of materials, buy and rent ranges, per-GPU figures, findings");
  quote->add_option("config", qa.file, "Configuration YAML (see examples/)")->type_name("CONFIG.yaml");
  quote->add_option("--gpu", qa.gpu, "GPU catalog id, e.g. a100-80gb-sxm");
  quote->add_option("--gpus", qa.gpus, "GPUs per node");
  quote->add_option("--nodes", qa.nodes, "Number of nodes");
  quote->add_option("--rack-amps", qa.rack_amps, "Rack circuit in amps (8, 16, 32 at 220 V)");
  quote->add_option("--memory-gb", qa.memory_gb, "Host memory per node in GB");
  quote->add_option("--region", qa.region, "Region catalog id, e.g. cn-east");
  quote->add_option("--task", qa.task, plan::kTaskNames);
  quote->footer("Examples:\n  gpuplan quote examples/a100-8gpu-training.yaml\n"
                "  gpuplan quote --gpu a100-80gb-sxm --gpus 8 --rack-amps 16 --format json");

  RecommendArgs ra;
  auto* recommend = app.add_subcommand("recommend", "Recommend and price a configuration for a workload");
  recommend->add_option("workload", ra.file, "Optional workload YAML with the same fields as the flags")->type_name("WORKLOAD.yaml");
  recommend->add_option("--task", ra.task, plan::kTaskNames);
  recommend->add_option("--params", ra.params, "Model size, e.g. 7B, 13B, 175B");
  recommend->add_option("--concurrency", ra.concurrency, "Peak concurrent requests");
  recommend->add_option("--latency-ms", ra.latency_ms, "Latency tolerance in ms (picks the region)");
  recommend->add_option("--dataset-tb", ra.dataset_tb, "Training data set size in TB");
  recommend->add_option("--budget", ra.budget, "Budget in CNY: purchase total (buy) or monthly rent (rent)");
  recommend->add_option("--mode", ra.mode, "rent or buy (default buy)");
  recommend->add_option("--gpu", ra.gpu, "Force a GPU catalog id");
  recommend->add_option("--write", ra.write, "Write the configuration to FILE for `gpuplan quote`")->type_name("FILE");
  recommend->footer("Example:\n  gpuplan recommend --task finetune --params 13B --dataset-tb 2 --write my.yaml");

  std::string audit_file;
  auto* audit = app.add_subcommand("audit", "Audit a vendor's quote or contract terms; exit 1 when a check fails");
  audit->add_option("quote", audit_file, "Vendor quote YAML (see examples/vendor-quote-*.yaml)")->required()->type_name("QUOTE.yaml");
  audit->footer("Example:\n  gpuplan audit examples/vendor-quote-padded.yaml");

  TcoArgs ta;
  auto* tco_cmd = app.add_subcommand("tco", "Rent vs buy vs spot vs hybrid over a horizon, from hour-by-hour demand");
  tco_cmd->add_option("scenario", ta.file, "Scenario YAML (see examples/tco-*.yaml)")->required()->type_name("SCENARIO.yaml");
  tco_cmd->add_option("--draws", ta.draws, "Monte Carlo draws (default from the scenario, else 10,000)");
  tco_cmd->add_option("--seed", ta.seed, "Monte Carlo seed (default from the scenario, else 1)");
  tco_cmd->add_option("--output", ta.output, "Write the report to FILE instead of standard output")->type_name("FILE");
  tco_cmd->footer("Examples:\n  gpuplan tco examples/tco-dual-a100.yaml\n"
                  "  gpuplan tco examples/tco-hybrid-nightly.yaml --format html --output tco.html");

  UsageArgs ua;
  auto* usage_cmd = app.add_subcommand("usage", "Utilization history → hour-by-day heatmap → rent, buy or hybrid, with costs");
  usage_cmd->add_option("sources", ua.sources, "nvidia-smi CSV or dmon logs, Prometheus scrape files or directories (.gz read transparently)");
  usage_cmd->add_option("--prometheus", ua.prometheus, "Ask a Prometheus server (hourly means computed there)")->type_name("URL");
  usage_cmd->add_option("--since", ua.since, "With --prometheus: how far back (default 90d)");
  usage_cmd->add_option("--from", ua.from, "With --prometheus: start (2024-05-01, 2024-05-01T12:00:00 UTC, Unix seconds)");
  usage_cmd->add_option("--to", ua.to, "With --prometheus: end (default now)");
  usage_cmd->add_option("--source-format", ua.source_format, "auto, smi-csv, dmon or prom (default auto)");
  usage_cmd->add_option("--dmon-start", ua.dmon_start, "Start time of dmon logs recorded without -o DT");
  usage_cmd->add_option("--dmon-interval", ua.dmon_interval, "Their sample interval in seconds (dmon -d; default 1)");
  usage_cmd->add_option("--busy-threshold", ua.busy_threshold, "Hourly utilization % at which a GPU counts as busy (default from the catalog)");
  usage_cmd->add_option("--scenario", ua.scenario, "A tco scenario whose prices cost the measured profile (default: catalog prices)")->type_name("FILE");
  usage_cmd->add_option("--gpu", ua.gpu, "GPU model owned when the catalog prices the answer (default a100-80gb-sxm)");
  usage_cmd->add_option("--write-demand", ua.write_demand, "Write busy GPUs per hour as CSV for gpuplan tco")->type_name("FILE");
  usage_cmd->add_option("--output", ua.output, "Write the report to FILE")->type_name("FILE");
  usage_cmd->add_flag("--quiet", ua.quiet, "No progress bar or notes on standard error");
  usage_cmd->footer("Examples:\n  gpuplan usage gpu-*.csv.gz\n  gpuplan usage --prometheus http://127.0.0.1:9090 --since 90d --format html --output usage.html\n"
                    "  gpuplan usage synth --pattern nightly-peak --gpus 8 --days 14 > nightly.csv");
  SynthArgs sa;
  auto* synth = usage_cmd->add_subcommand("synth", "Write synthetic GPU telemetry (for tests and benchmarks)");
  synth->add_option("--pattern", sa.pattern, "idle, steady, nightly-peak or weekly-burst");
  synth->add_option("--gpus", sa.gpus, "GPUs (default 8)");
  synth->add_option("--days", sa.days, "Days (default 7), starting Monday 2024-04-29 00:00");
  synth->add_option("--interval", sa.interval, "Sample interval (default 1s)");
  synth->add_option("--format", sa.format, "smi-csv, dmon, prom or openmetrics");
  synth->add_option("--seed", sa.seed, "Seed (default 1)");
  synth->add_option("--output", sa.output, "Write to FILE instead of standard output")->type_name("FILE");

  auto* cat = app.add_subcommand("catalog", "List, show and check the price and rule catalog");
  cat->require_subcommand(1);
  std::string list_kind, show_id, check_dir;
  auto* list = cat->add_subcommand("list", "List entries, optionally of one kind");
  list->add_option("kind", list_kind, "gpu, cpu, platform, cloud_offer, threshold, …");
  auto* show = cat->add_subcommand("show", "Show one entry with every field");
  show->add_option("id", show_id, "Entry id")->required();
  auto* check = cat->add_subcommand("check", "Validate the catalog (and DIR laid over it)");
  check->add_option("dir", check_dir, "Directory of override YAML to validate")->type_name("DIR");
  cat->footer("Examples:\n  gpuplan catalog list gpu\n  gpuplan catalog show a100-80gb-sxm --format json\n"
              "  gpuplan catalog check my-prices/");

  HostVerbs host_verbs;
  host_verbs.add_to(app);

  for (CLI::App* sub : {quote, recommend, audit, tco_cmd, usage_cmd, cat, list, show, check}) sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }
  if (*quote) return run_quote(common, qa);
  if (*recommend) return run_recommend(common, ra);
  if (*audit) return run_audit(common, audit_file);
  if (*tco_cmd) return run_tco(common, ta);
  if (*synth) return run_synth(sa);
  if (*usage_cmd) return run_usage(common, ua);
  if (*list) return run_catalog_list(common, list_kind);
  if (*show) return run_catalog_show(common, show_id);
  if (*check) return run_catalog_check(common, check_dir);
  int rc = kBadInput;
  host_verbs.run(common, rc);
  return rc;
}

}  // namespace
}  // namespace gpuplan::cli

int main(int argc, char** argv) {
  try {
    return gpuplan::cli::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "gpuplan: internal error: " << e.what() << "\n";
    return 3;
  }
}
