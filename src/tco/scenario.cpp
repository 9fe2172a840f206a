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
//     residual: 0           # CNY at the horizon's end, or "20%" of the purchase midpoint;
//                           # default: none (the book value is computed from `life`)
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
#include "tco/scenario.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/money.h"
#include "core/text.h"
#include "core/units.h"
#include "core/yaml_reader.h"
#include "plan/config.h"
#include "plan/quote.h"

namespace gpuplan::tco {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kScenarioKeys = {"name",   "horizon",     "owned",   "rent",       "transfer",
                                                "demand", "investments", "factors", "monte_carlo"};
const std::vector<std::string> kOwnedKeys = {"gpus",
                                             "price",
                                             "config",
                                             "gpu",
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
    "units",   "egress_per_month",      "ingress_per_month", "egress_price_gb", "ingress_price_gb",
    "storage", "storage_price_gb_month"};
const std::vector<std::string> kDemandKinds = {"utilization", "weekly", "file"};
const std::vector<std::string> kWeeklyKeys = {"days", "from", "to", "gpus"};
const std::vector<std::string> kFactorKeys = {"data_sensitive", "team_runs_linux_cuda", "uses_cloud_only_services",
                                              "compliance_requires_onsite"};

// A rent price given per GPU, or per server and divided by gpus_per_server.
struct RentPriceKeys {
  const char* per_gpu;
  const char* per_server;
  std::optional<Range> RentOffers::*member;
};
constexpr std::array<RentPriceKeys, 4> kRentPrices = {{
    {"on_demand_gpu_hour", "on_demand_server_hour", &RentOffers::on_demand_gpu_hour},
    {"monthly_gpu", "monthly_server", &RentOffers::monthly_gpu},
    {"spot_gpu_hour", "spot_server_hour", &RentOffers::spot_gpu_hour},
    {"reserved_gpu_hour", "reserved_server_hour", &RentOffers::reserved_gpu_hour},
}};

std::vector<std::string> rent_keys() {
  std::vector<std::string> keys = {"gpus_per_server", "spot_overhead", "cloud_offer", "source"};
  for (const auto& p : kRentPrices) {
    keys.push_back(p.per_gpu);
    keys.push_back(p.per_server);
  }
  return keys;
}

// Calendar units core does not have (core/units.h knows s, min, h, d); SPEC §J: a year is
// 8,760 h and a month a twelfth of it.
struct LongTimeUnit {
  std::string_view symbol;
  double hours;
};
constexpr std::array<LongTimeUnit, 10> kLongTimeUnits = {{
    {"hour", 1},
    {"hours", 1},
    {"day", 24},
    {"days", 24},
    {"week", 168},
    {"weeks", 168},
    {"month", kHoursPerMonth},
    {"months", kHoursPerMonth},
    {"year", kHoursPerYear},
    {"years", kHoursPerYear},
}};
const std::vector<std::string> kDurationUnitNames = {"h", "d", "weeks", "months", "years"};
const std::vector<std::string> kDataUnits = {"GB", "TB", "PB"};

// "h, d, weeks": unit symbols for a message, the same in every language.
std::string joined(const std::vector<std::string>& symbols) {
  std::string out;
  for (const auto& s : symbols) out += (out.empty() ? "" : ", ") + s;
  return out;
}
const std::string kDurationUnits = joined(kDurationUnitNames);
const std::vector<std::string> kDurationSuggestions = {"h", "d", "min", "hours", "days", "weeks", "months", "years"};
constexpr double kMaxHorizonHours = 50 * kHoursPerYear;

constexpr std::array<std::string_view, 7> kWeekdays = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
constexpr int kHoursPerWeek = 168;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The leading number of `s` and what follows it, trimmed; nullopt when `s` does not start with one.
std::optional<std::pair<double, std::string>> split_number(std::string_view s) {
  s = trim(s);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  return std::pair{value, std::string(trim(std::string_view(end, s.data() + s.size() - end)))};
}

// 1234.5 -> "1,234.5", 6.80 -> "6.8": up to two decimals, trailing zeros dropped.
std::string number_text(double v) {
  std::string s = format_number(v, 2);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string range_text(const Range& r) {
  std::string low = number_text(r.low), high = number_text(r.high);
  return low == high ? low : low + "–" + high;
}

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

// Phrases joined by "; " (“；” in Chinese): each but the last is followed by the rest.
Phrase semicolons(std::vector<Phrase> items) {
  Phrase out = std::move(items.back());
  for (size_t i = items.size() - 1; i-- > 0;)
    out = Phrase("tco.and_then").fact("first", {std::move(items[i])}).fact("rest", {std::move(out)});
  return out;
}

class ScenarioParser {
 public:
  ScenarioParser(const std::string& file, const catalog::Catalog& catalog)
      : r_(file), catalog_(catalog), dir_(fs::path(file).parent_path()) {}

  Scenario parse(const std::string& text) {
    YAML::Node root = r_.load(text);
    r_.check_keys(root, "", kScenarioKeys);
    Scenario s;
    s.file = r_.file();
    s.name = root["name"] ? r_.text(root["name"], "name") : fs::path(r_.file()).stem().string();
    if (const auto h = root["horizon"]) s.horizon_hours = horizon(h);

    if (!root["owned"]) r_.fail(root, "owned", Phrase("error.scenario.owned_missing"));
    s.owned = owned(root["owned"]);
    if (!root["rent"]) r_.fail(root, "rent", Phrase("error.scenario.rent_missing"));
    s.rent = rent(root["rent"]);
    s.transfer = transfer(root["transfer"]);

    if (!root["demand"]) r_.fail(root, "demand", Phrase("error.scenario.demand_missing"));
    demand(root, s);

    s.investments = investments(root["investments"], s.owned);
    if (const auto f = root["factors"]) s.factors = factors(f);
    s.mc_draws = static_cast<int>(catalog_.threshold("tco.mc_draws"));
    if (const auto mc = root["monte_carlo"]) monte_carlo(mc, s);
    return s;
  }

 private:
  // --- Field readers --------------------------------------------------------------------------

  // "36 months", "156 weeks", "26280 h": hours, more than 0.
  double duration_hours(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) r_.fail(n, field, "error.scenario.not_duration", {{"units", kDurationUnits}});
    const std::string& text = n.Scalar();
    auto parts = split_number(text);
    if (!parts) r_.fail(n, field, "error.scenario.not_duration_text", {{"text", text}, {"units", kDurationUnits}});
    const auto& [value, unit] = *parts;
    if (unit.empty()) r_.fail(n, field, "error.scenario.needs_unit", {{"text", text}, {"units", kDurationUnits}});
    std::optional<double> hours;
    for (const auto& u : kLongTimeUnits)
      if (u.symbol == unit) hours = value * u.hours;
    if (!hours) {
      auto q = parse_quantity(text, Dimension::kTime);
      if (!q)
        r_.fail(n, field, unknown_unit(unit, text, kDurationUnits, kDurationSuggestions));
      hours = *q;
    }
    if (*hours <= 0) r_.fail(n, field, "error.scenario.not_positive", {{"got", text}});
    return *hours;
  }

  double horizon(const YAML::Node& n) const {
    double hours = duration_hours(n, "horizon");
    if (std::fabs(hours - std::round(hours)) > 1e-6) {
      const std::string in_hours = number_text(hours) + " h";
      if (in_hours == n.Scalar()) r_.fail(n, "horizon", "error.scenario.horizon_not_whole", {{"got", n.Scalar()}});
      r_.fail(n, "horizon", "error.scenario.horizon_not_whole_in_hours", {{"got", n.Scalar()}, {"hours", in_hours}});
    }
    if (hours > kMaxHorizonHours)
      r_.fail(n, "horizon", "error.scenario.horizon_too_long",
              {{"got", n.Scalar()}, {"max_years", number_text(kMaxHorizonHours / kHoursPerYear)}});
    return std::round(hours);
  }

  // "50%" or a fraction such as 0.5.
  double fraction(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) r_.fail(n, field, Phrase("error.scenario.not_fraction"));
    std::string_view s = trim(n.Scalar());
    if (!s.empty() && s.back() == '%') {
      auto parts = split_number(s.substr(0, s.size() - 1));
      if (!parts || !parts->second.empty()) r_.fail(n, field, "error.scenario.not_percentage", {{"got", n.Scalar()}});
      return parts->first / 100;
    }
    return r_.number(n, field);
  }

  // A fraction between 0 and 1 (written 0..1 or 0–100%).
  double unit_fraction(const YAML::Node& n, const std::string& field) const {
    double v = fraction(n, field);
    if (v < 0 || v > 1) {
      const bool percent = n.Scalar().find('%') != std::string::npos;
      if (percent || v < 0) r_.fail(n, field, "error.scenario.not_share", {{"got", n.Scalar()}});
      r_.fail(n, field, "error.scenario.not_share_needs_sign", {{"got", n.Scalar()}});
    }
    return v;
  }

  Range unit_fraction_range(const YAML::Node& n, const std::string& field) const {
    if (n.IsSequence()) {
      if (n.size() != 2) r_.fail(n, field, Phrase("error.scenario.not_range"));
      Range out{unit_fraction(n[0], field), unit_fraction(n[1], field)};
      if (out.low > out.high) r_.fail(n, field, Phrase("error.scenario.low_above_high"));
      return out;
    }
    return Range::point(unit_fraction(n, field));
  }

  // A PUE: facility power over IT power, so never below 1.
  Range pue_range(const YAML::Node& n, const std::string& field) const {
    Range pue = r_.range(n, field);
    if (pue.low < 1) r_.fail(n, field, "error.scenario.pue_below_one", {{"got", range_text(pue)}});
    return pue;
  }

  double pue_number(const YAML::Node& n, const std::string& field) const {
    double pue = r_.number(n, field);
    if (pue < 1) r_.fail(n, field, "error.scenario.pue_below_one", {{"got", n.Scalar()}});
    return pue;
  }

  Range optional_range(const YAML::Node& n, const std::string& field, Range fallback) const {
    return n ? r_.range(n, field) : fallback;
  }

  std::string relative_path(const std::string& path) const {
    fs::path p(path);
    return p.is_absolute() || dir_.empty() ? p.string() : (dir_ / p).string();
  }

  const catalog::Entry& catalog_entry(const YAML::Node& at, const std::string& field, const std::string& kind,
                                      const std::string& id) const {
    const catalog::Entry* e = catalog_.find(kind, id);
    if (!e) r_.fail(at, field, "error.scenario.no_catalog_default", {{"kind", kind}, {"id", id}, {"field", field}});
    return *e;
  }

  // --- Sections -------------------------------------------------------------------------------

  OwnedCosts owned(const YAML::Node& n) const {
    r_.check_keys(n, "owned", kOwnedKeys);
    OwnedCosts o;
    std::optional<int> gpus;
    std::optional<Range> price, power_kw;
    if (const auto c = n["config"]) {
      const std::string path = relative_path(r_.text(c, "owned.config"));
      auto text = read_text_file(path);
      if (!text) r_.fail(c, "owned.config", Phrase("error.cannot_read").fact("path", path).fact("why", {text.error().message}));
      auto input = plan::parse_config_yaml(*text, path);
      if (!input) throw ParseFailure{input.error()};
      auto config = plan::resolve_config(*input, catalog_);
      if (!config) throw ParseFailure{config.error()};
      const plan::Quote quote = plan::build_quote(*config, catalog_);
      gpus = config->total_gpus();
      price = quote.total_buy;
      power_kw = Range::point(quote.power.total_w() * config->nodes / 1000);
    }
    if (const auto g = n["gpus"]) gpus = r_.count(g, "owned.gpus", 1);
    if (!gpus) r_.fail(n, "owned.gpus", Phrase("error.scenario.owned_gpus_missing"));
    o.gpus = *gpus;
    if (const auto p = n["price"]) price = r_.range(p, "owned.price");
    if (!price) r_.fail(n, "owned.price", Phrase("error.scenario.owned_price_missing"));
    o.purchase = *price;

    if (const auto g = n["gpu"]) {
      const std::string id = r_.text(g, "owned.gpu");
      const catalog::Entry* gpu = catalog_.find("gpu", id);
      if (!gpu) r_.fail(g, "owned.gpu", unknown_id("gpu", id, catalog_.ids_of_kind("gpu")));
      if (!power_kw)
        power_kw = Range::point(o.gpus * gpu->number("tdp_w") * catalog_.threshold("power.server_factor") / 1000);
    }
    if (const auto p = n["power_kw"]) power_kw = r_.range(p, "owned.power_kw");
    if (!power_kw) r_.fail(n, "owned.power_kw", Phrase("error.scenario.owned_power_missing"));
    o.power_kw = *power_kw;

    if (const auto res = n["residual"]) {
      std::string_view s = res.IsScalar() ? trim(res.Scalar()) : std::string_view();
      if (!s.empty() && s.back() == '%') {
        o.residual = Range::point(o.purchase.mid() * unit_fraction(res, "owned.residual"));
      } else {
        o.residual = r_.range(res, "owned.residual");
      }
    }
    o.life_months =
        n["life"] ? duration_hours(n["life"], "owned.life") / kHoursPerMonth : catalog_.threshold("term.years") * 12;
    o.idle_fraction = n["idle_fraction"] ? unit_fraction(n["idle_fraction"], "owned.idle_fraction")
                                         : catalog_.threshold("power.idle_fraction");
    o.electricity_kwh = optional_range(n["electricity_per_kwh"], "owned.electricity_per_kwh",
                                       catalog_.threshold_range("electricity.price_kwh"));
    o.pue = n["pue"] ? pue_range(n["pue"], "owned.pue") : catalog_.threshold_range("pue");
    o.rack_monthly = optional_range(n["rack_monthly"], "owned.rack_monthly", {});
    o.staff_monthly = optional_range(n["staff_monthly"], "owned.staff_monthly", {});
    o.licences_yearly = optional_range(n["licences_yearly"], "owned.licences_yearly", {});
    o.support_yearly = optional_range(n["support_yearly"], "owned.support_yearly", {});
    return o;
  }

  RentOffers rent(const YAML::Node& n) const {
    r_.check_keys(n, "rent", rent_keys());
    RentOffers out;
    std::optional<int> gpus_per_server;
    if (const auto g = n["gpus_per_server"]) gpus_per_server = r_.count(g, "rent.gpus_per_server", 1);

    for (const auto& p : kRentPrices) {
      const auto per_gpu = n[p.per_gpu], per_server = n[p.per_server];
      if (per_gpu && per_server)
        r_.fail(per_server, std::string("rent.") + p.per_server, "error.scenario.rent_price_twice",
                {{"per_gpu", p.per_gpu}, {"per_server", p.per_server}});
      if (per_gpu) out.*p.member = r_.range(per_gpu, std::string("rent.") + p.per_gpu);
      if (per_server) {
        const std::string field = std::string("rent.") + p.per_server;
        if (!gpus_per_server) r_.fail(per_server, field, Phrase("error.scenario.needs_gpus_per_server"));
        out.*p.member = r_.range(per_server, field) / *gpus_per_server;
      }
    }

    if (const auto c = n["cloud_offer"]) {
      const std::string id = r_.text(c, "rent.cloud_offer");
      const catalog::Entry* offer = catalog_.find("cloud_offer", id);
      if (!offer)
        r_.fail(c, "rent.cloud_offer",
                unknown_id("cloud_offer", id, catalog_.ids_of_kind("cloud_offer")));
      const std::string currency = offer->text("currency");
      auto rate = catalog_.rate_to_cny(currency);
      if (!rate) r_.fail(c, "rent.cloud_offer", "error.scenario.no_exchange_rate", {{"currency", currency}});
      const double gpus = offer->number("gpus");
      if (!out.on_demand_gpu_hour)
        out.on_demand_gpu_hour = Range::point(rate->convert(offer->number("on_demand_hour") / gpus));
      if (!out.spot_gpu_hour && offer->has("spot_hour"))
        out.spot_gpu_hour = Range::point(rate->convert(offer->number("spot_hour") / gpus));
      out.source = offer->source;
    }
    if (const auto s = n["source"]) out.source = r_.text(s, "rent.source");
    if (out.source.empty()) out.source = "scenario";

    if (!out.on_demand_gpu_hour && !out.monthly_gpu && !out.spot_gpu_hour && !out.reserved_gpu_hour)
      r_.fail(n, "rent", Phrase("error.scenario.no_rent_price"));
    if (const auto o = n["spot_overhead"]) out.spot_overhead = unit_fraction_range(o, "rent.spot_overhead");
    return out;
  }

  // An amount of data in GB: a bare number is GB; TB and PB need `units` to say 1,000 or 1,024.
  double gigabytes(const YAML::Node& n, const std::string& field, const YAML::Node& units, bool binary) const {
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

  Transfer transfer(const YAML::Node& n) const {
    Transfer t;
    t.price_out_gb = catalog_.threshold_range("egress.price_gb");
    if (!n) return t;
    r_.check_keys(n, "transfer", kTransferKeys);
    const YAML::Node units = n["units"];
    if (units) {
      const std::string u = r_.text(units, "transfer.units");
      if (u != "decimal" && u != "binary")
        r_.fail(units, "transfer.units", not_one_of(u, {"decimal", "binary"}));
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
    return t;
  }

  void demand(const YAML::Node& root, Scenario& s) const {
    const YAML::Node n = root["demand"];
    r_.check_keys(n, "demand", kDemandKinds);
    if (n.size() == 0) r_.fail(n, "demand", Phrase("error.scenario.demand_empty"));
    if (n.size() > 1) {
      auto it = n.begin();
      ++it;
      r_.fail(it->first, "demand." + it->first.Scalar(), Phrase("error.scenario.demand_several"));
    }
    if (const auto f = n["file"]) {
      demand_file(f, root, s);
      return;
    }
    if (s.horizon_hours == 0) r_.fail(root, "horizon", Phrase("error.scenario.horizon_missing"));
    const auto hours = static_cast<size_t>(s.horizon_hours);
    if (const auto u = n["utilization"]) {
      const double share = unit_fraction(u, "demand.utilization");
      const double busy = share * s.owned.gpus;
      s.demand.assign(hours, busy);
      s.demand_description = Phrase("tco.demand.utilization")
                                 .fact("share", number_text(share * 100))
                                 .fact("gpus", std::to_string(s.owned.gpus))
                                 .fact("busy", number_text(busy));
      return;
    }
    weekly(n["weekly"], s, hours);
  }

  void demand_file(const YAML::Node& f, const YAML::Node& root, Scenario& s) const {
    const std::string name = r_.text(f, "demand.file");
    const std::string path = relative_path(name);
    auto text = read_text_file(path);
    if (!text) r_.fail(f, "demand.file", Phrase("error.cannot_read").fact("path", path).fact("why", {text.error().message}));
    auto hourly = parse_demand_csv(*text, path);
    if (!hourly) throw ParseFailure{hourly.error()};
    const size_t rows = hourly->size();
    if (s.horizon_hours == 0 && !root["horizon"]) s.horizon_hours = static_cast<double>(rows);
    const auto hours = static_cast<size_t>(s.horizon_hours);
    s.demand.resize(hours);
    for (size_t h = 0; h < hours; ++h) s.demand[h] = (*hourly)[h % rows];
    const std::string base = fs::path(name).filename().string();
    if (rows == hours) {
      s.demand_description = Phrase("tco.demand.file").fact("file", base).fact("rows", number_text(rows));
    } else if (rows < hours) {
      s.demand_description = Phrase("tco.demand.file_repeated")
                                 .fact("file", base)
                                 .fact("rows", number_text(rows))
                                 .fact("hours", number_text(hours))
                                 .fact("times", number_text(static_cast<double>(hours) / rows));
    } else {
      s.demand_description = Phrase("tco.demand.file_first")
                                 .fact("file", base)
                                 .fact("rows", number_text(rows))
                                 .fact("hours", number_text(hours));
    }
  }

  void weekly(const YAML::Node& n, Scenario& s, size_t hours) const {
    if (!n.IsSequence() || n.size() == 0)
      r_.fail(n, "demand.weekly", "error.scenario.weekly_not_list",
              {{"example", "{days: [mon, tue], from: 0, to: 24, gpus: 8}"}});
    std::array<double, kHoursPerWeek> week{};
    std::vector<Phrase> described;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string field = "demand.weekly[" + std::to_string(i) + "]";
      const YAML::Node e = n[i];
      r_.check_keys(e, field, kWeeklyKeys);
      if (!e["days"]) r_.fail(e, field + ".days", Phrase("error.scenario.weekly_days_missing"));
      if (!e["gpus"]) r_.fail(e, field + ".gpus", Phrase("error.scenario.weekly_gpus_missing"));
      std::vector<int> days;
      const YAML::Node d = e["days"];
      if (d.IsScalar()) {
        days.push_back(weekday(d, field + ".days"));
      } else if (d.IsSequence() && d.size() > 0) {
        for (size_t j = 0; j < d.size(); ++j) days.push_back(weekday(d[j], field + ".days[" + std::to_string(j) + "]"));
      } else {
        r_.fail(d, field + ".days", Phrase("error.scenario.not_weekdays"));
      }
      const int from = e["from"] ? hour_of_day(e["from"], field + ".from") : 0;
      const int to = e["to"] ? hour_of_day(e["to"], field + ".to") : 24;
      if (from >= to)
        r_.fail(e["to"] ? e["to"] : e, field + ".to", "error.scenario.to_not_after_from",
                {{"from", std::to_string(from)}, {"to", std::to_string(to)}});
      const double gpus = r_.non_negative(e["gpus"], field + ".gpus");
      std::vector<Phrase> names;
      for (int day : days) {
        names.push_back(Phrase("tco.weekday." + std::string(kWeekdays[day])));
        for (int h = from; h < to; ++h) week[day * 24 + h] += gpus;
      }
      described.push_back(Phrase("tco.demand.weekly_entry")
                              .fact("gpus", number_text(gpus))
                              .fact("days", std::move(names))
                              .fact("from", std::to_string(from))
                              .fact("to", std::to_string(to)));
    }
    double per_week = 0;
    for (double g : week) per_week += g;
    s.demand.resize(hours);
    for (size_t h = 0; h < hours; ++h) s.demand[h] = week[h % kHoursPerWeek];
    s.demand_description = Phrase("tco.demand.weekly")
                               .fact("entries", {semicolons(std::move(described))})
                               .fact("per_week", number_text(per_week));
  }

  int weekday(const YAML::Node& n, const std::string& field) const {
    const std::string day = lower(r_.text(n, field));
    for (size_t i = 0; i < kWeekdays.size(); ++i)
      if (kWeekdays[i] == day) return static_cast<int>(i);
    r_.fail(n, field, not_one_of(n.Scalar(), {kWeekdays.begin(), kWeekdays.end()}));
  }

  int hour_of_day(const YAML::Node& n, const std::string& field) const {
    double h = r_.number(n, field);
    if (h < 0 || h > 24) r_.fail(n, field, "error.scenario.hour_out_of_range", {{"got", n.Scalar()}});
    if (h != std::floor(h)) r_.fail(n, field, "error.scenario.hour_not_whole", {{"got", n.Scalar()}});
    return static_cast<int>(h);
  }

  // --- Investments (SPEC E5) ------------------------------------------------------------------

  std::vector<Investment> investments(const YAML::Node& n, const OwnedCosts& owned) const {
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
  Range required_range(const YAML::Node& n, const std::string& key, const std::string& field) const {
    if (!n[key])
      r_.fail(n, field + "." + key,
              Phrase("error.scenario.missing_figure").fact("what", {Phrase("error.scenario.figure." + key)}));
    return r_.range(n[key], field + "." + key);
  }

  // The catalog's figure unless the user gives one; `origin` keeps the catalog id when it was used.
  Range catalog_range(const YAML::Node& n, const std::string& key, const std::string& field, const std::string& kind,
                      const std::string& id, const std::string& entry_key, std::string& origin) const {
    if (n[key]) return r_.range(n[key], field + "." + key);
    origin = id;
    return catalog_entry(n, field + "." + key, kind, id).range(entry_key);
  }

  double catalog_number(const YAML::Node& n, const std::string& key, const std::string& field, double fallback) const {
    return n[key] ? r_.non_negative(n[key], field + "." + key) : fallback;
  }

  Investment infiniband(const YAML::Node& n, const std::string& field) const {
    r_.check_keys(n, field,
                  {"cost", "epoch_minutes_before", "epoch_minutes_after", "epochs_per_month", "cluster_hour_value"});
    Investment inv;
    inv.id = "infiniband";
    std::string origin;
    inv.upfront = catalog_range(n, "cost", field, "upgrade", "network-10gbe-to-hdr-ib", "delta", origin);
    const double before =
        catalog_number(n, "epoch_minutes_before", field, catalog_.threshold("network.epoch_min_10gbe"));
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

  Investment liquid_cooling(const YAML::Node& n, const std::string& field, const OwnedCosts& owned) const {
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

  Investment premium_support(const YAML::Node& n, const std::string& field) const {
    r_.check_keys(n, field,
                  {"cost_per_year", "downtime_hours_before", "downtime_hours_after", "downtime_cost_per_hour"});
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

  Investment ai_enterprise(const YAML::Node& n, const std::string& field, const OwnedCosts& owned) const {
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

  // --- The rest -------------------------------------------------------------------------------

  Factors factors(const YAML::Node& n) const {
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

  void monte_carlo(const YAML::Node& n, Scenario& s) const {
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

 public:
  // `hour,busy_gpus` rows, hours consecutive from 0; a header line and blank or # lines allowed.
  static Result<std::vector<double>> parse_demand_csv(const std::string& text, const std::string& path) {
    std::vector<double> out;
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    bool seen_content = false;
    auto error = [&](const std::string& field, Phrase message) { return Error{path, line, field, std::move(message)}; };
    while (std::getline(in, raw)) {
      ++line;
      std::string_view s = raw;
      if (line == 1 && s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);  // a UTF-8 byte-order mark
      s = trim(s);
      if (s.empty() || s.front() == '#') continue;
      const bool first = !seen_content;
      seen_content = true;
      std::vector<std::string_view> fields;
      for (size_t start = 0;;) {
        size_t comma = s.find(',', start);
        fields.push_back(
            trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      if (fields.size() != 2)
        return error({}, Phrase("error.scenario.csv_fields").fact("got", std::to_string(fields.size())));
      long long hour = 0;
      auto [end, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), hour);
      if (ec != std::errc() || end != fields[0].data() + fields[0].size()) {
        if (first && !split_number(fields[0])) continue;  // the header
        return error("hour", Phrase("error.scenario.csv_hour_not_whole").fact("got", std::string(fields[0])));
      }
      const auto expected = static_cast<long long>(out.size());
      if (hour != expected) {
        if (out.empty())
          return error("hour", Phrase("error.scenario.csv_first_hour").fact("got", std::to_string(hour)));
        const std::string previous = std::to_string(expected - 1);
        if (hour < expected)
          return error(
              "hour",
              Phrase("error.scenario.csv_hour_again").fact("hour", std::to_string(hour)).fact("previous", previous));
        Phrase gap(hour - expected == 1 ? "error.scenario.csv_hour_missing" : "error.scenario.csv_hours_missing");
        gap.fact("hour", std::to_string(hour)).fact("previous", previous).fact("first", std::to_string(expected));
        if (hour - expected > 1) gap.fact("last", std::to_string(hour - 1));
        return error("hour", std::move(gap));
      }
      auto parts = split_number(fields[1]);
      if (!parts || !parts->second.empty())
        return error("busy_gpus", Phrase("error.scenario.csv_not_number").fact("got", std::string(fields[1])));
      if (parts->first < 0)
        return error("busy_gpus", Phrase("error.scenario.negative").fact("got", std::string(fields[1])));
      out.push_back(parts->first);
    }
    if (out.empty()) return Error{path, 0, {}, Phrase("error.scenario.csv_empty")};
    return out;
  }

 private:
  YamlReader r_;
  const catalog::Catalog& catalog_;
  fs::path dir_;
};

}  // namespace

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
