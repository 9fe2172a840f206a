#include "core/finding.h"

#include <algorithm>

namespace gpuplan {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarn: return "warn";
    case Severity::kFail: return "fail";
  }
  return "info";
}

const std::string* Finding::find_fact(const std::string& key) const {
  for (const auto& [k, v] : facts)
    if (k == key) return &v;
  return nullptr;
}

Finding make_finding(std::string id, Severity severity, std::string variant, std::string source) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.variant = std::move(variant);
  f.source = std::move(source);
  return f;
}

bool any_fail(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == Severity::kFail; });
}

}  // namespace gpuplan
