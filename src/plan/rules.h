// Rules that warn about a priced configuration (SPEC A3, B1–B7): each is a function of the
// quote and the catalog that returns findings with the numbers that fired it, or nothing
// when the configuration is fine. Thresholds come from the catalog's threshold entries.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"

namespace gpuplan::plan {

struct Quote;

struct Rule {
  const char* id;  // the stable finding id, or its prefix for a family ("future."); docs/rules.md#id
  void (*check)(const Quote&, const catalog::Catalog&, std::vector<Finding>&);
};

const std::vector<Rule>& rules();

std::vector<Finding> check_rules(const Quote& quote, const catalog::Catalog& catalog);

}  // namespace gpuplan::plan
