// Usage renderers: a measured-usage result (heatmaps, utilization bins, per-GPU means, the
// rule-of-thumb pattern and the cost answer) as a terminal report, JSON, Markdown, or one HTML
// page with SVG heatmaps. Pure functions of a UsageResult. The JSON shape is public (see
// README); the HTML page and each SVG are self-contained: no scripts, no links, no external
// resources, every piece of text escaped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/messages.h"
#include "report/render.h"
#include "usage/usage.h"

namespace gpuplan::report {

// {"hours","gpus","heatmap":{"by_day":{"rows","cells"},"by_weekday":{"rows","cells"},"memory_by_day",
//  "memory_by_weekday","memory_gib"},"bins","pattern":{"verdict","why"},"recommendation":{"strategy",
//  "owned_gpus","unit_gpus","why"},"owned":{"gpu","gpus","platform","chosen_for_history","price"},
//  "rent_offer":{"basis","id","name","provider","region","gpu","gpus","cheapest","currency","market",
//  "per_instance_hour","per_gpu_hour_cny","spot_per_gpu_hour_cny","fx":{"from","to","rate","as_of",
//  "source"},"source","as_of","monthly_rent":{"id","name","gpus","servers","per_server_month",
//  "per_gpu_month","breakeven_hours","breakeven_days_continuous","busy_hours","source","as_of"}} (null
//  without costs; null members where the basis has none), "strategies":[{"id","total",
//  "per_used_gpu_hour"}],"skipped":[{"file","line","reason"}],"skipped_count","gpu_names",
//  "gpu_mean_util","demand":{"first_hour","source","busy_gpus","held_gpu_hours","efficiency_pct","held_rule":
//  {"util_above_pct","memory_above_mib"}}}. "busy_gpus" are the GPUs held each hour, in fractions.
// Money to the fen (money_json), other numbers unrounded here; render_usage writes them rounded to
// 4 decimals (rounded_figures). A heatmap cell without data is null; "strategies" is [] without
// costs.
// Ids stay ids (the weekday rows "Mon".."Sun", verdicts, strategies); the "why" lines and the
// skipped lines' reasons are in `lang`.
nlohmann::json usage_json(const usage::UsageResult& r, Lang lang);

// The whole report in `format`; headings in style.lang, ANSI colour only when style.colour
// (table format only). Periods longer than kFullDayRows days show the day × hour heatmap as
// weekly means in the terminal and Markdown; HTML always draws every day.
std::string render_usage(const usage::UsageResult& r, Format format, const Style& style);

inline constexpr size_t kFullDayRows = 45;

// A complete <svg> element: one <rect> per cell with data (fill from a white → blue → red ramp
// of its utilization), a grey background rect where cells have no data, hour labels 0–23,
// row labels (every k-th when rows are too thin for each), a legend of 10 ramp rects (0–10%
// … 90–100%) and one "no data" rect. So the count of "<rect" is cells with data + 12. An empty
// `title` draws none (the HTML report titles each heatmap with its section heading).
std::string svg_heatmap(const usage::Heatmap& h, const std::string& title, Lang lang = Lang::kEn);

// One line per row: the row label, then 24 one-character cells by mean utilization —
// ' ' below 20%, '░' 20–40%, '▒' 40–60%, '▓' 60–80%, '█' 80% and above, '·' no data — under an
// hour header labelled every 3 hours. With `colour` each cell with data also gets a 256-colour
// background (and matching foreground) from a 10-step ramp; without it, no escape code at all.
std::string terminal_heatmap(const usage::Heatmap& h, bool colour);

}  // namespace gpuplan::report
