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
#include "core/phrase.h"
#include "tco/scenario.h"
#include "tco/tco.h"
#include "telemetry/hourly.h"

namespace gpuplan::usage {

struct Options {
  double busy_threshold_pct = 0;  // 0: catalog usage.busy_threshold_pct
  std::optional<tco::Scenario> scenario;  // prices for the cost answer; nullopt: from the catalog
  std::string gpu = "a100-80gb-sxm";      // owned GPU model when the catalog prices the answer
};

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
  std::vector<Phrase> recommendation_why;  // the cost answer's "tco.why.*", then "usage.why.*"
  telemetry::ReadStats stats;
};

UsageResult analyse(const telemetry::HourlyData& data, const Options& options, const catalog::Catalog& catalog);

// Writes the demand profile as `hour,busy_gpus` CSV, which `gpuplan tco` reads.
std::string demand_csv(const UsageResult& r);

}  // namespace gpuplan::usage
