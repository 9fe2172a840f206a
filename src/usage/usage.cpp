#include "usage/usage.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/dates.h"
#include "core/money.h"
#include "plan/config.h"
#include "plan/quote.h"

namespace gpuplan::usage {
namespace {

using telemetry::HourAcc;
using telemetry::HourlyData;

constexpr std::array<const char*, 7> kWeekdays = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

// Utilization bins, upper bounds exclusive but the last; SPEC F reads "below 20%" and "60–95%".
struct Bin {
  const char* name;
  double low, high;
};
constexpr std::array<Bin, 5> kBins = {{{"0-20", 0, 20}, {"20-40", 20, 40}, {"40-60", 40, 60}, {"60-95", 60, 95}, {"95-100", 95, 101}}};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The fleet's mean utilization in one hour: the mean of the GPUs that reported.
std::optional<double> fleet_util(const std::vector<HourAcc>& accs) {
  double sum = 0;
  int n = 0;
  for (const HourAcc& a : accs)
    if (auto u = a.mean_util()) sum += *u, ++n;
  return n ? std::optional(sum / n) : std::nullopt;
}

// Per host, each hour: the mean of its GPUs' hourly means.
std::vector<HostUsage> hosts_of(const HourlyData& data, int64_t first, int64_t hours) {
  std::vector<HostUsage> hosts;
  std::vector<size_t> host_of_gpu;
  for (const std::string& name : data.gpus) {
    const std::string host = name.substr(0, name.find('/'));
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const HostUsage& h) { return h.name == host; });
    if (it == hosts.end()) it = hosts.insert(hosts.end(), HostUsage{host, 0, 0, std::vector<std::optional<double>>(hours)});
    ++it->gpus;
    host_of_gpu.push_back(static_cast<size_t>(it - hosts.begin()));
  }
  std::vector<double> sum(hosts.size()), n(hosts.size()), total(hosts.size()), total_n(hosts.size());
  for (const auto& [hour, accs] : data.hours) {
    std::fill(sum.begin(), sum.end(), 0);
    std::fill(n.begin(), n.end(), 0);
    for (size_t g = 0; g < accs.size(); ++g)
      if (auto u = accs[g].mean_util()) sum[host_of_gpu[g]] += *u, n[host_of_gpu[g]] += 1;
    for (size_t h = 0; h < hosts.size(); ++h)
      if (n[h] > 0) {
        hosts[h].hourly[static_cast<size_t>(hour - first)] = sum[h] / n[h];
        total[h] += sum[h] / n[h];
        total_n[h] += 1;
      }
  }
  for (size_t h = 0; h < hosts.size(); ++h) hosts[h].mean_util = total_n[h] ? total[h] / total_n[h] : 0;
  return hosts;
}

std::string pct(double share) { return format_number(share * 100, 0) + "%"; }

Pattern rule_of_thumb(const UsageResult& r, const std::vector<double>& gpu_hour_utils, const catalog::Catalog& cat) {
  Pattern p;
  const double idle_below = cat.threshold("usage.idle_below_pct");
  const double idle_share = cat.threshold("usage.idle_share");
  const Range band = cat.threshold_range("usage.buy_band_pct");
  const double band_share = cat.threshold("usage.buy_share");
  const double peak_ratio = cat.threshold("usage.peak_to_mean");
  const double n = static_cast<double>(gpu_hour_utils.size());
  if (n == 0) {
    p.verdict = "rent";
    p.why.push_back(Phrase("usage.why.no_data"));
    return p;
  }
  const double idle = std::count_if(gpu_hour_utils.begin(), gpu_hour_utils.end(), [&](double u) { return u < idle_below; }) / n;
  const double in_band =
      std::count_if(gpu_hour_utils.begin(), gpu_hour_utils.end(), [&](double u) { return u >= band.low && u <= band.high; }) / n;
  // Peaks: the busiest weekday-hour against the weekly mean.
  double sum = 0, peak = 0;
  int cells = 0;
  for (const auto& row : r.by_weekday.cells)
    for (const auto& c : row)
      if (c) sum += *c, ++cells, peak = std::max(peak, *c);
  const double mean = cells ? sum / cells : 0;
  const double ratio = mean > 0 ? peak / mean : 0;

  if (idle > idle_share) {
    p.verdict = "rent";
    p.why.push_back(Phrase("usage.why.idle")
                        .fact("idle", pct(idle))
                        .fact("below", format_number(idle_below))
                        .fact("limit", pct(idle_share)));
  } else if (ratio >= peak_ratio) {
    p.verdict = "hybrid";
    p.why.push_back(Phrase("usage.why.peaks")
                        .fact("peak", format_number(peak))
                        .fact("mean", format_number(mean))
                        .fact("ratio", format_number(ratio, 1))
                        .fact("limit", format_number(peak_ratio, 1)));
  } else if (in_band >= band_share) {
    p.verdict = "buy";
    p.why.push_back(Phrase("usage.why.band")
                        .fact("share", pct(in_band))
                        .fact("low", format_number(band.low))
                        .fact("high", format_number(band.high)));
  } else {
    p.verdict = mean < idle_below ? "rent" : "hybrid";
    p.why.push_back(Phrase("usage.why.unclear")
                        .fact("idle", pct(idle))
                        .fact("share", pct(in_band))
                        .fact("low", format_number(band.low))
                        .fact("high", format_number(band.high))
                        .fact("mean", format_number(mean)));
  }
  return p;
}

// The cost answer's inputs: the tco scenario, what renting was priced at, and the owned
// platform's purchasable unit.
struct Priced {
  tco::Scenario sc;
  RentChoice rent;
  int unit_gpus = 1;
  std::string platform;
  std::vector<const catalog::Entry*> priced_by;  // catalog prices beside sc.prices (cleared: see below)
};

// The articles' whole-server monthly rent for the owned servers: the market class the quote
// uses (the smallest with at least a node's GPUs), [S0 §2.1]. Per GPU it is the class's rent
// over its GPUs; monthly rent is paid for whole months, so against the hourly offer it is the
// cheaper only above rent ÷ hourly price busy hours a GPU-month (midpoints, as tco's
// hourly_vs_monthly_hours).
std::optional<MonthlyRent> monthly_rent(const plan::Quote& q, int nodes, const UsageResult& r,
                                        const CloudOfferPrice& hourly, const catalog::Catalog& cat) {
  if (!q.market) return std::nullopt;
  MonthlyRent m;
  m.entry = cat.find("market", q.market->id);
  m.servers = nodes;
  m.server_month = q.market->rent_monthly;
  m.gpu_month = q.market->rent_monthly / q.market->gpus;
  m.breakeven_hours = hourly.gpu_hour_cny > 0 ? m.gpu_month.mid() / hourly.gpu_hour_cny : 0;
  double busy = 0;
  for (double d : r.demand) busy += d;
  // Busy hours per rented GPU-month: whole servers are rented, so their idle GPUs count too.
  const int unit = std::max(1, q.market->gpus);
  const int rented = (r.gpus + unit - 1) / unit * unit;
  const double gpu_months = rented * static_cast<double>(r.hours) / tco::kHoursPerMonth;
  m.busy_hours = gpu_months > 0 ? busy / gpu_months : 0;
  return m;
}

// The catalog prices: the GPU model's quote to own (whole purchasable units), and to rent: on
// demand and spot at the chosen cloud offer, and by the month at the market class's whole-server
// rent; RentBasis narrows renting to one basis.
Result<Priced> catalog_prices(const UsageResult& r, const Options& o, const catalog::Catalog& cat) {
  int largest_platform = 1;
  for (const catalog::Entry* p : cat.of_kind("platform"))
    largest_platform = std::max(largest_platform, static_cast<int>(p->number("max_gpus")));
  const int per_node = std::min(r.gpus, largest_platform);
  plan::ConfigInput in;
  in.config.gpu = r.owned_gpu;
  in.config.gpus = per_node;
  in.config.nodes = (r.gpus + per_node - 1) / per_node;
  auto config = plan::resolve_config(in, cat);
  if (!config) return config.error();
  plan::Quote q = plan::build_quote(*config, cat);
  auto offer = rent_offer_for(o.rent_offer, r.owned_gpu, o.market, cat);
  if (!offer) return offer.error();
  std::string yaml = fmt::format(
      "name: measured-usage\nhorizon: {} months\nowned: {{gpus: {}, gpu: {}, price: [{}, {}]}}\n"
      "rent: {{cloud_offer: {}}}\ndemand: {{utilization: 0%}}\n",
      cat.threshold("term.years") * 12, config->total_gpus(), r.owned_gpu, q.total_buy.low, q.total_buy.high,
      offer->entry->id);
  auto parsed = tco::parse_scenario(yaml, "(catalog prices)", cat);
  if (!parsed) return parsed.error();
  Priced out;
  out.sc = *parsed;
  // The lines of this made-up document mean nothing to the user: the report names these prices'
  // basis from the catalog entries themselves (report/usage_render.cpp, basis_lines).
  out.sc.prices.clear();
  out.priced_by = plan::priced_entries(q);
  if (o.rent != RentBasis::kMonthly) out.priced_by.push_back(offer->entry);  // monthly alone drops the hourly
  out.sc.owned.power_kw = Range::point(q.power.peak_w() * config->nodes / 1000);
  // HGX boards come with their GPUs mounted: the hybrid can only own whole boards.
  out.platform = config->platform;
  if (const catalog::Entry* platform = cat.find("platform", config->platform))
    out.unit_gpus = static_cast<int>(platform->opt_number("purchase_unit_gpus").value_or(1));
  out.sc.owned.unit_gpus = out.unit_gpus;
  out.rent.basis = o.rent == RentBasis::kAll ? "all" : o.rent == RentBasis::kHourly ? "hourly" : "monthly";
  out.rent.hourly = *offer;
  if (o.rent == RentBasis::kHourly) return out;
  out.rent.monthly = monthly_rent(q, config->nodes, r, *offer, cat);
  if (!out.rent.monthly || !out.rent.monthly->entry) {
    if (o.rent == RentBasis::kMonthly)
      return Error{{}, 0, "--rent", Phrase("error.usage.no_market_rent").fact("gpu", r.owned_gpu)};
    out.rent.monthly.reset();
    return out;
  }
  if (o.rent == RentBasis::kMonthly) out.sc.rent = tco::RentOffers{};
  out.priced_by.push_back(out.rent.monthly->entry);
  out.sc.rent.monthly_gpu = out.rent.monthly->gpu_month;
  out.sc.rent.monthly_unit_gpus = std::max(1, q.market->gpus);
  if (o.rent == RentBasis::kMonthly) out.sc.rent.source = out.rent.monthly->entry->source;
  return out;
}

// The cost answer on the measured profile: the tco model with the caller's prices, or the
// catalog's.
Result<Priced> scenario_for(const UsageResult& r, const Options& o, const catalog::Catalog& cat) {
  Priced p;
  if (o.scenario) {
    p.sc = *o.scenario;
    p.unit_gpus = p.sc.owned.unit_gpus;
    p.rent.basis = "scenario";
    p.rent.scenario_source = p.sc.file;
  } else {
    auto priced = catalog_prices(r, o, cat);
    if (!priced) return priced.error();
    p = std::move(*priced);
  }
  tco::Scenario& sc = p.sc;
  // The measured profile, repeated over the horizon.
  sc.demand.assign(static_cast<size_t>(sc.horizon_hours), 0);
  for (size_t h = 0; h < sc.demand.size() && !r.demand.empty(); ++h) sc.demand[h] = r.demand[h % r.demand.size()];
  sc.demand_description = Phrase("usage.demand.measured")
                              .fact("hours", std::to_string(r.hours))
                              .fact("gpus", std::to_string(r.gpus))
                              .fact("horizon", format_number(sc.horizon_hours));
  return p;
}

}  // namespace

Result<CloudOfferPrice> rent_offer_for(const std::string& id, const std::string& gpu, const std::string& market,
                                       const catalog::Catalog& cat) {
  const catalog::Entry* owned = cat.find("gpu", gpu);
  const std::string family = owned ? owned->text("family") : gpu;
  std::vector<CloudOfferPrice> offers;
  std::vector<std::string> ids;
  for (const catalog::Entry* c : cat.of_kind("cloud_offer")) {
    const catalog::Entry* g = cat.find("gpu", c->text("gpu"));
    auto rate = cat.rate_to_cny(c->text("currency"));
    if (!g || !rate || g->text("family") != family) continue;
    CloudOfferPrice p;
    p.entry = c;
    p.family = family;
    // An offer that names no market is sold where its currency is: CNY in China.
    p.market = c->has("market") ? c->text("market") : c->text("currency") == kDefaultCurrency ? "cn" : "global";
    p.listed_hour = c->number("on_demand_hour");
    p.gpu_hour_cny = rate->convert(p.listed_hour) / c->number("gpus");
    if (auto spot = c->opt_number("spot_hour")) p.spot_gpu_hour_cny = rate->convert(*spot) / c->number("gpus");
    if (c->text("currency") != kDefaultCurrency) {
      p.fx = *rate;
      for (const catalog::Entry* fx : cat.of_kind("fx"))
        if (fx->text("from") == c->text("currency")) p.fx_entry = fx;
    }
    offers.push_back(p);
    ids.push_back(c->id);
  }
  const std::string field = id.empty() ? "--market" : "--rent-offer";
  if (offers.empty()) return Error{{}, 0, field, Phrase("error.usage.no_cloud_offer").fact("gpu", gpu)};
  if (id.empty()) {
    // The first of equal prices, in catalog order, of the buyer's market.
    std::vector<CloudOfferPrice*> in_market;
    for (CloudOfferPrice& p : offers)
      if (p.market == market) in_market.push_back(&p);
    if (in_market.empty())
      return Error{
          {},
          0,
          field,
          Phrase("error.usage.no_offer_in_market").fact("gpu", gpu).fact("market", market).fact(list_of("valid", ids))};
    CloudOfferPrice* best = *std::min_element(
        in_market.begin(), in_market.end(),
        [](const CloudOfferPrice* a, const CloudOfferPrice* b) { return a->gpu_hour_cny < b->gpu_hour_cny; });
    best->cheapest = true;
    return *best;
  }
  for (const CloudOfferPrice& p : offers)
    if (p.entry->id == id) return p;
  if (const catalog::Entry* other = cat.find("cloud_offer", id))
    return Error{{}, 0, field,
                 Phrase("error.usage.rent_offer_other_gpu")
                     .fact("id", id)
                     .fact("offer_gpu", other->text("gpu"))
                     .fact("gpu", gpu)
                     .fact(list_of("valid", ids))};
  return Error{{}, 0, field,
               Phrase("error.usage.unknown_rent_offer").fact("id", id).fact("family", family).fact(list_of("valid", ids))};
}

std::string owned_gpu_for(int gpus, const catalog::Catalog& cat) {
  // The project's first GPU; its platform decides whether the history fills whole boards.
  const std::string sxm = "a100-80gb-sxm";
  plan::ConfigInput in;
  in.config.gpu = sxm;
  in.config.gpus = std::max(1, gpus);
  auto config = plan::resolve_config(in, cat);
  int unit = 1;
  if (config)
    if (const catalog::Entry* platform = cat.find("platform", config->platform))
      unit = static_cast<int>(platform->opt_number("purchase_unit_gpus").value_or(1));
  if (config && gpus % unit == 0) return sxm;
  const catalog::Entry* model = cat.find("gpu", sxm);
  for (const catalog::Entry* g : cat.of_kind("gpu"))
    if (model && g->text("family") == model->text("family") && g->text("form_factor") == "pcie") return g->id;
  return sxm;
}

namespace {

// Why the answers differ: how busy the capacity beyond the owned GPUs is. Where GPUs come only in
// whole boards, the next board's share of busy GPU-hours; monthly rent is held whole months, so
// it is not "those hours" that are rented.
Phrase beyond_owned(const UsageResult& r) {
  const bool monthly = r.rent && r.rent->basis == "monthly";
  if (r.unit_gpus > 1) {
    double busy = 0;
    for (double d : r.demand) busy += std::clamp(d - r.owned_gpus, 0.0, static_cast<double>(r.unit_gpus));
    return Phrase(monthly ? "usage.why.beyond_owned_board_monthly" : "usage.why.beyond_owned_board")
        .fact("owned", std::to_string(r.owned_gpus))
        .fact("unit", std::to_string(r.unit_gpus))
        .fact("share", pct(busy / (static_cast<double>(r.unit_gpus) * r.demand.size())));
  }
  const double beyond = std::count_if(r.demand.begin(), r.demand.end(), [&](double d) { return d > r.owned_gpus; });
  return Phrase(monthly ? "usage.why.beyond_owned_monthly" : "usage.why.beyond_owned")
      .fact("owned", std::to_string(r.owned_gpus))
      .fact("share", pct(beyond / r.demand.size()));
}

}  // namespace

namespace {

// The two heatmaps of one metric: day × hour (missing days kept as gaps) and weekday × hour.
class HeatmapBuilder {
 public:
  void add(int64_t hour, std::optional<double> value) {
    const int64_t day = floor_div(hour, 24);
    const int hod = static_cast<int>(hour - day * 24);
    if (day != current_day_) {
      while (current_day_ != INT64_MIN && current_day_ + 1 < day) {
        ++current_day_;
        by_day.rows.push_back(civil_from_days(current_day_).date());
        by_day.cells.emplace_back();
      }
      current_day_ = day;
      by_day.rows.push_back(civil_from_days(day).date());
      by_day.cells.emplace_back();
    }
    if (!value) return;
    by_day.cells.back()[hod] = *value;
    const int weekday = static_cast<int>(((day + 3) % 7 + 7) % 7);  // 1970-01-01 was a Thursday
    week_sum_[weekday][hod] += *value;
    week_n_[weekday][hod] += 1;
  }

  Heatmap by_weekday() const {
    Heatmap h;
    for (int w = 0; w < 7; ++w) {
      h.rows.push_back(kWeekdays[w]);
      h.cells.emplace_back();
      for (int hod = 0; hod < 24; ++hod)
        if (week_n_[w][hod] > 0) h.cells.back()[hod] = week_sum_[w][hod] / week_n_[w][hod];
    }
    return h;
  }

  Heatmap by_day;

 private:
  int64_t current_day_ = INT64_MIN;
  std::array<std::array<double, 24>, 7> week_sum_{}, week_n_{};
};

// The fleet's mean memory used in one hour, as % of `gib` a GPU.
std::optional<double> fleet_memory_pct(const std::vector<HourAcc>& accs, double gib) {
  double sum = 0;
  int n = 0;
  for (const HourAcc& a : accs)
    if (auto m = a.mean_mem()) sum += *m, ++n;
  if (!n || gib <= 0) return std::nullopt;
  return sum / n / (gib * 1024) * 100;
}

}  // namespace

namespace {
void price(UsageResult& r, const Options& options, const catalog::Catalog& cat);
}  // namespace

UsageResult analyse(const HourlyData& data, const Options& options, const catalog::Catalog& cat) {
  UsageResult r;
  r.stats = data.stats;
  r.gpu_names = data.gpus;
  r.gpus = static_cast<int>(data.gpus.size());
  r.held = options.held;
  r.owned_gpu_chosen = options.gpu.empty();
  r.owned_gpu = options.gpu.empty() ? owned_gpu_for(r.gpus, cat) : options.gpu;
  if (const catalog::Entry* model = cat.find("gpu", r.owned_gpu)) r.memory_gib = model->number("memory_gb");
  if (data.hours.empty()) {
    r.pattern = rule_of_thumb(r, {}, cat);
    return r;
  }
  const int64_t first = data.hours.begin()->first;
  const int64_t last = data.hours.rbegin()->first;
  r.first_hour = first;
  r.hours = last - first + 1;

  std::vector<double> util_sum(r.gpus, 0), util_n(r.gpus, 0);
  std::vector<double> gpu_hour_utils;
  r.demand.assign(static_cast<size_t>(r.hours), 0);
  HeatmapBuilder util_map, memory_map;
  double util_total = 0;  // Σ hourly mean utilization, %
  for (const auto& [hour, accs] : data.hours) {
    for (size_t g = 0; g < accs.size(); ++g) {
      if (auto u = accs[g].mean_util()) {
        util_sum[g] += *u;
        ++util_n[g];
        gpu_hour_utils.push_back(*u);
        util_total += *u;
      }
      if (auto held = accs[g].held_share()) r.demand[static_cast<size_t>(hour - first)] += *held;
    }
    util_map.add(hour, fleet_util(accs));
    memory_map.add(hour, fleet_memory_pct(accs, r.memory_gib));
  }
  for (double d : r.demand) r.held_gpu_hours += d;
  // Work done while held: 4 GPUs held every hour at 40% are 40% efficient, not idle.
  r.efficiency_pct = r.held_gpu_hours > 0 ? std::min(100.0, util_total / r.held_gpu_hours) : 0;
  for (int g = 0; g < r.gpus; ++g) r.gpu_mean_util.push_back(util_n[g] ? util_sum[g] / util_n[g] : 0);
  r.hosts = hosts_of(data, first, r.hours);
  r.by_day = std::move(util_map.by_day);
  r.by_weekday = util_map.by_weekday();
  r.memory_by_day = std::move(memory_map.by_day);
  r.memory_by_weekday = memory_map.by_weekday();
  for (const Bin& b : kBins) {
    double n = std::count_if(gpu_hour_utils.begin(), gpu_hour_utils.end(), [&](double u) { return u >= b.low && u < b.high; });
    r.bins.emplace_back(b.name, gpu_hour_utils.empty() ? 0 : n / gpu_hour_utils.size());
  }
  r.pattern = rule_of_thumb(r, gpu_hour_utils, cat);
  price(r, options, cat);
  return r;
}

UsageResult analyse_jobs(const telemetry::JobDemand& jobs, const Options& options, const catalog::Catalog& cat) {
  UsageResult r;
  r.stats = jobs.stats;
  r.gpus = jobs.peak_gpus;
  r.demand_source = jobs.format;
  r.owned_gpu_chosen = options.gpu.empty();
  r.owned_gpu = options.gpu.empty() ? owned_gpu_for(r.gpus, cat) : options.gpu;
  r.first_hour = jobs.first_hour;
  r.hours = static_cast<int64_t>(jobs.demand.size());
  r.demand = jobs.demand;
  for (double d : r.demand) r.held_gpu_hours += d;
  // Accounting says what was held, not how busy it was: no utilization, so no pattern.
  r.pattern.why.push_back(Phrase("usage.why.no_utilization").fact("source", jobs.format));
  price(r, options, cat);
  return r;
}

namespace {

void price(UsageResult& r, const Options& options, const catalog::Catalog& cat) {
  auto priced = scenario_for(r, options, cat);
  if (!priced) {
    r.recommendation_why.push_back(Phrase("usage.why.no_costs").fact("why", {priced.error().phrase()}));
    return;
  }
  const tco::Scenario& sc = priced->sc;
  r.rent = priced->rent;
  r.unit_gpus = priced->unit_gpus;
  r.platform = priced->platform;
  r.priced_by = priced->priced_by;
  if (sc.owned.gpus > 0) r.owned_price = sc.owned.purchase;
  r.costs = tco::analyse(sc, cat);
  const tco::TcoResult& c = *r.costs;
  r.recommendation = c.recommendation;
  r.owned_gpus = c.recommendation == "hybrid" ? c.hybrid.owned_gpus : c.recommendation == "buy" ? sc.owned.gpus : 0;
  // The report says the purchasable unit itself, with the boards owned: not the model's line too.
  for (const Phrase& why : c.why)
    if (why.key != "tco.why.unit_platform" && why.key != "tco.why.unit_server") r.recommendation_why.push_back(why);
  if (r.owned_gpus < r.gpus && !r.demand.empty()) r.recommendation_why.push_back(beyond_owned(r));
  if (!r.pattern.verdict.empty() && r.pattern.verdict != (r.recommendation == "hybrid" ? "hybrid"
                                                          : r.recommendation == "buy"  ? "buy"
                                                                                       : "rent"))
    r.recommendation_why.push_back(
        Phrase("usage.why.rule_differs").fact("verdict", {Phrase("usage.verdict." + r.pattern.verdict)}));
}

}  // namespace

void date_prices(UsageResult& r, const std::string& today, const catalog::Catalog& cat) {
  std::vector<const catalog::Entry*> priced = r.priced_by;
  if (r.costs) {
    const auto from_costs = tco::priced_entries(r.costs->prices);
    priced.insert(priced.end(), from_costs.begin(), from_costs.end());
  }
  r.price_age = plan::price_age(priced, today, cat);
}

std::string demand_csv(const UsageResult& r) {
  std::string out = "hour,busy_gpus\n";
  for (size_t h = 0; h < r.demand.size(); ++h) out += fmt::format("{},{}\n", h, r.demand[h]);
  return out;
}

}  // namespace gpuplan::usage
