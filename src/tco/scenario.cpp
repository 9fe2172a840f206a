// Reads a `gpuplan tco` scenario. The format, every key with its default (examples/tco-*.yaml
// are complete, commented instances):
//
//   name: Dual A100 80G — buy vs rent on demand   # default: the file name
//   horizon: 36 months      # h, d, weeks, months, years (week = 168 h, month = 730 h,
//                           # year = 8,760 h); a whole number of hours, more than 0; required
//                           # unless demand.file gives it (then: the file's length)
//   owned:                  # what would be bought and what it costs to run
//     gpus: 2               # required unless config
//     price: 780000         # CNY, number or [low, high]; required unless config
//     config: a100-8gpu-training.yaml  # a `gpuplan quote` config, relative to this file:
//                           # price = its totals.buy, gpus = its GPUs × nodes, power_kw = its
//                           # node peak power × nodes; explicit gpus/price/power_kw win
//     gpu: a100-80gb-sxm    # catalog gpu; without config or power_kw, power_kw =
//                           # gpus × tdp_w × threshold power.server_factor / 1000
//     platform: hgx-a100-8gpu  # catalog platform, for the purchase unit (a config names its own)
//     unit: server          # server | gpu: what the hybrid buys in; default: the platform's
//                           # purchase_unit_gpus where its board is only sold whole (HGX: 8),
//                           # else one GPU; server = the config's GPUs per node
//     residual: 0           # CNY at the horizon's end, [low, high], "20%" of the purchase
//                           # midpoint, or book (straight-line book value over `life`); default:
//                           # threshold used.card_fraction × the cards' new value (gpu buy ×
//                           # gpus, at most the price), or × the price when no gpu is named
//     life: 36 months       # depreciation life; default threshold term.years
//     power_kw: 0           # peak of the whole owned fleet; required unless config or gpu
//     idle_fraction: 0.5    # share of peak drawn idle, 0..1 or 0–100%; default threshold
//     electricity_per_kwh: 0.8  # default threshold electricity.price_kwh
//     pue: 1.45             # at least 1; default threshold pue (a range)
//     rack_monthly: 800     # CNY, default 0; likewise staff_monthly, licences_yearly,
//                           # support_yearly
//   rent:                   # at least one price (directly or from cloud_offer)
//     on_demand_gpu_hour: 12.8     # or on_demand_server_hour with gpus_per_server
//     monthly_gpu: [3000, 4500]    # or monthly_server with gpus_per_server
//     spot_gpu_hour: 5             # or spot_server_hour with gpus_per_server
//     spot_overhead: 10%           # GPU-hours lost to interruptions, 0–100%; default 0
//     reserved_gpu_hour: 9         # or reserved_server_hour with gpus_per_server
//     cloud_offer: aws-p4de-24xlarge-us-east-1-use1-az4  # catalog offer: on-demand (and spot)
//                           # per GPU-hour in CNY at the catalog's fx rate; explicit prices win
//     source: "Aliyun list price, 2024"   # default: the cloud offer's source, else "scenario"
//   transfer:
//     units: decimal        # decimal (TB = 1,000 GB) or binary (TB = 1,024 GB); required
//                           # when an amount is in TB or PB
//     egress_per_month: 100 TB     # GB, TB or PB (a bare number is GB); default 0
//     ingress_per_month: 0
//     egress_price_gb: 0.8         # default threshold egress.price_gb
//     ingress_price_gb: 0          # default 0: moving data into a cloud is usually free
//     storage: 10 TB               # kept in the cloud while renting; default 0
//     storage_price_gb_month: 0.1  # default 0
//     one_off_in: 100 TB           # moved into the cloud once, priced at ingress_price_gb
//     one_off_out: 100 TB          # moved out once at the end, priced at egress_price_gb; both
//                                  # counted by every strategy that runs hours in the cloud
//   exit: {engineer_weeks: 18, engineer_week_cost: 20000}   # leaving a cloud's services [S1 §4]:
//                           # both required; counted like the one-off transfers
//   demand:                 # exactly one of:
//     utilization: 50%      # of the owned GPUs, every hour (or a fraction 0..1)
//     weekly:               # the horizon starts Monday 00:00; entries add up
//       - {days: [mon, tue], from: 0, to: 24, gpus: 8}   # hours [from, to), default 0–24
//     file: demand.csv      # hour,busy_gpus (read_demand_csv); a shorter file repeats
//   investments:            # optional; * = required (the user's own figure), the rest default
//                           # to the catalog entry named in brackets
//     infiniband:           # upfront = cost; benefit a month =
//                           # (before − after) / 60 × epochs_per_month × cluster_hour_value
//       {cost [upgrade network-10gbe-to-hdr-ib], epoch_minutes_before [network.epoch_min_10gbe],
//        epoch_minutes_after [network.epoch_min_ib], epochs_per_month*, cluster_hour_value*}
//     liquid_cooling:       # upfront = cost + install_cost; benefit a month =
//                           # it_load_kw × (pue_before − pue_after) × 730 h × electricity
//       {cost [upgrade cooling-air-to-liquid], install_cost [0], it_load_kw*, pue_before [pue.air],
//        pue_after [pue.liquid], electricity_per_kwh [owned.electricity_per_kwh]}
//     premium_support:      # cost a month = cost_per_year / 12; benefit a month =
//                           # (before − after) × downtime_cost_per_hour / 12
//       {cost_per_year [upgrade premium-support], downtime_hours_before [support basic-5x8-nbd],
//        downtime_hours_after [support premium-2h-4h], downtime_cost_per_hour*}
//     ai_enterprise:        # cost a month = gpus × cost_per_gpu_year / 12
//       {gpus [owned.gpus], cost_per_gpu_year [licence nvidia-ai-enterprise], benefit_per_month*}
//   factors: {data_sensitive, team_runs_linux_cuda, uses_cloud_only_services, compliance_requires_onsite}
//   monte_carlo: {draws: 10000, seed: 1}   # draws default threshold tco.mc_draws
//
// Every mistake is an Error naming file, line and field; a demand CSV's own mistakes name the
// CSV's file and line.
//
// This file reads the document as a whole; the sections are read in the files named in
// tco/scenario_parser.h.
#include "tco/scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/yaml_reader.h"
#include "tco/scenario_parser.h"

namespace gpuplan::tco {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kScenarioKeys = {"name",   "horizon",     "owned",   "rent",        "transfer",
                                                "demand", "investments", "factors", "monte_carlo", "exit"};
const std::vector<std::string> kFactorKeys = {"data_sensitive", "team_runs_linux_cuda", "uses_cloud_only_services",
                                              "compliance_requires_onsite"};

}  // namespace

namespace {

// The used-card band prices cards within their service life [S0 §4.4]; past it the catalog has no
// resale figure, so the default residual falls to the book value, which is nothing by then.
// A book value is known once the horizon is: the residual's basis is completed here.
void resale_within_life(Scenario& s) {
  OwnedCosts& o = s.owned;
  auto basis =
      std::find_if(s.prices.begin(), s.prices.end(), [](const PriceBasis& b) { return b.field == "owned.residual"; });
  if (!o.residual && basis != s.prices.end())
    basis->value = o.purchase * std::max(0.0, 1 - s.horizon_months() / o.life_months);
  if (!o.resale || s.horizon_months() <= o.life_months) return;
  o.resale->past_life = true;
  o.residual = Range::point(0);
  if (basis != s.prices.end()) {
    basis->from = "past_life";
    basis->value = *o.residual;
  }
}

}  // namespace

Scenario ScenarioParser::parse(const std::string& text) {
  YAML::Node root = r_.load(text);
  r_.check_keys(root, "", kScenarioKeys);
  Scenario s;
  s.file = r_.file();
  s.name = root["name"] ? r_.text(root["name"], "name") : fs::path(r_.file()).stem().string();
  if (const auto h = root["horizon"]) s.horizon_hours = horizon(h);

  if (!root["owned"]) r_.fail(root, "owned", Phrase("error.scenario.owned_missing"));
  s.owned = owned(root["owned"], s.prices);
  if (!root["rent"]) r_.fail(root, "rent", Phrase("error.scenario.rent_missing"));
  s.rent = rent(root["rent"], s.prices);
  s.transfer = transfer(root["transfer"], s.prices);
  if (const auto e = root["exit"]) s.exit = exit(e, s.prices);

  if (!root["demand"]) r_.fail(root, "demand", Phrase("error.scenario.demand_missing"));
  demand(root, s);
  resale_within_life(s);

  s.investments = investments(root["investments"], s.owned);
  if (const auto f = root["factors"]) s.factors = factors(f);
  s.mc_draws = static_cast<int>(catalog_.threshold("tco.mc_draws"));
  if (const auto mc = root["monte_carlo"]) monte_carlo(mc, s);
  return s;
}

Factors ScenarioParser::factors(const YAML::Node& n) const {
  r_.check_keys(n, "factors", kFactorKeys);
  Factors f;
  auto flag = [&](const char* key, std::optional<bool>& out) {
    if (n[key]) out = r_.boolean(n[key], std::string("factors.") + key);
  };
  flag("data_sensitive", f.data_sensitive);
  flag("team_runs_linux_cuda", f.team_runs_linux_cuda);
  flag("uses_cloud_only_services", f.uses_cloud_only_services);
  flag("compliance_requires_onsite", f.compliance_requires_onsite);
  return f;
}

void ScenarioParser::monte_carlo(const YAML::Node& n, Scenario& s) const {
  r_.check_keys(n, "monte_carlo", {"draws", "seed"});
  if (const auto d = n["draws"]) {
    double v = r_.number(d, "monte_carlo.draws");
    if (v != std::floor(v) || v < 1 || v > 1e8)
      r_.fail(d, "monte_carlo.draws", "error.scenario.whole_between",
              {{"min", "1"}, {"max", "100,000,000"}, {"got", d.Scalar()}});
    s.mc_draws = static_cast<int>(v);
  }
  if (const auto sd = n["seed"]) {
    double v = r_.number(sd, "monte_carlo.seed");
    if (v != std::floor(v) || v < 0 || v > 4294967295.0)
      r_.fail(sd, "monte_carlo.seed", "error.scenario.whole_between",
              {{"min", "0"}, {"max", "4,294,967,295"}, {"got", sd.Scalar()}});
    s.mc_seed = static_cast<unsigned>(v);
  }
}

Result<Scenario> parse_scenario(const std::string& text, const std::string& file, const catalog::Catalog& catalog) {
  try {
    return ScenarioParser(file, catalog).parse(text);
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

Result<Scenario> read_scenario(const std::string& path, const catalog::Catalog& catalog) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_scenario(*text, path, catalog);
}

Result<std::vector<double>> read_demand_csv(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return ScenarioParser::parse_demand_csv(*text, path);
}

}  // namespace gpuplan::tco
