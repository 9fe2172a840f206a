// Finding: the one result type of every rule and check (quote rules, audit, acceptance,
// diagnose). A finding holds data only: its id (with a variant) names the message that titles
// and explains it (report/messages), `facts` are the figures that fired it, `notes` what else it
// saw, each a phrase, and `evidence` the lines it rests on. No sentence is built here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/phrase.h"

namespace gpuplan {

// Rules say info, warn or fail; acceptance checks say pass, warn, fail or needs-evidence (the
// input that would settle the check was not given).
enum class Severity { kInfo, kWarn, kFail, kPass, kNeedsEvidence };

const char* severity_name(Severity s);  // "info" / "warn" / "fail" / "pass" / "needs-evidence"

// Raises `s` to `to` when `to` weighs more: fail > warn > needs-evidence > info > pass. Something
// seen wrong outweighs something not seen, and any verdict outweighs the default pass.
void escalate(Severity& s, Severity to);
// Whether `a` weighs more than `b` in that order, for listing the worst findings first.
bool weighs_more(Severity a, Severity b);

struct Finding {
  std::string id;  // stable public id, e.g. "power.rack"
  Severity severity = Severity::kInfo;
  std::string variant;           // which message of the id applies, e.g. "over" / "near"; may be empty
  Facts facts;                   // the figures that fired it, in order
  std::vector<Phrase> notes;     // further things it saw, one sentence each, after the detail
  std::vector<Phrase> evidence;  // what it rests on, one line each (log lines, files, values)
  // Where its rule comes from: references listed in docs/sources.md, separated by "; " (the
  // articles' sections "S0 §3.3", "S1 §5 #6", or reference ids such as "nvidia-xid").
  std::string source;

  Finding& fact(std::string key, std::string value);
  Finding& fact(std::string key, std::string value, std::string value_zh);
  Finding& fact(std::string key, std::vector<Phrase> phrases);
  Finding& fact(Fact f);
  Finding& note(Phrase p);
  // The value of a plain fact; nullptr when there is none.
  const std::string* find_fact(const std::string& key) const;
  std::string message_key() const { return variant.empty() ? id : id + "/" + variant; }
};

Finding make_finding(std::string id, Severity severity, std::string variant, std::string source);

bool any_fail(const std::vector<Finding>& findings);

}  // namespace gpuplan
