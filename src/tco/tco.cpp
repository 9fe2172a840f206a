#include "tco/tco.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>

#include "core/money.h"
#include "tco/rule_of_thumb.h"

namespace gpuplan::tco {
namespace {

// The model's uncertain inputs. Each has a Range in the scenario; the deterministic answer
// takes midpoints, the tornado moves one at a time, Monte Carlo draws them all.
enum Input {
  kPurchase,
  kResidual,
  kPowerKw,
  kElectricity,
  kPue,
  kRack,
  kStaff,
  kLicences,
  kSupport,
  kOnDemand,
  kMonthly,
  kSpot,
  kSpotOverhead,
  kReserved,
  kEgressPrice,
  kIngressPrice,
  kStoragePrice,
  kExitWeekCost,
  kInputCount
};

constexpr std::array<const char*, kInputCount> kInputNames = {"owned.price",
                                                              "owned.residual",
                                                              "owned.power_kw",
                                                              "owned.electricity_per_kwh",
                                                              "owned.pue",
                                                              "owned.rack_monthly",
                                                              "owned.staff_monthly",
                                                              "owned.licences_yearly",
                                                              "owned.support_yearly",
                                                              "rent.on_demand_gpu_hour",
                                                              "rent.monthly_gpu",
                                                              "rent.spot_gpu_hour",
                                                              "rent.spot_overhead",
                                                              "rent.reserved_gpu_hour",
                                                              "transfer.egress_price_gb",
                                                              "transfer.ingress_price_gb",
                                                              "transfer.storage_price_gb_month",
                                                              "exit.engineer_week_cost"};

using Values = std::array<double, kInputCount>;

struct Inputs {
  std::array<Range, kInputCount> range{};
  std::array<bool, kInputCount> present{};
  bool book_value_residual = false;  // residual follows the purchase (straight line), not an input

  Values mid() const {
    Values v{};
    for (int i = 0; i < kInputCount; ++i) v[i] = range[i].mid();
    return v;
  }
};

Inputs inputs_of(const Scenario& s) {
  Inputs in;
  auto set = [&](Input i, const Range& r) {
    in.range[i] = r;
    in.present[i] = true;
  };
  const OwnedCosts& o = s.owned;
  set(kPurchase, o.purchase);
  if (o.residual)
    set(kResidual, *o.residual);
  else
    in.book_value_residual = true;
  set(kPowerKw, o.power_kw);
  set(kElectricity, o.electricity_kwh);
  set(kPue, o.pue);
  set(kRack, o.rack_monthly);
  set(kStaff, o.staff_monthly);
  set(kLicences, o.licences_yearly);
  set(kSupport, o.support_yearly);
  if (s.rent.on_demand_gpu_hour) set(kOnDemand, *s.rent.on_demand_gpu_hour);
  if (s.rent.monthly_gpu) set(kMonthly, *s.rent.monthly_gpu);
  if (s.rent.spot_gpu_hour) set(kSpot, *s.rent.spot_gpu_hour);
  set(kSpotOverhead, s.rent.spot_overhead);
  if (s.rent.reserved_gpu_hour) set(kReserved, *s.rent.reserved_gpu_hour);
  set(kEgressPrice, s.transfer.price_out_gb);
  set(kIngressPrice, s.transfer.price_in_gb);
  set(kStoragePrice, s.transfer.storage_gb_month);
  if (s.exit.engineer_weeks > 0) set(kExitWeekCost, s.exit.engineer_week_cost);
  return in;
}

// What the costs need to know about demand in a stretch of hours; sums of stretches add up,
// so one month and the whole horizon are costed by the same formulas.
struct DemandStats {
  double hours = 0;
  double gpu_hours = 0;        // Σ demand
  double owned_busy = 0;       // Σ min(demand, owned GPUs)
  double overflow = 0;         // Σ max(0, demand - owned GPUs)
  double peak_gpu_months = 0;  // Σ over months of ceil(peak) × month length / 730
  double hybrid_busy = 0;      // Σ min(demand, B)
  double hybrid_burst = 0;     // Σ max(0, demand - B)

  DemandStats& operator+=(const DemandStats& o) {
    hours += o.hours;
    gpu_hours += o.gpu_hours;
    owned_busy += o.owned_busy;
    overflow += o.overflow;
    peak_gpu_months += o.peak_gpu_months;
    hybrid_busy += o.hybrid_busy;
    hybrid_burst += o.hybrid_burst;
    return *this;
  }
};

DemandStats stats_of(const std::vector<double>& demand, size_t begin, size_t end, double owned, double hybrid_b,
                     int rent_unit) {
  DemandStats s;
  double peak = 0;
  for (size_t h = begin; h < end; ++h) {
    const double d = demand[h];
    s.gpu_hours += d;
    s.owned_busy += std::min(d, owned);
    s.overflow += std::max(0.0, d - owned);
    s.hybrid_busy += std::min(d, hybrid_b);
    s.hybrid_burst += std::max(0.0, d - hybrid_b);
    peak = std::max(peak, d);
  }
  s.hours = static_cast<double>(end - begin);
  // Monthly rent is held in whole servers for whole months: the peak rounded up to the server's
  // GPUs, for every month begun (a one-week job pays the month, not a quarter of it).
  const double unit = std::max(1, rent_unit);
  const double months = std::ceil(s.hours / kHoursPerMonth - 1e-9);
  s.peak_gpu_months = std::ceil(std::ceil(peak - 1e-9) / unit) * unit * months;
  return s;
}

std::vector<DemandStats> monthly_stats(const Scenario& sc, double hybrid_b) {
  std::vector<DemandStats> months;
  const size_t n = sc.demand.size();
  for (size_t begin = 0; begin < n; begin += static_cast<size_t>(kHoursPerMonth))
    months.push_back(stats_of(sc.demand, begin, std::min(n, begin + static_cast<size_t>(kHoursPerMonth)), sc.owned.gpus,
                              hybrid_b, sc.rent.monthly_unit_gpus));
  return months;
}

DemandStats sum(const std::vector<DemandStats>& parts) {
  DemandStats total;
  for (const auto& p : parts) total += p;
  return total;
}

enum Strategy { kBuy, kRentMonthly, kRentHourly, kSpotStrategy, kReservedStrategy, kHybrid, kStrategyCount };
constexpr std::array<const char*, kStrategyCount> kStrategyIds = {"buy",  "rent_monthly", "rent_hourly",
                                                                  "spot", "reserved",     "hybrid"};

bool strategy_available(Strategy st, const Inputs& in, const Scenario& sc) {
  switch (st) {
    case kBuy:
      return sc.owned.gpus > 0;
    case kRentMonthly:
      return in.present[kMonthly];
    case kRentHourly:
      return in.present[kOnDemand];
    case kSpotStrategy:
      return in.present[kSpot];
    case kReservedStrategy:
      return in.present[kReserved];
    case kHybrid:
      return sc.owned.gpus > 0 && in.present[kOnDemand];
    case kStrategyCount:
      break;
  }
  return false;
}

// One strategy's cost in a stretch of hours, split in named lines. One-off items (purchase,
// residual) are not here: `one_off` adds them.
struct Costs {
  std::array<std::vector<CostLine>, kStrategyCount> lines;
};

void add(std::vector<CostLine>& lines, const std::string& id, double amount) {
  if (amount == 0) return;
  for (auto& l : lines)
    if (l.id == id) {
      l.amount += amount;
      return;
    }
  lines.push_back({id, amount});
}

struct Model {
  const Scenario& sc;
  Values v;
  double hybrid_b;
  double residual;

  Model(const Scenario& scenario, const Values& values, double b, bool book_value)
      : sc(scenario), v(values), hybrid_b(b) {
    const double life = std::max(1.0, scenario.owned.life_months);
    residual = book_value ? v[kPurchase] * std::max(0.0, 1 - scenario.horizon_months() / life) : v[kResidual];
  }

  double owned_share(double gpus) const { return sc.owned.gpus > 0 ? gpus / sc.owned.gpus : 0; }

  // Energy of `gpus` owned GPUs that are busy `busy` GPU-hours out of `hours`.
  double energy(double gpus, double busy, double hours) const {
    if (sc.owned.gpus <= 0) return 0;
    const double kw_per_gpu = v[kPowerKw] / sc.owned.gpus;
    const double idle = sc.owned.idle_fraction;
    const double kwh = kw_per_gpu * (idle * gpus * hours + (1 - idle) * busy);
    return kwh * v[kPue] * v[kElectricity];
  }

  void running_owned(std::vector<CostLine>& lines, double gpus, double busy, double hours) const {
    const double share = owned_share(gpus);
    const double months = hours / kHoursPerMonth;
    add(lines, "electricity", energy(gpus, busy, hours));
    add(lines, "rack", v[kRack] * months * share);
    add(lines, "staff", v[kStaff] * months * share);
    add(lines, "licences", v[kLicences] * hours / kHoursPerYear * share);
    add(lines, "support", v[kSupport] * hours / kHoursPerYear * share);
  }

  void cloud_extras(std::vector<CostLine>& lines, double hours, double cloud_share) const {
    const double months = hours / kHoursPerMonth;
    const Transfer& t = sc.transfer;
    add(lines, "egress", t.gb_out_per_month * v[kEgressPrice] * months * cloud_share);
    add(lines, "ingress", t.gb_in_per_month * v[kIngressPrice] * months * cloud_share);
    add(lines, "storage", t.storage_gb * v[kStoragePrice] * months * cloud_share);
  }

  Costs running(const DemandStats& s) const {
    Costs c;
    // Buy: the owned fleet, with demand above it sent to on-demand.
    running_owned(c.lines[kBuy], sc.owned.gpus, s.owned_busy, s.hours);
    add(c.lines[kBuy], "overflow", s.overflow * v[kOnDemand]);
    const double all_cloud = s.gpu_hours > 0 ? 1 : 0;
    add(c.lines[kRentMonthly], "monthly_rent", s.peak_gpu_months * v[kMonthly]);
    cloud_extras(c.lines[kRentMonthly], s.hours, all_cloud);
    add(c.lines[kRentHourly], "on_demand", s.gpu_hours * v[kOnDemand]);
    cloud_extras(c.lines[kRentHourly], s.hours, all_cloud);
    add(c.lines[kSpotStrategy], "spot", s.gpu_hours * (1 + v[kSpotOverhead]) * v[kSpot]);
    cloud_extras(c.lines[kSpotStrategy], s.hours, all_cloud);
    // Reserved: committed for the peak of the whole horizon (set by `reserved_peak`).
    add(c.lines[kReservedStrategy], "reserved", reserved_peak * s.hours * v[kReserved]);
    cloud_extras(c.lines[kReservedStrategy], s.hours, all_cloud);
    // Hybrid: own B GPUs, burst the rest to on-demand; transfer follows the cloud's share.
    running_owned(c.lines[kHybrid], hybrid_b, s.hybrid_busy, s.hours);
    add(c.lines[kHybrid], "burst", s.hybrid_burst * v[kOnDemand]);
    cloud_extras(c.lines[kHybrid], s.hours, s.gpu_hours > 0 ? s.hybrid_burst / s.gpu_hours : 0);
    return c;
  }

  // Moving the data set into the cloud once, out of it once, and the engineering work of leaving
  // its services [S1 §4]. Counted in full by every strategy that runs any hour in the cloud: a
  // burst job needs the whole data set there, not a share of it, and leaving costs the same work
  // however few hours were rented. A strategy that never uses the cloud pays none of it.
  void cloud_one_offs(std::vector<CostLine>& lines, bool uses_cloud) const {
    if (!uses_cloud) return;
    const Transfer& t = sc.transfer;
    add(lines, "one_off_in", t.gb_one_off_in * v[kIngressPrice]);
    add(lines, "one_off_out", t.gb_one_off_out * v[kEgressPrice]);
    add(lines, "exit", sc.exit.engineer_weeks * v[kExitWeekCost]);
  }

  void one_off(Costs& c, const DemandStats& all) const {
    add(c.lines[kBuy], "purchase", v[kPurchase]);
    add(c.lines[kBuy], "residual", -residual);
    cloud_one_offs(c.lines[kBuy], all.overflow > 0);
    const double share = owned_share(hybrid_b);
    add(c.lines[kHybrid], "purchase_share", v[kPurchase] * share);
    add(c.lines[kHybrid], "residual_share", -residual * share);
    cloud_one_offs(c.lines[kHybrid], all.hybrid_burst > 0);
    for (Strategy st : {kRentMonthly, kRentHourly, kSpotStrategy, kReservedStrategy})
      cloud_one_offs(c.lines[st], all.gpu_hours > 0);
  }

  double reserved_peak = 0;
};

double total_of(const std::vector<CostLine>& lines) {
  double t = 0;
  for (const auto& l : lines) t += l.amount;
  return t;
}

// Totals of every strategy for one set of input values, from the horizon's demand stats.
std::array<double, kStrategyCount> totals(const Scenario& sc, const Values& v, bool book_value, double b, double peak,
                                          const DemandStats& s) {
  Model m(sc, v, b, book_value);
  m.reserved_peak = peak;
  Costs c = m.running(s);
  m.one_off(c, s);
  std::array<double, kStrategyCount> t{};
  for (int i = 0; i < kStrategyCount; ++i) t[i] = total_of(c.lines[i]);
  return t;
}

double peak_of(const std::vector<double>& demand) {
  double p = 0;
  for (double d : demand) p = std::max(p, d);
  return std::ceil(p - 1e-9);
}

const std::array<Strategy, 4> kRentStrategies = {kRentMonthly, kRentHourly, kSpotStrategy, kReservedStrategy};

double best_rent(const std::array<double, kStrategyCount>& t, const Inputs& in, const Scenario& sc) {
  double best = INFINITY;
  for (Strategy st : kRentStrategies)
    if (strategy_available(st, in, sc)) best = std::min(best, t[st]);
  return best;
}

struct MonteCarlo {
  std::array<std::vector<double>, kStrategyCount> samples;
  int buy_wins = 0;
};

// Draws every input uniformly in its range; totals come from the horizon's stats, so a draw
// costs a few multiplications, not a pass over the hours.
MonteCarlo monte_carlo(const Scenario& sc, const Inputs& in, double b, double peak, const DemandStats& stats, int draws,
                       unsigned seed, bool keep_samples) {
  MonteCarlo mc;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Values v = in.mid();
  for (int d = 0; d < draws; ++d) {
    for (int i = 0; i < kInputCount; ++i)
      if (in.range[i].high > in.range[i].low) v[i] = in.range[i].low + unit(rng) * (in.range[i].high - in.range[i].low);
    auto t = totals(sc, v, in.book_value_residual, b, peak, stats);
    mc.buy_wins += t[kBuy] < best_rent(t, in, sc);
    if (keep_samples)
      for (int st = 0; st < kStrategyCount; ++st) mc.samples[st].push_back(t[st]);
  }
  return mc;
}

std::string money(double v) {
  return format_money(v, "CNY");
}
std::string pct(double f) {
  return format_number(f * 100, 1) + "%";
}

}  // namespace

double hybrid_total(const Scenario& sc, int owned_gpus) {
  const Inputs in = inputs_of(sc);
  DemandStats s = stats_of(sc.demand, 0, sc.demand.size(), sc.owned.gpus, owned_gpus, sc.rent.monthly_unit_gpus);
  return totals(sc, in.mid(), in.book_value_residual, owned_gpus, peak_of(sc.demand), s)[kHybrid];
}

HybridResult optimal_hybrid(const Scenario& sc) {
  const Inputs in = inputs_of(sc);
  const Values v = in.mid();
  // Σ min(d, B) for every B from one sort and prefix sums; the rest of the stats do not depend on B.
  std::vector<double> sorted = sc.demand;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> prefix(sorted.size() + 1, 0);
  for (size_t i = 0; i < sorted.size(); ++i) prefix[i + 1] = prefix[i] + sorted[i];
  DemandStats base = stats_of(sc.demand, 0, sc.demand.size(), sc.owned.gpus, 0, sc.rent.monthly_unit_gpus);
  const double peak = peak_of(sc.demand);
  HybridResult r;
  // Whole purchasable units only (8 on an HGX board), up to the first multiple at or above the peak.
  const int unit = std::max(1, sc.owned.unit_gpus);
  // Never more than the purchase: the owned share is priced as a share of it.
  const int top = std::min(static_cast<int>(std::ceil(peak / unit - 1e-9)) * unit, std::max(unit, sc.owned.gpus));
  for (int b = 0; b <= top; b += unit) {
    size_t below = std::upper_bound(sorted.begin(), sorted.end(), static_cast<double>(b)) - sorted.begin();
    DemandStats s = base;
    s.hybrid_busy = prefix[below] + static_cast<double>(b) * (sorted.size() - below);
    s.hybrid_burst = base.gpu_hours - s.hybrid_busy;
    double t = totals(sc, v, in.book_value_residual, b, peak, s)[kHybrid];
    r.curve.push_back({b, t});
    if (b == 0 || t < r.total - 1e-9) {
      r.total = t;
      r.owned_gpus = b;
    }
  }
  return r;
}

double monte_carlo_probability(const Scenario& sc, int draws, unsigned seed) {
  const Inputs in = inputs_of(sc);
  const HybridResult hybrid = optimal_hybrid(sc);
  const DemandStats s =
      stats_of(sc.demand, 0, sc.demand.size(), sc.owned.gpus, hybrid.owned_gpus, sc.rent.monthly_unit_gpus);
  MonteCarlo mc = monte_carlo(sc, in, hybrid.owned_gpus, peak_of(sc.demand), s, draws, seed, false);
  return draws > 0 ? static_cast<double>(mc.buy_wins) / draws : 0;
}

namespace {

// The steps of analyse, in the order it takes them.

double line_amount(const std::vector<CostLine>& lines, const std::string& id) {
  for (const auto& l : lines)
    if (l.id == id) return l.amount;
  return 0;
}

// Each strategy: lines over the horizon, and cash by month for the chart and the break-even.
std::vector<StrategyResult> strategy_results(const Scenario& sc, const Inputs& in, const Values& v, double b,
                                             double peak, const std::vector<DemandStats>& months,
                                             const DemandStats& all) {
  std::vector<StrategyResult> out;
  Model model(sc, v, b, in.book_value_residual);
  model.reserved_peak = peak;
  Costs whole = model.running(all);
  model.one_off(whole, all);
  for (int st = 0; st < kStrategyCount; ++st) {
    if (!strategy_available(static_cast<Strategy>(st), in, sc)) continue;
    StrategyResult sr;
    sr.id = kStrategyIds[st];
    sr.lines = whole.lines[st];
    sr.total = total_of(sr.lines);
    sr.per_used_gpu_hour = all.gpu_hours > 0 ? sr.total / all.gpu_hours : 0;
    double cash = st == kBuy ? v[kPurchase] : st == kHybrid ? v[kPurchase] * model.owned_share(b) : 0;
    cash += line_amount(sr.lines, "one_off_in");  // the data moves in before the first job
    for (size_t m = 0; m < months.size(); ++m) {
      cash += total_of(model.running(months[m]).lines[st]);
      if (m + 1 == months.size()) {  // the residual comes back at the end; leaving is paid then
        if (st == kBuy) cash -= model.residual;
        if (st == kHybrid) cash -= model.residual * model.owned_share(b);
        cash += line_amount(sr.lines, "one_off_out") + line_amount(sr.lines, "exit");
      }
      sr.cumulative_by_month.push_back(cash);
    }
    out.push_back(sr);
  }
  return out;
}

const StrategyResult* find_strategy(const std::vector<StrategyResult>& strategies, const std::string& id) {
  for (const auto& s : strategies)
    if (s.id == id) return &s;
  return nullptr;
}

// Break-even of buying against each way of renting.
std::vector<BreakEven> break_evens(const Scenario& sc, const Inputs& in, const Values& v,
                                   const std::vector<StrategyResult>& strategies, const StrategyResult& buy,
                                   double hours) {
  std::vector<BreakEven> out;
  const double n = sc.owned.gpus;
  for (const char* rent_id : {"rent_monthly", "rent_hourly", "spot", "reserved"}) {
    const StrategyResult* rent = find_strategy(strategies, rent_id);
    if (!rent) continue;
    BreakEven be;
    be.against = rent_id;
    for (size_t m = 0; m < buy.cumulative_by_month.size(); ++m)
      if (buy.cumulative_by_month[m] <= rent->cumulative_by_month[m] + 1e-9) {
        be.month = static_cast<int>(m + 1);
        break;
      }
    // Constant demand u × N: buy(u) = fixed + energy slope × u; hourly rent(u) = u × N × H × price + extras.
    const bool hourly = std::string(rent_id) == "rent_hourly" || std::string(rent_id) == "spot";
    if (hourly && n > 0 && hours > 0) {
      const double price = std::string(rent_id) == "spot" ? v[kSpot] * (1 + v[kSpotOverhead]) : v[kOnDemand];
      Model at(sc, v, 0, in.book_value_residual);
      DemandStats idle{hours, 0, 0, 0, 0, 0, 0};
      Costs c0 = at.running(idle);
      at.one_off(c0, idle);
      const double buy_fixed = total_of(c0.lines[kBuy]);
      const double energy_slope = at.energy(n, n * hours, hours) - at.energy(n, 0, hours);
      std::vector<CostLine> extras;
      at.cloud_extras(extras, hours, 1);
      at.cloud_one_offs(extras, true);
      const double denominator = n * hours * price - energy_slope;
      if (denominator > 0) {
        const double u = (buy_fixed - total_of(extras)) / denominator;
        if (u >= 0 && u <= 1) be.utilization = u;
      }
    }
    out.push_back(be);
  }
  return out;
}

// Investments: net over the horizon and the month they pay back.
std::vector<InvestmentResult> investment_results(const Scenario& sc) {
  std::vector<InvestmentResult> out;
  const double horizon_months = sc.horizon_months();
  for (const Investment& inv : sc.investments) {
    InvestmentResult ir;
    ir.id = inv.id;
    ir.upfront = inv.upfront.mid();
    ir.cost_monthly = inv.cost_monthly.mid();
    ir.benefit_monthly = inv.benefit_monthly.mid();
    ir.basis = inv.basis;
    const double gain = ir.benefit_monthly - ir.cost_monthly;
    ir.net = gain * horizon_months - ir.upfront;
    if (gain > 0) {
      const int month = std::max(1, static_cast<int>(std::ceil(ir.upfront / gain - 1e-9)));
      if (month <= std::ceil(horizon_months - 1e-9)) ir.payback_month = month;
    }
    out.push_back(ir);
  }
  return out;
}

// Sensitivity: the decision margin is buy minus the best way of renting. Only asked when buying
// can be compared with at least one way of renting.
Sensitivity sensitivity_of(const Scenario& sc, const catalog::Catalog& cat, const Inputs& in, const Values& v, double b,
                           double peak, const DemandStats& all) {
  Sensitivity out;
  auto margin = [&](const Values& values) {
    auto t = totals(sc, values, in.book_value_residual, b, peak, all);
    return t[kBuy] - best_rent(t, in, sc);
  };
  const double step = cat.threshold("tco.sensitivity_step");
  out.margin = Phrase("tco.margin.buy_minus_best_rent");
  out.base_margin = margin(v);
  for (int i = 0; i < kInputCount; ++i) {
    if (!in.present[i] || v[i] == 0) continue;
    Values lo = v, hi = v;
    lo[i] *= 1 - step;
    hi[i] *= 1 + step;
    TornadoBar bar{kInputNames[i], margin(lo), margin(hi)};
    if (std::fabs(bar.high_margin - bar.low_margin) > 1e-9) out.tornado.push_back(bar);  // moves nothing: left out
  }
  std::sort(out.tornado.begin(), out.tornado.end(), [](const TornadoBar& a, const TornadoBar& c) {
    return std::fabs(a.high_margin - a.low_margin) > std::fabs(c.high_margin - c.low_margin);
  });

  // Monte Carlo: every input uniform in its range, the hybrid at its deterministic optimum.
  out.draws = sc.mc_draws;
  out.seed = sc.mc_seed;
  MonteCarlo mc = monte_carlo(sc, in, b, peak, all, sc.mc_draws, sc.mc_seed, true);
  auto& samples = mc.samples;
  for (int st = 0; st < kStrategyCount; ++st) {
    if (!strategy_available(static_cast<Strategy>(st), in, sc) || samples[st].empty()) continue;
    auto& x = samples[st];
    auto quantile = [&](double q) {
      size_t k = static_cast<size_t>(q * (x.size() - 1));
      std::nth_element(x.begin(), x.begin() + k, x.end());
      return x[k];
    };
    out.percentiles.push_back({kStrategyIds[st], quantile(0.1), quantile(0.5), quantile(0.9)});
  }
  out.p_buy_beats_rent = sc.mc_draws > 0 ? static_cast<double>(mc.buy_wins) / sc.mc_draws : 0;
  return out;
}

// The recommendation: the cheapest strategy, with the figures that make it so. `buy` points
// into r.strategies, or is null.
void recommend(TcoResult& r, const Scenario& sc, const DemandStats& all, const StrategyResult* buy) {
  const double horizon_months = sc.horizon_months();
  const StrategyResult* best = nullptr;
  for (const auto& s : r.strategies)
    if (!best || s.total < best->total) best = &s;
  if (!best) return;
  r.recommendation = best->id;
  r.why.push_back(Phrase("tco.why.cheapest")
                      .fact("strategy", best->id)
                      .fact("total", money(best->total))
                      .fact("months", format_number(horizon_months, 1))
                      .fact("per_hour", format_money(best->per_used_gpu_hour, "CNY", 2))
                      .fact("count", std::to_string(r.strategies.size())));
  if (buy && best != buy)
    r.why.push_back(Phrase("tco.why.against_buy")
                        .fact("buy_total", money(buy->total))
                        .fact("strategy", best->id)
                        .fact("share", pct(1 - best->total / buy->total))
                        .fact("saving", money(buy->total - best->total)));
  for (const StrategyResult& s : r.strategies)
    if (&s != best && s.id != "buy" && best == buy)
      r.why.push_back(Phrase("tco.why.would_cost")
                          .fact("strategy", s.id)
                          .fact("total", money(s.total))
                          .fact("more", money(s.total - best->total)));
  if (best->id == "hybrid") r.why.push_back(Phrase("tco.why.hybrid").fact("gpus", std::to_string(r.hybrid.owned_gpus)));
  r.why.push_back(with_utilization(Phrase("tco.why.demand").fact("gpu_hours", format_number(all.gpu_hours)),
                                   r.average_utilization, sc.owned.gpus)
                      .fact("gpus", std::to_string(sc.owned.gpus)));
}

// SPEC E6: what the numbers leave out.
std::vector<FactorNote> non_financial(const Factors& f) {
  // Each factor's note is "tco.factor.<id>.yes", ".no" or ".unknown" (not stated).
  auto stated = [](const char* factor, const std::optional<bool>& x) {
    return FactorNote{factor, Phrase(std::string("tco.factor.") + factor + (x ? (*x ? ".yes" : ".no") : ".unknown"))};
  };
  return {
      stated("data_sovereignty", f.data_sensitive),
      stated("compliance", f.compliance_requires_onsite),
      stated("team_skills", f.team_runs_linux_cuda),
      stated("lock_in", f.uses_cloud_only_services),
  };
}

}  // namespace

TcoResult analyse(const Scenario& sc, const catalog::Catalog& cat) {
  TcoResult r;
  r.name = sc.name;
  r.horizon_months = sc.horizon_months();
  r.demand_description = sc.demand_description;
  const Inputs in = inputs_of(sc);
  const Values v = in.mid();
  const double peak = peak_of(sc.demand);

  r.hybrid = optimal_hybrid(sc);
  const double b = r.hybrid.owned_gpus;
  const std::vector<DemandStats> months = monthly_stats(sc, b);
  const DemandStats all = sum(months);
  r.used_gpu_hours = all.gpu_hours;
  r.owned_gpus = sc.owned.gpus;
  r.average_utilization = sc.owned.gpus > 0 && all.hours > 0 ? all.gpu_hours / (sc.owned.gpus * all.hours) : 0;

  r.strategies = strategy_results(sc, in, v, b, peak, months, all);
  const StrategyResult* buy = find_strategy(r.strategies, "buy");
  if (buy) r.break_even = break_evens(sc, in, v, r.strategies, *buy, all.hours);
  if (in.present[kMonthly] && in.present[kOnDemand] && v[kOnDemand] > 0) {
    r.hourly_vs_monthly_hours = v[kMonthly] / v[kOnDemand];
    // [S0 §5]: a job running around the clock pays a month's rent or 24 h a day by the hour, so
    // it is cheaper monthly past this many days; a month's rent above a month of hours never is.
    if (*r.hourly_vs_monthly_hours <= kHoursPerMonth) r.continuous_job_days = *r.hourly_vs_monthly_hours / 24;
  }
  r.investments = investment_results(sc);

  const bool can_compare = buy && std::any_of(kRentStrategies.begin(), kRentStrategies.end(),
                                              [&](Strategy st) { return strategy_available(st, in, sc); });
  if (can_compare) r.sensitivity = sensitivity_of(sc, cat, in, v, b, peak, all);

  recommend(r, sc, all, buy);
  for (Phrase& p : choices(sc)) r.why.push_back(std::move(p));
  RuleOfThumb rule = rule_of_thumb(cat, sc, r.average_utilization, peak, all.hours > 0 ? all.gpu_hours / all.hours : 0);
  r.rule_of_thumb = rule.verdict;
  for (Phrase& p : rule.why) r.why.push_back(std::move(p));
  r.non_financial = non_financial(sc.factors);
  r.prices = sc.prices;
  return r;
}

std::vector<const catalog::Entry*> priced_entries(const std::vector<PriceBasis>& prices) {
  std::vector<const catalog::Entry*> out;
  for (const PriceBasis& p : prices) {
    if (p.unit.rfind("cny", 0) != 0) continue;  // a power, a ratio: not a price
    if (p.from == "catalog" || p.from == "resale") out.push_back(p.entry);
    out.insert(out.end(), p.priced_by.begin(), p.priced_by.end());
  }
  return out;
}

void date_prices(TcoResult& r, const std::string& today, const catalog::Catalog& cat) {
  r.price_age = plan::price_age(priced_entries(r.prices), today, cat);
}

}  // namespace gpuplan::tco
