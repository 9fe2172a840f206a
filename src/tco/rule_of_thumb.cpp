#include "tco/rule_of_thumb.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/money.h"

namespace gpuplan::tco {
namespace {

constexpr std::array<const char*, 3> kVerdicts = {"rent", "hybrid", "buy"};  // one step apart

Phrase verdict_word(int v) {
  return Phrase(std::string("usage.verdict.") + kVerdicts[v]);
}

std::string pct(double f) {
  return format_number(f * 100, 1) + "%";
}

// The verdict from the figures alone, 0..2 as kVerdicts, with the phrase that says why.
int from_numbers(const catalog::Catalog& cat, const Scenario& sc, double utilization, double peak, double mean,
                 std::vector<Phrase>& why) {
  const double short_months = cat.threshold("tco.short_horizon_months");
  if (sc.horizon_months() < short_months) {
    why.push_back(Phrase("tco.rule.short_horizon")
                      .fact("months", format_number(sc.horizon_months(), 1))
                      .fact("limit", format_number(short_months)));
    return 0;
  }
  const double rent_below = cat.threshold("tco.rent_below_utilization");
  const double buy_above = cat.threshold("tco.buy_above_utilization");
  // Bursty: the peak stands far above the mean (e.g. 8 GPUs two days a week: 8 against 2.3).
  const double ratio = mean > 0 ? peak / mean : 0;
  const bool bursty = mean > 0 && ratio >= cat.threshold("tco.bursty_peak_to_mean");
  // Compared at the displayed precision (0.1%): a sum a hair under 30% must not read "30.0% is below 30.0%".
  utilization = std::round(utilization * 1000) / 1000;
  if (utilization < rent_below) {
    why.push_back(with_utilization(Phrase("tco.rule.low"), utilization, sc.owned.gpus).fact("limit", pct(rent_below)));
    return 0;
  }
  if (utilization >= buy_above && !bursty) {
    why.push_back(with_utilization(Phrase("tco.rule.high"), utilization, sc.owned.gpus).fact("limit", pct(buy_above)));
    return 2;
  }
  why.push_back(with_utilization(Phrase(bursty ? "tco.rule.bursty" : "tco.rule.middle"), utilization, sc.owned.gpus)
                    .fact("ratio", format_number(ratio, 1)));
  return 1;
}

}  // namespace

Phrase utilization_words(double average_utilization, int owned_gpus) {
  // Compared at the displayed precision, as from_numbers does: 100.04% reads 100.0%, not overflow.
  if (std::round(average_utilization * 1000) / 1000 <= 1)
    return Phrase("tco.utilization.share").fact("pct", pct(average_utilization));
  return Phrase("tco.utilization.over_capacity")
      .fact("times", format_number(average_utilization, 1))
      .fact("gpus", std::to_string(owned_gpus));
}

Phrase with_utilization(Phrase p, double average_utilization, int owned_gpus) {
  Phrase words = utilization_words(average_utilization, owned_gpus);
  if (words.key == "tco.utilization.share") return p.fact("utilization", pct(average_utilization));
  return p.fact("utilization", {std::move(words)});
}

RuleOfThumb rule_of_thumb(const catalog::Catalog& cat, const Scenario& sc, double average_utilization, double peak,
                          double mean) {
  RuleOfThumb out;
  int v = from_numbers(cat, sc, average_utilization, peak, mean, out.why);
  const Factors& f = sc.factors;
  auto move = [&](const char* factor, int step) {
    const int to = std::clamp(v + step, 0, 2);
    if (to == v) return;
    out.why.push_back(Phrase("tco.rule.moved")
                          .fact("factor", {Phrase(std::string("tco.factor.") + factor)})
                          .fact("from", {verdict_word(v)})
                          .fact("to", {verdict_word(to)}));
    v = to;
  };
  if (f.data_sensitive.value_or(false)) move("data_sovereignty", +1);
  if (f.compliance_requires_onsite.value_or(false)) move("compliance", +1);
  if (f.uses_cloud_only_services.value_or(false)) move("lock_in", -1);
  // Owning (alone or in a hybrid) needs people who run Linux + CUDA; on-site compliance leaves no
  // choice but to find them, so there the gate only warns.
  if (f.team_runs_linux_cuda && !*f.team_runs_linux_cuda && v > 0) {
    if (f.compliance_requires_onsite.value_or(false))
      out.why.push_back(Phrase("tco.rule.skills_needed"));
    else
      move("team_skills", -v);
  }
  out.verdict = kVerdicts[v];
  return out;
}

std::vector<Phrase> choices(const Scenario& sc) {
  std::vector<Phrase> out;
  const OwnedCosts& o = sc.owned;
  if (o.resale && o.resale->past_life) {
    out.push_back(Phrase("tco.why.residual_past_life")
                      .fact("horizon", format_number(sc.horizon_months(), 1))
                      .fact("life", format_number(o.life_months, 1)));
  } else if (o.resale) {
    const Range value = o.resale->fraction * o.resale->base;
    out.push_back(Phrase(o.resale->basis == "cards" ? "tco.why.residual_cards" : "tco.why.residual_purchase")
                      .fact("low", pct(o.resale->fraction.low))
                      .fact("high", pct(o.resale->fraction.high))
                      .fact("base", format_money(o.resale->base, "CNY"))
                      .fact("value", format_money(value.mid(), "CNY")));
  } else if (!o.residual && o.gpus > 0) {
    out.push_back(Phrase("tco.why.residual_book").fact("life", format_number(o.life_months, 1)));
  }
  if (o.unit_gpus > 1)
    out.push_back(Phrase(o.unit_basis == "server" ? "tco.why.unit_server" : "tco.why.unit_platform")
                      .fact("gpus", std::to_string(o.unit_gpus)));
  return out;
}

}  // namespace gpuplan::tco
