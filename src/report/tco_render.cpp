#include "report/tco_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>

#include "core/money.h"
#include "report/document.h"
#include "report/plan_documents.h"
#include "report/table.h"
#include "tco/rule_of_thumb.h"

namespace gpuplan::report {
namespace {

using nlohmann::json;
using tco::TcoResult;

// The terminal shows the inputs that move the decision most; JSON, Markdown and HTML show all.
constexpr size_t kTornadoRowsInTerminal = 5;

// ---- Words and numbers ---------------------------------------------------------------------

// The words of an id under `prefix` ("tco.line." + "purchase"), or the id itself when the table
// has none (an id from a newer model, or a hand-made result).
std::string worded(std::string_view prefix, const std::string& id, Lang lang) {
  const std::string key = std::string(prefix) + id;
  return has_message(key) ? ui(key, lang) : id;
}

std::string cost_line_name(const std::string& id, Lang lang) {
  return worded("tco.line.", id, lang);
}

std::string basis_label(const std::string& id, Lang lang) {
  return worded("tco.basis.", id, lang);
}

// An investment's basis as JSON is keyed by the labels it had before they had words in two
// languages: public keys, the same in every language whatever the message table says.
std::string basis_json_key(const std::string& id) {
  static const std::map<std::string, std::string> keys = {
      {"cost", "cost"},
      {"epoch", "epoch"},
      {"epochs_per_month", "epochs a month"},
      {"cluster_hour_value", "cluster-hour value"},
      {"cluster_hours_saved", "cluster-hours saved a month"},
      {"installation", "installation"},
      {"it_load", "IT load"},
      {"pue", "pue"},
      {"electricity", "electricity"},
      {"cost_per_year", "cost a year"},
      {"downtime_per_year", "downtime a year"},
      {"downtime_hour_cost", "cost of an hour down"},
      {"gpus", "gpus"},
      {"cost_per_gpu_year", "cost per GPU-year"},
      {"benefit_per_month", "benefit a month"},
  };
  auto it = keys.find(id);
  return it == keys.end() ? id : it->second;
}

// Clauses in a cell: "a; b" / "a；b", without a full stop.
std::string joined_clauses(const std::vector<std::string>& items, Lang lang) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : lang == Lang::kZh ? "；" : "; ") + item;
  return out;
}

std::string whole_or_one_decimal(double v) {
  return format_number(v, v == std::floor(v) ? 0 : 1);
}

// The margin's sign is the decision, so a bar with an end on the other side of zero from the
// base margin can turn it around.
bool flips_decision(const tco::TornadoBar& bar, double base_margin) {
  return std::signbit(bar.low_margin) != std::signbit(base_margin) ||
         std::signbit(bar.high_margin) != std::signbit(base_margin);
}

std::string join_basis(const std::vector<tco::BasisItem>& basis, Lang lang) {
  std::vector<std::string> items;
  for (const auto& b : basis)
    items.push_back(
        say(Phrase("tco.report.basis_item").fact("label", basis_label(b.id, lang)).fact("value", {b.value}), lang));
  return joined_clauses(items, lang);
}

// ---- The basis of every price ----------------------------------------------------------------

// 0.8 -> "0.8", [0.7, 0.9] -> "0.7–0.9": only the decimals a figure has, up to `max_decimals`.
std::string figure_range(const Range& r, int max_decimals) {
  const std::string low = format_figure(r.low, max_decimals), high = format_figure(r.high, max_decimals);
  return low == high ? low : low + "–" + high;
}

std::string price_figure(const tco::PriceBasis& p) {
  const Range& v = p.value;
  if (p.unit == "kw" || p.unit == "ratio") return figure_range(v, 2);
  if (p.unit == "fraction") return figure_range(v * 100, 1) + "%";
  // Totals and monthly figures read in whole yuan; rates a unit keep their fen.
  const bool whole = p.unit == "cny" || p.unit == "cny_month" || p.unit == "cny_year" || p.unit == "cny_gpu_month" ||
                     p.unit == "cny_engineer_week";
  return format_money_range(v, kDefaultCurrency, whole ? 0 : 2);
}

Phrase price_origin(const tco::PriceBasis& p) {
  Phrase origin("tco.price.from." + p.from);
  origin.fact("where", p.where);
  if (p.entry) {
    origin.fact("kind", p.entry->kind).fact("id", p.entry->id).fact("as_of", p.entry->as_of);
    origin.fact("source", p.entry->source, p.entry->display_source_zh());
  }
  return origin;
}

std::string price_basis(const tco::PriceBasis& p, Lang lang) {
  std::vector<std::string> clauses = {say(price_origin(p), lang)};
  if (p.gpus_per_server > 0)
    clauses.push_back(say(
        Phrase("tco.price.per_server").fact("stated_as", p.stated_as).fact("gpus", std::to_string(p.gpus_per_server)),
        lang));
  if (p.fx)
    clauses.push_back(say(Phrase("tco.price.fx")
                              .fact("from", p.fx->from)
                              .fact("rate", format_figure(p.fx->rate, 4))
                              .fact("as_of", p.fx->as_of),
                          lang));
  if (!p.source.empty()) clauses.push_back(say(Phrase("tco.price.source").fact("source", p.source), lang));
  return joined_clauses(clauses, lang);
}

std::string price_label(const tco::PriceBasis& p, Lang lang) {
  return worded("tco.price.", p.field, lang);
}

std::string price_value(const tco::PriceBasis& p, Lang lang) {
  return say(Phrase("tco.unit." + p.unit).fact("value", price_figure(p)), lang);
}

json price_json(const tco::PriceBasis& p, Lang lang) {
  auto text_or_null = [](const std::string& t) { return t.empty() ? json(nullptr) : json(t); };
  json catalog = nullptr;
  if (p.entry)
    catalog = {{"kind", p.entry->kind},
               {"id", p.entry->id},
               {"source", lang == Lang::kZh ? p.entry->display_source_zh() : p.entry->source},
               {"as_of", p.entry->as_of}};
  json fx = nullptr;
  if (p.fx)
    fx = {
        {"from", p.fx->from}, {"to", p.fx->to}, {"rate", p.fx->rate}, {"as_of", p.fx->as_of}, {"source", p.fx->source}};
  return {{"field", p.field},
          {"value", {{"low", p.value.low}, {"high", p.value.high}}},
          {"unit", p.unit},
          {"from", p.from},
          {"where", text_or_null(p.where)},
          {"catalog", catalog},
          {"stated_as", text_or_null(p.stated_as)},
          {"gpus_per_server", p.gpus_per_server > 0 ? json(p.gpus_per_server) : json(nullptr)},
          {"source", text_or_null(p.source)},
          {"fx", fx},
          {"basis", price_basis(p, lang)}};
}

// The sections, built once as a Report (report/document.h) and written in each text format.

using A = TextTable::Align;

Block strategies_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_strategies", lang);
  add_strategy_table(b, r, lang);
  b.svg = svg_cumulative_cost(r, lang);
  return b;
}

Block recommendation_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("recommendation", lang);
  std::string head = r.recommendation.empty() ? ui("tco_none", lang)
                                              : r.recommendation + " — " + strategy_name(r.recommendation, lang);
  if (!r.rule_of_thumb.empty())
    head = ui_with("tco.report.with_rule", lang,
                   {{"head", head}, {"verdict", worded("usage.verdict.", r.rule_of_thumb, lang)}});
  b.lines.push_back({head});
  for (const auto& w : r.why) b.lines.push_back({say(w, lang), true});
  return b;
}

Block cost_lines_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_cost_lines", lang);
  b.columns = {ui("tco_strategy", lang), ui("line", lang), ui("tco_amount", lang)};
  b.align = {A::kLeft, A::kLeft, A::kRight};
  for (const auto& s : r.strategies)
    for (size_t i = 0; i < s.lines.size(); ++i)
      b.rows.push_back(
          {i == 0 ? s.id : "", cost_line_name(s.lines[i].id, lang), format_money(s.lines[i].amount, r.currency)});
  return b;
}

Block prices_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_prices", lang);
  b.columns = {ui("tco_input", lang), ui("tco_price_value", lang), ui("tco_basis", lang)};
  b.align = {A::kLeft, A::kRight, A::kLeft};
  for (const auto& p : r.prices) b.rows.push_back({price_label(p, lang), price_value(p, lang), price_basis(p, lang)});
  b.sources_column = 2;
  if (r.prices.empty()) b.lines.push_back({ui("tco_none", lang)});
  return b;
}

Block break_even_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_break_even", lang);
  b.columns = {ui("tco_against", lang), ui("tco_break_even_month", lang), ui("tco_break_even_utilization", lang)};
  b.align = {A::kLeft, A::kRight, A::kRight};
  for (const auto& e : r.break_even)
    b.rows.push_back({e.against, e.month ? std::to_string(*e.month) : ui("tco_never_in_horizon", lang),
                      e.utilization ? format_percent(*e.utilization * 100) : ui("tco_no_utilization", lang)});
  if (r.break_even.empty()) b.lines.push_back({ui("tco_none", lang)});
  return b;
}

Block hourly_vs_monthly_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_hourly_vs_monthly", lang);
  b.lines.push_back({r.hourly_vs_monthly_hours
                         ? ui_with("tco_monthly_above", lang, {{"hours", format_number(*r.hourly_vs_monthly_hours)}})
                         : ui("tco_no_boundary", lang)});
  if (r.continuous_job_days)
    b.lines.push_back({ui_with("tco_continuous_job", lang, {{"days", format_number(*r.continuous_job_days, 1)}})});
  else if (r.hourly_vs_monthly_hours)
    b.lines.push_back({ui("tco_continuous_job_never", lang)});
  return b;
}

Block hybrid_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_hybrid", lang);
  b.lines.push_back(
      {ui_with("tco_hybrid_optimum", lang,
               {{"b", std::to_string(r.hybrid.owned_gpus)}, {"total", format_money(r.hybrid.total, r.currency)}})});
  b.svg = svg_hybrid_curve(r, lang);
  return b;
}

Block investments_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_investments", lang);
  if (r.investments.empty()) {
    b.lines.push_back({ui("tco_none", lang)});
    return b;
  }
  b.columns = {ui("tco_investment", lang),   ui("tco_upfront", lang),
               ui("tco_cost_monthly", lang), ui("tco_benefit_monthly", lang),
               ui("tco_net", lang),          ui("tco_payback", lang),
               ui("tco_basis", lang)};
  b.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft};
  for (const auto& i : r.investments)
    b.rows.push_back({i.id, format_money(i.upfront, r.currency), format_money(i.cost_monthly, r.currency),
                      format_money(i.benefit_monthly, r.currency), format_money(i.net, r.currency),
                      i.payback_month ? std::to_string(*i.payback_month) : ui("tco_never", lang),
                      join_basis(i.basis, lang)});
  return b;
}

Block tornado_block(const TcoResult& r, Lang lang) {
  const auto& s = r.sensitivity;
  Block b;
  b.heading = ui("tco_tornado", lang);
  b.lines.push_back(
      {say(Phrase("tco.report.margin").fact("margin", {s.margin}).fact("base", format_money(s.base_margin, r.currency)),
           lang)});
  if (s.tornado.empty()) return b;
  b.columns = {ui("tco_input", lang), ui("tco_at_low", lang), ui("tco_at_high", lang), ui("tco_swing", lang), ""};
  b.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kLeft};
  for (const auto& bar : s.tornado) {
    b.rows.push_back({bar.input, format_money(bar.low_margin, r.currency), format_money(bar.high_margin, r.currency),
                      format_money(std::fabs(bar.high_margin - bar.low_margin), r.currency),
                      flips_decision(bar, s.base_margin) ? ui("tco_flips", lang) : ""});
  }
  b.terminal_rows = kTornadoRowsInTerminal;
  if (s.tornado.size() > kTornadoRowsInTerminal)
    b.terminal_more =
        ui_with("tco_more_inputs", lang, {{"n", std::to_string(s.tornado.size() - kTornadoRowsInTerminal)}});
  b.svg = svg_tornado(r, lang);
  return b;
}

Block monte_carlo_block(const TcoResult& r, Lang lang) {
  const auto& s = r.sensitivity;
  Block b;
  b.heading = ui("tco_monte_carlo", lang);
  if (s.draws <= 0) {
    b.lines.push_back({ui("tco_not_run", lang)});
    return b;
  }
  b.lines.push_back({ui_with("tco.report.monte_carlo", lang,
                             {{"draws", format_number(s.draws)},
                              {"seed", std::to_string(s.seed)},
                              {"p", format_percent(s.p_buy_beats_rent * 100)}})});
  b.columns = {ui("tco_strategy", lang), "P10", "P50", "P90"};
  b.align = {A::kLeft, A::kRight, A::kRight, A::kRight};
  for (const auto& p : s.percentiles)
    b.rows.push_back(
        {p.id, format_money(p.p10, r.currency), format_money(p.p50, r.currency), format_money(p.p90, r.currency)});
  return b;
}

Block non_financial_block(const TcoResult& r, Lang lang) {
  Block b;
  b.heading = ui("tco_non_financial", lang);
  if (r.non_financial.empty()) {
    b.lines.push_back({ui("tco_none", lang)});
    return b;
  }
  b.columns = {ui("tco_factor", lang), ui("tco_note", lang)};
  for (const auto& f : r.non_financial) b.rows.push_back({worded("tco.factor.", f.factor, lang), say(f.note, lang)});
  return b;
}

Report build_report(const TcoResult& r, Lang lang) {
  Report out;
  const Phrase months = Phrase("tco_months").fact("n", whole_or_one_decimal(r.horizon_months));
  out.title = r.name.empty() ? say(Phrase("tco.report.title_unnamed").fact("months", {months}), lang)
                             : say(Phrase("tco.report.title").fact("name", r.name).fact("months", {months}), lang);
  Phrase demand(r.demand_description.key.empty() ? "tco.report.demand_undescribed" : "tco.report.demand");
  if (!r.demand_description.key.empty()) demand.fact("description", {r.demand_description});
  demand.fact("used", format_number(r.used_gpu_hours));
  // Demand above the owned GPUs is named as overflow, not as a utilization over 100%.
  if (tco::utilization_words(r.average_utilization, r.owned_gpus).key == "tco.utilization.share")
    demand.fact("utilization", format_percent(r.average_utilization * 100));
  else
    demand.fact("utilization", {tco::utilization_words(r.average_utilization, r.owned_gpus)});
  out.subtitle = {say(demand, lang)};
  if (auto age = price_age_line(r.price_age, lang)) out.subtitle.push_back(*age);
  out.blocks = {strategies_block(r, lang),  recommendation_block(r, lang), cost_lines_block(r, lang),
                prices_block(r, lang),      break_even_block(r, lang),     hourly_vs_monthly_block(r, lang),
                hybrid_block(r, lang),      investments_block(r, lang),    tornado_block(r, lang),
                monte_carlo_block(r, lang), non_financial_block(r, lang)};
  return out;
}

// ---- SVG -----------------------------------------------------------------------------------

struct Axis {
  double lo = 0, hi = 1, step = 1;
  int ticks() const { return static_cast<int>(std::lround((hi - lo) / step)); }
  double tick(int i) const { return lo + i * step; }
};

// A 1-2-5 step giving about `ticks` intervals over lo..hi, the ends rounded out to a step.
Axis nice_axis(double lo, double hi, int ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (!(hi > lo)) {
    const double pad = std::max(1.0, std::fabs(lo) * 0.1);
    lo -= pad, hi += pad;
  }
  const double raw = (hi - lo) / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

// 0..hi in whole steps from `steps` (months read best in 6s and 12s, GPUs in powers of two).
Axis whole_axis(double hi, std::initializer_list<int> steps) {
  hi = std::max(1.0, hi);
  int step = *(steps.end() - 1);
  for (int s : steps)
    if (hi / s <= 10) {
      step = s;
      break;
    }
  return {0, std::ceil(hi / step) * step, static_cast<double>(step)};
}

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// Axis labels: "¥780k", "¥1.2M", "−¥50k".
std::string short_money(double v) {
  const double a = std::fabs(v);
  std::string body = a >= 1e6   ? trim_zeros(fmt::format("{:.2f}", a / 1e6)) + "M"
                     : a >= 1e3 ? trim_zeros(fmt::format("{:.1f}", a / 1e3)) + "k"
                                : fmt::format("{:.0f}", a);
  return (v < 0 && body != "0" ? "−¥" : "¥") + body;
}

struct Plot {
  double left, right, top, bottom;
  Axis x, y;
  double px(double v) const { return left + (v - x.lo) / (x.hi - x.lo) * (right - left); }
  double py(double v) const { return bottom - (v - y.lo) / (y.hi - y.lo) * (bottom - top); }
};

std::string svg_open(int width, int height, const std::string& title) {
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
             "font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>{2}</title>\n",
             width, height, html_escape(title)) +
         fmt::format("<text x=\"{}\" y=\"16\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", 10,
                     html_escape(title));
}

std::string line_at(double x1, double y1, double x2, double y2, std::string_view style) {
  return fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {}/>\n", svg_number(x1), svg_number(y1),
                     svg_number(x2), svg_number(y2), style);
}

// Grid, ticks and labels for both axes of a value-by-value plot; money on y.
std::string axes(const Plot& p, const std::string& x_title, const std::string& y_title) {
  std::string out;
  for (int i = 0; i <= p.y.ticks(); ++i) {
    const double v = p.y.tick(i), y = p.py(v);
    out += line_at(p.left, y, p.right, y, "stroke=\"#e6e6e6\"");
    out += svg_text(p.left - 8, y + 4, short_money(v), "end", "fill=\"#444\"");
  }
  for (int i = 0; i <= p.x.ticks(); ++i) {
    const double v = p.x.tick(i), x = p.px(v);
    out += line_at(x, p.bottom, x, p.bottom + 5, "stroke=\"#444\"");
    out += svg_text(x, p.bottom + 18, format_number(v), "middle", "fill=\"#444\"");
  }
  out += line_at(p.left, p.bottom, p.right, p.bottom, "stroke=\"#444\"");
  out += line_at(p.left, p.top, p.left, p.bottom, "stroke=\"#444\"");
  out += svg_text((p.left + p.right) / 2, p.bottom + 38, x_title, "middle");
  const double mid = (p.top + p.bottom) / 2;
  out += svg_text(16, mid, y_title, "middle", fmt::format("transform=\"rotate(-90 16 {})\"", svg_number(mid)));
  return out;
}

struct SeriesStyle {
  std::string_view id;
  std::string_view colour;
  std::string_view dash;  // so the lines stay apart in grey print and for colour-blind readers
};

constexpr SeriesStyle kStrategyStyles[] = {
    {"buy", "#1f77b4", ""},     {"rent_monthly", "#ff7f0e", "8 4"}, {"rent_hourly", "#2ca02c", ""},
    {"spot", "#d62728", "3 3"}, {"reserved", "#9467bd", "8 3 2 3"}, {"hybrid", "#8c564b", "12 4"},
};
constexpr std::string_view kOtherColours[] = {"#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string series_style(const std::string& id, size_t index) {
  for (const auto& s : kStrategyStyles)
    if (s.id == id)
      return fmt::format("stroke=\"{}\"{}", s.colour,
                         s.dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", s.dash));
  return fmt::format("stroke=\"{}\"", kOtherColours[index % std::size(kOtherColours)]);
}

std::string points_of(const Plot& p, const std::vector<std::pair<double, double>>& xy) {
  std::string out;
  for (const auto& [x, y] : xy) out += (out.empty() ? "" : " ") + svg_number(p.px(x)) + "," + svg_number(p.py(y));
  return out;
}

// A label beside a point, kept inside the plot.
std::string_view anchor_inside(const Plot& p, double x, double half_width) {
  if (x - p.left < half_width) return "start";
  if (p.right - x < half_width) return "end";
  return "middle";
}

}  // namespace

std::string strategy_name(const std::string& id, Lang lang) {
  const std::string key = "tco_s_" + id;
  std::string name = ui(key, lang);
  return name == key ? id : name;
}

void add_strategy_table(Block& b, const TcoResult& r, Lang lang) {
  b.columns = {ui("tco_strategy", lang), ui("tco_strategy_name", lang), ui("total", lang),
               ui("tco_per_used_gpu_hour", lang), ""};
  b.align = {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kLeft};
  std::optional<double> best;
  for (const auto& s : r.strategies)
    if (!best || s.total < *best) best = s.total;
  for (const auto& s : r.strategies) {
    const bool cheapest = best && s.total == *best;
    b.rows.push_back({s.id, strategy_name(s.id, lang), format_money(s.total, r.currency),
                      format_money(s.per_used_gpu_hour, r.currency, 2),
                      cheapest ? "← " + ui("tco_cheapest", lang) : ""});
    b.strong.push_back(cheapest);
  }
}

json tco_json(const TcoResult& r, Lang lang) {
  auto optional_json = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  auto words = [&](const std::vector<Phrase>& phrases) {
    json out = json::array();
    for (const auto& p : phrases) out.push_back(say(p, lang));
    return out;
  };
  json strategies = json::array();
  for (const auto& s : r.strategies) {
    json lines = json::array();
    for (const auto& l : s.lines)
      lines.push_back({{"id", l.id}, {"item", cost_line_name(l.id, lang)}, {"amount", money_json(l.amount)}});
    json cumulative = json::array();
    for (double cash : s.cumulative_by_month) cumulative.push_back(money_json(cash));
    strategies.push_back({{"id", s.id},
                          {"total", money_json(s.total)},
                          {"per_used_gpu_hour", money_json(s.per_used_gpu_hour)},
                          {"lines", lines},
                          {"cumulative_by_month", cumulative}});
  }
  json break_even = json::object();
  for (const auto& b : r.break_even)
    break_even[b.against] = {{"month", optional_json(b.month)}, {"utilization", optional_json(b.utilization)}};
  break_even["hourly_vs_monthly_hours"] = optional_json(r.hourly_vs_monthly_hours);
  break_even["continuous_job_days"] = optional_json(r.continuous_job_days);

  json curve = json::array();
  for (const auto& point : r.hybrid.curve) curve.push_back({{"owned_gpus", point.owned_gpus}, {"total", money_json(point.total)}});

  json investments = json::array();
  for (const auto& i : r.investments) {
    json basis = json::object();
    for (const auto& b : i.basis) basis[basis_json_key(b.id)] = say(b.value, lang);
    investments.push_back({{"id", i.id},
                           {"upfront", money_json(i.upfront)},
                           {"cost_monthly", money_json(i.cost_monthly)},
                           {"benefit_monthly", money_json(i.benefit_monthly)},
                           {"net", money_json(i.net)},
                           {"payback_month", optional_json(i.payback_month)},
                           {"basis", basis}});
  }

  const auto& s = r.sensitivity;
  json tornado = json::array();
  for (const auto& bar : s.tornado)
    tornado.push_back({{"input", bar.input}, {"low", money_json(bar.low_margin)}, {"high", money_json(bar.high_margin)}});
  json percentiles = json::object();
  for (const auto& p : s.percentiles) percentiles[p.id] = {{"p10", money_json(p.p10)}, {"p50", money_json(p.p50)}, {"p90", money_json(p.p90)}};

  json non_financial = json::array();
  for (const auto& f : r.non_financial) non_financial.push_back({{"factor", f.factor}, {"note", say(f.note, lang)}});
  json prices = json::array();
  for (const auto& p : r.prices) prices.push_back(price_json(p, lang));

  return {
      {"currency", r.currency},
      {"horizon_months", r.horizon_months},
      {"strategies", strategies},
      {"break_even", break_even},
      {"hybrid", {{"owned_gpus", r.hybrid.owned_gpus}, {"total", money_json(r.hybrid.total)}, {"curve", curve}}},
      {"investments", investments},
      {"sensitivity",
       {{"margin", say(s.margin, lang)},
        {"base_margin", money_json(s.base_margin)},
        {"tornado", tornado},
        {"monte_carlo",
         {{"draws", s.draws},
          {"seed", s.seed},
          {"percentiles", percentiles},
          {"p_buy_beats_rent", s.p_buy_beats_rent}}}}},
      {"recommendation", {{"strategy", r.recommendation}, {"why", words(r.why)}, {"rule_of_thumb", r.rule_of_thumb}}},
      {"non_financial", non_financial},
      {"prices", prices},
      {"price_age", price_age_json(r.price_age)},
      {"demand",
       {{"description", say(r.demand_description, lang)},
        {"used_gpu_hours", r.used_gpu_hours},
        {"average_utilization", r.average_utilization}}},
      {"name", r.name}};
}

std::vector<std::string> price_lines(const TcoResult& r, Lang lang) {
  std::vector<std::string> out;
  for (const auto& p : r.prices)
    out.push_back(say(Phrase("tco.report.price_line")
                          .fact("label", price_label(p, lang))
                          .fact("value", price_value(p, lang))
                          .fact("basis", price_basis(p, lang)),
                      lang));
  return out;
}

std::string render_tco(const TcoResult& r, Format format, const Style& style) {
  if (format == Format::kJson) return rounded_figures(tco_json(r, style.lang)).dump(2) + "\n";
  return write_report(build_report(r, style.lang), format, style);
}

std::string svg_cumulative_cost(const TcoResult& r, Lang lang) {
  constexpr int kWidth = 760, kHeight = 380;
  size_t months = 0;
  double low = 0, high = 0;
  for (const auto& s : r.strategies) {
    months = std::max(months, s.cumulative_by_month.size());
    for (double v : s.cumulative_by_month)
      if (std::isfinite(v)) low = std::min(low, v), high = std::max(high, v);
  }
  const Plot p{90,
               kWidth - 170,
               36,
               kHeight - 50,
               whole_axis(static_cast<double>(months), {1, 2, 3, 6, 12, 24, 60, 120}),
               nice_axis(low, high, 6)};
  std::string out = svg_open(kWidth, kHeight, ui("tco_chart_cumulative", lang));
  out += axes(p, ui("tco_month", lang), r.currency);
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    const auto& s = r.strategies[i];
    std::vector<std::pair<double, double>> xy;
    for (size_t m = 0; m < s.cumulative_by_month.size(); ++m) xy.emplace_back(m + 1, s.cumulative_by_month[m]);
    out += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke-width=\"2.5\" {} points=\"{}\"><title>{}</title></polyline>\n",
        series_style(s.id, i), points_of(p, xy),
        html_escape(
            ui_with("tco.chart.series", lang, {{"strategy", s.id}, {"total", format_money(s.total, r.currency)}})));
  }
  // The legend sits right of the plot, so it never covers a line.
  const double legend_x = p.right + 16;
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    const double y = p.top + 8 + 20.0 * i;
    out += line_at(legend_x, y, legend_x + 26, y, series_style(r.strategies[i].id, i) + " stroke-width=\"2.5\"");
    out += svg_text(legend_x + 32, y + 4, r.strategies[i].id, "start", "class=\"legend\"");
  }
  return out + "</svg>\n";
}

std::string svg_hybrid_curve(const TcoResult& r, Lang lang) {
  constexpr int kWidth = 760, kHeight = 340;
  const auto& h = r.hybrid;
  double max_b = h.owned_gpus, low = h.total, high = h.total;
  for (const auto& point : h.curve) {
    max_b = std::max<double>(max_b, point.owned_gpus);
    if (std::isfinite(point.total)) low = std::min(low, point.total), high = std::max(high, point.total);
  }
  // Room under the lowest point for the optimum's label.
  const double pad = high > low ? (high - low) * 0.18 : std::max(1.0, std::fabs(low) * 0.1);
  const Plot p{90,
               kWidth - 30,
               36,
               kHeight - 50,
               whole_axis(max_b, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}),
               nice_axis(low >= 0 ? std::max(0.0, low - pad) : low - pad, high + pad / 3, 6)};
  std::string out = svg_open(kWidth, kHeight, ui("tco_chart_hybrid", lang));
  out += axes(p, ui("tco_owned_gpus", lang), r.currency);
  std::vector<std::pair<double, double>> xy;
  for (const auto& point : h.curve) xy.emplace_back(point.owned_gpus, point.total);
  out +=
      fmt::format("<polyline class=\"series\" fill=\"none\" stroke=\"#8c564b\" stroke-width=\"2.5\" points=\"{}\"/>\n",
                  points_of(p, xy));
  if (h.curve.size() <= 64)
    for (const auto& point : h.curve)
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"#8c564b\"><title>{}</title></circle>\n",
                         svg_number(p.px(point.owned_gpus)), svg_number(p.py(point.total)),
                         html_escape(ui_with("tco.chart.point", lang,
                                             {{"b", std::to_string(point.owned_gpus)},
                                              {"total", format_money(point.total, r.currency)}})));
  const double ox = p.px(h.owned_gpus), oy = p.py(h.total);
  const std::string label = ui_with(
      "tco.chart.optimum", lang, {{"b", std::to_string(h.owned_gpus)}, {"total", format_money(h.total, r.currency)}});
  out += fmt::format(
      "<circle class=\"optimum\" cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"#d62728\" stroke=\"#fff\" stroke-width=\"2\"/>\n",
      svg_number(ox), svg_number(oy));
  out += svg_text(ox, std::min(oy + 22, p.bottom - 6), label, anchor_inside(p, ox, 110),
                  "class=\"optimum\" fill=\"#d62728\" font-weight=\"bold\"");
  return out + "</svg>\n";
}

std::string svg_tornado(const TcoResult& r, Lang lang) {
  const auto& s = r.sensitivity;
  constexpr int kWidth = 760, kRow = 34, kTop = 64, kLeft = 210;
  const int height = kTop + static_cast<int>(s.tornado.size()) * kRow + 56;
  double low = std::min(0.0, s.base_margin), high = std::max(0.0, s.base_margin);
  for (const auto& bar : s.tornado)
    for (double v : {bar.low_margin, bar.high_margin})
      if (std::isfinite(v)) low = std::min(low, v), high = std::max(high, v);
  const double bottom = kTop + s.tornado.size() * kRow;
  const Plot p{kLeft, kWidth - 40, kTop, bottom, {}, {}};
  const Axis x = nice_axis(low, high, 6);
  auto px = [&](double v) { return p.left + (v - x.lo) / (x.hi - x.lo) * (p.right - p.left); };

  std::string out = svg_open(kWidth, height, ui("tco_chart_tornado", lang));
  for (int i = 0; i <= x.ticks(); ++i) {
    const double v = x.tick(i);
    out += line_at(px(v), kTop - 4, px(v), bottom, "stroke=\"#e6e6e6\"");
    out += svg_text(px(v), bottom + 18, short_money(v), "middle", "fill=\"#444\"");
  }
  out += line_at(p.left, bottom, p.right, bottom, "stroke=\"#444\"");
  out +=
      svg_text((p.left + p.right) / 2, bottom + 38,
               say(Phrase("tco.chart.margin").fact("margin", {s.margin}).fact("currency", r.currency), lang), "middle");
  for (size_t i = 0; i < s.tornado.size(); ++i) {
    const auto& bar = s.tornado[i];
    const double y = kTop + i * kRow + 6, x1 = px(std::min(bar.low_margin, bar.high_margin)),
                 x2 = px(std::max(bar.low_margin, bar.high_margin));
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"22\" fill=\"{}\"><title>{}</title></rect>\n",
        svg_number(x1), svg_number(y), svg_number(std::max(1.0, x2 - x1)),
        flips_decision(bar, s.base_margin) ? "#e6550d" : "#3182bd",
        html_escape(ui_with("tco.chart.bar", lang,
                            {{"input", bar.input},
                             {"low", format_money(bar.low_margin, r.currency)},
                             {"high", format_money(bar.high_margin, r.currency)}})));
    std::string name = bar.input.size() > 30 ? bar.input.substr(0, 29) + "…" : bar.input;
    out += svg_text(p.left - 10, y + 15, name, "end");
    if (x2 - x1 >= 90) {  // which end is which, when the bar has room for it
      const bool low_left = bar.low_margin <= bar.high_margin;
      out += svg_text(x1 + 5, y + 15, low_left ? "−20%" : "+20%", "start", "fill=\"#fff\" font-size=\"10\"");
      out += svg_text(x2 - 5, y + 15, low_left ? "+20%" : "−20%", "end", "fill=\"#fff\" font-size=\"10\"");
    }
  }
  // The base margin and zero (where buy and rent cost the same), labelled on separate rows.
  const double base_x = px(s.base_margin), zero_x = px(0);
  out += line_at(base_x, kTop - 26, base_x, bottom, "stroke=\"#555\" stroke-dasharray=\"4 3\"");
  out += svg_text(base_x, kTop - 30, ui("tco_base", lang) + " " + format_money(s.base_margin, r.currency),
                  anchor_inside(p, base_x, 70), "fill=\"#555\"");
  out += line_at(zero_x, kTop - 10, zero_x, bottom, "stroke=\"#111\" stroke-width=\"1.5\"");
  out += svg_text(zero_x, kTop - 14, ui("tco_buy_equals_rent", lang), anchor_inside(p, zero_x, 50), "fill=\"#111\"");
  const bool any_flips = std::any_of(s.tornado.begin(), s.tornado.end(),
                                     [&](const tco::TornadoBar& bar) { return flips_decision(bar, s.base_margin); });
  if (any_flips) out += svg_text(10, bottom + 38, "■ " + ui("tco_flips", lang), "start", "fill=\"#e6550d\"");
  if (s.tornado.empty()) out += svg_text((p.left + p.right) / 2, kTop + 20, ui("tco_none", lang), "middle");
  return out + "</svg>\n";
}

}  // namespace gpuplan::report
