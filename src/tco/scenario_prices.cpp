// The basis of each price a scenario costs with: where the parser found it (tco/scenario.h,
// PriceBasis). The reports name it beside the figure, so a finance reader can trace every price.
#include <fmt/format.h>

#include "tco/scenario_parser.h"

namespace gpuplan::tco {

PriceBasis ScenarioParser::stated(const YAML::Node& n, const std::string& field, const Range& value,
                                  const std::string& unit) const {
  PriceBasis b;
  b.field = field;
  b.value = value;
  b.unit = unit;
  b.from = "scenario";
  b.where = fmt::format("{}:{}", r_.file(), r_.line_of(n));
  return b;
}

PriceBasis ScenarioParser::stated_or_default(const YAML::Node& n, const std::string& field, const Range& value,
                                             const std::string& unit) const {
  if (n) return stated(n, field, value, unit);
  PriceBasis b;
  b.field = field;
  b.value = value;
  b.unit = unit;
  b.from = "default";
  return b;
}

PriceBasis ScenarioParser::from_threshold(const std::string& id, const std::string& field,
                                          const std::string& unit) const {
  PriceBasis b;
  b.field = field;
  b.value = catalog_.threshold_range(id);
  b.unit = unit;
  b.from = "catalog";
  b.entry = &catalog_.threshold_entry(id);
  return b;
}

}  // namespace gpuplan::tco
