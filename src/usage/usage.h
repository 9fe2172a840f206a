// Usage: utilization history → hourly means per GPU → heatmaps, utilization bins, a demand
// profile (busy GPUs per hour), the rule-of-thumb pattern (SPEC F) and, through the tco model,
// the cost-optimal strategy on the measured profile.
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

namespace gpuplan::usage {

// How renting is priced when the catalog prices the answer: by the hour at a catalog cloud offer
// (on demand), or by the month at the articles' whole-server rent (catalog market class).
enum class RentBasis { kHourly, kMonthly };

struct Options {
  double busy_threshold_pct = 0;  // 0: catalog usage.busy_threshold_pct
  std::optional<tco::Scenario> scenario;  // prices for the cost answer; nullopt: from the catalog
  std::string gpu = "a100-80gb-sxm";      // owned GPU model when the catalog prices the answer
  RentBasis rent = RentBasis::kHourly;
  std::string rent_offer;                 // catalog cloud_offer id; empty: the cheapest for the GPU's family
};

// A catalog cloud offer as listed and as priced: the figures a buyer needs to check it.
struct CloudOfferPrice {
  const catalog::Entry* entry = nullptr;  // id, name(s), source(s), as_of
  std::string family;                     // the GPU family it rents ("a100-80gb")
  bool cheapest = false;                  // picked as the cheapest (no --rent-offer)
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
  std::string basis;
  std::optional<CloudOfferPrice> hourly;
  std::optional<MonthlyRent> monthly;
  std::string scenario_source;  // the scenario file
};

// The cloud offer renting is priced at: `id`, or with an empty id the cheapest on-demand price a
// GPU-hour for `gpu`'s family. Errors (field --rent-offer): an unknown id (listing the offers for
// the family), an offer for another GPU family, no offer for the family at all.
Result<CloudOfferPrice> rent_offer_for(const std::string& id, const std::string& gpu, const catalog::Catalog& cat);

struct Heatmap {
  std::vector<std::string> rows;                             // "2024-05-01", or a weekday id "Mon".."Sun"
  std::vector<std::array<std::optional<double>, 24>> cells;  // mean utilization %, nullopt: no data
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
  Heatmap by_day;                          // day × hour
  Heatmap by_weekday;                      // Mon..Sun × hour
  std::vector<std::pair<std::string, double>> bins;  // "0-20" → share of GPU-hours
  std::vector<double> demand;              // busy GPUs per hour, first hour to last
  int64_t first_hour = 0;                  // hours since 1970 of demand[0]
  Pattern pattern;
  std::optional<tco::TcoResult> costs;     // the cost-optimal answer on this profile
  std::string recommendation;              // strategy id
  int owned_gpus = 0;
  int unit_gpus = 1;                       // GPUs in one purchasable unit of the owned platform
  std::string platform;                    // the owned platform when the catalog prices it
  std::optional<RentChoice> rent;          // what renting was priced at; nullopt without costs
  std::vector<Phrase> recommendation_why;  // the cost answer's "tco.why.*", then "usage.why.*"
  telemetry::ReadStats stats;
};

UsageResult analyse(const telemetry::HourlyData& data, const Options& options, const catalog::Catalog& catalog);

// Writes the demand profile as `hour,busy_gpus` CSV, which `gpuplan tco` reads.
std::string demand_csv(const UsageResult& r);

}  // namespace gpuplan::usage
