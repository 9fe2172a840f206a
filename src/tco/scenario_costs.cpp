// The scenario parser's cost sections: `owned` (bought outright, from a quote config, a catalog
// GPU or the user's figures), `rent` (prices per GPU or per server, or a catalog cloud offer)
// and `transfer` (data moved and stored, with its units).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/bounds.h"
#include "core/text.h"
#include "plan/config.h"
#include "plan/quote.h"
#include "tco/scenario_parser.h"

namespace gpuplan::tco {
namespace {

using detail::joined;
using detail::split_number;

const std::vector<std::string> kOwnedKeys = {"gpus",
                                             "price",
                                             "config",
                                             "gpu",
                                             "platform",
                                             "unit",
                                             "residual",
                                             "life",
                                             "power_kw",
                                             "idle_fraction",
                                             "electricity_per_kwh",
                                             "pue",
                                             "rack_monthly",
                                             "staff_monthly",
                                             "licences_yearly",
                                             "support_yearly"};
const std::vector<std::string> kTransferKeys = {
    "units",   "egress_per_month",       "ingress_per_month", "egress_price_gb", "ingress_price_gb",
    "storage", "storage_price_gb_month", "one_off_in",        "one_off_out"};
const std::vector<std::string> kDataUnits = {"GB", "TB", "PB"};

// A rent price given per GPU, or per server and divided by gpus_per_server.
struct RentPriceKeys {
  const char* per_gpu;
  const char* per_server;
  std::optional<Range> RentOffers::*member;
  const char* unit;
};
constexpr std::array<RentPriceKeys, 4> kRentPrices = {{
    {"on_demand_gpu_hour", "on_demand_server_hour", &RentOffers::on_demand_gpu_hour, "cny_gpu_hour"},
    {"monthly_gpu", "monthly_server", &RentOffers::monthly_gpu, "cny_gpu_month"},
    {"spot_gpu_hour", "spot_server_hour", &RentOffers::spot_gpu_hour, "cny_gpu_hour"},
    {"reserved_gpu_hour", "reserved_server_hour", &RentOffers::reserved_gpu_hour, "cny_gpu_hour"},
}};

std::vector<std::string> rent_keys() {
  std::vector<std::string> keys = {"gpus_per_server", "spot_overhead", "cloud_offer", "source"};
  for (const auto& p : kRentPrices) {
    keys.push_back(p.per_gpu);
    keys.push_back(p.per_server);
  }
  return keys;
}

// A cost figure times the amount it prices must stay a number: 1e308 of anything is a typo,
// and an infinite line would print ¥inf and pick a wrong cheapest strategy.
void finite_product(const YamlReader& r, const YAML::Node& n, const std::string& field, double a, double b) {
  if (!std::isfinite(a * b) || a > bounds::kMaxAmount || b > bounds::kMaxAmount)
    r.fail(n, field, "error.yaml.implausible",
           {{"got", n.IsScalar() ? n.Scalar() : fmt::format("{}", std::max(a, b))}});
}

}  // namespace

OwnedCosts ScenarioParser::owned(const YAML::Node& n, std::vector<PriceBasis>& prices) const {
  r_.check_keys(n, "owned", kOwnedKeys);
  OwnedCosts o;
  std::optional<int> gpus;
  std::optional<Range> price, power_kw;
  PriceBasis price_basis, power_basis;
  std::string gpu_id, platform_id;
  int server_gpus = 0;  // GPUs in one server of the config, 0 when no config
  if (const auto c = n["config"]) {
    const std::string path = relative_path(r_.text(c, "owned.config"));
    auto text = read_text_file(path);
    if (!text)
      r_.fail(c, "owned.config", Phrase("error.cannot_read").fact("path", path).fact("why", {text.error().message}));
    auto input = plan::parse_config_yaml(*text, path);
    if (!input) throw ParseFailure{input.error()};
    auto config = plan::resolve_config(*input, catalog_);
    if (!config) throw ParseFailure{config.error()};
    const plan::Quote quote = plan::build_quote(*config, catalog_);
    gpus = config->total_gpus();
    price = quote.total_buy;
    power_kw = Range::point(quote.power.peak_w() * config->nodes / 1000);
    gpu_id = config->gpu;
    platform_id = config->platform;
    server_gpus = config->gpus;
    price_basis.from = power_basis.from = "config";
    price_basis.where = power_basis.where = path;
    price_basis.priced_by = plan::priced_entries(quote);
  }
  if (const auto g = n["gpus"]) gpus = r_.count(g, "owned.gpus", 1);
  if (!gpus) r_.fail(n, "owned.gpus", Phrase("error.scenario.owned_gpus_missing"));
  o.gpus = *gpus;
  if (const auto p = n["price"]) {
    price = r_.range(p, "owned.price");
    price_basis = stated(p, "owned.price", *price, "cny");
  }
  if (!price) r_.fail(n, "owned.price", Phrase("error.scenario.owned_price_missing"));
  o.purchase = *price;

  if (const auto g = n["gpu"]) {
    gpu_id = r_.text(g, "owned.gpu");
    const catalog::Entry* gpu = catalog_.find("gpu", gpu_id);
    if (!gpu) r_.fail(g, "owned.gpu", unknown_id("gpu", gpu_id, catalog_.ids_of_kind("gpu")));
    if (!power_kw) {
      const double factor = catalog_.threshold("power.server_factor");
      power_kw = Range::point(o.gpus * gpu->number("tdp_w") * factor / 1000);
      power_basis.from = "gpu_tdp";
      power_basis.entry = gpu;
      power_basis.where =
          fmt::format("{} × {} W × {}", o.gpus, format_figure(gpu->number("tdp_w"), 2), format_figure(factor, 2));
    }
  }
  if (const auto p = n["power_kw"]) {
    power_kw = r_.range(p, "owned.power_kw");
    power_basis = stated(p, "owned.power_kw", *power_kw, "kw");
  }
  if (!power_kw) r_.fail(n, "owned.power_kw", Phrase("error.scenario.owned_power_missing"));
  o.power_kw = *power_kw;

  if (const auto p = n["platform"]) {
    platform_id = r_.text(p, "owned.platform");
    if (!catalog_.find("platform", platform_id))
      r_.fail(p, "owned.platform", unknown_id("platform", platform_id, catalog_.ids_of_kind("platform")));
  }
  unit(n, platform_id, server_gpus, o);
  PriceBasis residual_basis = residual(n, gpu_id, o);
  o.life_months =
      n["life"] ? duration_hours(n["life"], "owned.life") / kHoursPerMonth : catalog_.threshold("term.years") * 12;

  price_basis.field = "owned.price";
  price_basis.value = o.purchase;
  price_basis.unit = "cny";
  power_basis.field = "owned.power_kw";
  power_basis.value = o.power_kw;
  power_basis.unit = "kw";
  prices.push_back(price_basis);
  prices.push_back(residual_basis);
  prices.push_back(power_basis);
  if (const auto f = n["idle_fraction"]) {
    o.idle_fraction = unit_fraction(f, "owned.idle_fraction");
    prices.push_back(stated(f, "owned.idle_fraction", Range::point(o.idle_fraction), "fraction"));
  } else {
    o.idle_fraction = catalog_.threshold("power.idle_fraction");
    prices.push_back(from_threshold("power.idle_fraction", "owned.idle_fraction", "fraction"));
    prices.back().value = Range::point(o.idle_fraction);  // the threshold's low end, as threshold() reads it
  }
  if (const auto e = n["electricity_per_kwh"]) {
    o.electricity_kwh = r_.range(e, "owned.electricity_per_kwh");
    prices.push_back(stated(e, "owned.electricity_per_kwh", o.electricity_kwh, "cny_kwh"));
  } else {
    o.electricity_kwh = catalog_.threshold_range("electricity.price_kwh");
    prices.push_back(from_threshold("electricity.price_kwh", "owned.electricity_per_kwh", "cny_kwh"));
  }
  if (const auto p = n["pue"]) {
    o.pue = pue_range(p, "owned.pue");
    prices.push_back(stated(p, "owned.pue", o.pue, "ratio"));
  } else {
    o.pue = catalog_.threshold_range("pue");
    prices.push_back(from_threshold("pue", "owned.pue", "ratio"));
  }
  const struct {
    const char* key;
    Range OwnedCosts::*member;
    const char* unit;
  } running[] = {{"rack_monthly", &OwnedCosts::rack_monthly, "cny_month"},
                 {"staff_monthly", &OwnedCosts::staff_monthly, "cny_month"},
                 {"licences_yearly", &OwnedCosts::licences_yearly, "cny_year"},
                 {"support_yearly", &OwnedCosts::support_yearly, "cny_year"}};
  for (const auto& c : running) {
    const std::string field = std::string("owned.") + c.key;
    o.*c.member = optional_range(n[c.key], field, {});
    prices.push_back(stated_or_default(n[c.key], field, o.*c.member, c.unit));
  }
  return o;
}

// What the hybrid buys in: `unit: gpu` one GPU at a time; `unit: server` a whole server of the
// config (or the platform's purchase unit); by default the platform's purchase unit when its
// board is only sold whole (HGX: 8), else single GPUs.
void ScenarioParser::unit(const YAML::Node& n, const std::string& platform_id, int server_gpus, OwnedCosts& o) const {
  int platform_unit = 0;
  if (!platform_id.empty()) {
    const catalog::Entry* platform = catalog_.find("platform", platform_id);
    if (platform && platform->has("purchase_unit_gpus"))
      platform_unit = static_cast<int>(platform->number("purchase_unit_gpus"));
  }
  if (const auto u = n["unit"]) {
    const std::string kind = r_.text(u, "owned.unit");
    if (kind != "server" && kind != "gpu") r_.fail(u, "owned.unit", not_one_of(kind, {"server", "gpu"}));
    if (kind == "server") {
      const int gpus = server_gpus > 0 ? server_gpus : platform_unit;
      if (gpus <= 0) r_.fail(u, "owned.unit", Phrase("error.scenario.unit_server_unknown"));
      o.unit_gpus = gpus;
      o.unit_basis = "server";
    }
    return;  // `gpu`: the default of one
  }
  if (platform_unit > 1) {
    o.unit_gpus = platform_unit;
    o.unit_basis = "platform";
    // 12 GPUs on 8-GPU boards cannot be bought: the hybrid's share would outgrow the purchase.
    if (o.gpus % platform_unit != 0)
      r_.fail(n["gpus"] ? n["gpus"] : n, "owned.gpus", "error.scenario.gpus_not_whole_units",
              {{"gpus", std::to_string(o.gpus)}, {"unit", std::to_string(platform_unit)}, {"platform", platform_id}});
  }
}

// The value left at the horizon's end. Default: the used-card resale band on the cards' new
// value; `book`: straight-line book value over `life`; a number, a range or "20%" as given.
// The basis returned is completed by the whole parse: a book value needs the horizon.
PriceBasis ScenarioParser::residual(const YAML::Node& n, const std::string& gpu_id, OwnedCosts& o) const {
  if (const auto res = n["residual"]) {
    std::string_view s = res.IsScalar() ? trim(res.Scalar()) : std::string_view();
    if (s == "book") {  // nullopt: book value
      PriceBasis b = stated(res, "owned.residual", {}, "cny");
      b.from = "book";
      return b;
    }
    if (!s.empty() && s.back() == '%') {
      o.residual = Range::point(o.purchase.mid() * unit_fraction(res, "owned.residual"));
    } else {
      o.residual = r_.range(res, "owned.residual");
    }
    // Resale cannot return more than was paid: a residual above the purchase makes buying pay.
    if (o.residual->high > o.purchase.high)
      r_.fail(res, "owned.residual", "error.scenario.residual_above_purchase",
              {{"got", res.IsScalar() ? res.Scalar() : format_number(o.residual->high)},
               {"purchase", format_number(o.purchase.high)}});
    return stated(res, "owned.residual", *o.residual, "cny");
  }
  // The band prices used *cards* [S0 §4.4]; the rest of a server (chassis, CPUs, memory) has no
  // sourced resale figure, so it is counted at nothing rather than at the cards' rate: a residual
  // set too high would favour buying. Without a gpu the scenario knows only the total.
  Resale r{"purchase", o.purchase.mid(), catalog_.threshold_range("used.card_fraction")};
  if (const catalog::Entry* gpu = gpu_id.empty() ? nullptr : catalog_.find("gpu", gpu_id); gpu && gpu->has("buy")) {
    r.basis = "cards";
    r.base = std::min(o.purchase.mid(), o.gpus * gpu->range("buy").mid());
  }
  o.residual = r.fraction * r.base;
  o.resale = r;
  PriceBasis b = from_threshold("used.card_fraction", "owned.residual", "cny");
  b.from = "resale";
  b.value = *o.residual;
  return b;
}

RentOffers ScenarioParser::rent(const YAML::Node& n, std::vector<PriceBasis>& prices) const {
  r_.check_keys(n, "rent", rent_keys());
  RentOffers out;
  std::optional<int> gpus_per_server;
  if (const auto g = n["gpus_per_server"]) gpus_per_server = r_.count(g, "rent.gpus_per_server", 1);
  const std::string stated_source = n["source"] ? r_.text(n["source"], "rent.source") : "";

  std::array<std::optional<PriceBasis>, kRentPrices.size()> bases;
  for (size_t i = 0; i < kRentPrices.size(); ++i) {
    const auto& p = kRentPrices[i];
    const auto per_gpu = n[p.per_gpu], per_server = n[p.per_server];
    const std::string field = std::string("rent.") + p.per_gpu;
    if (per_gpu && per_server)
      r_.fail(per_server, std::string("rent.") + p.per_server, "error.scenario.rent_price_twice",
              {{"per_gpu", p.per_gpu}, {"per_server", p.per_server}});
    if (per_gpu) {
      out.*p.member = r_.range(per_gpu, field);
      bases[i] = stated(per_gpu, field, *(out.*p.member), p.unit);
    }
    if (per_server) {
      const std::string server_field = std::string("rent.") + p.per_server;
      if (!gpus_per_server) r_.fail(per_server, server_field, Phrase("error.scenario.needs_gpus_per_server"));
      out.*p.member = r_.range(per_server, server_field) / *gpus_per_server;
      bases[i] = stated(per_server, field, *(out.*p.member), p.unit);
      bases[i]->stated_as = server_field;
      bases[i]->gpus_per_server = *gpus_per_server;
    }
    if (bases[i]) bases[i]->source = stated_source;
  }

  if (const auto c = n["cloud_offer"]) {
    const std::string id = r_.text(c, "rent.cloud_offer");
    const catalog::Entry* offer = catalog_.find("cloud_offer", id);
    if (!offer) r_.fail(c, "rent.cloud_offer", unknown_id("cloud_offer", id, catalog_.ids_of_kind("cloud_offer")));
    const std::string currency = offer->text("currency");
    auto rate = catalog_.rate_to_cny(currency);
    if (!rate) r_.fail(c, "rent.cloud_offer", "error.scenario.no_exchange_rate", {{"currency", currency}});
    const double gpus = offer->number("gpus");
    // An offer lists the instance's price; the model costs one GPU of it.
    auto listed = [&](size_t i, const char* key) {
      const auto& p = kRentPrices[i];
      out.*p.member = Range::point(rate->convert(offer->number(key) / gpus));
      PriceBasis b;
      b.field = std::string("rent.") + p.per_gpu;
      b.value = *(out.*p.member);
      b.unit = p.unit;
      b.from = "catalog";
      b.entry = offer;
      b.stated_as = key;
      if (gpus > 1) b.gpus_per_server = static_cast<int>(gpus);
      if (currency != kDefaultCurrency) b.fx = *rate;
      bases[i] = b;
    };
    if (!out.on_demand_gpu_hour) listed(0, "on_demand_hour");
    if (!out.spot_gpu_hour && offer->has("spot_hour")) listed(2, "spot_hour");
    out.source = offer->source;
  }
  if (!stated_source.empty()) out.source = stated_source;
  if (out.source.empty()) out.source = "scenario";

  if (!out.on_demand_gpu_hour && !out.monthly_gpu && !out.spot_gpu_hour && !out.reserved_gpu_hour)
    r_.fail(n, "rent", Phrase("error.scenario.no_rent_price"));
  if (const auto o = n["spot_overhead"]) out.spot_overhead = unit_fraction_range(o, "rent.spot_overhead");
  for (size_t i = 0; i < bases.size(); ++i) {
    if (!bases[i]) continue;
    prices.push_back(*bases[i]);
    if (kRentPrices[i].member == &RentOffers::spot_gpu_hour)
      prices.push_back(stated_or_default(n["spot_overhead"], "rent.spot_overhead", out.spot_overhead, "fraction"));
  }
  return out;
}

// An amount of data in GB: a bare number is GB; TB and PB need `units` to say 1,000 or 1,024.
double ScenarioParser::gigabytes(const YAML::Node& n, const std::string& field, const YAML::Node& units,
                                 bool binary) const {
  if (!n.IsScalar()) r_.fail(n, field, Phrase("error.scenario.not_data"));
  const std::string& text = n.Scalar();
  auto parts = split_number(text);
  if (!parts) r_.fail(n, field, "error.scenario.not_data_text", {{"text", text}});
  const auto& [value, unit] = *parts;
  if (value < 0) r_.fail(n, field, "error.scenario.negative", {{"got", text}});
  const double k = binary ? 1024 : 1000;
  double factor = 0;
  if (unit.empty() || unit == "GB") {
    factor = 1;
  } else if (unit == "TB" || unit == "PB") {
    if (!units) r_.fail(n, field, "error.scenario.ambiguous_units", {{"text", text}});
    factor = unit == "TB" ? k : k * k;
  } else {
    r_.fail(n, field, unknown_unit(unit, text, joined(kDataUnits), kDataUnits));
  }
  return value * factor;
}

Transfer ScenarioParser::transfer(const YAML::Node& n, std::vector<PriceBasis>& prices) const {
  Transfer t;
  t.price_out_gb = catalog_.threshold_range("egress.price_gb");
  if (!n) return t;
  r_.check_keys(n, "transfer", kTransferKeys);
  const YAML::Node units = n["units"];
  if (units) {
    const std::string u = r_.text(units, "transfer.units");
    if (u != "decimal" && u != "binary") r_.fail(units, "transfer.units", not_one_of(u, {"decimal", "binary"}));
    t.binary_units = u == "binary";
  }
  if (const auto a = n["egress_per_month"])
    t.gb_out_per_month = gigabytes(a, "transfer.egress_per_month", units, t.binary_units);
  if (const auto a = n["ingress_per_month"])
    t.gb_in_per_month = gigabytes(a, "transfer.ingress_per_month", units, t.binary_units);
  if (const auto a = n["storage"]) t.storage_gb = gigabytes(a, "transfer.storage", units, t.binary_units);
  t.price_out_gb = optional_range(n["egress_price_gb"], "transfer.egress_price_gb", t.price_out_gb);
  t.price_in_gb = optional_range(n["ingress_price_gb"], "transfer.ingress_price_gb", {});
  t.storage_gb_month = optional_range(n["storage_price_gb_month"], "transfer.storage_price_gb_month", {});
  if (const auto a = n["one_off_in"]) t.gb_one_off_in = gigabytes(a, "transfer.one_off_in", units, t.binary_units);
  if (const auto a = n["one_off_out"]) t.gb_one_off_out = gigabytes(a, "transfer.one_off_out", units, t.binary_units);
  const struct {
    const char* amount_key;
    const char* price_key;
    double gb;
    const Range& price;
  } priced[] = {{"egress_per_month", "egress_price_gb", t.gb_out_per_month, t.price_out_gb},
                {"ingress_per_month", "ingress_price_gb", t.gb_in_per_month, t.price_in_gb},
                {"storage", "storage_price_gb_month", t.storage_gb, t.storage_gb_month},
                {"one_off_in", "ingress_price_gb", t.gb_one_off_in, t.price_in_gb},
                {"one_off_out", "egress_price_gb", t.gb_one_off_out, t.price_out_gb}};
  for (const auto& p : priced) {
    if (const auto a = n[p.amount_key]) finite_product(r_, a, std::string("transfer.") + p.amount_key, p.gb, 1);
    if (const auto c = n[p.price_key])
      finite_product(r_, c, std::string("transfer.") + p.price_key, p.gb, p.price.high);
  }
  // A price is named when it is stated or something is moved or stored at it; unstated, egress
  // is the catalog's and the others 0.
  const struct {
    const char* key;
    const Range& price;
    bool used;
    const char* unit;
    const char* threshold;  // the catalog default, or nullptr for 0
  } named[] = {
      {"egress_price_gb", t.price_out_gb, t.gb_out_per_month > 0 || t.gb_one_off_out > 0, "cny_gb", "egress.price_gb"},
      {"ingress_price_gb", t.price_in_gb, t.gb_in_per_month > 0 || t.gb_one_off_in > 0, "cny_gb", nullptr},
      {"storage_price_gb_month", t.storage_gb_month, t.storage_gb > 0, "cny_gb_month", nullptr}};
  for (const auto& p : named) {
    const std::string field = std::string("transfer.") + p.key;
    if (n[p.key] || (p.used && !p.threshold))
      prices.push_back(stated_or_default(n[p.key], field, p.price, p.unit));
    else if (p.used)
      prices.push_back(from_threshold(p.threshold, field, p.unit));
  }
  return t;
}

// Leaving a cloud: both figures are the user's (no catalog default: the article's 18
// engineer-weeks are one broker's migration, not a rule).
ExitCosts ScenarioParser::exit(const YAML::Node& n, std::vector<PriceBasis>& prices) const {
  r_.check_keys(n, "exit", {"engineer_weeks", "engineer_week_cost"});
  ExitCosts e;
  const auto weeks = n["engineer_weeks"], cost = n["engineer_week_cost"];
  if (!weeks) r_.fail(n, "exit.engineer_weeks", Phrase("error.scenario.exit_weeks_missing"));
  if (!cost) r_.fail(n, "exit.engineer_week_cost", Phrase("error.scenario.exit_cost_missing"));
  e.engineer_weeks = r_.number(weeks, "exit.engineer_weeks");
  if (e.engineer_weeks < 0) r_.fail(weeks, "exit.engineer_weeks", "error.scenario.negative", {{"got", weeks.Scalar()}});
  if (e.engineer_weeks > 100000)
    r_.fail(weeks, "exit.engineer_weeks", "error.yaml.implausible", {{"got", weeks.Scalar()}});
  e.engineer_week_cost = r_.range(cost, "exit.engineer_week_cost");
  finite_product(r_, cost, "exit.engineer_week_cost", e.engineer_weeks, e.engineer_week_cost.high);
  if (e.engineer_weeks > 0)
    prices.push_back(stated(cost, "exit.engineer_week_cost", e.engineer_week_cost, "cny_engineer_week"));
  return e;
}

}  // namespace gpuplan::tco
