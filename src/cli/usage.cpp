// gpuplan usage: utilization history (logs, scrapes or Prometheus) → heatmap, pattern and the
// strategy it calls for; `usage synth` writes a synthetic history to try it on.
#include "usage/usage.h"

#include <cmath>
#include <ctime>
#include <iostream>
#include <memory>

#include "cli/verb.h"
#include "core/dates.h"
#include "core/output_file.h"
#include "core/text.h"
#include "core/units.h"
#include "report/usage_render.h"
#include "tco/scenario.h"
#include "telemetry/hourly.h"
#include "telemetry/job_demand.h"
#include "telemetry/prometheus.h"
#include "usage/synth.h"

namespace gpuplan::cli {
namespace {

struct UsageArgs {
  std::vector<std::string> sources, jobs;
  std::string prometheus, since, from, to, source_format = "auto", scenario, gpu, write_demand, output, dmon_start,
                                           rent = "all", rent_offer, market = "cn";
  int dmon_interval = 1;
  std::optional<double> busy_threshold;  // unset: the catalog's usage.held_util_above_pct
  bool quiet = false;
};

Error not_a_date(std::string flag, std::string got) {
  return Error{{}, 0, std::move(flag), Phrase("cli.value.not_a_date").fact("got", std::move(got))};
}

Result<telemetry::HourlyData> query(const UsageArgs& a, const telemetry::HeldRule& held) {
  telemetry::PromQuery q;
  q.url = a.prometheus;
  q.held = held;
  // The hour in progress is not complete: end at the last full hour.
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  q.to_s = now - now % 3600;
  if (!a.to.empty()) {
    auto t = parse_utc_time(a.to);
    if (!t) return not_a_date("--to", a.to);
    q.to_s = *t;
  }
  if (!a.from.empty()) {
    auto t = parse_utc_time(a.from);
    if (!t) return not_a_date("--from", a.from);
    q.from_s = *t;
  } else {
    auto d = telemetry::parse_duration(a.since.empty() ? "90d" : a.since);
    if (!d) return Error{{}, 0, "--since", d.error().message};
    q.from_s = q.to_s - *d;
  }
  if (q.from_s >= q.to_s) return Error{{}, 0, "--from", Phrase("cli.value.from_not_before_to")};
  return telemetry::query_prometheus(q);
}

Result<telemetry::HourlyData> read_files(const UsageArgs& a, const telemetry::HeldRule& held) {
  telemetry::SourceFormat f = telemetry::SourceFormat::kAuto;
  if (a.source_format == "smi-csv")
    f = telemetry::SourceFormat::kSmiCsv;
  else if (a.source_format == "dmon")
    f = telemetry::SourceFormat::kDmon;
  else if (a.source_format == "prom")
    f = telemetry::SourceFormat::kPromText;
  else if (a.source_format != "auto")
    return Error{{}, 0, "--source-format", not_one_of(a.source_format, {"auto", "smi-csv", "dmon", "prom"})};
  telemetry::ReadOptions read_options;
  read_options.held = held;
  if (!a.dmon_start.empty()) {
    auto t = parse_utc_time(a.dmon_start);
    if (!t) return not_a_date("--dmon-start", a.dmon_start);
    read_options.dmon_start_ms = *t * 1000;
  }
  if (a.dmon_interval < 1 || a.dmon_interval > 86400)
    return between("cli.value.between_seconds", "--dmon-interval", "1", "86,400", std::to_string(a.dmon_interval));
  read_options.dmon_interval_s = a.dmon_interval;
  return telemetry::read_hourly(a.sources, f, progress_bar(a.quiet), read_options);
}

void note_skipped(const telemetry::ReadStats& stats) {
  std::vector<Phrase> first;  // the first line skipped, when the reader kept it
  if (!stats.skipped.empty()) {
    const auto& skip = stats.skipped[0];
    first.push_back(Phrase("cli.skipped_first")
                        .fact("where", skip.file + ":" + std::to_string(skip.line))
                        .fact("why", {skip.reason}));
  }
  note(Phrase("cli.skipped_lines").fact("count", std::to_string(stats.skipped_count)).fact("first", first));
}

// The analysis options from the flags, checked before the history is read: a wrong flag is bad
// input (exit 2), not a missing answer after a long read.
Result<usage::Options> options_of(const UsageArgs& a, const catalog::Catalog& cat) {
  usage::Options options;
  options.held.util_above_pct = a.busy_threshold.value_or(cat.threshold("usage.held_util_above_pct"));
  options.held.memory_above_mib = cat.threshold("usage.held_memory_above_mib");
  options.gpu = a.gpu;
  if (!a.gpu.empty() && !cat.find("gpu", a.gpu))
    return Error{{}, 0, "--gpu", unknown_id("gpu", a.gpu, cat.ids_of_kind("gpu"))};
  if (a.rent != "all" && a.rent != "hourly" && a.rent != "monthly")
    return Error{{}, 0, "--rent", not_one_of(a.rent, {"all", "hourly", "monthly"})};
  options.rent = a.rent == "monthly"  ? usage::RentBasis::kMonthly
                 : a.rent == "hourly" ? usage::RentBasis::kHourly
                                      : usage::RentBasis::kAll;
  if (a.market != "cn" && a.market != "global") return Error{{}, 0, "--market", not_one_of(a.market, {"cn", "global"})};
  options.market = a.market;
  options.rent_offer = a.rent_offer;
  if (!a.scenario.empty()) {
    // A scenario brings its own rent prices: a catalog offer or basis beside it would be ignored.
    if (!a.rent_offer.empty() || a.rent != "all")
      return Error{{}, 0, a.rent_offer.empty() ? "--rent" : "--rent-offer", Phrase("cli.usage.rent_with_scenario")};
    auto sc = tco::read_scenario(a.scenario, cat);
    if (!sc) return sc.error();
    options.scenario = *sc;
  } else if (!a.rent_offer.empty()) {
    const std::string gpu = a.gpu.empty() ? usage::owned_gpu_for(1, cat) : a.gpu;
    if (auto offer = usage::rent_offer_for(a.rent_offer, gpu, a.market, cat); !offer) return offer.error();
  }
  return options;
}

// Nothing to analyse is bad input, not "0 hours, rent": what was read, and what a history needs.
Result<void> check_history(const telemetry::HourlyData& data, const UsageArgs& a) {
  std::string what = a.prometheus;
  for (const std::string& source : a.sources) what += (what.empty() ? "" : ", ") + source;
  const telemetry::ReadStats& s = data.stats;
  // A scrape as `curl :9400/metrics` gives it has no time on its lines nor in its name.
  if (data.hours.empty() && !s.skipped.empty() && s.skipped[0].reason.key == "skip.no_prom_timestamp")
    return Error{what, 0, {}, Phrase("error.usage.scrape_without_time")};
  if (data.hours.empty())
    return Error{what,
                 0,
                 {},
                 Phrase("error.usage.no_data")
                     .fact("lines", format_number(static_cast<double>(s.lines)))
                     .fact("samples", format_number(static_cast<double>(s.samples)))
                     .fact("skipped", format_number(static_cast<double>(s.skipped_count)))};
  // One reading a GPU in one hour of files: a single scrape (or one line a GPU), not a history.
  // (Prometheus answers one mean an hour: a one-hour range is short, not a single scrape.)
  if (a.prometheus.empty() && data.hours.size() == 1) {
    bool single = true;
    for (const telemetry::HourAcc& acc : data.hours.begin()->second)
      single = single && acc.util_count <= 1 && acc.mem_count <= 1;
    if (single)
      return Error{what, 0, {}, Phrase("error.usage.single_scrape").fact("gpus", std::to_string(data.gpus.size()))};
  }
  return {};
}

int write_result(usage::UsageResult result, const UsageArgs& a, const Context& ctx) {
  usage::date_prices(result, ctx.today, ctx.catalog);
  if (!a.write_demand.empty()) {
    auto written = write_output_file(a.write_demand, usage::demand_csv(result), "--write-demand");
    if (!written) return bad_input(written.error());
  }
  return emit(report::render_usage(result, ctx.format, ctx.style), a.output);
}

int run_usage(const Common& common, const UsageArgs& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  if ((a.sources.empty() ? 0 : 1) + (a.prometheus.empty() ? 0 : 1) + (a.jobs.empty() ? 0 : 1) != 1)
    return bad_input(Phrase("cli.usage.needs_input"));
  // A floor of 100 would count no GPU held by its utilization. NaN fails both tests.
  if (a.busy_threshold && !(*a.busy_threshold >= 0 && *a.busy_threshold < 100))
    return bad_input(Error{
        {}, 0, "--busy-threshold", Phrase("cli.value.percent_below_hundred").fact("got", shown(*a.busy_threshold))});
  Result<usage::Options> options = options_of(a, ctx.catalog);
  if (!options) return bad_input(options.error());
  if (!a.jobs.empty()) {
    Result<telemetry::JobDemand> jobs = telemetry::read_job_demand(a.jobs);
    if (!jobs) return bad_input(jobs.error());
    if (!a.quiet && jobs->stats.skipped_count > 0) note_skipped(jobs->stats);
    return write_result(usage::analyse_jobs(*jobs, *options, ctx.catalog), a, ctx);
  }
  Result<telemetry::HourlyData> data = a.prometheus.empty() ? read_files(a, options->held) : query(a, options->held);
  if (!data) return bad_input(data.error());
  if (auto history = check_history(*data, a); !history) {
    if (!a.quiet && data->stats.skipped_count > 0) note_skipped(data->stats);
    return bad_input(history.error());
  }
  usage::UsageResult result = usage::analyse(*data, *options, ctx.catalog);
  if (!a.quiet && data->stats.skipped_count > 0) note_skipped(data->stats);
  return write_result(result, a, ctx);
}

struct SynthArgs {
  std::string pattern = "steady", format = "smi-csv", interval = "1s", output;
  int gpus = 8, days = 7;
  unsigned seed = 1;
};

int run_synth(const SynthArgs& a) {
  usage::SynthOptions o;
  const std::optional<usage::SynthPattern> pattern = usage::parse_synth_pattern(a.pattern);
  if (!pattern)
    return bad_input(
        Error{{}, 0, "--pattern", not_one_of(a.pattern, {"idle", "steady", "nightly-peak", "weekly-burst"})});
  o.pattern = *pattern;
  const std::optional<usage::SynthFormat> format = usage::parse_synth_format(a.format);
  if (!format)
    return bad_input(Error{{}, 0, "--format", not_one_of(a.format, {"smi-csv", "dmon", "prom", "openmetrics"})});
  o.format = *format;
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
  auto written = write_output_file(a.output, "--output", [&o](std::ostream& out) -> Result<void> {
    usage::synthesize(o, out);
    return {};
  });
  return written ? kOk : bad_input(written.error());
}

CLI::App* add_synth(CLI::App& usage, SynthArgs& sa) {
  CLI::App* synth = usage.add_subcommand("synth", ui("cli.help.synth"));
  synth->add_option("--pattern", sa.pattern, ui("cli.help.synth.pattern"));
  synth->add_option("--gpus", sa.gpus, ui("cli.help.synth.gpus"));
  synth->add_option("--days", sa.days, ui("cli.help.synth.days"));
  synth->add_option("--interval", sa.interval, ui("cli.help.synth.interval"));
  synth->add_option("--format", sa.format, ui("cli.help.synth.format"));
  synth->add_option("--seed", sa.seed, ui("cli.help.synth.seed"));
  synth->add_option("--output", sa.output, ui("cli.help.synth.output"))->type_name("FILE");
  synth->footer(examples({"gpuplan usage synth --pattern nightly-peak --gpus 8 --days 14 > nightly.csv"}));
  return synth;
}

}  // namespace

Run add_usage(CLI::App& cmd) {
  auto ua = std::make_shared<UsageArgs>();
  cmd.add_option("sources", ua->sources, ui("cli.help.usage.sources"));
  cmd.add_option("--prometheus", ua->prometheus, ui("cli.help.usage.prometheus"))->type_name("URL");
  cmd.add_option("--jobs", ua->jobs, ui("cli.help.usage.jobs"))->type_name("FILE");
  cmd.add_option("--since", ua->since, ui("cli.help.usage.since"));
  cmd.add_option("--from", ua->from, ui("cli.help.usage.from"));
  cmd.add_option("--to", ua->to, ui("cli.help.usage.to"));
  cmd.add_option("--source-format", ua->source_format, ui("cli.help.usage.source_format"));
  cmd.add_option("--dmon-start", ua->dmon_start, ui("cli.help.usage.dmon_start"));
  cmd.add_option("--dmon-interval", ua->dmon_interval, ui("cli.help.usage.dmon_interval"));
  cmd.add_option("--busy-threshold", ua->busy_threshold, ui("cli.help.usage.busy_threshold"));
  cmd.add_option("--scenario", ua->scenario, ui("cli.help.usage.scenario"))->type_name("FILE");
  cmd.add_option("--gpu", ua->gpu, ui("cli.help.usage.gpu"));
  cmd.add_option("--rent", ua->rent, ui("cli.help.usage.rent"));
  cmd.add_option("--rent-offer", ua->rent_offer, ui("cli.help.usage.rent_offer"))->type_name("ID");
  cmd.add_option("--market", ua->market, ui("cli.help.usage.market"));
  cmd.add_option("--write-demand", ua->write_demand, ui("cli.help.usage.write_demand"))->type_name("FILE");
  cmd.add_option("--output", ua->output, ui("cli.help.output"))->type_name("FILE");
  cmd.add_flag("--quiet", ua->quiet, ui("cli.help.usage.quiet"));
  cmd.footer(examples({"gpuplan usage gpu-*.csv.gz",
                       "gpuplan usage --prometheus http://127.0.0.1:9090 --since 90d --format html --output usage.html",
                       "gpuplan usage --jobs sacct.txt",
                       "gpuplan usage synth --pattern nightly-peak --gpus 8 --days 14 > nightly.csv"}));
  auto sa = std::make_shared<SynthArgs>();
  CLI::App* synth = add_synth(cmd, *sa);
  synth->fallthrough();
  return [ua, sa, synth](const Common& common) { return *synth ? run_synth(*sa) : run_usage(common, *ua); };
}

}  // namespace gpuplan::cli
