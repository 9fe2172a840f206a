#include "report/accept_render.h"

#include <map>

#include "report/document.h"

namespace gpuplan::report {
namespace {

using accept::Status;
using nlohmann::json;

const char* status_colour(Status s) {
  switch (s) {
    case Status::kPass: return "\x1b[32m";
    case Status::kWarn: return "\x1b[33m";
    case Status::kFail: return "\x1b[31m";
    case Status::kNeedsEvidence: return "\x1b[36m";
  }
  return "";
}

std::map<std::string, int> status_counts(const accept::AcceptReport& r) {
  std::map<std::string, int> counts = {{"pass", 0}, {"warn", 0}, {"fail", 0}, {"needs-evidence", 0}};
  for (const auto& c : r.checks) ++counts[status_name(c.status)];
  return counts;
}

std::string counts_line(const accept::AcceptReport& r) {
  const auto counts = status_counts(r);
  return std::to_string(counts.at("pass")) + " pass, " + std::to_string(counts.at("warn")) + " warn, " +
         std::to_string(counts.at("fail")) + " fail, " + std::to_string(counts.at("needs-evidence")) +
         " need evidence";
}

// The terminal keeps its own layout: one line per check, then the detail and evidence under it.
std::string accept_terminal(const accept::AcceptReport& r, const Style& style) {
  const std::string verdict = r.passed ? "PASS" : "FAIL";
  std::string out = "Acceptance of " + r.host + ": " +
                    (style.colour ? std::string(r.passed ? "\x1b[32m" : "\x1b[31m") + verdict + "\x1b[0m" : verdict) +
                    " (" + counts_line(r) + ")\n\n";
  for (const auto& c : r.checks) {
    std::string tag = status_name(c.status);
    for (char& ch : tag) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    tag.resize(14, ' ');
    if (style.colour) tag = status_colour(c.status) + tag + "\x1b[0m";
    out += "  " + tag + " " + c.id + std::string(c.id.size() < 18 ? 18 - c.id.size() : 1, ' ') + c.title + "\n";
    if (!c.detail.empty()) out += "      " + c.detail + "\n";
    for (const auto& e : c.evidence) out += "      · " + e + "\n";
    out += "      [" + c.source + "]\n";
  }
  return out;
}

Report accept_document(const accept::AcceptReport& r) {
  Report doc;
  doc.title = "Acceptance of " + r.host + ": " + (r.passed ? "pass" : "fail");
  doc.subtitle.push_back(counts_line(r));
  Block summary;
  summary.heading = "Checks";
  summary.columns = {"status", "id", "check", "what it saw"};
  for (const auto& c : r.checks) {
    summary.rows.push_back({status_name(c.status), c.id, c.title, c.detail});
    summary.strong.push_back(c.status == Status::kFail);
  }
  doc.blocks.push_back(std::move(summary));
  for (const auto& c : r.checks) {
    if (c.evidence.empty()) continue;
    Block b;
    b.heading = c.id + " — evidence";
    b.monospace = true;
    for (const auto& e : c.evidence) b.lines.push_back({e});
    b.lines.push_back({"[" + c.source + "]"});
    doc.blocks.push_back(std::move(b));
  }
  return doc;
}

Report diagnose_document(const std::string& host, const std::vector<Finding>& findings, Lang lang) {
  Report doc;
  doc.title = "Diagnosis of " + host;
  doc.subtitle.push_back(findings.empty() ? ui("no_findings", lang)
                                          : std::to_string(findings.size()) + " finding(s)");
  if (findings.empty()) return doc;
  Block table;
  table.heading = ui("findings", lang);
  table.columns = {"severity", "id", "finding", "detail"};
  for (const auto& f : findings) {
    const LocalizedFinding l = localize(f, lang);
    table.rows.push_back({severity_name(f.severity), f.id, l.title, l.detail});
    table.strong.push_back(f.severity == Severity::kFail);
  }
  doc.blocks.push_back(std::move(table));
  for (const auto& f : findings) {
    Block b;
    b.heading = f.id + " — evidence";
    b.monospace = true;
    for (const auto& [key, value] : f.facts) b.lines.push_back({key + ": " + value});
    b.lines.push_back({"[" + f.source + "]"});
    doc.blocks.push_back(std::move(b));
  }
  return doc;
}

}  // namespace

std::string json_text(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

json accept_json(const accept::AcceptReport& r) {
  json checks = json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"id", c.id},
                      {"status", status_name(c.status)},
                      {"title", c.title},
                      {"detail", c.detail},
                      {"evidence", c.evidence},
                      {"source", c.source}});
  return {{"host", r.host}, {"verdict", r.passed ? "pass" : "fail"}, {"counts", status_counts(r)}, {"checks", checks}};
}

std::string render_accept(const accept::AcceptReport& r, Format format, const Style& style) {
  switch (format) {
    case Format::kJson: return json_text(accept_json(r));
    case Format::kTable: return accept_terminal(r, style);
    case Format::kMarkdown:
    case Format::kHtml: return write_report(accept_document(r), format, style);
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
    case Format::kJson: return json_text(diagnose_json(host, findings, style.lang));
    case Format::kTable: return "Diagnosis of " + host + "\n\n" + findings_text(findings, style);
    case Format::kMarkdown:
    case Format::kHtml: return write_report(diagnose_document(host, findings, style.lang), format, style);
  }
  return {};
}

}  // namespace gpuplan::report
