#include "report/usage_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <optional>

#include "core/dates.h"
#include "core/finding.h"
#include "core/money.h"
#include "core/text.h"
#include "report/document.h"
#include "report/plan_documents.h"
#include "report/table.h"
#include "report/tco_render.h"

namespace gpuplan::report {
namespace {

using nlohmann::json;
using usage::Heatmap;
using usage::UsageResult;

// The terminal lists this many skipped lines, then "… N more".
constexpr size_t kSkippedShown = 10;

// ---- Words and numbers ---------------------------------------------------------------------

// "hybrid", or in Chinese "混合（hybrid）": the id is the public word, shown in every language.
std::string verdict_text(const std::string& verdict, Lang lang) {
  if (verdict.empty()) return ui("tco_none", lang);
  const std::string key = "usage.verdict." + verdict;
  if (!has_message(key)) return verdict;
  const std::string word = ui(key, lang);
  return word == verdict ? verdict : ui_with("usage.verdict_named", lang, {{"name", word}, {"verdict", verdict}});
}

// A weekday heatmap's rows ("Mon".."Sun", ids in the JSON) in the reader's language; a row that
// is not a weekday id stays as it is.
Heatmap weekday_rows(Heatmap h, Lang lang) {
  for (auto& row : h.rows) {
    const std::string id = lower(row);
    if (has_message("tco.weekday." + id)) row = ui("tco.weekday." + id, lang);
  }
  return h;
}

// "2024-05-01 14:00" for hours since 1970 (wall clock, no zone).
std::string hour_label(int64_t hour) {
  const int64_t day = hour >= 0 ? hour / 24 : (hour - 23) / 24;
  return fmt::format("{} {:02}:00", civil_from_days(day).date(), hour - day * 24);
}

// ---- Heatmap cells -------------------------------------------------------------------------

// The character ramp: one step per 20% of utilization.
constexpr std::string_view kRamp[] = {" ", "░", "▒", "▓", "█"};
constexpr std::string_view kNoData = "·";

// A cell with a usable value; NaN (0/0 upstream) counts as no data rather than a guess.
std::optional<double> value_of(const Heatmap& h, size_t row, int hour) {
  if (row >= h.cells.size()) return std::nullopt;
  const std::optional<double>& v = h.cells[row][hour];
  return v && std::isfinite(*v) ? v : std::nullopt;
}

std::string_view cell_char(std::optional<double> pct) {
  if (!pct) return kNoData;
  return kRamp[std::clamp(static_cast<int>(std::floor(*pct / 20)), 0, 4)];
}

// The terminal's 256-colour ramp, one step per 10%: dark grey (idle), blues (working), then
// orange and red (busy); readable on dark and light backgrounds, and neighbouring steps close
// enough that noise around a boundary does not look like a pattern.
constexpr int kAnsiRamp[] = {236, 239, 24, 25, 26, 32, 38, 214, 208, 196};
constexpr int kAnsiNoData = 244;  // grey dot on the terminal's own background

int ramp_step(double pct) {
  return std::clamp(static_cast<int>(std::floor(pct / 10)), 0, 9);
}

std::string ansi_cell(int colour) {
  return fmt::format("\x1b[38;5;{0};48;5;{0}m", colour);
}

// Periods longer than kFullDayRows days: each row the mean of `group` consecutive days.
Heatmap grouped_rows(const Heatmap& h, size_t group) {
  Heatmap out;
  for (size_t first = 0; first < h.rows.size(); first += group) {
    const size_t last = std::min(first + group, h.rows.size()) - 1;
    const std::string& a = h.rows[first];
    const std::string& b = h.rows[last];
    // "2024-05-01–05-07" when both are dates of one year; otherwise both labels in full.
    const bool same_year = a.size() == 10 && b.size() == 10 && a.compare(0, 5, b, 0, 5) == 0;
    out.rows.push_back(first == last ? a : a + "–" + (same_year ? b.substr(5) : b));
    std::array<std::optional<double>, 24> cells{};
    for (int hour = 0; hour < 24; ++hour) {
      double sum = 0;
      int n = 0;
      for (size_t row = first; row <= last; ++row)
        if (const auto v = value_of(h, row, hour)) sum += *v, ++n;
      if (n) cells[hour] = sum / n;
    }
    out.cells.push_back(cells);
  }
  return out;
}

bool has_data(const Heatmap& h) {
  for (const auto& row : h.cells)
    for (const auto& v : row)
      if (v) return true;
  return false;
}

// ---- The report ----------------------------------------------------------------------------
// The sections, built once as a Report (report/document.h) and written in each text format.

using A = TextTable::Align;

std::string legend_text(bool colour, Lang lang) {
  std::string out = "  ";
  if (colour) {
    out += "0% ";
    for (int c : kAnsiRamp) out += ansi_cell(c) + "█";
    out += "\x1b[0m 100%   \x1b[38;5;" + std::to_string(kAnsiNoData) + "m" + std::string(kNoData) + "\x1b[0m " +
           ui("usage_no_data", lang);
    return out + "\n";
  }
  static constexpr std::string_view kSteps[] = {"0–20%", "20–40%", "40–60%", "60–80%", "80–100%"};
  for (size_t i = 0; i < std::size(kRamp); ++i) out += fmt::format("'{}' {}  ", kRamp[i], kSteps[i]);
  return out + "'" + std::string(kNoData) + "' " + ui("usage_no_data", lang) + "\n";
}

Block heatmap_block(const Heatmap& h, std::string heading, Lang lang, bool compress_long) {
  Block b;
  b.heading = std::move(heading);
  if (h.rows.empty()) {
    b.lines.push_back({ui("usage_no_data", lang)});
    return b;
  }
  b.svg = svg_heatmap(h, "", lang);  // the section's heading titles it
  TextGrid grid;
  grid.legend = legend_text(false, lang);
  grid.legend_colour = legend_text(true, lang);
  if (compress_long && h.rows.size() > kFullDayRows) {
    // Whole weeks per row, so each row holds each weekday equally often.
    const size_t group = 7 * ((h.rows.size() + 7 * kFullDayRows - 1) / (7 * kFullDayRows));
    const Heatmap g = grouped_rows(h, group);
    grid.plain = terminal_heatmap(g, false);
    grid.colour = terminal_heatmap(g, true);
    grid.notes.push_back(
        ui_with("usage_grouped_days", lang, {{"days", std::to_string(h.rows.size())}, {"n", std::to_string(group)}}));
  } else {
    grid.plain = terminal_heatmap(h, false);
    grid.colour = terminal_heatmap(h, true);
  }
  b.grid = std::move(grid);
  return b;
}

Block bins_block(const UsageResult& r, Lang lang) {
  Block b;
  b.heading = ui("usage_bins", lang);
  if (r.bins.empty()) {
    b.lines.push_back({ui("usage_no_data", lang)});
    return b;
  }
  b.columns = {ui("usage_utilization", lang), ui("usage_share", lang)};
  b.align = {A::kLeft, A::kRight};
  for (const auto& [bin, share] : r.bins) {
    b.rows.push_back({bin + "%", format_percent(share * 100)});
    b.bars.push_back(share);
  }
  return b;
}

Block per_gpu_block(const UsageResult& r, Lang lang) {
  Block b;
  b.heading = ui("usage_per_gpu", lang);
  if (r.gpu_mean_util.empty()) {
    b.lines.push_back({ui("usage_no_data", lang)});
    return b;
  }
  b.columns = {ui("usage_gpu", lang), ui("usage_mean_util", lang)};
  b.align = {A::kLeft, A::kRight};
  for (size_t i = 0; i < r.gpu_mean_util.size(); ++i) {
    b.rows.push_back({i < r.gpu_names.size() ? r.gpu_names[i] : std::to_string(i), format_percent(r.gpu_mean_util[i])});
    b.bars.push_back(r.gpu_mean_util[i] / 100);
  }
  return b;
}

Block per_host_block(const UsageResult& r, Lang lang) {
  Block b;
  b.heading = ui("usage_per_host", lang);
  b.columns = {ui("usage_host", lang), ui("usage_gpus", lang), ui("usage_mean_util", lang)};
  b.align = {A::kLeft, A::kRight, A::kRight};
  for (const auto& h : r.hosts) {
    b.rows.push_back({h.name, std::to_string(h.gpus), format_percent(h.mean_util)});
    b.bars.push_back(h.mean_util / 100);
  }
  return b;
}

Block pattern_block(const UsageResult& r, Lang lang) {
  Block b;
  b.heading = ui("usage_pattern", lang);
  b.lines.push_back({ui_with("usage.report.verdict", lang, {{"verdict", verdict_text(r.pattern.verdict, lang)}})});
  for (const auto& w : r.pattern.why) b.lines.push_back({say(w, lang), true});
  return b;
}

// A price as listed, with the decimals it has (up to 5): "US$27.44705", "¥34.7".
std::string listed_price(double amount, const std::string& currency) {
  int decimals = 0;
  for (double scale = 1; decimals < 5 && std::abs(amount * scale - std::round(amount * scale)) > 1e-9; scale *= 10)
    ++decimals;
  return format_money(amount, currency, decimals);
}

std::string entry_name(const catalog::Entry& e, Lang lang) { return lang == Lang::kZh ? e.display_name_zh() : e.name; }
std::string entry_source(const catalog::Entry& e, Lang lang) {
  return lang == Lang::kZh ? e.display_source_zh() : e.source;
}

// The hourly offer: what it is, its price as listed and converted, and why it was picked.
std::vector<std::string> hourly_offer_lines(const usage::CloudOfferPrice& o, Lang lang) {
  const catalog::Entry& e = *o.entry;
  const std::string fx = o.fx ? ui_with("usage.rent.fx", lang,
                                        {{"rate", format_figure(o.fx->rate, 4)},
                                         {"currency", o.fx->from},
                                         {"as_of", o.fx->as_of},
                                         {"source", o.fx_entry ? entry_source(*o.fx_entry, lang) : o.fx->source}})
                              : "";
  std::vector<std::string> out = {ui_with("usage.rent.hourly", lang,
                                          {{"name", entry_name(e, lang)},
                                           {"provider", e.text("provider")},
                                           {"region", e.text("region")},
                                           {"id", e.id},
                                           {"listed", listed_price(o.listed_hour, e.text("currency"))},
                                           {"gpus", format_figure(e.number("gpus"), 0)},
                                           {"as_of", e.as_of},
                                           {"gpu_hour", format_money(o.gpu_hour_cny, kDefaultCurrency, 2)},
                                           {"fx", fx}})};
  out.push_back(o.cheapest ? ui_with("usage.rent.cheapest", lang, {{"family", o.family}}) : ui("usage.rent.chosen", lang));
  out.push_back(ui_with("usage.rent.source", lang, {{"source", entry_source(e, lang)}}));
  return out;
}

// The basis of every price the strategies use: buying (the owned GPUs' quote), renting on demand
// and spot (the cloud offer), by the month (the market class), and the owned platform's units.
std::vector<std::string> basis_lines(const UsageResult& r, Lang lang) {
  std::vector<std::string> out;
  if (!r.rent) return out;
  const usage::RentChoice& c = *r.rent;
  if (c.basis == "scenario") {
    out.push_back(ui_with("usage.rent.scenario", lang, {{"source", c.scenario_source}}));
    if (r.costs)
      for (std::string& line : price_lines(*r.costs, lang)) out.push_back(std::move(line));
    return out;
  }
  if (r.owned_price)
    out.push_back(ui_with("usage.basis.buy", lang,
                          {{"gpus", std::to_string(r.gpus)},
                           {"gpu", r.owned_gpu},
                           {"platform", r.platform.empty() ? "—" : r.platform},
                           {"price", format_money_range(*r.owned_price, kDefaultCurrency)}}));
  if (r.owned_gpu_chosen && r.unit_gpus == 1 && r.owned_gpu != "a100-80gb-sxm")
    out.push_back(ui_with("usage.basis.not_a_board", lang, {{"gpus", std::to_string(r.gpus)}, {"gpu", r.owned_gpu}}));
  if (c.hourly && c.basis != "monthly") {
    for (std::string& line : hourly_offer_lines(*c.hourly, lang)) out.push_back(std::move(line));
    out.push_back(c.hourly->spot_gpu_hour_cny
                      ? ui_with("usage.basis.spot", lang,
                                {{"id", c.hourly->entry->id},
                                 {"gpu_hour", format_money(*c.hourly->spot_gpu_hour_cny, kDefaultCurrency, 2)}})
                      : ui_with("usage.basis.no_spot", lang, {{"id", c.hourly->entry->id}}));
  }
  if (c.monthly && c.monthly->entry && c.hourly) {
    const usage::MonthlyRent& m = *c.monthly;
    out.push_back(ui_with("usage.rent.monthly", lang,
                          {{"name", entry_name(*m.entry, lang)},
                           {"id", m.entry->id},
                           {"server_month", format_money_range(m.server_month, kDefaultCurrency)},
                           {"gpus", format_figure(m.entry->number("gpus"), 0)},
                           {"servers", std::to_string(m.servers)},
                           {"gpu_month", format_money_range(m.gpu_month, kDefaultCurrency)},
                           {"source", entry_source(*m.entry, lang)}}));
    out.push_back(
        ui_with("usage.rent.monthly_why", lang,
                {{"offer", c.hourly->entry->id},
                 {"gpu_hour", format_money(c.hourly->gpu_hour_cny, kDefaultCurrency, 2)},
                 {"hours", format_number(m.breakeven_hours)},
                 {"days", format_number(m.breakeven_hours / 24, 1)},
                 {"busy", format_number(m.busy_hours)},
                 {"verdict",
                  ui(m.busy_hours > m.breakeven_hours ? "usage.rent.monthly_wins" : "usage.rent.hourly_wins", lang)}}));
  }
  if (r.unit_gpus > 1) {
    const bool whole = r.owned_gpus > 0 && r.owned_gpus % r.unit_gpus == 0;
    const std::string platform = r.platform.empty() ? "—" : r.platform;
    out.push_back(whole ? ui_with("usage.unit.boards", lang,
                                  {{"unit", std::to_string(r.unit_gpus)},
                                   {"platform", platform},
                                   {"boards", std::to_string(r.owned_gpus / r.unit_gpus)},
                                   {"gpus", std::to_string(r.owned_gpus)}})
                        : ui_with("usage.unit.whole", lang, {{"unit", std::to_string(r.unit_gpus)}, {"platform", platform}}));
  }
  return out;
}

Block cost_block(const UsageResult& r, Lang lang) {
  Block b;
  b.heading = ui("usage_cost", lang);
  if (r.recommendation.empty() && !r.costs) {
    b.lines.push_back({ui("usage_no_costs", lang)});
    for (const auto& w : r.recommendation_why) b.lines.push_back({say(w, lang), true});
    return b;
  }
  std::string head = r.recommendation.empty() ? ui("tco_none", lang)
                                              : r.recommendation + " — " + strategy_name(r.recommendation, lang);
  head += ui_with("usage_own", lang, {{"n", std::to_string(r.owned_gpus)}});
  b.lines.push_back({head});
  for (const auto& w : r.recommendation_why) b.lines.push_back({say(w, lang), true});
  for (std::string& line : basis_lines(r, lang)) b.lines.push_back({std::move(line), true});
  if (!r.costs || r.costs->strategies.empty()) return b;
  add_strategy_table(b, *r.costs, lang);
  return b;
}

Block skipped_block(const UsageResult& r, Lang lang) {
  const auto& s = r.stats;
  Block b;
  b.heading = ui("usage_skipped", lang);
  b.monospace = true;
  if (s.skipped_count == 0 && s.skipped.empty()) b.lines.push_back({ui("tco_none", lang)});
  const size_t shown = std::min(s.skipped.size(), kSkippedShown);
  for (size_t i = 0; i < shown; ++i)
    b.lines.push_back({fmt::format("{}:{}: {}", s.skipped[i].file, s.skipped[i].line, say(s.skipped[i].reason, lang))});
  const int64_t more =
      std::max<int64_t>(s.skipped_count, static_cast<int64_t>(s.skipped.size())) - static_cast<int64_t>(shown);
  if (more > 0) b.lines.push_back({ui_with("usage_more", lang, {{"n", format_number(static_cast<double>(more))}})});
  if (s.duplicates > 0)
    b.lines.push_back({ui_with("usage_duplicates", lang, {{"n", format_number(static_cast<double>(s.duplicates))}})});
  if (s.clock_jumps > 0)
    b.lines.push_back({ui_with("usage_clock_jumps", lang, {{"n", format_number(static_cast<double>(s.clock_jumps))}})});
  return b;
}

Report build_report(const UsageResult& r, Lang lang) {
  Report out;
  out.look = Look::kDashboard;
  out.title = ui("usage_title", lang);
  const std::string period =
      r.hours > 0 ? ui_with("usage_period", lang,
                            {{"from", hour_label(r.first_hour)}, {"to", hour_label(r.first_hour + r.hours - 1)}})
                  : "";
  out.subtitle.push_back(ui_with("usage_summary", lang,
                                 {{"hours", format_number(static_cast<double>(r.hours))},
                                  {"period", period},
                                  {"gpus", std::to_string(r.gpus)},
                                  {"skipped", format_number(static_cast<double>(r.stats.skipped_count))}}));
  if (!r.demand.empty()) {
    double sum = 0, peak = 0;
    for (double d : r.demand) sum += d, peak = std::max(peak, d);
    out.subtitle.push_back(
        ui_with(r.demand_source.empty() ? "usage_demand_summary" : "usage_demand_summary_jobs", lang,
                {{"mean", format_number(sum / r.demand.size(), 1)},
                 {"peak", format_number(peak, peak == std::floor(peak) ? 0 : 1)},
                 {"held", format_number(r.held_gpu_hours, r.held_gpu_hours == std::floor(r.held_gpu_hours) ? 0 : 1)},
                 {"efficiency", format_percent(r.efficiency_pct)},
                 {"util_floor", format_number(r.held.util_above_pct)},
                 {"memory_floor", format_number(r.held.memory_above_mib)},
                 {"source", r.demand_source}}));
  }
  if (auto age = price_age_line(r.price_age, lang)) out.subtitle.push_back(*age);
  out.blocks = {heatmap_block(weekday_rows(r.by_weekday, lang), ui("usage_by_weekday", lang), lang, false),
                heatmap_block(r.by_day, ui("usage_by_day", lang), lang, true)};
  if (has_data(r.memory_by_day)) {
    const std::string gib = format_number(r.memory_gib);
    out.blocks.push_back(heatmap_block(weekday_rows(r.memory_by_weekday, lang),
                                       ui_with("usage_memory_by_weekday", lang, {{"gib", gib}}), lang, false));
    out.blocks.push_back(
        heatmap_block(r.memory_by_day, ui_with("usage_memory_by_day", lang, {{"gib", gib}}), lang, true));
  }
  for (Block& b : std::vector<Block>{bins_block(r, lang), per_gpu_block(r, lang), per_host_block(r, lang),
                                     pattern_block(r, lang), cost_block(r, lang), skipped_block(r, lang)})
    out.blocks.push_back(std::move(b));
  return out;
}

// ---- SVG -----------------------------------------------------------------------------------

struct Rgb {
  double r, g, b;
};

// White → light blue → blue → purple → red: cool when idle, hot when busy.
constexpr std::pair<double, Rgb> kSvgRamp[] = {
    {0.0, {247, 251, 255}}, {0.3, {158, 202, 225}}, {0.55, {49, 130, 189}},
    {0.78, {136, 65, 157}}, {1.0, {203, 24, 29}},
};
constexpr std::string_view kSvgNoData = "#d4d4d4";

std::string ramp_fill(double pct) {
  const double t = std::clamp(pct / 100, 0.0, 1.0);
  size_t i = 1;
  while (i + 1 < std::size(kSvgRamp) && t > kSvgRamp[i].first) ++i;
  const auto& [t0, c0] = kSvgRamp[i - 1];
  const auto& [t1, c1] = kSvgRamp[i];
  const double f = (t - t0) / (t1 - t0);
  auto mix = [&](double a, double b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(c0.r, c1.r), mix(c0.g, c1.g), mix(c0.b, c1.b));
}

}  // namespace

// {"basis","id","name","provider","region","gpu","gpus","cheapest","currency","market",
//  "per_instance_hour","per_gpu_hour_cny","spot_per_gpu_hour_cny","fx","source","as_of","monthly_rent"}:
// every key always present, null where the basis has none (a scenario names only its "source").
json rent_offer_json(const usage::RentChoice& c, Lang lang) {
  json j = {{"basis", c.basis},
            {"id", nullptr},
            {"name", nullptr},
            {"provider", nullptr},
            {"region", nullptr},
            {"gpu", nullptr},
            {"gpus", nullptr},
            {"cheapest", nullptr},
            {"currency", nullptr},
            {"per_instance_hour", nullptr},
            {"per_gpu_hour_cny", nullptr},
            {"fx", nullptr},
            {"source", c.scenario_source},
            {"as_of", nullptr},
            {"monthly_rent", nullptr},
            {"market", nullptr},
            {"spot_per_gpu_hour_cny", nullptr}};
  if (c.hourly) {
    const usage::CloudOfferPrice& o = *c.hourly;
    const catalog::Entry& e = *o.entry;
    j["id"] = e.id;
    j["name"] = entry_name(e, lang);
    j["provider"] = e.text("provider");
    j["region"] = e.text("region");
    j["gpu"] = e.text("gpu");
    j["gpus"] = e.number("gpus");
    j["cheapest"] = o.cheapest;
    j["currency"] = e.text("currency");
    j["per_instance_hour"] = money_json(o.listed_hour);
    j["per_gpu_hour_cny"] = money_json(o.gpu_hour_cny);
    j["market"] = o.market;
    if (o.spot_gpu_hour_cny) j["spot_per_gpu_hour_cny"] = money_json(*o.spot_gpu_hour_cny);
    if (o.fx)
      j["fx"] = {{"from", o.fx->from}, {"to", o.fx->to}, {"rate", o.fx->rate}, {"as_of", o.fx->as_of},
                 {"source", o.fx_entry ? entry_source(*o.fx_entry, lang) : o.fx->source}};
    j["source"] = entry_source(e, lang);
    j["as_of"] = e.as_of;
  }
  if (c.monthly && c.monthly->entry) {
    const usage::MonthlyRent& m = *c.monthly;
    j["monthly_rent"] = {{"id", m.entry->id},
                         {"name", entry_name(*m.entry, lang)},
                         {"gpus", m.entry->number("gpus")},
                         {"servers", m.servers},
                         {"per_server_month", money_range_json(m.server_month)},
                         {"per_gpu_month", money_range_json(m.gpu_month)},
                         {"breakeven_hours", m.breakeven_hours},
                         {"breakeven_days_continuous", m.breakeven_hours / 24},
                         {"busy_hours", m.busy_hours},
                         {"source", entry_source(*m.entry, lang)},
                         {"as_of", m.entry->as_of}};
  }
  return j;
}

json usage_json(const UsageResult& r, Lang lang) {
  auto heatmap = [](const Heatmap& h) {
    json cells = json::array();
    for (const auto& row : h.cells) {
      json out = json::array();
      for (const auto& v : row) out.push_back(v ? json(*v) : json(nullptr));
      cells.push_back(out);
    }
    return json{{"rows", h.rows}, {"cells", cells}};
  };
  json bins = json::object();
  for (const auto& [bin, share] : r.bins) bins[bin] = share;
  json strategies = json::array();
  if (r.costs)
    for (const auto& s : r.costs->strategies)
      strategies.push_back(
          {{"id", s.id}, {"total", money_json(s.total)}, {"per_used_gpu_hour", money_json(s.per_used_gpu_hour)}});
  json hosts = json::array();
  for (const auto& h : r.hosts) {
    json hourly = json::array();
    for (const auto& v : h.hourly) hourly.push_back(v ? json(*v) : json(nullptr));
    hosts.push_back({{"name", h.name}, {"gpus", h.gpus}, {"mean_util", h.mean_util}, {"hourly", hourly}});
  }
  auto words = [&](const std::vector<Phrase>& phrases) {
    json out = json::array();
    for (const auto& p : phrases) out.push_back(say(p, lang));
    return out;
  };
  json skipped = json::array();
  for (const auto& s : r.stats.skipped)
    skipped.push_back({{"file", s.file}, {"line", s.line}, {"reason", say(s.reason, lang)}});
  return {
      {"hours", r.hours},
      {"gpus", r.gpus},
      {"heatmap",
       {{"by_day", heatmap(r.by_day)},
        {"by_weekday", heatmap(r.by_weekday)},
        {"memory_by_day", heatmap(r.memory_by_day)},
        {"memory_by_weekday", heatmap(r.memory_by_weekday)},
        {"memory_gib", r.memory_gib}}},
      {"bins", bins},
      {"price_age", price_age_json(r.price_age)},
      {"pattern", {{"verdict", r.pattern.verdict}, {"why", words(r.pattern.why)}}},
      {"recommendation",
       {{"strategy", r.recommendation},
        {"owned_gpus", r.owned_gpus},
        {"unit_gpus", r.unit_gpus},
        {"why", words(r.recommendation_why)}}},
      {"owned",
       {{"gpu", r.owned_gpu},
        {"gpus", r.gpus},
        {"platform", r.platform},
        {"chosen_for_history", r.owned_gpu_chosen},
        {"price", r.owned_price ? money_range_json(*r.owned_price) : json(nullptr)}}},
      {"rent_offer", r.rent ? rent_offer_json(*r.rent, lang) : json(nullptr)},
      {"strategies", strategies},
      {"skipped", skipped},
      {"skipped_count", r.stats.skipped_count},
      {"gpu_names", r.gpu_names},
      {"gpu_mean_util", r.gpu_mean_util},
      {"hosts", hosts},
      {"demand",
       {{"first_hour", r.first_hour},
        {"source", r.demand_source.empty() ? "telemetry" : r.demand_source},
        {"busy_gpus", r.demand},
        {"held_gpu_hours", r.held_gpu_hours},
        {"efficiency_pct", r.efficiency_pct},
        {"held_rule", {{"util_above_pct", r.held.util_above_pct}, {"memory_above_mib", r.held.memory_above_mib}}}}}};
}

std::string render_usage(const UsageResult& r, Format format, const Style& style) {
  if (format == Format::kJson) return rounded_figures(usage_json(r, style.lang)).dump(2) + "\n";
  return write_report(build_report(r, style.lang), format, style);
}

std::string terminal_heatmap(const Heatmap& h, bool colour) {
  size_t label_width = 0;
  for (const auto& row : h.rows) label_width = std::max(label_width, display_width(row));
  const std::string gap(2, ' ');
  std::string header = std::string(label_width, ' ') + gap;
  for (int hour = 0; hour < 24; hour += 3) header += fmt::format("{:<3}", hour);
  while (header.back() == ' ') header.pop_back();
  std::string out = header + "\n";
  for (size_t i = 0; i < h.rows.size(); ++i) {
    out += h.rows[i] + std::string(label_width - display_width(h.rows[i]), ' ') + gap;
    std::string current;  // the escape code in effect, written only when it changes
    for (int hour = 0; hour < 24; ++hour) {
      const std::optional<double> v = value_of(h, i, hour);
      if (colour) {
        // No data: a grey dot on the terminal's own background.
        std::string want = v ? ansi_cell(kAnsiRamp[ramp_step(*v)]) : "\x1b[0;38;5;" + std::to_string(kAnsiNoData) + "m";
        if (want != current) out += want;
        current = std::move(want);
      }
      out += cell_char(v);
    }
    if (colour) out += "\x1b[0m";
    out += "\n";
  }
  return out;
}

std::string svg_heatmap(const Heatmap& h, const std::string& title, Lang lang) {
  constexpr double kCellWidth = 30, kTop = 46, kLegendStep = 30;
  size_t label_chars = 3;
  for (const auto& row : h.rows) label_chars = std::max(label_chars, display_width(row));
  const double left = 16 + 7.0 * label_chars;
  const double grid_width = 24 * kCellWidth;
  const double width = std::max(left + grid_width + 20, left + 10 * kLegendStep + 180);
  const size_t rows = h.rows.size();
  // Rows fill about 720 px, each 4 to 22 px tall; labels need 12 px, so thin ones label every k-th.
  const double cell_height = rows ? std::clamp(std::floor(720.0 / rows), 4.0, 22.0) : 0;
  const size_t label_every = rows ? static_cast<size_t>(std::ceil(12 / cell_height)) : 1;
  const double bottom = kTop + rows * cell_height;
  const double legend_y = bottom + 40;
  const double height = rows ? legend_y + 34 : kTop + 30;
  const double top_cut = title.empty() ? 20 : 0;  // no title: the view starts at the hour labels

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 {2} {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n",
      svg_number(width), svg_number(height - top_cut), svg_number(top_cut));
  if (!title.empty())
    out += fmt::format("<title>{0}</title>\n<text x=\"10\" y=\"16\" font-size=\"14\" font-weight=\"bold\">{0}</text>\n",
                       html_escape(title));
  if (!rows) return out + svg_text(10, kTop, ui("usage_no_data", lang), "start", "fill=\"#555\"") + "</svg>\n";

  for (int hour = 0; hour < 24; ++hour)
    out += svg_text(left + (hour + 0.5) * kCellWidth, kTop - 6, std::to_string(hour), "middle", "fill=\"#444\"");
  out += fmt::format("<rect class=\"nodata\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                     svg_number(left), svg_number(kTop), svg_number(grid_width), svg_number(rows * cell_height),
                     kSvgNoData);
  out += "<g shape-rendering=\"crispEdges\">\n";
  for (size_t i = 0; i < rows; ++i) {
    const double y = kTop + i * cell_height;
    for (int hour = 0; hour < 24; ++hour) {
      const std::optional<double> v = value_of(h, i, hour);
      if (!v) continue;
      const std::string cell =
          ui_with("usage.chart.cell", lang,
                  {{"row", h.rows[i]}, {"hour", fmt::format("{:02}:00", hour)}, {"value", format_percent(*v)}});
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n",
                         svg_number(left + hour * kCellWidth), svg_number(y), svg_number(kCellWidth),
                         svg_number(cell_height), ramp_fill(*v), html_escape(cell));
    }
  }
  out += "</g>\n";
  for (size_t i = 0; i < rows; i += label_every)
    out += svg_text(left - 6, kTop + (i + 0.5) * cell_height + 4, h.rows[i], "end", "fill=\"#444\"");
  out += svg_text(left + grid_width / 2, bottom + 16, ui("usage_hour_of_day", lang), "middle", "fill=\"#444\"");

  // The legend: ten 10% steps, each filled at its middle, then the no-data swatch.
  for (int step = 0; step < 10; ++step)
    out += fmt::format(
        "<rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" "
        "fill=\"{}\"><title>{}–{}%</title></rect>\n",
        svg_number(left + step * kLegendStep), svg_number(legend_y), svg_number(kLegendStep), ramp_fill(step * 10 + 5),
        step * 10, step * 10 + 10);
  for (int pct = 0; pct <= 100; pct += 20)
    out +=
        svg_text(left + pct / 10.0 * kLegendStep, legend_y + 26, std::to_string(pct) + "%", "middle", "fill=\"#444\"");
  const double nodata_x = left + 10 * kLegendStep + 24;
  out += fmt::format("<rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"{}\"/>\n",
                     svg_number(nodata_x), svg_number(legend_y), svg_number(kLegendStep), kSvgNoData);
  out += svg_text(nodata_x + kLegendStep + 6, legend_y + 10, ui("usage_no_data", lang), "start", "fill=\"#444\"");
  return out + "</svg>\n";
}

}  // namespace gpuplan::report
