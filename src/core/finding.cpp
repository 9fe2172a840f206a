#include "core/finding.h"

#include <algorithm>

namespace gpuplan {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarn:
      return "warn";
    case Severity::kFail:
      return "fail";
    case Severity::kPass:
      return "pass";
    case Severity::kNeedsEvidence:
      return "needs-evidence";
  }
  return "info";
}

namespace {
int weight(Severity s) {
  switch (s) {
    case Severity::kPass:
      return 0;
    case Severity::kInfo:
      return 1;
    case Severity::kNeedsEvidence:
      return 2;
    case Severity::kWarn:
      return 3;
    case Severity::kFail:
      return 4;
  }
  return 0;
}
}  // namespace

void escalate(Severity& s, Severity to) {
  if (weight(to) > weight(s)) s = to;
}

bool weighs_more(Severity a, Severity b) {
  return weight(a) > weight(b);
}

Finding& Finding::fact(std::string key, std::string value) {
  facts.push_back({std::move(key), std::move(value), std::nullopt, {}, {}});
  return *this;
}

Finding& Finding::fact(std::string key, std::string value, std::string value_zh) {
  facts.push_back({std::move(key), std::move(value), std::move(value_zh), {}, {}});
  return *this;
}

Finding& Finding::fact(std::string key, std::vector<Phrase> phrases) {
  facts.push_back({std::move(key), {}, std::nullopt, std::move(phrases), {}});
  return *this;
}

Finding& Finding::fact(Fact f) {
  facts.push_back(std::move(f));
  return *this;
}

Finding& Finding::note(Phrase p) {
  notes.push_back(std::move(p));
  return *this;
}

const std::string* Finding::find_fact(const std::string& key) const {
  const Fact* f = gpuplan::find_fact(facts, key);
  return f ? &f->value : nullptr;
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
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::kFail; });
}

}  // namespace gpuplan
