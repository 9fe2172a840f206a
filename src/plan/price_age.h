// How old a report's prices are: the oldest date among the catalog entries that priced it,
// counted in whole months to the day the report is made, against the catalog's limit
// (threshold prices.max_age_months). Every priced report (quote, recommend, audit, tco, usage)
// states it; past the limit the quote and the audit also give the warning prices.age.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"

namespace gpuplan::plan {

struct PriceAge {
  std::string today;  // YYYY-MM-DD the age is counted to
  std::string as_of;  // the oldest price date, as the catalog writes it ("2024-06")
  std::string kind;   // the entry that carries it
  std::string id;
  int64_t months = 0;  // whole months from as_of (its first day) to today; 0 for a later as_of
  int64_t max_months = 0;
  int entries = 0;  // distinct entries that priced the report
  bool stale() const { return months > max_months; }
};

// The age of the prices of `priced` (nulls and repeats ignored) on `today` (YYYY-MM-DD, already
// checked); nullopt when nothing was priced from the catalog. Of entries equally old, the first.
std::optional<PriceAge> price_age(const std::vector<const catalog::Entry*>& priced, const std::string& today,
                                  const catalog::Catalog& catalog);

// prices.age (warn): the prices are older than the limit. nullopt when they are not.
std::optional<Finding> stale_prices(const std::optional<PriceAge>& age);

}  // namespace gpuplan::plan
