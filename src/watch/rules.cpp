// Each rule reads the series watch/exposition writes; a figure in an expression is a catalog
// threshold, and the fail-class Xid codes come from catalog/xid.yaml, so a catalog override
// changes the alerts with the acceptance checks.
#include "watch/rules.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gpuplan::watch {
namespace {

std::string figure(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// Prometheus template text a phrase carries as a fact, shown as it is in every language.
Phrase rule_phrase(const std::string& key) {
  return Phrase(key)
      .fact("gpu", "{{ $labels.gpu }}")
      .fact("host", "{{ $labels.Hostname }}")
      .fact("value", "{{ $value }}");
}

// A YAML double-quoted scalar (JSON's string escapes are valid there).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

std::vector<int64_t> fail_xids(const catalog::Catalog& cat) {
  std::vector<int64_t> codes;
  for (const catalog::Entry* e : cat.of_kind("xid"))
    if (e->text("scope") == "gpu" && e->text("severity") == "fail")
      codes.push_back(static_cast<int64_t>(std::llround(e->number("code"))));
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  return codes;
}

}  // namespace

std::vector<AlertRule> alert_rules(const catalog::Catalog& cat) {
  const int for_m = static_cast<int>(cat.threshold("watch.alert.for_minutes"));
  const double trend_h = cat.threshold("watch.alert.ecc_trend_window_h");
  const double max_corrected = cat.threshold("accept.ecc.max_corrected");
  const double max_temp = cat.threshold("accept.soak.max_temperature_c");
  std::vector<AlertRule> rules;
  auto add = [&](std::string name, std::string expr, int for_minutes, std::string severity, const std::string& key,
                 std::vector<std::pair<std::string, std::string>> extra) {
    Phrase summary = rule_phrase("watch.rule." + key + ".summary");
    Phrase description = rule_phrase("watch.rule." + key + ".description");
    for (const auto& [k, v] : extra) {
      summary.fact(k, v);
      description.fact(k, v);
    }
    rules.push_back({std::move(name), std::move(expr), for_minutes, std::move(severity), summary, description});
  };
  add("GpuplanEccUncorrected", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0 or DCGM_FI_DEV_ECC_DBE_AGG_TOTAL > 0", 0, "critical",
      "ecc_uncorrected", {});
  add("GpuplanEccCorrectedRising",
      "increase(DCGM_FI_DEV_ECC_SBE_AGG_TOTAL[" + figure(trend_h) + "h]) > " + figure(max_corrected), 0, "warning",
      "ecc_corrected_rising", {{"hours", figure(trend_h)}, {"allowed", figure(max_corrected)}});
  add("GpuplanGpuTooHot", "DCGM_FI_DEV_GPU_TEMP > " + figure(max_temp), for_m, "warning", "too_hot",
      {{"limit", figure(max_temp)}, {"minutes", std::to_string(for_m)}});
  // An idle A100 trains its link speed down to save power: a slow link counts only under load;
  // a narrow one counts always.
  add("GpuplanPcieLinkBelowMax",
      "gpuplan_pcie_link_width < gpuplan_pcie_link_width_max or (gpuplan_pcie_link_gen < gpuplan_pcie_link_gen_max "
      "and on(Hostname, gpu) DCGM_FI_DEV_GPU_UTIL > 0)",
      for_m, "warning", "pcie_below_max", {{"minutes", std::to_string(for_m)}});
  std::string codes;
  for (int64_t c : fail_xids(cat)) codes += (codes.empty() ? "" : "|") + std::to_string(c);
  add("GpuplanXidFailClass", "gpuplan_xid_errors_total{xid=~\"" + codes + "\"} > 0", 0, "critical", "xid_fail",
      {{"codes", codes}});
  add("GpuplanGpuLost", "gpuplan_gpu_lost == 1", 0, "critical", "gpu_lost", {});
  return rules;
}

std::string rules_yaml(const std::vector<AlertRule>& rules, const std::function<std::string(const Phrase&)>& words) {
  std::string out = "groups:\n  - name: gpuplan\n    rules:\n";
  for (const AlertRule& r : rules) {
    out += "      - alert: " + r.name + "\n        expr: " + quoted(r.expr) + "\n";
    if (r.for_minutes > 0) out += "        for: " + std::to_string(r.for_minutes) + "m\n";
    out += "        labels:\n          severity: " + r.severity + "\n";
    out += "        annotations:\n          summary: " + quoted(words(r.summary)) +
           "\n          description: " + quoted(words(r.description)) + "\n";
  }
  return out;
}

}  // namespace gpuplan::watch
