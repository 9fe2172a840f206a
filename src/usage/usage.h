// Usage: utilization history → hourly means per GPU → heatmaps of utilization and memory,
// utilization bins, a demand profile (GPUs held per hour, as fractions of the hour: a cloud bills
// the GPUs held, busy or not), the rule-of-thumb pattern (SPEC F) and, through the tco model,
// every strategy costed side by side on the measured profile.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/money.h"
#include "core/phrase.h"
#include "tco/scenario.h"
#include "tco/tco.h"
#include "telemetry/hourly.h"
#include "telemetry/job_demand.h"

namespace gpuplan::usage {

// How renting is priced when the catalog prices the answer: every basis side by side (on demand
// and spot at a catalog cloud offer, monthly at the articles' whole-server rent), or only by the
// hour, or only by the month.
enum class RentBasis { kAll, kHourly, kMonthly };

struct Options {
  telemetry::HeldRule held;               // what the history was read with (shown with the demand)
  std::optional<tco::Scenario> scenario;  // prices for the cost answer; nullopt: from the catalog
  std::string gpu;                        // owned GPU model; empty: the history's GPUs as a whole server holds them
  RentBasis rent = RentBasis::kAll;
  std::string rent_offer;     // catalog cloud_offer id; empty: the cheapest of `market` for the GPU's family
  std::string market = "cn";  // cloud_offer market whose offers price renting: "cn" | "global"
};

// A catalog cloud offer as listed and as priced: the figures a buyer needs to check it.
struct CloudOfferPrice {
  const catalog::Entry* entry = nullptr;  // id, name(s), source(s), as_of
  std::string family;                     // the GPU family it rents ("a100-80gb")
  std::string market;                     // the buyers' market it is sold in ("cn", "global")
  bool cheapest = false;                  // picked as the cheapest of its market (no --rent-offer)
  std::optional<double> spot_gpu_hour_cny;  // its spot price per GPU-hour, where it lists one
  double listed_hour = 0;                 // per instance-hour, in the offer's currency
  double gpu_hour_cny = 0;                // per GPU-hour in CNY
  std::optional<ExchangeRate> fx;         // the rate used when the offer is not in CNY
  const catalog::Entry* fx_entry = nullptr;  // its catalog entry (the source in both languages)
};

// The whole-server monthly rent of a catalog market class, and how it compares with the hourly
// offer: paid for whole months busy or idle, it is cheaper only above `breakeven_hours`.
struct MonthlyRent {
  const catalog::Entry* entry = nullptr;  // the market class
  int servers = 0;                        // rented to hold the owned GPUs
  Range server_month;                     // as listed, CNY per server-month
  Range gpu_month;                        // server_month / the class's GPUs
  double breakeven_hours = 0;             // busy hours a GPU-month at which it equals the hourly offer
  double busy_hours = 0;                  // measured busy hours a GPU-month, on average
};

// What renting was priced at (issue 14: usage names its rent offer). `basis` "hourly" or
// "monthly" (catalog prices; `hourly` is the offer priced, or compared with the monthly rent) or
// "scenario" (the caller's --scenario, named by its `source`).
struct RentChoice {
  std::string basis;  // "all" | "hourly" | "monthly" | "scenario"
  std::optional<CloudOfferPrice> hourly;
  std::optional<MonthlyRent> monthly;
  std::string scenario_source;  // the scenario file
};

// The cloud offer renting is priced at: `id`, or with an empty id the cheapest on-demand price a
// GPU-hour for `gpu`'s family in `market`. Errors (field --rent-offer): an unknown id (listing the
// offers for the family), an offer for another GPU family, no offer for the family in the market.
Result<CloudOfferPrice> rent_offer_for(const std::string& id, const std::string& gpu, const std::string& market,
                                       const catalog::Catalog& cat);

struct Heatmap {
  std::vector<std::string> rows;                             // "2024-05-01", or a weekday id "Mon".."Sun"
  std::vector<std::array<std::optional<double>, 24>> cells;  // mean %, nullopt: no data
};

struct Pattern {
  std::string verdict;  // rent | buy | hybrid
  std::vector<Phrase> why;  // "usage.why.*", with the figures as facts
};

// One host: the mean of its GPUs' hourly means, each hour and over the whole period.
struct HostUsage {
  std::string name;
  int gpus = 0;
  double mean_util = 0;
  std::vector<std::optional<double>> hourly;  // one per hour from first_hour; nullopt: no data
};

struct UsageResult {
  int64_t hours = 0;  // hours from the first to the last with data
  int gpus = 0;
  std::vector<std::string> gpu_names;
  std::vector<double> gpu_mean_util;      // per GPU over the whole period, %
  std::vector<HostUsage> hosts;           // GPU names are "host/gpu"
  Heatmap by_day;                         // day × hour, utilization %
  Heatmap by_weekday;                     // Mon..Sun × hour, utilization %
  Heatmap memory_by_day;                  // day × hour, memory used % of `memory_gib`
  Heatmap memory_by_weekday;
  double memory_gib = 0;  // a GPU's memory the memory heatmaps are shares of (the owned model's)
  std::vector<std::pair<std::string, double>> bins;  // "0-20" → share of GPU-hours
  std::vector<double> demand;                        // GPUs held per hour (fractions of the hour), first hour to last
  int64_t first_hour = 0;                  // hours since 1970 of demand[0]
  telemetry::HeldRule held;                // what counted as held
  double held_gpu_hours = 0;               // Σ demand
  double efficiency_pct = 0;               // mean utilization while held: Σ hourly utilization ÷ held GPU-hours
  std::string demand_source;               // "" (telemetry) | "sacct" | "kube": where the demand came from
  std::string owned_gpu;                   // the GPU model owning is priced at
  std::optional<Range> owned_price;        // buying the history's GPUs: the catalog quote, or the scenario's purchase
  bool owned_gpu_chosen = false;           // picked for the history's GPU count (no --gpu)
  Pattern pattern;
  std::optional<tco::TcoResult> costs;     // the cost-optimal answer on this profile
  std::string recommendation;              // strategy id
  int owned_gpus = 0;
  int unit_gpus = 1;                       // GPUs in one purchasable unit of the owned platform
  std::string platform;                    // the owned platform when the catalog prices it
  std::optional<RentChoice> rent;          // what renting was priced at; nullopt without costs
  std::vector<Phrase> recommendation_why;  // the cost answer's "tco.why.*", then "usage.why.*"
  telemetry::ReadStats stats;
  std::vector<const catalog::Entry*> priced_by;  // the catalog entries the costs were priced from
  std::optional<plan::PriceAge> price_age;       // of their prices; set by date_prices
};

// Dates the catalog prices the costs were priced from on `today` (YYYY-MM-DD).
void date_prices(UsageResult& result, const std::string& today, const catalog::Catalog& catalog);

UsageResult analyse(const telemetry::HourlyData& data, const Options& options, const catalog::Catalog& catalog);

// The same cost answer on demand from job accounting (Slurm sacct, kube-state-metrics GPU
// requests): GPUs held per hour, no utilization (no heatmaps, bins or pattern); the GPUs priced
// are the most held at once.
UsageResult analyse_jobs(const telemetry::JobDemand& jobs, const Options& options, const catalog::Catalog& catalog);

// The GPU model owning `gpus` GPUs is priced at when the user names none: the family's SXM
// model where the history fills whole HGX boards, else its PCIe card in a server that holds them
// (a 4-GPU history is not half of an 8-GPU board).
std::string owned_gpu_for(int gpus, const catalog::Catalog& cat);

// Writes the demand profile as `hour,busy_gpus` CSV, which `gpuplan tco` reads.
std::string demand_csv(const UsageResult& r);

}  // namespace gpuplan::usage
