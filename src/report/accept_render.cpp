#include "report/accept_render.h"

#include <map>

#include "report/document.h"
#include "report/plan_documents.h"
#include "report/table.h"

namespace gpuplan::report {
namespace {

using nlohmann::json;

const char* status_colour(Severity s) {
  switch (s) {
    case Severity::kPass:
      return "\x1b[32m";
    case Severity::kWarn:
      return "\x1b[33m";
    case Severity::kFail:
      return "\x1b[31m";
    case Severity::kNeedsEvidence:
    case Severity::kInfo:
      return "\x1b[36m";
  }
  return "";
}

std::map<std::string, int> status_counts(const accept::AcceptReport& r) {
  std::map<std::string, int> counts = {{"pass", 0}, {"warn", 0}, {"fail", 0}, {"needs-evidence", 0}};
  for (const auto& c : r.checks) ++counts[severity_name(c.severity)];
  return counts;
}

std::string counts_line(const accept::AcceptReport& r, Lang lang) {
  const auto counts = status_counts(r);
  return say(Phrase("accept.report.counts")
                 .fact("pass", std::to_string(counts.at("pass")))
                 .fact("warn", std::to_string(counts.at("warn")))
                 .fact("fail", std::to_string(counts.at("fail")))
                 .fact("needs", std::to_string(counts.at("needs-evidence"))),
             lang);
}

const char* verdict_colour(accept::Verdict v) {
  switch (v) {
    case accept::Verdict::kPass:
      return status_colour(Severity::kPass);
    case accept::Verdict::kIncomplete:
      return status_colour(Severity::kNeedsEvidence);
    case accept::Verdict::kFail:
      return status_colour(Severity::kFail);
  }
  return "";
}

std::string verdict_word(const accept::AcceptReport& r, Lang lang) {
  return ui(std::string("accept.verdict.") + accept::verdict_name(r.verdict), lang);
}

// The ids of the checks of severity `s`, in report order.
std::vector<std::string> ids_with(const accept::AcceptReport& r, Severity s) {
  std::vector<std::string> out;
  for (const auto& c : r.checks)
    if (c.severity == s) out.push_back(c.id);
  return out;
}

// What the verdict rests on: "7 of 15 checks passed, 8 need evidence: soak, load, …", then the
// failed, unproven and warned checks by id, each group after a semicolon.
std::string verdict_reasons(const accept::AcceptReport& r, Lang lang) {
  const std::string total = std::to_string(r.checks.size());
  const size_t passed = ids_with(r, Severity::kPass).size();
  std::string out =
      passed == r.checks.size()
          ? say(Phrase("accept.verdict.all_passed").fact("total", total), lang)
          : say(Phrase("accept.verdict.passed").fact("passed", std::to_string(passed)).fact("total", total), lang);
  const std::pair<Severity, const char*> groups[] = {{Severity::kFail, "accept.verdict.failed"},
                                                     {Severity::kNeedsEvidence, "accept.verdict.needs"},
                                                     {Severity::kWarn, "accept.verdict.warned"}};
  bool first = true;
  for (const auto& [severity, key] : groups) {
    const std::vector<std::string> ids = ids_with(r, severity);
    if (ids.empty()) continue;
    // The first group continues the sentence (a comma), the others are set off (a semicolon).
    if (lang == Lang::kZh)
      out += first ? "，" : "；";
    else
      out += first ? ", " : "; ";
    first = false;
    out += say(Phrase(key).fact("count", std::to_string(ids.size())).fact("ids", list(ids, lang)), lang);
  }
  return out;
}

std::string heading(const accept::AcceptReport& r, Lang lang, const std::string& verdict_text) {
  return say(Phrase("accept.report.heading").fact("host", r.host).fact("verdict", verdict_text), lang);
}

// The terminal keeps its own layout: the verdict and what it rests on in one line, then a line
// per check with the detail and evidence under it.
Report accept_terminal(const accept::AcceptReport& r, Lang lang) {
  auto summary = [&](const std::string& verdict_text) {
    return say(Phrase("accept.report.summary")
                   .fact("heading", heading(r, lang, verdict_text))
                   .fact("reasons", verdict_reasons(r, lang)),
               lang);
  };
  const std::string verdict_text = verdict_word(r, lang);
  Report doc = plain_report(summary(verdict_text), lang);
  doc.title_colour = summary(verdict_colour(r.verdict) + verdict_text + "\x1b[0m");
  FindingList checks;
  checks.tag_width = 0;  // as wide as the widest of the four tags
  for (Severity s : {Severity::kPass, Severity::kWarn, Severity::kFail, Severity::kNeedsEvidence})
    checks.tag_width = std::max(checks.tag_width, display_width(severity_label(s, lang)));
  checks.tag_gap = 1;
  checks.id_width = 18;
  checks.indent = 6;
  for (const auto& c : r.checks) {
    const LocalizedFinding l = localize(c, lang);
    checks.rows.push_back({c.severity, severity_label(c.severity, lang), status_colour(c.severity), c.id, l.title,
                           l.detail, evidence_lines(c, lang), citation(c, lang)});
  }
  Block list;
  list.findings = std::move(checks);
  doc.blocks.push_back(std::move(list));
  return doc;
}

Report accept_document(const accept::AcceptReport& r, Lang lang) {
  Report doc;
  doc.title = heading(r, lang, verdict_word(r, lang));
  doc.subtitle.push_back(verdict_reasons(r, lang));
  doc.subtitle.push_back(counts_line(r, lang));
  Block summary;
  summary.heading = ui("accept.report.checks", lang);
  summary.columns = {ui("accept.report.status", lang), ui("id", lang), ui("accept.report.check", lang),
                     ui("accept.report.saw", lang)};
  for (const auto& c : r.checks) {
    const LocalizedFinding l = localize(c, lang);
    summary.rows.push_back({severity_label(c.severity, lang), c.id, l.title, l.detail});
    summary.strong.push_back(c.severity == Severity::kFail);
    summary.status.push_back(c.severity);
  }
  doc.blocks.push_back(std::move(summary));
  for (const auto& c : r.checks) {
    if (c.evidence.empty()) continue;
    Block b;
    b.heading = say(Phrase("report.evidence_of").fact("id", c.id), lang);
    b.monospace = true;
    for (const auto& e : evidence_lines(c, lang)) b.lines.push_back({e});
    b.lines.push_back({"[" + citation(c, lang) + "]"});
    doc.blocks.push_back(std::move(b));
  }
  return doc;
}

std::string diagnose_heading(const std::string& host, Lang lang) {
  return say(Phrase("diagnose.report.heading").fact("host", host), lang);
}

// The terminal lists the findings under the heading; the pages add a count, a table and the evidence.
Report diagnose_terminal(const std::string& host, const std::vector<Finding>& findings, Lang lang) {
  Report doc = plain_report(diagnose_heading(host, lang), lang);
  doc.blocks.push_back(findings_block(findings, lang));
  return doc;
}

Report diagnose_document(const std::string& host, const std::vector<Finding>& findings, Lang lang) {
  Report doc;
  doc.title = diagnose_heading(host, lang);
  doc.subtitle.push_back(
      findings.empty() ? ui("no_findings", lang)
                       : say(Phrase("diagnose.report.count").fact("count", std::to_string(findings.size())), lang));
  if (findings.empty()) return doc;
  Block table;
  table.heading = ui("findings", lang);
  table.columns = {ui("severity", lang), ui("id", lang), ui("finding", lang), ui("report.detail", lang)};
  for (const auto& f : findings) {
    const LocalizedFinding l = localize(f, lang);
    table.rows.push_back({severity_label(f.severity, lang), f.id, l.title, l.detail});
    table.strong.push_back(f.severity == Severity::kFail);
    table.status.push_back(f.severity);
  }
  doc.blocks.push_back(std::move(table));
  for (const auto& f : findings) {
    Block b;
    b.heading = say(Phrase("report.evidence_of").fact("id", f.id), lang);
    b.monospace = true;
    for (const Fact& fact : f.facts) {
      const std::string label_key = "diagnose.fact." + fact.key;
      const std::string label = has_message(label_key) ? ui(label_key, lang) : fact.key;
      b.lines.push_back({label + colon(lang) + word(fact, lang)});
    }
    b.lines.push_back({"[" + citation(f, lang) + "]"});
    doc.blocks.push_back(std::move(b));
  }
  return doc;
}

}  // namespace

std::string json_text(const json& j) {
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

json accept_json(const accept::AcceptReport& r, Lang lang) {
  json checks = json::array();
  for (const auto& c : r.checks) {
    const LocalizedFinding l = localize(c, lang);
    checks.push_back({{"id", c.id},
                      {"status", severity_name(c.severity)},
                      {"title", l.title},
                      {"detail", l.detail},
                      {"evidence", evidence_lines(c, lang)},
                      {"source", citation(c, lang)}});
  }
  return {
      {"host", r.host}, {"verdict", accept::verdict_name(r.verdict)}, {"counts", status_counts(r)}, {"checks", checks}};
}

std::string render_accept(const accept::AcceptReport& r, Format format, const Style& style) {
  switch (format) {
    case Format::kJson:
      return json_text(accept_json(r, style.lang));
    case Format::kTable:
      return write_report(accept_terminal(r, style.lang), format, style);
    case Format::kMarkdown:
    case Format::kHtml:
      return write_report(accept_document(r, style.lang), format, style);
  }
  return {};
}

json diagnose_json(const std::string& host, const std::vector<Finding>& findings, Lang lang) {
  json out = json::array();
  for (const auto& f : findings) out.push_back(finding_json(f, lang));
  return {{"host", host}, {"findings", out}};
}

std::string render_diagnose(const std::string& host, const std::vector<Finding>& findings, Format format,
                            const Style& style) {
  switch (format) {
    case Format::kJson:
      return json_text(diagnose_json(host, findings, style.lang));
    case Format::kTable:
      return write_report(diagnose_terminal(host, findings, style.lang), format, style);
    case Format::kMarkdown:
    case Format::kHtml:
      return write_report(diagnose_document(host, findings, style.lang), format, style);
  }
  return {};
}

}  // namespace gpuplan::report
