// The rule of thumb beside the cost answer (SPEC E7, [S1 §4]) and the modelling choices a buyer
// should see stated (where the residual value comes from, the unit the hybrid buys in). A caller
// may rely on: the verdict is "rent" | "hybrid" | "buy"; every phrase is a "tco.rule.*" or
// "tco.why.*" message id with its figures as facts.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/phrase.h"
#include "tco/scenario.h"

namespace gpuplan::tco {

struct RuleOfThumb {
  std::string verdict;      // "rent" | "hybrid" | "buy"
  std::vector<Phrase> why;  // what set it, then each factor that moved it
};

// From the numbers first (a horizon shorter than `tco.short_horizon_months` is a short job →
// rent; long-run utilization below `tco.rent_below_utilization` → rent; at or above
// `tco.buy_above_utilization` and not bursty → buy; otherwise hybrid), then the stated factors:
// sensitive data and on-site compliance each move it one step toward buy, cloud-only services one
// step toward rent, and a team that cannot run Linux + CUDA gates owning (→ rent) unless
// compliance requires on-site hardware. `mean` is the mean busy GPUs an hour.
RuleOfThumb rule_of_thumb(const catalog::Catalog& catalog, const Scenario& scenario, double average_utilization,
                          double peak, double mean);

// The owned GPUs' average utilization in words: "62.5%" (tco.utilization.share), or, when the
// demand is more than they hold, the overflow named as such (tco.utilization.over_capacity:
// "over 100% (overflow: demand is 500.0× the 2 owned GPUs)"), never a figure such as 50,000%.
Phrase utilization_words(double average_utilization, int owned_gpus);
// Adds the fact "utilization" to `p`: "62.5%" as text, or the over-capacity phrase.
Phrase with_utilization(Phrase p, double average_utilization, int owned_gpus);

// The choices behind the figures: the residual's basis and the hybrid's purchase unit.
std::vector<Phrase> choices(const Scenario& scenario);

}  // namespace gpuplan::tco
