// TCO renderers: a rent-vs-buy result as a terminal table, JSON, Markdown, or one HTML page
// with three SVG charts. Pure functions of a TcoResult. The JSON shape is public (see README);
// the HTML page and each SVG are self-contained: no scripts, no links, no external resources.
// The strategy words and the strategies table are public too: the usage report's cost section
// shows a TcoResult the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "report/document.h"
#include "report/messages.h"
#include "report/render.h"
#include "tco/tco.h"

namespace gpuplan::report {

// {"currency","horizon_months","strategies","break_even","hybrid","investments","sensitivity",
//  "recommendation","non_financial","prices","demand","name"}; money to the fen (money_json), other numbers
//  unrounded here (render_tco writes them to 4 decimals, rounded_figures), a missing value null.
// Ids stay ids; words (cost line "item", "why", notes, the margin, the demand description and
// the basis values) are in `lang`. A cost line also carries its "id"; a basis keeps its English
// labels as keys in every language.
nlohmann::json tco_json(const tco::TcoResult& r, Lang lang);

// "prices": one object per price the strategies used, {"field","value":{"low","high"},"unit",
// "from","where","catalog":{"kind","id","source","as_of"},"stated_as","gpus_per_server",
// "source","fx","basis"}; null where the basis has none, "basis" in words.

// One line for each price the strategies used: "label: value — basis", in `lang`.
std::vector<std::string> price_lines(const tco::TcoResult& r, Lang lang);

// "Rent on demand" for "rent_hourly", in `lang`; an id without words is shown as it is.
std::string strategy_name(const std::string& id, Lang lang);

// Sets `b`'s table to the strategies, in the given order: id, name, total and per used GPU-hour
// (money in r.currency), the cheapest marked "← cheapest" and strong (every one, on a tie).
// The columns are set even without strategies; heading, lines and svg are left to the caller.
void add_strategy_table(Block& b, const tco::TcoResult& r, Lang lang);

// The whole report in `format`; headings in style.lang, ANSI colour only when style.colour
// (table format only).
std::string render_tco(const tco::TcoResult& r, Format format, const Style& style);

// Each a complete <svg> element with the SVG namespace and nothing external. Text is escaped.
// Cumulative cash by month, one <polyline> per strategy (in the given order), ¥ axes, a legend.
std::string svg_cumulative_cost(const tco::TcoResult& r, Lang lang = Lang::kEn);
// Hybrid total against owned GPUs B, one <polyline>, the optimum marked (class "optimum").
std::string svg_hybrid_curve(const tco::TcoResult& r, Lang lang = Lang::kEn);
// One <rect> per tornado bar, from low_margin to high_margin, in the given (largest-first)
// order, with the base margin and the zero line (where the decision flips) drawn across.
std::string svg_tornado(const tco::TcoResult& r, Lang lang = Lang::kEn);

}  // namespace gpuplan::report
