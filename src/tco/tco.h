// TCO: buy, rent monthly, rent hourly, spot and hybrid (own B GPUs, burst above B) costed from
// the hour-by-hour demand, never from an average alone; break-even points, the optimal hybrid,
// investments, a tornado and a Monte Carlo over the scenario's ranges (SPEC E, §J). Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/phrase.h"
#include "core/range.h"
#include "plan/price_age.h"
#include "tco/scenario.h"

namespace gpuplan::tco {

// One line of a strategy's cost. The id is stable ("purchase", "electricity", "on_demand", …);
// the message table words it as "tco.line.<id>".
struct CostLine {
  std::string id;
  double amount = 0;
};

struct StrategyResult {
  std::string id;  // buy | rent_monthly | rent_hourly | spot | reserved | hybrid
  double total = 0;
  double per_used_gpu_hour = 0;
  std::vector<CostLine> lines;
  std::vector<double> cumulative_by_month;  // cash spent by the end of each month
};

struct BreakEven {
  std::string against;                  // a rent strategy id
  std::optional<int> month;             // first month buy's cumulative cash is at or below it
  std::optional<double> utilization;    // share of owned GPU-hours at which both cost the same
};

struct HybridPoint {
  int owned_gpus = 0;
  double total = 0;
};

struct HybridResult {
  int owned_gpus = 0;
  double total = 0;
  std::vector<HybridPoint> curve;  // total for every B from 0 to the peak demand
};

struct InvestmentResult {
  std::string id;
  double upfront = 0;
  double cost_monthly = 0;
  double benefit_monthly = 0;
  double net = 0;                    // over the horizon
  std::optional<int> payback_month;  // nullopt: never within the horizon
  std::vector<BasisItem> basis;
};

struct TornadoBar {
  std::string input;
  double low_margin = 0;   // the decision margin with the input at -20%
  double high_margin = 0;  // and at +20%
};

struct Percentiles {
  std::string id;
  double p10 = 0, p50 = 0, p90 = 0;
};

struct Sensitivity {
  Phrase margin;  // what the tornado measures: "tco.margin.buy_minus_best_rent"
  double base_margin = 0;
  std::vector<TornadoBar> tornado;  // largest swing first
  int draws = 0;
  unsigned seed = 0;
  std::vector<Percentiles> percentiles;
  double p_buy_beats_rent = 0;
};

// A factor beside the numbers (SPEC E6): its id ("data_sovereignty", "compliance",
// "team_skills", "lock_in"; worded as "tco.factor.<id>") and what it means here.
struct FactorNote {
  std::string factor;
  Phrase note;  // "tco.factor.<id>.yes" | ".no" | ".unknown"
};

struct TcoResult {
  std::string name;
  std::string currency = "CNY";
  double horizon_months = 0;
  double used_gpu_hours = 0;
  double average_utilization = 0;  // of the owned GPUs; above 1 when demand overflows them
  int owned_gpus = 0;               // the scenario's owned GPUs
  Phrase demand_description;
  std::vector<StrategyResult> strategies;
  std::vector<BreakEven> break_even;
  std::optional<double> hourly_vs_monthly_hours;  // busy hours a month above which monthly is cheaper
  std::optional<double> continuous_job_days;      // a job running day and night is cheaper monthly past this [S0 §5]
  HybridResult hybrid;
  std::vector<InvestmentResult> investments;
  Sensitivity sensitivity;
  std::string recommendation;             // the cheapest strategy id
  std::vector<Phrase> why;                // "tco.why.*", with the figures as facts
  std::string rule_of_thumb;              // SPEC E7: "rent" | "buy" | "hybrid"
  std::vector<FactorNote> non_financial;
  std::vector<PriceBasis> prices;  // the basis of every price the strategies were costed with
  std::optional<plan::PriceAge> price_age;  // of the catalog prices among them; set by date_prices
};

TcoResult analyse(const Scenario& scenario, const catalog::Catalog& catalog);

// The catalog entries that priced `prices`: those of the prices in CNY taken from the catalog
// (an entry, a used-card band, a config's quote). Figures the user stated have no catalog date.
std::vector<const catalog::Entry*> priced_entries(const std::vector<PriceBasis>& prices);

// Dates the catalog prices the strategies were costed with on `today` (YYYY-MM-DD).
void date_prices(TcoResult& result, const std::string& today, const catalog::Catalog& catalog);

// The cheapest number of owned GPUs for the hybrid strategy, by a sort of the demand
// (exposed for the property test that compares it with brute force).
HybridResult optimal_hybrid(const Scenario& scenario);
double hybrid_total(const Scenario& scenario, int owned_gpus);  // direct hour-by-hour sum

// Monte Carlo throughput for bench/: evaluates `draws` samples and returns P(buy beats rent).
double monte_carlo_probability(const Scenario& scenario, int draws, unsigned seed);

}  // namespace gpuplan::tco
