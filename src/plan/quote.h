// Quote: the priced bill of materials of a resolved ServerConfig (SPEC A1–A4): purchase and
// monthly-rent ranges per line and in total, per-GPU figures, the whole-server market range
// beside the component build-up, hidden costs, peak power, and the findings of the rules
// (plan/rules.h). Pure: catalog and config in, Quote out.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "core/phrase.h"
#include "core/range.h"
#include "plan/config.h"
#include "plan/price_age.h"

namespace gpuplan::plan {

struct QuoteLine {
  std::string id;    // catalog id of the part, or a derived id ("server-rent", "install.cooling")
  Phrase item;       // what it is ("quote.line.*": the part's name with the arithmetic, if any)
  double qty = 0;
  Range buy;           // one-off, when buying
  Range rent_monthly;  // per month, when renting
  std::string source;     // catalog source and date
  std::string source_zh;  // the same in Chinese
  std::vector<const catalog::Entry*> priced_by;  // the catalog entries its prices come from
};

struct MarketRange {
  std::string id;
  int gpus = 0;  // the market class used (smallest class with at least the config's GPUs)
  Range buy;
  Range rent_monthly;
  std::string source;
  std::string source_zh;
};

struct HiddenCostLine {
  std::string id;
  std::string name;
  std::string name_zh;
  std::optional<Range> monthly;  // nullopt: not included, the user gave no figure
};

// The peak draw of one node at full load (SPEC B1, §J): the sum of its parts' data-sheet
// figures beside the platform's system-level figure, which counts what the parts leave out (PSU
// losses, fans, board): the server factor × GPU TDP, or the vendor's stated system maximum.
// The peak is the larger of the two, never the lower: an underestimate trips a breaker.
struct PowerBudget {
  double gpus_w = 0;
  double cpus_w = 0;
  double memory_w = 0;
  double disks_w = 0;
  double nics_w = 0;
  double platform_w = 0;
  double system_w = 0;           // the system-level figure; 0: none known for this platform
  std::string system_basis;      // "server_factor" | "vendor_max" (empty when system_w is 0)
  std::string system_source;     // its catalog source and date
  std::string system_source_zh;  // the same in Chinese
  double parts_w() const { return gpus_w + cpus_w + memory_w + disks_w + nics_w + platform_w; }
  double peak_w() const { return std::max(parts_w(), system_w); }
  bool system_governs() const { return system_w > parts_w(); }
};

// The one figure to budget the purchase with. The articles' bands and whole-server prices
// contradict their card prices, so neither can be the budget alone: it is the high end of the
// priced lines, raised per node to the whole-server market price where that is higher (a vendor
// sells at the market price even when the parts add up to less).
struct Budget {
  double amount = 0;
  std::string basis;  // "build_up" | "market"
};

struct Quote {
  std::string currency = "CNY";
  ServerConfig config;
  std::vector<QuoteLine> lines;
  Range total_buy;
  Range total_rent_monthly;
  Range buy_per_gpu;
  Range rent_per_gpu_month;
  Range node_hardware_buy;  // one node's hardware lines, for the market comparison
  std::optional<MarketRange> market;
  Budget budget;
  Range region_factor{1, 1};
  PowerBudget power;  // one node at full load
  std::vector<HiddenCostLine> hidden_costs;
  Range hidden_monthly;  // sum of the priced hidden costs (not in the totals)
  std::vector<Finding> findings;
  std::optional<PriceAge> price_age;  // set by date_prices
};

Quote build_quote(const ServerConfig& config, const catalog::Catalog& catalog);

// The catalog entries the quote's prices came from: its priced lines', and the market class's
// when the budget is its price.
std::vector<const catalog::Entry*> priced_entries(const Quote& quote);

// Dates the quote's prices on `today` (YYYY-MM-DD): sets price_age and adds prices.age when
// they are past the catalog's limit.
void date_prices(Quote& quote, const std::string& today, const catalog::Catalog& catalog);

// Peak draw of one node: its parts' data-sheet power and the platform's system-level figure.
PowerBudget node_power(const ServerConfig& config, const catalog::Catalog& catalog);

// The smallest catalog rack circuit that carries `load_w` within its continuous-load share
// (threshold rack.continuous_fraction), or the largest when none does (`carries` false). `rack` is
// null only when the catalog has no racks.
struct RackChoice {
  const catalog::Entry* rack = nullptr;
  bool carries = false;
};
RackChoice rack_for_load(double load_w, const catalog::Catalog& catalog);

// Adds `count` units of catalog part `part` to the share of `budget` its kind belongs to, at its
// data-sheet figure: tdp_w of a gpu or cpu, power_w of memory, a disk or a NIC, base_power_w of a
// platform. The one per-part power model, shared by node_power and the audit's contract.rack.
// Returns false, adding nothing, for a part of another kind or one without its figure.
bool add_part_power(PowerBudget& budget, const catalog::Entry& part, double count);

// Fills the system-level figure of `budget`, whose parts are already added: the vendor's stated
// maximum of `platform` (its system_max_w) where the catalog has one, otherwise threshold
// power.server_factor × the GPUs' TDP (budget.gpus_w). `platform` may be null (a vendor quote
// with no platform line): then the server factor. Leaves system_w at 0 when neither applies (no
// platform maximum and no GPU). The one system-level model, shared by node_power and the
// audit's contract.rack, so every peak (quote, rules, recommend, tco, audit) is the same figure.
void set_system_power(PowerBudget& budget, const catalog::Entry* platform, const catalog::Catalog& catalog);

// Which figure sets the peak, with its arithmetic, for a report or a finding
// ("quote.power.governs.parts" | ".server_factor" | ".vendor_max").
Phrase governing_power(const PowerBudget& budget);

// The price of `count` disks of catalog entry `disk` (capacity x per-TB price x endurance).
Range disk_price(const catalog::Entry& disk, int count);

}  // namespace gpuplan::plan
