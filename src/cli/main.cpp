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
#include <regex>
#include <sstream>

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


Error not_a_date(std::string flag, std::string got) {
  return Error{{}, 0, std::move(flag), Phrase("cli.value.not_a_date").fact("got", std::move(got))};
}


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
    return bad_input(Phrase("cli.quote.needs_input"));
  }
  // Flags override the file (quick what-ifs).
  plan::ServerConfig& c = input.config;
  if (!args.gpu.empty()) c.gpu = args.gpu;
  if (args.gpus) {
    if (*args.gpus < 1) return bad_input(at_least("--gpus", 1, std::to_string(*args.gpus)));
    c.gpus = *args.gpus;
    if (!args.file.empty()) c.platform.clear();
  }
  if (args.nodes) {
    if (*args.nodes < 1) return bad_input(at_least("--nodes", 1, std::to_string(*args.nodes)));
    c.nodes = *args.nodes;
  }
  if (args.rack_amps) {
    if (*args.rack_amps <= 0) return bad_input(above("--rack-amps", *args.rack_amps));
    c.rack.clear();
    input.rack_amps = args.rack_amps;
  }
  if (args.memory_gb) {
    if (*args.memory_gb <= 0) return bad_input(above("--memory-gb", *args.memory_gb));
    c.memory = {};
    input.memory_gb = args.memory_gb;
  }
  if (!args.region.empty()) c.region = args.region;
  if (!args.task.empty()) {
    auto t = plan::parse_task(args.task);
    if (!t) return bad_input(Error{{}, 0, "--task", not_one_of(args.task, plan::task_names())});
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
  if (a.task.empty())
    return bad_input(Error{{}, 0, "--task", Phrase("cli.value.required").fact(list_of("allowed", plan::task_names()))});
  auto task = plan::parse_task(a.task);
  if (!task) return bad_input(Error{{}, 0, "--task", not_one_of(a.task, plan::task_names())});
  w.task = *task;
  if (a.params.empty()) return bad_input(Error{{}, 0, "--params", Phrase("cli.value.params_required")});
  auto params = plan::parse_params(a.params);
  if (!params) return bad_input(params.error());
  w.params_b = *params;
  if (a.concurrency) {
    if (*a.concurrency < 0) return bad_input(not_negative("--concurrency", *a.concurrency));
    w.concurrency = *a.concurrency;
  }
  if (a.latency_ms) {
    if (*a.latency_ms <= 0) return bad_input(above("--latency-ms", *a.latency_ms));
    w.latency_ms = a.latency_ms;
  }
  if (a.dataset_tb) {
    if (*a.dataset_tb < 0) return bad_input(not_negative("--dataset-tb", *a.dataset_tb));
    w.dataset_tb = *a.dataset_tb;
  }
  if (a.budget) {
    if (*a.budget <= 0) return bad_input(above("--budget", *a.budget));
    w.budget = a.budget;
  }
  if (!a.mode.empty()) {
    if (a.mode != "rent" && a.mode != "buy")
      return bad_input(Error{{}, 0, "--mode", not_one_of(a.mode, {"rent", "buy"})});
    w.mode = a.mode == "rent" ? plan::Mode::kRent : plan::Mode::kBuy;
  }
  w.gpu = a.gpu;
  auto rec = plan::recommend(w, ctx.catalog);
  if (!rec) return bad_input(rec.error());
  if (!a.write.empty()) {
    std::ofstream out(a.write);
    out << plan::write_config_yaml(rec->config);
    if (!out) return bad_input(Error{a.write, 0, "--write", Phrase("cli.file.cannot_write")});
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
    if (*args.draws < 0 || *args.draws > 100000000)
      return bad_input(between("cli.value.between", "--draws", "0", "100,000,000", std::to_string(*args.draws)));
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
  if (a.sources.empty() == a.prometheus.empty()) return bad_input(Phrase("cli.usage.needs_input"));
  if (!(a.busy_threshold >= 0 && a.busy_threshold <= 100))
    return bad_input(between("cli.value.between_percent", "--busy-threshold", "0", "100", shown(a.busy_threshold)));
  Result<telemetry::HourlyData> data = Error{};
  if (!a.prometheus.empty()) {
    telemetry::PromQuery q;
    q.url = a.prometheus;
    // The hour in progress is not complete: end at the last full hour.
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    q.to_s = now - now % 3600;
    if (!a.to.empty()) {
      auto t = parse_time(a.to);
      if (!t) return bad_input(not_a_date("--to", a.to));
      q.to_s = *t;
    }
    if (!a.from.empty()) {
      auto t = parse_time(a.from);
      if (!t) return bad_input(not_a_date("--from", a.from));
      q.from_s = *t;
    } else {
      auto d = telemetry::parse_duration(a.since.empty() ? "90d" : a.since);
      if (!d) return bad_input(Error{{}, 0, "--since", d.error().message});
      q.from_s = q.to_s - *d;
    }
    if (q.from_s >= q.to_s) return bad_input(Error{{}, 0, "--from", Phrase("cli.value.from_not_before_to")});
    data = telemetry::query_prometheus(q);
  } else {
    telemetry::SourceFormat f = telemetry::SourceFormat::kAuto;
    if (a.source_format == "smi-csv") f = telemetry::SourceFormat::kSmiCsv;
    else if (a.source_format == "dmon") f = telemetry::SourceFormat::kDmon;
    else if (a.source_format == "prom") f = telemetry::SourceFormat::kPromText;
    else if (a.source_format != "auto")
      return bad_input(
          Error{{}, 0, "--source-format", not_one_of(a.source_format, {"auto", "smi-csv", "dmon", "prom"})});
    telemetry::ReadOptions read_options;
    if (!a.dmon_start.empty()) {
      auto t = parse_time(a.dmon_start);
      if (!t) return bad_input(not_a_date("--dmon-start", a.dmon_start));
      read_options.dmon_start_ms = *t * 1000;
    }
    if (a.dmon_interval < 1 || a.dmon_interval > 86400)
      return bad_input(
          between("cli.value.between_seconds", "--dmon-interval", "1", "86,400", std::to_string(a.dmon_interval)));
    read_options.dmon_interval_s = a.dmon_interval;
    data = telemetry::read_hourly(a.sources, f, progress_bar(a.quiet), read_options);
  }
  if (!data) return bad_input(data.error());
  usage::Options options;
  options.busy_threshold_pct = a.busy_threshold;
  options.gpu = a.gpu;
  if (!ctx.catalog.find("gpu", a.gpu)) return bad_input(Error{{}, 0, "--gpu", unknown_id("gpu", a.gpu, ctx.catalog.ids_of_kind("gpu"))});
  if (!a.scenario.empty()) {
    auto sc = tco::read_scenario(a.scenario, ctx.catalog);
    if (!sc) return bad_input(sc.error());
    options.scenario = *sc;
  }
  usage::UsageResult result = usage::analyse(*data, options, ctx.catalog);
  if (!a.quiet && data->stats.skipped_count > 0) {
    std::vector<Phrase> first;  // the first line skipped, when the reader kept it
    if (!data->stats.skipped.empty()) {
      const auto& skip = data->stats.skipped[0];
      first.push_back(Phrase("cli.skipped_first")
                          .fact("where", skip.file + ":" + std::to_string(skip.line))
                          .fact("why", {skip.reason}));
    }
    note(Phrase("cli.skipped_lines").fact("count", std::to_string(data->stats.skipped_count)).fact("first", first));
  }
  if (!a.write_demand.empty()) {
    std::ofstream out(a.write_demand);
    out << usage::demand_csv(result);
    if (!out) return bad_input(Error{a.write_demand, 0, "--write-demand", Phrase("cli.file.cannot_write")});
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
    return bad_input(
        Error{{}, 0, "--pattern", not_one_of(a.pattern, {"idle", "steady", "nightly-peak", "weekly-burst"})});
  if (!usage::parse_synth_format(a.format, o.format))
    return bad_input(Error{{}, 0, "--format", not_one_of(a.format, {"smi-csv", "dmon", "prom", "openmetrics"})});
  auto interval = parse_quantity(a.interval, Dimension::kTime, "s");
  if (!interval || *interval * 3600 < 1 - 1e-9 || std::fmod(*interval * 3600, 1) > 1e-9)
    return bad_input(Error{{}, 0, "--interval", Phrase("cli.value.not_whole_seconds").fact("got", a.interval)});
  if (a.gpus < 1 || a.gpus > 1024)
    return bad_input(between("cli.value.between", "--gpus", "1", "1,024", std::to_string(a.gpus)));
  if (a.days < 1 || a.days > 3660)
    return bad_input(between("cli.value.between", "--days", "1", "3,660", std::to_string(a.days)));
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
  if (!out) return bad_input(Error{a.output, 0, "--output", Phrase("cli.file.cannot_write")});
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
    return bad_input(unknown_id("kind", kind, names));
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
  const bool zh = ctx.style.lang == report::Lang::kZh;
  const std::vector<std::string> headings = {ui("cli.catalog.col.id"), ui("cli.catalog.col.kind"),
                                             ui("cli.catalog.col.name"), ui("cli.catalog.col.as_of"),
                                             ui("cli.catalog.col.source")};
  if (ctx.format == report::Format::kMarkdown) {
    std::cout << "|";
    for (const auto& h : headings) std::cout << " " << h << " |";
    std::cout << "\n|---|---|---|---|---|\n";
    for (const auto* e : entries)
      std::cout << "| " << e->id << " | " << e->kind << " | " << (zh ? e->display_name_zh() : e->name) << " | "
                << e->as_of << " | " << (zh ? e->display_source_zh() : e->source) << " |\n";
    return kOk;
  }
  report::TextTable t(headings);
  for (const auto* e : entries) {
    const std::string& full = zh ? e->display_source_zh() : e->source;
    std::string source = full.size() > 60 ? full.substr(0, full.rfind(' ', 57)) + " …" : full;
    t.add_row({e->id, e->kind, zh ? e->display_name_zh() : e->name, e->as_of, source});
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
    return bad_input(unknown_id("catalog_entry", id, ids));
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
      j["problems"].push_back(
          {{"file", p.file}, {"line", p.line}, {"field", p.field}, {"message", report::say(p.message, language())}});
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& p : problems) std::cout << report::error_text(p, language()) << "\n";
    std::cout << say(Phrase("cli.catalog.summary")
                         .fact("entries", std::to_string(cat.entries().size()))
                         .fact("problems", std::to_string(problems.size())))
              << "\n";
  }
  return problems.empty() ? kOk : kBadInput;
}

// --- command-line errors ------------------------------------------------------------------

// The command a parse error belongs to: the last subcommand given ("gpuplan usage synth").
const CLI::App* deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return at;
}

std::string command_of(const CLI::App* app) {
  std::string out;
  for (; app; app = app->get_parent()) out = app->get_name() + (out.empty() ? "" : " " + out);
  return out;
}

std::vector<std::string> verbs_of(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
    out.push_back(sub->get_name());
  return out;
}

// " (expected 整数)": the type name of the option `name`, as --help shows it.
std::vector<Phrase> expected_type(const CLI::App* at, const std::string& name) {
  for (const CLI::App* app = at; app; app = app->get_parent()) {
    const CLI::Option* opt = app->get_option_no_throw(name);
    if (!opt) continue;
    if (opt->get_type_name().empty()) return {};
    return {Phrase("cli.parse.expected").fact("type", app->get_formatter()->get_label(opt->get_type_name()))};
  }
  return {};
}

// CLI11's parse error as an error in words. CLI11 says what went wrong only in English text
// ("Could not convert: --gpus = x"), so the flag and the value are read back out of it; a text
// not recognised is quoted as it is.
Error parse_error(const CLI::ParseError& e, const CLI::App& app) {
  const CLI::App* at = deepest(app);
  const std::string what = e.what();
  std::smatch m;
  auto matches = [&](const char* pattern) { return std::regex_match(what, m, std::regex(pattern)); };
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    if (what == "A subcommand is required" || matches("Requires at least \\d+ subcommands")) {
      const std::vector<std::string> verbs = verbs_of(at);
      for (const std::string& arg : app.remaining(true))
        if (!arg.empty() && arg[0] != '-') {
          Phrase p("cli.parse.unknown_verb");
          p.facts.push_back(did_you_mean(arg, verbs));
          return Error{{}, 0, {}, p.fact("got", arg).fact("command", command_of(at)).fact(list_of("verbs", verbs))};
        }
      return Error{
          {}, 0, {}, Phrase("cli.parse.verb_required").fact("command", command_of(at)).fact(list_of("verbs", verbs))};
    }
    if (matches("(\\S+) is required")) return Error{{}, 0, {}, Phrase("cli.parse.required").fact("name", m[1])};
  } else if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    if (matches("Could not convert: (\\S+) = (.*)") || matches("The value (.*) is not an allowed value for (\\S+)")) {
      const bool convert = what.rfind("Could", 0) == 0;
      const std::string flag = m[convert ? 1 : 2], value = m[convert ? 2 : 1];
      return Error{
          {}, 0, flag, Phrase("cli.parse.not_valid").fact("value", value).fact("expected", expected_type(at, flag))};
    }
    if (matches("(\\S+): too many inputs for a flag")) return Error{{}, 0, m[1], Phrase("cli.parse.takes_no_value")};
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    if (matches("(\\S+): \\d+ required .* missing")) return Error{{}, 0, m[1], Phrase("cli.parse.missing_value")};
    if (matches("(\\S+): At Most (\\d+) required but received (\\d+)"))
      return Error{{}, 0, m[1], Phrase("cli.parse.too_many").fact("max", m[2]).fact("got", m[3])};
    if (matches("(\\S+): At least (\\d+) required but received (\\d+)"))
      return Error{{}, 0, m[1], Phrase("cli.parse.too_few").fact("min", m[2]).fact("got", m[3])};
    if (matches("Expected exactly (\\d+) arguments to (\\S+), got (\\d+)"))
      return Error{{}, 0, m[2], Phrase("cli.parse.exactly").fact("n", m[1]).fact("got", m[3])};
    if (matches("Expected at least (\\d+) arguments to (\\S+), got (\\d+)"))
      return Error{{}, 0, m[2], Phrase("cli.parse.too_few").fact("min", m[1]).fact("got", m[3])};
    if (matches("(\\S+) was given a disallowed flag override"))
      return Error{{}, 0, m[1], Phrase("cli.parse.takes_no_value")};
  } else if (dynamic_cast<const CLI::ValidationError*>(&e)) {
    if (matches("(\\S+): (.*) not in \\{(.*)\\}")) {
      std::vector<std::string> allowed;
      std::stringstream choices(m[3]);
      for (std::string choice; std::getline(choices, choice, ',');) allowed.push_back(choice);
      return Error{{}, 0, m[1], not_one_of(m[2], allowed)};
    }
    if (matches("(\\S+): (.*)")) return Error{{}, 0, m[1], Phrase("cli.parse.invalid").fact("why", m[2])};
  } else if (dynamic_cast<const CLI::RequiresError*>(&e)) {
    if (matches("(\\S+) requires (\\S+)")) return Error{{}, 0, m[1], Phrase("cli.parse.requires").fact("other", m[2])};
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
    if (matches("(\\S+) excludes (\\S+)")) return Error{{}, 0, m[1], Phrase("cli.parse.excludes").fact("other", m[2])};
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    if (matches("The following arguments? (?:was|were) not expected: (.*)"))
      return Error{{}, 0, {}, Phrase("cli.parse.unexpected").fact("args", m[1])};
  }
  return Error{{}, 0, {}, Phrase("cli.parse.failed").fact("why", what)};
}

// --- the command line ----------------------------------------------------------------------

int run(int argc, char** argv) {
  set_language(language_of(argc, argv));
  CLI::App app{ui("cli.help.app"), "gpuplan"};
  // Before any subcommand is added: each copies the formatter and the help flag's words.
  app.formatter(help_formatter());
  app.set_help_flag("-h,--help", ui("cli.help.help"));
  app.set_version_flag("--version", std::string("gpuplan ") + GPUPLAN_VERSION, ui("cli.help.version"));
  app.require_subcommand(1);
  Common common;
  app.add_option("--catalog", common.catalogs, ui("cli.help.catalog_dir"))->type_name("DIR");
  app.add_option("--format", common.format, ui("cli.help.format"))->type_name("FORMAT")->capture_default_str();
  app.add_option("--lang", common.lang, ui("cli.help.lang"));
  app.add_flag("--no-color", common.no_color, ui("cli.help.no_color"));
  app.footer(ui("cli.help.footer"));
  const std::string task_help = say(Phrase("cli.help.task").fact(list_of("tasks", plan::task_names())));

  QuoteArgs qa;
  auto* quote = app.add_subcommand("quote", ui("cli.help.quote"));
  quote->add_option("config", qa.file, ui("cli.help.quote.config"))->type_name("CONFIG.yaml");
  quote->add_option("--gpu", qa.gpu, ui("cli.help.quote.gpu"));
  quote->add_option("--gpus", qa.gpus, ui("cli.help.quote.gpus"));
  quote->add_option("--nodes", qa.nodes, ui("cli.help.quote.nodes"));
  quote->add_option("--rack-amps", qa.rack_amps, ui("cli.help.quote.rack_amps"));
  quote->add_option("--memory-gb", qa.memory_gb, ui("cli.help.quote.memory_gb"));
  quote->add_option("--region", qa.region, ui("cli.help.quote.region"));
  quote->add_option("--task", qa.task, task_help);
  quote->footer(examples({"gpuplan quote examples/a100-8gpu-training.yaml",
                          "gpuplan quote --gpu a100-80gb-sxm --gpus 8 --rack-amps 16 --format json"}));

  RecommendArgs ra;
  auto* recommend = app.add_subcommand("recommend", ui("cli.help.recommend"));
  recommend->add_option("workload", ra.file, ui("cli.help.recommend.workload"))->type_name("WORKLOAD.yaml");
  recommend->add_option("--task", ra.task, task_help);
  recommend->add_option("--params", ra.params, ui("cli.help.recommend.params"));
  recommend->add_option("--concurrency", ra.concurrency, ui("cli.help.recommend.concurrency"));
  recommend->add_option("--latency-ms", ra.latency_ms, ui("cli.help.recommend.latency_ms"));
  recommend->add_option("--dataset-tb", ra.dataset_tb, ui("cli.help.recommend.dataset_tb"));
  recommend->add_option("--budget", ra.budget, ui("cli.help.recommend.budget"));
  recommend->add_option("--mode", ra.mode, ui("cli.help.recommend.mode"));
  recommend->add_option("--gpu", ra.gpu, ui("cli.help.recommend.gpu"));
  recommend->add_option("--write", ra.write, ui("cli.help.recommend.write"))->type_name("FILE");
  recommend->footer(examples({"gpuplan recommend --task finetune --params 13B --dataset-tb 2 --write my.yaml"}));

  std::string audit_file;
  auto* audit = app.add_subcommand("audit", ui("cli.help.audit"));
  audit->add_option("quote", audit_file, ui("cli.help.audit.quote"))->required()->type_name("QUOTE.yaml");
  audit->footer(examples({"gpuplan audit examples/vendor-quote-padded.yaml"}));

  TcoArgs ta;
  auto* tco_cmd = app.add_subcommand("tco", ui("cli.help.tco"));
  tco_cmd->add_option("scenario", ta.file, ui("cli.help.tco.scenario"))->required()->type_name("SCENARIO.yaml");
  tco_cmd->add_option("--draws", ta.draws, ui("cli.help.tco.draws"));
  tco_cmd->add_option("--seed", ta.seed, ui("cli.help.tco.seed"));
  tco_cmd->add_option("--output", ta.output, ui("cli.help.output_instead"))->type_name("FILE");
  tco_cmd->footer(examples({"gpuplan tco examples/tco-dual-a100.yaml",
                            "gpuplan tco examples/tco-hybrid-nightly.yaml --format html --output tco.html"}));

  UsageArgs ua;
  auto* usage_cmd = app.add_subcommand("usage", ui("cli.help.usage"));
  usage_cmd->add_option("sources", ua.sources, ui("cli.help.usage.sources"));
  usage_cmd->add_option("--prometheus", ua.prometheus, ui("cli.help.usage.prometheus"))->type_name("URL");
  usage_cmd->add_option("--since", ua.since, ui("cli.help.usage.since"));
  usage_cmd->add_option("--from", ua.from, ui("cli.help.usage.from"));
  usage_cmd->add_option("--to", ua.to, ui("cli.help.usage.to"));
  usage_cmd->add_option("--source-format", ua.source_format, ui("cli.help.usage.source_format"));
  usage_cmd->add_option("--dmon-start", ua.dmon_start, ui("cli.help.usage.dmon_start"));
  usage_cmd->add_option("--dmon-interval", ua.dmon_interval, ui("cli.help.usage.dmon_interval"));
  usage_cmd->add_option("--busy-threshold", ua.busy_threshold, ui("cli.help.usage.busy_threshold"));
  usage_cmd->add_option("--scenario", ua.scenario, ui("cli.help.usage.scenario"))->type_name("FILE");
  usage_cmd->add_option("--gpu", ua.gpu, ui("cli.help.usage.gpu"));
  usage_cmd->add_option("--write-demand", ua.write_demand, ui("cli.help.usage.write_demand"))->type_name("FILE");
  usage_cmd->add_option("--output", ua.output, ui("cli.help.output"))->type_name("FILE");
  usage_cmd->add_flag("--quiet", ua.quiet, ui("cli.help.usage.quiet"));
  usage_cmd->footer(
      examples({"gpuplan usage gpu-*.csv.gz",
                "gpuplan usage --prometheus http://127.0.0.1:9090 --since 90d --format html --output usage.html",
                "gpuplan usage synth --pattern nightly-peak --gpus 8 --days 14 > nightly.csv"}));
  SynthArgs sa;
  auto* synth = usage_cmd->add_subcommand("synth", ui("cli.help.synth"));
  synth->add_option("--pattern", sa.pattern, ui("cli.help.synth.pattern"));
  synth->add_option("--gpus", sa.gpus, ui("cli.help.synth.gpus"));
  synth->add_option("--days", sa.days, ui("cli.help.synth.days"));
  synth->add_option("--interval", sa.interval, ui("cli.help.synth.interval"));
  synth->add_option("--format", sa.format, ui("cli.help.synth.format"));
  synth->add_option("--seed", sa.seed, ui("cli.help.synth.seed"));
  synth->add_option("--output", sa.output, ui("cli.help.synth.output"))->type_name("FILE");
  synth->footer(examples({"gpuplan usage synth --pattern nightly-peak --gpus 8 --days 14 > nightly.csv"}));

  auto* cat = app.add_subcommand("catalog", ui("cli.help.catalog"));
  cat->require_subcommand(1);
  std::string list_kind, show_id, check_dir;
  auto* list = cat->add_subcommand("list", ui("cli.help.catalog.list"));
  list->add_option("kind", list_kind, ui("cli.help.catalog.list.kind"));
  auto* show = cat->add_subcommand("show", ui("cli.help.catalog.show"));
  show->add_option("id", show_id, ui("cli.help.catalog.show.id"))->required();
  auto* check = cat->add_subcommand("check", ui("cli.help.catalog.check"));
  check->add_option("dir", check_dir, ui("cli.help.catalog.check.dir"))->type_name("DIR");
  cat->footer(examples({"gpuplan catalog list gpu", "gpuplan catalog show a100-80gb-sxm --format json",
                        "gpuplan catalog check my-prices/"}));

  HostVerbs host_verbs;
  host_verbs.add_to(app);

  for (CLI::App* sub : {quote, recommend, audit, tco_cmd, usage_cmd, cat, list, show, check}) sub->fallthrough();
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
    gpuplan::cli::note(gpuplan::Phrase("cli.internal_error").fact("why", e.what()));
    return 3;
  }
}
