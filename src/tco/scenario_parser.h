// ScenarioParser: the reader behind parse_scenario, one YAML scenario in, a Scenario out, its
// methods spread over the files named below by what they read. Every method throws ParseFailure
// with an Error naming file, line and field; parse_scenario catches it once. Private to src/tco;
// the format itself is documented at the top of tco/scenario.cpp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/range.h"
#include "core/yaml_reader.h"
#include "tco/scenario.h"

namespace gpuplan::tco {
namespace detail {

// Text helpers the parser's files share (tco/scenario_fields.cpp).
// The leading number of `s` and what follows it, trimmed; nullopt when `s` does not start with one.
std::optional<std::pair<double, std::string>> split_number(std::string_view s);
// 1234.5 -> "1,234.5", 6.80 -> "6.8": up to two decimals, trailing zeros dropped.
std::string number_text(double v);
std::string range_text(const Range& r);
// "h, d, weeks": unit symbols for a message, the same in every language.
std::string joined(const std::vector<std::string>& symbols);

}  // namespace detail

class ScenarioParser {
 public:
  ScenarioParser(const std::string& file, const catalog::Catalog& catalog)
      : r_(file), catalog_(catalog), dir_(std::filesystem::path(file).parent_path()) {}

  // The whole document (tco/scenario.cpp).
  Scenario parse(const std::string& text);

  // `hour,busy_gpus` rows, hours consecutive from 0; a header line and blank or # lines allowed
  // (tco/scenario_demand.cpp).
  static Result<std::vector<double>> parse_demand_csv(const std::string& text, const std::string& path);

 private:
  // Field readers (tco/scenario_fields.cpp).
  double duration_hours(const YAML::Node& n, const std::string& field) const;
  double horizon(const YAML::Node& n) const;
  double fraction(const YAML::Node& n, const std::string& field) const;
  double unit_fraction(const YAML::Node& n, const std::string& field) const;
  Range unit_fraction_range(const YAML::Node& n, const std::string& field) const;
  Range pue_range(const YAML::Node& n, const std::string& field) const;
  double pue_number(const YAML::Node& n, const std::string& field) const;
  Range optional_range(const YAML::Node& n, const std::string& field, Range fallback) const;
  std::string relative_path(const std::string& path) const;
  const catalog::Entry& catalog_entry(const YAML::Node& at, const std::string& field, const std::string& kind,
                                      const std::string& id) const;

  // What is owned, rented and moved (tco/scenario_costs.cpp); each appends the basis of the
  // prices it read to `prices`.
  OwnedCosts owned(const YAML::Node& n, std::vector<PriceBasis>& prices) const;
  void unit(const YAML::Node& n, const std::string& platform_id, int server_gpus, OwnedCosts& o) const;
  PriceBasis residual(const YAML::Node& n, const std::string& gpu_id, OwnedCosts& o) const;
  RentOffers rent(const YAML::Node& n, std::vector<PriceBasis>& prices) const;
  double gigabytes(const YAML::Node& n, const std::string& field, const YAML::Node& units, bool binary) const;
  Transfer transfer(const YAML::Node& n, std::vector<PriceBasis>& prices) const;
  ExitCosts exit(const YAML::Node& n, std::vector<PriceBasis>& prices) const;

  // The basis of one price (tco/scenario_prices.cpp): stated at `n`, or the catalog's threshold
  // or entry, or not stated at all (counted as 0).
  PriceBasis stated(const YAML::Node& n, const std::string& field, const Range& value, const std::string& unit) const;
  PriceBasis stated_or_default(const YAML::Node& n, const std::string& field, const Range& value,
                               const std::string& unit) const;
  // The threshold's id comes first, as in every catalog read (the required-thresholds test reads it).
  PriceBasis from_threshold(const std::string& id, const std::string& field, const std::string& unit) const;

  // Demand hour by hour (tco/scenario_demand.cpp).
  void demand(const YAML::Node& root, Scenario& s) const;
  void demand_file(const YAML::Node& f, const YAML::Node& root, Scenario& s) const;
  void weekly(const YAML::Node& n, Scenario& s, size_t hours) const;
  int weekday(const YAML::Node& n, const std::string& field) const;
  int hour_of_day(const YAML::Node& n, const std::string& field) const;

  // Investments, SPEC E5 (tco/scenario_investments.cpp).
  std::vector<Investment> investments(const YAML::Node& n, const OwnedCosts& owned) const;
  Range required_range(const YAML::Node& n, const std::string& key, const std::string& field) const;
  Range catalog_range(const YAML::Node& n, const std::string& key, const std::string& field, const std::string& kind,
                      const std::string& id, const std::string& entry_key, std::string& origin) const;
  double catalog_number(const YAML::Node& n, const std::string& key, const std::string& field, double fallback) const;
  Investment infiniband(const YAML::Node& n, const std::string& field) const;
  Investment liquid_cooling(const YAML::Node& n, const std::string& field, const OwnedCosts& owned) const;
  Investment premium_support(const YAML::Node& n, const std::string& field) const;
  Investment ai_enterprise(const YAML::Node& n, const std::string& field, const OwnedCosts& owned) const;

  // The rest (tco/scenario.cpp).
  Factors factors(const YAML::Node& n) const;
  void monte_carlo(const YAML::Node& n, Scenario& s) const;

  YamlReader r_;
  const catalog::Catalog& catalog_;
  std::filesystem::path dir_;
};

}  // namespace gpuplan::tco
