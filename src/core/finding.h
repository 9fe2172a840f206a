// Finding: the one result type of every rule (quote rules, audit, and later accept and
// diagnose). A finding holds data only: its id names the message that titles and explains it
// (report/messages), and `facts` are the numbers that fired it, already formatted.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpuplan {

enum class Severity { kInfo, kWarn, kFail };

const char* severity_name(Severity s);  // "info" / "warn" / "fail"

struct Finding {
  std::string id;       // stable public id, e.g. "power.rack"
  Severity severity = Severity::kInfo;
  std::string variant;  // which message of the id applies, e.g. "over" / "near"; may be empty
  std::vector<std::pair<std::string, std::string>> facts;  // evidence, in order
  std::string source;   // SPEC section, article, or data sheet

  Finding& fact(std::string key, std::string value) {
    facts.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  const std::string* find_fact(const std::string& key) const;
  std::string message_key() const { return variant.empty() ? id : id + "/" + variant; }
};

Finding make_finding(std::string id, Severity severity, std::string variant, std::string source);

bool any_fail(const std::vector<Finding>& findings);

}  // namespace gpuplan
