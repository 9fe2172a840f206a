#include "plan/price_age.h"

#include <algorithm>

#include "core/dates.h"

namespace gpuplan::plan {

std::optional<PriceAge> price_age(const std::vector<const catalog::Entry*>& priced, const std::string& today,
                                  const catalog::Catalog& cat) {
  const std::optional<CivilTime> now = parse_catalog_date(today);
  if (!now) return std::nullopt;
  std::vector<const catalog::Entry*> seen;
  std::optional<PriceAge> age;
  for (const catalog::Entry* e : priced) {
    if (!e || std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
    seen.push_back(e);
    const std::optional<CivilTime> dated = parse_catalog_date(e->as_of);
    if (!dated) continue;  // the catalog's loader refuses such an entry
    const int64_t months = std::max<int64_t>(0, whole_months(*dated, *now));
    if (!age || months > age->months) age = PriceAge{today, e->as_of, e->kind, e->id, months};
  }
  if (!age) return std::nullopt;
  age->entries = static_cast<int>(seen.size());
  age->max_months = static_cast<int64_t>(cat.threshold("prices.max_age_months"));
  return age;
}

std::optional<Finding> stale_prices(const std::optional<PriceAge>& age) {
  if (!age || !age->stale()) return std::nullopt;
  Finding f = make_finding("prices.age", Severity::kWarn, "", "price-age");
  f.fact("as_of", age->as_of)
      .fact("kind", age->kind)
      .fact("id", age->id)
      .fact("months", std::to_string(age->months))
      .fact("max", std::to_string(age->max_months))
      .fact("today", age->today);
  return f;
}

}  // namespace gpuplan::plan
