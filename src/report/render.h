// Renderers: a quote, a recommendation or an audit as an aligned terminal table, JSON, Markdown
// or one HTML page (the text formats through report::Document). Pure functions of a result; the
// JSON shapes are public (see README).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "plan/audit.h"
#include "plan/recommend.h"
#include "plan/quote.h"
#include "report/messages.h"

namespace gpuplan::report {

enum class Format { kTable, kJson, kMarkdown, kHtml };
// "table", "json", "md", "html"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view s);

struct Style {
  Lang lang = Lang::kEn;
  bool colour = false;
};

nlohmann::json range_json(const Range& r);
// Money in a JSON document: rounded to the fen (round_to_fen), so no money value has more than
// 2 decimals. Every money value a JSON shape carries goes through one of these; other numbers
// (utilizations, hours, watts, factors) keep their precision.
nlohmann::json money_json(double amount);
nlohmann::json money_range_json(const Range& r);
// `j` with every number that is not whole rounded to 4 decimals: figures computed in floating
// point (268,055.9999999968) are written as people read them (268,056), while shares and hours
// keep what matters. Applied to a whole document as it is written.
nlohmann::json rounded_figures(nlohmann::json j);
nlohmann::json config_json(const plan::ServerConfig& c);
// {"today","as_of","kind","id","entries","months","max_months","stale"}; null when nothing was
// priced from the catalog or the report was not dated.
nlohmann::json price_age_json(const std::optional<plan::PriceAge>& age);
nlohmann::json finding_json(const Finding& f, Lang lang);
nlohmann::json quote_json(const plan::Quote& q, Lang lang);
nlohmann::json recommendation_json(const plan::Recommendation& r, Lang lang);
nlohmann::json audit_json(const plan::AuditResult& a, Lang lang);

std::string render_quote(const plan::Quote& q, Format format, const Style& style);
std::string render_recommendation(const plan::Recommendation& r, Format format, const Style& style);
std::string render_audit(const plan::AuditResult& a, Format format, const Style& style);

}  // namespace gpuplan::report
