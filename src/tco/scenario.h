// Scenario: everything `gpuplan tco` needs to cost owning against renting over a horizon —
// what would be owned and what it costs to run, the rent offers, data transfer, the demand
// hour by hour, and the investments to judge. Money is CNY; every uncertain figure is a
// Range (the deterministic answer uses its midpoint, Monte Carlo draws uniformly in it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/money.h"
#include "core/phrase.h"
#include "core/range.h"

namespace gpuplan::tco {

inline constexpr double kHoursPerMonth = 730;  // 8,760 h / 12
inline constexpr double kHoursPerYear = 8760;

// Where the default residual value comes from: the used-card resale band (catalog
// `used.card_fraction`) applied to the new value of what resells. `basis` is "cards" (the GPUs'
// catalog price × gpus, capped at the purchase) or "purchase" (the scenario names no gpu, so only
// the total is known). The band is kept flat over the horizon: the catalog has no sourced decay.
struct Resale {
  std::string basis;  // "cards" | "purchase"
  double base = 0;    // CNY, new value the band applies to
  Range fraction;     // of `base`
  bool past_life = false;  // the horizon outlasts the service life: the band no longer applies
};

struct OwnedCosts {
  int gpus = 0;                    // GPUs owned
  int unit_gpus = 1;               // GPUs in one purchasable unit (8 for an HGX board): the hybrid owns whole units
  std::string unit_basis = "gpu";  // "gpu" | "server" (owned.unit) | "platform" (the board is only sold whole)
  Range purchase;                  // one-off, month 0
  std::optional<Range> residual;   // value at the horizon's end; nullopt: straight-line book value
  std::optional<Resale> resale;    // set when `residual` is the resale default (= base × fraction)
  double life_months = 36;         // depreciation life for the book value
  Range power_kw;                  // peak draw of the whole owned fleet
  double idle_fraction = 0.5;      // share of peak drawn when idle
  Range electricity_kwh;           // CNY per kWh
  Range pue{1, 1};
  Range rack_monthly;
  Range staff_monthly;
  Range licences_yearly;
  Range support_yearly;
};

struct RentOffers {
  std::optional<Range> on_demand_gpu_hour;  // CNY per GPU-hour
  std::optional<Range> monthly_gpu;         // CNY per GPU-month, held for whole months
  int monthly_unit_gpus = 1;                // monthly rent is held in whole servers of this many GPUs
  std::optional<Range> spot_gpu_hour;
  Range spot_overhead;                     // extra GPU-hours lost to interruptions, fraction
  std::optional<Range> reserved_gpu_hour;  // committed for the whole horizon at peak demand
  std::string source;                      // where the prices come from
};

struct Transfer {
  double gb_out_per_month = 0;  // already converted with the stated units
  double gb_in_per_month = 0;
  Range price_out_gb;
  Range price_in_gb;
  bool binary_units = false;  // TB = 1,024 GB when true
  double storage_gb = 0;      // kept in the cloud while renting
  Range storage_gb_month;
  double gb_one_off_in = 0;   // moved into the cloud once, at the start (priced at price_in_gb)
  double gb_one_off_out = 0;  // moved out of the cloud once, at the end (priced at price_out_gb)
};

// The cost of leaving a cloud's services [S1 §4]: engineer-weeks to strip cloud-only
// dependencies (the article's broker: 3 engineers × 6 weeks = 18) at a cost per engineer-week.
struct ExitCosts {
  double engineer_weeks = 0;
  Range engineer_week_cost;  // CNY
};

// One figure an investment was judged on: what it is (an id the message table labels as
// "tco.basis.<id>") and its value as a phrase ("tco.value.*": the figure, where it came from).
struct BasisItem {
  std::string id;  // "cost", "epochs_per_month", "pue", …
  Phrase value;
};

// A yes/no investment judged from the user's figures (SPEC E5). Every kind reduces to an
// upfront cost, a recurring cost and a benefit per month.
struct Investment {
  std::string id;  // "infiniband", "liquid_cooling", "premium_support", "ai_enterprise"
  Range upfront;
  Range cost_monthly;
  Range benefit_monthly;
  std::vector<BasisItem> basis;  // the figures used, for the report
};

// Facts beside the numbers (SPEC E6, E7), as the user states them.
struct Factors {
  std::optional<bool> data_sensitive;
  std::optional<bool> team_runs_linux_cuda;
  std::optional<bool> uses_cloud_only_services;
  std::optional<bool> compliance_requires_onsite;
};

// Where one figure the strategies are costed from came from, so a report can name the basis of
// every price. `field` is the model input as the tornado names it ("owned.price",
// "rent.on_demand_gpu_hour", …); `unit` says what `value` is measured in.
struct PriceBasis {
  std::string field;
  Range value;       // as costed
  std::string unit;  // cny | cny_gpu_hour | cny_gpu_month | cny_month | cny_year | cny_kwh | cny_gb |
                     // cny_gb_month | cny_engineer_week | kw | ratio | fraction
  // scenario (stated at `where`, "file:line") | book (residual: book, at `where`) | config (the
  // quote of the config at `where`) | catalog (`entry`) | gpu_tdp (`entry`'s TDP, formula in
  // `where`) | resale (the used-card band `entry` on the cards' value) | past_life | default (0)
  std::string from;
  std::string where;
  const catalog::Entry* entry = nullptr;  // catalog, gpu_tdp, resale: the catalog's entry
  std::string stated_as;                  // the key read, when it is not `field` ("rent.on_demand_server_hour")
  int gpus_per_server = 0;                // the stated (or listed) price was per server of this many GPUs
  std::string source;                     // scenario rent prices: rent.source, when stated
  std::optional<ExchangeRate> fx;         // a cloud offer listed in another currency
  std::vector<const catalog::Entry*> priced_by;  // config: the catalog entries its quote was priced from
};

struct Scenario {
  std::string name;
  std::string file;
  double horizon_hours = 0;
  OwnedCosts owned;
  RentOffers rent;
  Transfer transfer;
  ExitCosts exit;
  std::vector<double> demand;  // busy GPUs in each hour of the horizon
  Phrase demand_description;   // "tco.demand.*": where the demand came from, with its figures
  std::vector<Investment> investments;
  std::vector<PriceBasis> prices;  // the basis of every cost input above, in the tornado's order
  Factors factors;
  int mc_draws = 10000;
  unsigned mc_seed = 1;

  double horizon_months() const { return horizon_hours / kHoursPerMonth; }
};

// Parses a scenario YAML; relative paths (a quote config, a demand CSV) are taken from the
// scenario's directory. Errors name file:line:field. The catalog fills defaults (PUE,
// electricity price, idle fraction, investment figures) and prices an owned `config:`.
Result<Scenario> read_scenario(const std::string& path, const catalog::Catalog& catalog);
Result<Scenario> parse_scenario(const std::string& text, const std::string& file, const catalog::Catalog& catalog);

// Busy GPUs per hour from a CSV of `hour,busy_gpus` (header optional, hours consecutive from 0).
Result<std::vector<double>> read_demand_csv(const std::string& path);

}  // namespace gpuplan::tco
