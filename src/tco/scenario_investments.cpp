// The scenario parser's investments (SPEC E5): InfiniBand, liquid cooling, premium support and
// AI Enterprise, each reduced to an upfront cost, a monthly cost and a monthly benefit from the
// user's figures and the catalog's defaults, with the basis the report shows.
#include <cmath>

#include "core/money.h"
#include "tco/scenario_parser.h"

namespace gpuplan::tco {
namespace {

using detail::number_text;
using detail::range_text;

std::string money_text(const Range& r) {
  bool whole = r.low == std::floor(r.low) && r.high == std::floor(r.high);
  return format_money_range(r, kDefaultCurrency, whole ? 0 : 2);
}

// An investment's basis values: a figure as it is, one taken from a catalog entry, a change.
Phrase figure(std::string value) {
  return Phrase("tco.value.figure").fact("value", std::move(value));
}

Phrase from_catalog(std::string value, const std::string& catalog_id) {
  if (catalog_id.empty()) return figure(std::move(value));
  return Phrase("tco.value.from_catalog").fact("value", std::move(value)).fact("id", catalog_id);
}

Phrase change(std::string before, std::string after, std::string unit = {}) {
  Phrase p(unit.empty() ? "tco.value.change" : "tco.value.change_in");
  p.fact("before", std::move(before)).fact("after", std::move(after));
  if (!unit.empty()) p.fact("unit", std::move(unit));
  return p;
}

}  // namespace

std::vector<Investment> ScenarioParser::investments(const YAML::Node& n, const OwnedCosts& owned) const {
  std::vector<Investment> out;
  if (!n) return out;
  r_.check_keys(n, "investments", {"infiniband", "liquid_cooling", "premium_support", "ai_enterprise"});
  for (const auto& kv : n) {
    const std::string kind = kv.first.Scalar();
    const std::string field = "investments." + kind;
    if (kind == "infiniband") out.push_back(infiniband(kv.second, field));
    if (kind == "liquid_cooling") out.push_back(liquid_cooling(kv.second, field, owned));
    if (kind == "premium_support") out.push_back(premium_support(kv.second, field));
    if (kind == "ai_enterprise") out.push_back(ai_enterprise(kv.second, field, owned));
  }
  return out;
}

// A figure only the user knows; its absence is "error.scenario.missing_figure" with what the
// figure is ("error.scenario.figure.<key>").
Range ScenarioParser::required_range(const YAML::Node& n, const std::string& key, const std::string& field) const {
  if (!n[key])
    r_.fail(n, field + "." + key,
            Phrase("error.scenario.missing_figure").fact("what", {Phrase("error.scenario.figure." + key)}));
  return r_.range(n[key], field + "." + key);
}

// The catalog's figure unless the user gives one; `origin` keeps the catalog id when it was used.
Range ScenarioParser::catalog_range(const YAML::Node& n, const std::string& key, const std::string& field,
                                    const std::string& kind, const std::string& id, const std::string& entry_key,
                                    std::string& origin) const {
  if (n[key]) return r_.range(n[key], field + "." + key);
  origin = id;
  return catalog_entry(n, field + "." + key, kind, id).range(entry_key);
}

double ScenarioParser::catalog_number(const YAML::Node& n, const std::string& key, const std::string& field,
                                      double fallback) const {
  return n[key] ? r_.non_negative(n[key], field + "." + key) : fallback;
}

Investment ScenarioParser::infiniband(const YAML::Node& n, const std::string& field) const {
  r_.check_keys(n, field,
                {"cost", "epoch_minutes_before", "epoch_minutes_after", "epochs_per_month", "cluster_hour_value"});
  Investment inv;
  inv.id = "infiniband";
  std::string origin;
  inv.upfront = catalog_range(n, "cost", field, "upgrade", "network-10gbe-to-hdr-ib", "delta", origin);
  const double before = catalog_number(n, "epoch_minutes_before", field, catalog_.threshold("network.epoch_min_10gbe"));
  const double after = catalog_number(n, "epoch_minutes_after", field, catalog_.threshold("network.epoch_min_ib"));
  if (after > before)
    r_.fail(n["epoch_minutes_after"] ? n["epoch_minutes_after"] : n, field + ".epoch_minutes_after",
            "error.scenario.exceeds",
            {{"limit_key", "epoch_minutes_before"}, {"got", number_text(after)}, {"limit", number_text(before)}});
  const Range epochs = required_range(n, "epochs_per_month", field);
  const Range value = required_range(n, "cluster_hour_value", field);
  const double saved_hours = (before - after) / 60;
  inv.benefit_monthly = Range::point(saved_hours) * epochs * value;
  inv.basis = {{"cost", from_catalog(money_text(inv.upfront), origin)},
               {"epoch", change(number_text(before), number_text(after), "min")},
               {"epochs_per_month", figure(range_text(epochs))},
               {"cluster_hour_value", figure(money_text(value))},
               {"cluster_hours_saved", figure(range_text(epochs * saved_hours))}};
  return inv;
}

Investment ScenarioParser::liquid_cooling(const YAML::Node& n, const std::string& field,
                                          const OwnedCosts& owned) const {
  r_.check_keys(n, field, {"cost", "install_cost", "it_load_kw", "pue_before", "pue_after", "electricity_per_kwh"});
  Investment inv;
  inv.id = "liquid_cooling";
  std::string origin;
  const Range cost = catalog_range(n, "cost", field, "upgrade", "cooling-air-to-liquid", "delta", origin);
  // Pipe installation is often charged apart from the cooling kit ([S1 §2]: ¥18,000 when the
  // contract left it out); 0 unless the user has a figure.
  const Range install = optional_range(n["install_cost"], field + ".install_cost", {});
  inv.upfront = cost + install;
  const Range load = required_range(n, "it_load_kw", field);
  const double before =
      n["pue_before"] ? pue_number(n["pue_before"], field + ".pue_before") : catalog_.threshold("pue.air");
  const double after =
      n["pue_after"] ? pue_number(n["pue_after"], field + ".pue_after") : catalog_.threshold("pue.liquid");
  if (after > before)
    r_.fail(n["pue_after"] ? n["pue_after"] : n, field + ".pue_after", "error.scenario.exceeds",
            {{"limit_key", "pue_before"}, {"got", number_text(after)}, {"limit", number_text(before)}});
  const Range electricity =
      optional_range(n["electricity_per_kwh"], field + ".electricity_per_kwh", owned.electricity_kwh);
  inv.benefit_monthly = load * ((before - after) * kHoursPerMonth) * electricity;
  inv.basis = {{"cost", from_catalog(money_text(cost), origin)},
               {"installation", figure(money_text(install))},
               {"it_load", figure(range_text(load) + " kW")},
               {"pue", change(number_text(before), number_text(after))},
               {"electricity", figure(money_text(electricity) + "/kWh")}};
  return inv;
}

Investment ScenarioParser::premium_support(const YAML::Node& n, const std::string& field) const {
  r_.check_keys(n, field, {"cost_per_year", "downtime_hours_before", "downtime_hours_after", "downtime_cost_per_hour"});
  Investment inv;
  inv.id = "premium_support";
  std::string origin;
  const Range per_year = catalog_range(n, "cost_per_year", field, "upgrade", "premium-support", "delta", origin);
  inv.cost_monthly = per_year / 12;
  auto downtime = [&](const char* key, const char* tier) {
    if (n[key]) return r_.non_negative(n[key], field + "." + key);
    auto h = catalog_entry(n, field + "." + key, "support", tier).opt_number("downtime_h_per_year");
    if (!h) r_.fail(n, field + "." + key, "error.scenario.no_catalog_downtime", {{"tier", tier}, {"key", key}});
    return *h;
  };
  const double before = downtime("downtime_hours_before", "basic-5x8-nbd");
  const double after = downtime("downtime_hours_after", "premium-2h-4h");
  if (after > before)
    r_.fail(n["downtime_hours_after"] ? n["downtime_hours_after"] : n, field + ".downtime_hours_after",
            "error.scenario.exceeds",
            {{"limit_key", "downtime_hours_before"}, {"got", number_text(after)}, {"limit", number_text(before)}});
  const Range hour_cost = required_range(n, "downtime_cost_per_hour", field);
  inv.benefit_monthly = hour_cost * ((before - after) / 12);
  inv.basis = {{"cost_per_year", from_catalog(money_text(per_year), origin)},
               {"downtime_per_year", change(number_text(before), number_text(after), "h")},
               {"downtime_hour_cost", figure(money_text(hour_cost))}};
  return inv;
}

Investment ScenarioParser::ai_enterprise(const YAML::Node& n, const std::string& field, const OwnedCosts& owned) const {
  r_.check_keys(n, field, {"gpus", "cost_per_gpu_year", "benefit_per_month"});
  Investment inv;
  inv.id = "ai_enterprise";
  std::string origin;
  const int gpus = n["gpus"] ? r_.count(n["gpus"], field + ".gpus", 1) : owned.gpus;
  const Range per_gpu_year =
      catalog_range(n, "cost_per_gpu_year", field, "licence", "nvidia-ai-enterprise", "per_gpu_year", origin);
  inv.cost_monthly = per_gpu_year * (gpus / 12.0);
  inv.benefit_monthly = required_range(n, "benefit_per_month", field);
  inv.basis = {{"gpus", figure(std::to_string(gpus))},
               {"cost_per_gpu_year", from_catalog(money_text(per_gpu_year), origin)},
               {"benefit_per_month", figure(money_text(inv.benefit_monthly))}};
  return inv;
}

}  // namespace gpuplan::tco
