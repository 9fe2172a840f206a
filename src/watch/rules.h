// Prometheus alerting rules for the series watch exports, built from the catalog: thresholds
// (catalog/threshold.yaml) and the fail-class Xid codes (catalog/xid.yaml). A caller may rely
// on: the alert names below are stable; summaries and descriptions are phrases (the caller words
// them, so --lang picks the language); rules_yaml() writes one group "gpuplan" that
// `promtool check rules` accepts.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/phrase.h"

namespace gpuplan::watch {

struct AlertRule {
  std::string name;  // GpuplanEccUncorrected, GpuplanEccCorrectedRising, GpuplanGpuTooHot,
                     // GpuplanPcieLinkBelowMax, GpuplanXidFailClass, GpuplanGpuLost
  std::string expr;
  int for_minutes = 0;
  std::string severity;  // "critical" or "warning"
  Phrase summary, description;
};

std::vector<AlertRule> alert_rules(const catalog::Catalog& cat);

// The rules file, each phrase worded by `words` (prometheus templates such as
// {{ $labels.gpu }} pass through as facts).
std::string rules_yaml(const std::vector<AlertRule>& rules, const std::function<std::string(const Phrase&)>& words);

}  // namespace gpuplan::watch
