// The quote, the recommendation and the audit as Reports (report/document.h), and the plain look
// and findings section they share with the terminal of accept and diagnose. Private to report/:
// render.h and accept_render.h are the public doors.
//
// A caller may rely on: the terminal and Markdown writers turn these Reports into the text the
// verbs have always printed, byte for byte; HTML shows what Markdown shows, on one page.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "plan/audit.h"
#include "plan/quote.h"
#include "plan/recommend.h"
#include "report/document.h"

namespace gpuplan::report {

// An empty Report in Look::kQuote, the terminal's headings ending in the language's colon.
Report plain_report(std::string title, Lang lang);

// The English or Chinese form of a catalog text (the English one when there is no Chinese).
const std::string& in_lang(const std::string& en, const std::string& zh, Lang lang);

// "Findings" with each finding (severity tag, id, title; detail; source), or "No findings.".
// The age of a report's prices as a subtitle line, bold past the catalog's limit; nullopt when
// nothing was priced from the catalog or the report was not dated.
std::optional<Line> price_age_line(const std::optional<plan::PriceAge>& age, Lang lang);

Block findings_block(const std::vector<Finding>& findings, Lang lang);

// Title and configuration, the priced lines with totals (sources numbered in the terminal),
// peak power, hidden costs, findings.
Report quote_report(const plan::Quote& q, Lang lang);

// The recommendation with its reasons, then its quote.
std::vector<Report> recommendation_reports(const plan::Recommendation& r, Lang lang);

// Vendor and verdict, the totals (per GPU in the terminal), findings.
Report audit_report(const plan::AuditResult& a, Lang lang);

}  // namespace gpuplan::report
