// Usage renderers: the public JSON shape, the terminal heatmap's character and colour ramps,
// the terminal report, Markdown, the self-contained HTML page and the SVG heatmap, on a
// hand-made result (not analyse()).
#include "report/usage_render.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.h"

#include <array>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpuplan::report {
namespace {

using nlohmann::json;
using gpuplan::testing::count_of;
using gpuplan::testing::keys_of;
using usage::Heatmap;
using usage::UsageResult;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

using Row = std::array<std::optional<double>, 24>;

using gpuplan::testing::en;
using gpuplan::testing::zh;

// A table row's cells: columns are two or more spaces apart.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  size_t at = line.find_first_not_of(' ');
  while (at != std::string::npos) {
    size_t end = line.find("  ", at);
    out.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
  }
  return out;
}

// The cells of the first line of `text` that starts with `first_cell` and two spaces.
std::vector<std::string> row_of(const std::string& text, const std::string& first_cell) {
  size_t at = text.find("\n" + first_cell + "  ");
  if (at == std::string::npos) return {};
  return cells(text.substr(at + 1, text.find('\n', at + 1) - at - 1));
}

// The pattern and cost answer's why lines of the hand-made result below: the busiest
// weekday-hour at 95% against a mean of 24.2% (3.9×); a GPU beyond none owned busy 16.7%.
Phrase pattern_why() {
  return Phrase("usage.why.peaks").fact("peak", "95").fact("mean", "24").fact("ratio", "3.9").fact("limit", "1.5");
}
Phrase cost_why() {
  return Phrase("usage.why.beyond_owned").fact("owned", "0").fact("share", "16.7%");
}
Phrase truncated() {
  return Phrase("skip.truncated");
}

// The nightly peak: 10% from 00:00 to 19:00, 95% from 20:00 to 23:00.
Row nightly_peak() {
  Row row;
  for (int h = 0; h < 24; ++h) row[h] = h < 20 ? 10.0 : 95.0;
  return row;
}

// Two days × 24 hours, two GPUs, both busy 20:00–24:00 only; day two has no data at 05:00.
//   GPU-hours: 2 GPUs × 48 h = 96; 2 × 2 × 4 = 16 at 95% → 16/96 = 1/6 in 80-100, 5/6 in 0-20.
//   mean per GPU: (20 × 10 + 4 × 95) / 24 = 580 / 24 = 24.1666…%.
//   2024-05-01 00:00 is day 19,844 since 1970 → hour 476,256.
UsageResult nightly() {
  UsageResult r;
  r.hours = 48;
  r.gpus = 2;
  r.gpu_names = {"node1/0", "node1/1"};
  r.gpu_mean_util = {580.0 / 24, 580.0 / 24};
  Row day2 = nightly_peak();
  day2[5] = std::nullopt;
  r.by_day = {{"2024-05-01", "2024-05-02"}, {nightly_peak(), day2}};
  r.by_weekday = {{"Wed", "Thu"}, {nightly_peak(), day2}};
  r.bins = {{"0-20", 5.0 / 6}, {"20-40", 0}, {"40-60", 0}, {"60-80", 0}, {"80-100", 1.0 / 6}};
  for (int h = 0; h < 48; ++h) r.demand.push_back(h % 24 >= 20 ? 2 : 0);
  r.held_gpu_hours = 16;  // 2 GPUs × 4 evening hours × 2 days
  r.efficiency_pct = 95;
  r.held = {0, 64};
  r.first_hour = 476256;
  r.pattern = {"hybrid", {pattern_why()}};
  tco::TcoResult costs;
  costs.strategies = {{"buy", 780000, 780000.0 / 16, {}, {}}, {"rent_hourly", 204.8, 12.8, {}, {}}};
  r.costs = costs;
  r.recommendation = "rent_hourly";
  r.owned_gpus = 0;
  r.recommendation_why = {cost_why()};
  r.stats.skipped_count = 13;
  for (int i = 0; i < 12; ++i) r.stats.skipped.push_back({"smi.csv", 100 + i, Phrase("skip.truncated")});
  return r;
}

// --- JSON -----------------------------------------------------------------------------------

TEST(UsageRenderTest, JsonHasExactlyThePublicKeys) {
  const json j = usage_json(nightly(), Lang::kEn);
  EXPECT_EQ(keys_of(j), (std::set<std::string>{"hours", "gpus", "heatmap", "bins", "pattern", "recommendation",
                                               "rent_offer", "strategies", "skipped", "skipped_count", "gpu_names",
                                               "gpu_mean_util", "hosts", "demand", "owned", "price_age"}));
  EXPECT_EQ(keys_of(j["heatmap"]),
            (std::set<std::string>{"by_day", "by_weekday", "memory_by_day", "memory_by_weekday", "memory_gib"}));
  EXPECT_EQ(keys_of(j["heatmap"]["by_day"]), (std::set<std::string>{"rows", "cells"}));
  EXPECT_EQ(keys_of(j["heatmap"]["by_weekday"]), (std::set<std::string>{"rows", "cells"}));
  EXPECT_EQ(keys_of(j["bins"]), (std::set<std::string>{"0-20", "20-40", "40-60", "60-80", "80-100"}));
  EXPECT_EQ(keys_of(j["pattern"]), (std::set<std::string>{"verdict", "why"}));
  EXPECT_EQ(keys_of(j["recommendation"]), (std::set<std::string>{"strategy", "owned_gpus", "unit_gpus", "why"}));
  EXPECT_EQ(keys_of(j["strategies"][0]), (std::set<std::string>{"id", "total", "per_used_gpu_hour"}));
  EXPECT_EQ(keys_of(j["skipped"][0]), (std::set<std::string>{"file", "line", "reason"}));
  EXPECT_EQ(keys_of(j["demand"]),
            (std::set<std::string>{"first_hour", "source", "busy_gpus", "held_gpu_hours", "efficiency_pct", "held_rule"}));
  EXPECT_EQ(keys_of(j["owned"]), (std::set<std::string>{"gpu", "gpus", "platform", "chosen_for_history", "price"}));
}

TEST(UsageRenderTest, JsonCarriesTheValuesUnrounded) {
  const json j = usage_json(nightly(), Lang::kEn);
  EXPECT_EQ(j["hours"], 48);
  EXPECT_EQ(j["gpus"], 2);
  const json& day = j["heatmap"]["by_day"];
  EXPECT_EQ(day["rows"], json({"2024-05-01", "2024-05-02"}));
  ASSERT_EQ(day["cells"].size(), 2u);
  ASSERT_EQ(day["cells"][1].size(), 24u);
  EXPECT_EQ(day["cells"][0][0], 10.0);
  EXPECT_EQ(day["cells"][0][20], 95.0);
  EXPECT_TRUE(day["cells"][1][5].is_null());
  EXPECT_EQ(j["heatmap"]["by_weekday"]["rows"], json({"Wed", "Thu"}));
  EXPECT_TRUE(j["heatmap"]["by_weekday"]["cells"][1][5].is_null());
  EXPECT_EQ(j["bins"]["0-20"].get<double>(), 5.0 / 6);
  EXPECT_EQ(j["bins"]["80-100"].get<double>(), 1.0 / 6);
  EXPECT_EQ(j["pattern"]["verdict"], "hybrid");
  EXPECT_EQ(j["pattern"]["why"], json({en(pattern_why())}));
  EXPECT_EQ(j["recommendation"]["strategy"], "rent_hourly");
  EXPECT_EQ(j["recommendation"]["owned_gpus"], 0);
  EXPECT_EQ(j["recommendation"]["why"], json({en(cost_why())}));
  ASSERT_EQ(j["strategies"].size(), 2u);
  EXPECT_EQ(j["strategies"][0]["id"], "buy");
  EXPECT_EQ(j["strategies"][0]["per_used_gpu_hour"].get<double>(), 780000.0 / 16);
  EXPECT_EQ(j["strategies"][1]["total"].get<double>(), 204.8);
  ASSERT_EQ(j["skipped"].size(), 12u);
  EXPECT_EQ(j["skipped"][0], json({{"file", "smi.csv"}, {"line", 100}, {"reason", en(truncated())}}));
  EXPECT_EQ(j["skipped_count"], 13);
  EXPECT_EQ(j["gpu_names"], json({"node1/0", "node1/1"}));
  EXPECT_EQ(j["gpu_mean_util"][1].get<double>(), 580.0 / 24);
  EXPECT_EQ(j["demand"]["first_hour"], 476256);
  ASSERT_EQ(j["demand"]["busy_gpus"].size(), 48u);
  EXPECT_EQ(j["demand"]["busy_gpus"][19], 0.0);
  EXPECT_EQ(j["demand"]["busy_gpus"][20], 2.0);
}

TEST(UsageRenderTest, JsonWordsFollowTheLanguageAndIdsDoNot) {
  const json j = usage_json(nightly(), Lang::kZh);
  EXPECT_EQ(j["heatmap"]["by_weekday"]["rows"], json({"Wed", "Thu"}));  // ids in every language
  EXPECT_EQ(j["pattern"]["verdict"], "hybrid");
  EXPECT_EQ(j["pattern"]["why"], json({zh(pattern_why())}));
  EXPECT_EQ(j["recommendation"]["why"], json({zh(cost_why())}));
  EXPECT_EQ(j["skipped"][0]["reason"], zh(truncated()));
  EXPECT_NE(zh(pattern_why()), en(pattern_why()));
}

TEST(UsageRenderTest, JsonStrategiesAreAnEmptyArrayWithoutCosts) {
  UsageResult r = nightly();
  r.costs.reset();
  const json j = usage_json(r, Lang::kEn);
  EXPECT_TRUE(j["strategies"].is_array());
  EXPECT_TRUE(j["strategies"].empty());
}

TEST(UsageRenderTest, RenderJsonIsTheJsonDocument) {
  // As written: every figure that is not whole to 4 decimals (bins 5/6 → 0.8333).
  const json written = json::parse(render_usage(nightly(), Format::kJson, Style{}));
  EXPECT_EQ(written, rounded_figures(usage_json(nightly(), Lang::kEn)));
  EXPECT_EQ(written["bins"]["0-20"], 0.8333);
  EXPECT_EQ(written["gpu_mean_util"][0], 24.1667);
}

// --- Terminal heatmap -----------------------------------------------------------------------

TEST(UsageRenderTest, TerminalHeatmapMapsUtilizationToBlocks) {
  Row row;  // hours 6–23 without data
  row[0] = 0, row[1] = 30, row[2] = 50, row[3] = 70, row[4] = 95, row[5] = 19.9;
  const auto lines = lines_of(terminal_heatmap({{"Mon"}, {row}}, false));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "Mon   ░▒▓█ " + repeat("·", 18));
}

TEST(UsageRenderTest, TerminalHeatmapStepsAtEachTwentyPercent) {
  Row row;
  row[0] = 20, row[1] = 39.9, row[2] = 40, row[3] = 60, row[4] = 80, row[5] = 100;
  const auto lines = lines_of(terminal_heatmap({{"Mon"}, {row}}, false));
  EXPECT_EQ(lines[1], "Mon  ░░▒▓██" + repeat("·", 18));
}

TEST(UsageRenderTest, NotANumberIsNoDataNotAGuess) {
  Row row;
  row[0] = std::nan(""), row[1] = 50;
  const Heatmap h{{"Mon"}, {row}};
  EXPECT_EQ(lines_of(terminal_heatmap(h, false))[1], "Mon  ·▒" + repeat("·", 22));
  EXPECT_EQ(count_of(svg_heatmap(h, "t"), "<rect"), 1u + 12);
}

TEST(UsageRenderTest, TerminalHeatmapLabelsEveryThirdHourAndAlignsRows) {
  const auto lines = lines_of(terminal_heatmap(nightly().by_day, false));
  ASSERT_EQ(lines.size(), 3u);
  // Labels 10 wide, two spaces, then hour 0 in the first cell column.
  EXPECT_EQ(lines[0], std::string(12, ' ') + "0  3  6  9  12 15 18 21");
  EXPECT_EQ(lines[1], "2024-05-01  " + std::string(20, ' ') + "████");
  EXPECT_EQ(lines[2], "2024-05-02  " + std::string(5, ' ') + "·" + std::string(14, ' ') + "████");
}

TEST(UsageRenderTest, TerminalHeatmapWithoutColourHasNoEscapeCode) {
  EXPECT_EQ(terminal_heatmap(nightly().by_day, false).find("\x1b["), std::string::npos);
  EXPECT_EQ(render_usage(nightly(), Format::kTable, Style{Lang::kEn, false}).find("\x1b["), std::string::npos);
}

TEST(UsageRenderTest, TerminalHeatmapWithColourUsesThe256ColourRamp) {
  Row row;
  row[0] = 5, row[1] = 95;
  const auto lines = lines_of(terminal_heatmap({{"Mon"}, {row}}, true));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].find("\x1b["), std::string::npos);  // the header stays plain
  // 0–10%: grey 236; 90–100%: red 196, background and foreground alike; no data: a grey dot on
  // the terminal's own background; the row ends reset.
  EXPECT_EQ(lines[1],
            "Mon  \x1b[38;5;236;48;5;236m \x1b[38;5;196;48;5;196m█\x1b[0;38;5;244m" + repeat("·", 22) + "\x1b[0m");
}

// --- Terminal report ------------------------------------------------------------------------

TEST(UsageRenderTest, TableShowsSummaryHeatmapsPatternAndCosts) {
  const std::string out = render_usage(nightly(), Format::kTable, Style{});
  const std::string period = en(Phrase("usage_period").fact("from", "2024-05-01 00:00").fact("to", "2024-05-02 23:00"));
  EXPECT_EQ(out.rfind(en("usage_title") + "\n" +
                          en(Phrase("usage_summary")
                                 .fact("hours", "48")
                                 .fact("period", period)
                                 .fact("gpus", "2")
                                 .fact("skipped", "13")) +
                          "\n",
                      0),
            0u)
      << out;
  EXPECT_NE(out.find(en(Phrase("usage_demand_summary")
                            .fact("mean", "0.3")
                            .fact("peak", "2")
                            .fact("held", "16")
                            .fact("efficiency", "95.0%")
                            .fact("util_floor", "0")
                            .fact("memory_floor", "64")) +
                     "\n"),
            std::string::npos)
      << out;  // 16 / 48
  // The weekday map comes first, then the day map, each row indented under its heading.
  const size_t weekday = out.find("\n" + en("usage_by_weekday") + "\n");
  const size_t day = out.find("\n" + en("usage_by_day") + "\n");
  ASSERT_NE(weekday, std::string::npos);
  ASSERT_NE(day, std::string::npos);
  EXPECT_LT(weekday, day);
  EXPECT_NE(out.find("\n  " + en("tco.weekday.wed") + "  " + std::string(20, ' ') + "████\n"), std::string::npos);
  EXPECT_NE(out.find("\n  2024-05-02  " + std::string(5, ' ') + "·" + std::string(14, ' ') + "████\n"),
            std::string::npos);
  EXPECT_NE(out.find("'░' 20–40%"), std::string::npos);  // the legend
  // Bins and per-GPU means as bars: 5/6 of 30 cells = 25 cells; 24.17% of 30 = 7.25 → 7¼.
  EXPECT_NE(out.find("\n0-20%        83.3%  " + repeat("█", 25) + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nnode1/0             24.2%  " + repeat("█", 7) + "▎\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n  " + en(Phrase("usage.report.verdict").fact("verdict", "hybrid")) + "\n  • " +
                     en(pattern_why()) + "\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\n  rent_hourly — " + en("tco_s_rent_hourly") + en(Phrase("usage_own").fact("n", "0")) +
                     "\n  • " + en(cost_why()) + "\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(row_of(out, "rent_hourly"), (std::vector<std::string>{"rent_hourly", en("tco_s_rent_hourly"), "¥205",
                                                                  "¥12.80", "← " + en("tco_cheapest")}))
      << out;
}

TEST(UsageRenderTest, TableListsTheFirstSkippedLinesAndCountsTheRest) {
  const std::string out = render_usage(nightly(), Format::kTable, Style{});
  EXPECT_NE(out.find("\n" + en("usage_skipped") + "\n  smi.csv:100: " + en(truncated()) + "\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("  smi.csv:109: " + en(truncated()) + "\n  " + en(Phrase("usage_more").fact("n", "3")) + "\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("smi.csv:110"), std::string::npos);
}

TEST(UsageRenderTest, TableSaysNoneSkippedAndNamesDuplicates) {
  UsageResult r = nightly();
  r.stats = {};
  r.stats.duplicates = 4;
  const std::string out = render_usage(r, Format::kTable, Style{});
  EXPECT_NE(out.find("\n" + en("usage_skipped") + "\n  " + en("tco_none") + "\n  " +
                     en(Phrase("usage_duplicates").fact("n", "4")) + "\n"),
            std::string::npos)
      << out;
}

TEST(UsageRenderTest, TableWithoutCostsSaysSo) {
  UsageResult r = nightly();
  r.costs.reset();
  r.recommendation.clear();
  r.recommendation_why.clear();
  const std::string out = render_usage(r, Format::kTable, Style{});
  EXPECT_NE(out.find("\n" + en("usage_cost") + "\n  " + en("usage_no_costs") + "\n"), std::string::npos) << out;
}

TEST(UsageRenderTest, TableInChinese) {
  const std::string out = render_usage(nightly(), Format::kTable, Style{Lang::kZh, false});
  EXPECT_EQ(out.rfind(zh("usage_title") + "\n", 0), 0u) << out;
  const std::string verdict =
      zh(Phrase("usage.verdict_named").fact("name", zh("usage.verdict.hybrid")).fact("verdict", "hybrid"));
  EXPECT_NE(verdict.find("hybrid"), std::string::npos);  // the id beside its words
  EXPECT_NE(out.find("\n  " + zh(Phrase("usage.report.verdict").fact("verdict", verdict)) + "\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\n" + zh("usage_skipped") + "\n"), std::string::npos);
  EXPECT_NE(out.find(zh(Phrase("usage_more").fact("n", "3"))), std::string::npos);
  // The weekday rows, the why lines and the skipped lines' reasons in Chinese.
  EXPECT_NE(out.find("\n  " + zh("tco.weekday.wed") + "  "), std::string::npos) << out;
  EXPECT_EQ(out.find("\n  Wed  "), std::string::npos) << out;
  for (const Phrase& p : {pattern_why(), cost_why(), truncated()}) {
    EXPECT_NE(out.find(zh(p)), std::string::npos) << zh(p);
    EXPECT_EQ(out.find(en(p)), std::string::npos) << en(p);
  }
}

TEST(UsageRenderTest, TableWithColourColoursHeatmapAndHeadings) {
  const std::string out = render_usage(nightly(), Format::kTable, Style{Lang::kEn, true});
  EXPECT_NE(out.find("\x1b[1m" + en("usage_title") + "\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[38;5;196;48;5;196m████\x1b[0m"), std::string::npos);
}

// 60 days alternating 0% and 70%: the day map becomes weekly means (ceil(60 / 7) = 9 rows); the
// first week has days 0, 2, 4, 6 at 0% and 1, 3, 5 at 70% → 30% → '░'.
TEST(UsageRenderTest, LongPeriodsShowTheDayMapAsWeeklyMeans) {
  UsageResult r = nightly();
  r.by_day = {};
  for (int d = 0; d < 60; ++d) {
    Row row;
    row.fill(d % 2 ? 70.0 : 0.0);
    r.by_day.rows.push_back(fmt::format("2024-{:02}-{:02}", 5 + (d >= 31), d >= 31 ? d - 30 : d + 1));
    r.by_day.cells.push_back(row);
  }
  const std::string out = render_usage(r, Format::kTable, Style{});
  EXPECT_NE(out.find("\n  2024-05-01–05-07  " + repeat("░", 24) + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n  2024-06-26–06-29  "), std::string::npos);  // days 56–59
  EXPECT_EQ(out.find("\n  2024-05-02  "), std::string::npos);
  EXPECT_NE(out.find(en(Phrase("usage_grouped_days").fact("days", "60").fact("n", "7"))), std::string::npos);
  // HTML draws every day: 60 × 24 cells + the background + 11 legend rects, plus the weekday map.
  const std::string html = render_usage(r, Format::kHtml, Style{});
  EXPECT_EQ(count_of(html, "<rect"), 60u * 24 + 12 + 47 + 12);
}

// --- Markdown -------------------------------------------------------------------------------

TEST(UsageRenderTest, MarkdownHasSectionsAndHeatmapsAsCodeBlocks) {
  const std::string out = render_usage(nightly(), Format::kMarkdown, Style{Lang::kEn, true});
  EXPECT_EQ(out.rfind("# " + en("usage_title") + "\n", 0), 0u);
  for (const char* key : {"usage_by_weekday", "usage_by_day", "usage_bins", "usage_per_gpu", "usage_pattern",
                          "usage_cost", "usage_skipped"})
    EXPECT_NE(out.find("\n## " + en(key) + "\n"), std::string::npos) << key;
  EXPECT_EQ(count_of(out, "```text\n"), 3u);  // two heatmaps and the skipped lines
  EXPECT_NE(out.find("```text\n" + std::string(12, ' ') + "0  3  6"), std::string::npos);
  EXPECT_NE(out.find("| **rent_hourly** | **" + en("tco_s_rent_hourly") + "** |"), std::string::npos);
  EXPECT_NE(out.find("\n- " + en(pattern_why()) + "\n"), std::string::npos);
  EXPECT_NE(out.find("\n## " + en("usage_skipped") + "\n\n```text\nsmi.csv:100: " + en(truncated()) + "\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("smi.csv:109: " + en(truncated()) + "\n" + en(Phrase("usage_more").fact("n", "3")) + "\n```\n"),
            std::string::npos);
  EXPECT_NE(out.find("\n## " + en("usage_pattern") + "\n\n" +
                     en(Phrase("usage.report.verdict").fact("verdict", "hybrid")) + "  \n\n- " + en(pattern_why())),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("\x1b["), std::string::npos);
}

// --- HTML -----------------------------------------------------------------------------------

TEST(UsageRenderTest, HtmlIsOneSelfContainedPage) {
  const std::string out = render_usage(nightly(), Format::kHtml, Style{Lang::kEn, true});
  gpuplan::testing::expect_self_contained_html(out, "en", 2);
  EXPECT_EQ(out.find("\x1b["), std::string::npos);  // colour is for terminals
  EXPECT_NE(out.find("<tr class=\"strong\"><td>rent_hourly</td>"), std::string::npos);
  EXPECT_NE(out.find("<td class=\"bar\"><span style=\"width:83.3%\"></span></td>"), std::string::npos);
  EXPECT_NE(out.find("<p>smi.csv:100: " + en(truncated()) + "</p>"), std::string::npos);
  EXPECT_NE(out.rfind("</html>\n"), std::string::npos);
}

TEST(UsageRenderTest, HtmlEscapesText) {
  UsageResult r = nightly();
  r.gpu_names[0] = "<gpu&>";
  r.by_weekday.rows[0] = "<Wed>";
  r.pattern.why = {Phrase("\"quoted\" & 'single'")};  // a key without words is shown as it is
  r.stats.skipped[0].file = "<a.csv>";
  const std::string out = render_usage(r, Format::kHtml, Style{});
  EXPECT_EQ(out.find("<gpu&>"), std::string::npos);
  EXPECT_NE(out.find("&lt;gpu&amp;&gt;"), std::string::npos);
  EXPECT_EQ(out.find("<Wed>"), std::string::npos);  // nor in the heatmap's labels and tooltips
  EXPECT_NE(out.find("&quot;quoted&quot; &amp; &#39;single&#39;"), std::string::npos);
  EXPECT_NE(out.find("&lt;a.csv&gt;:100"), std::string::npos);
}

TEST(UsageRenderTest, HtmlInChinese) {
  const std::string out = render_usage(nightly(), Format::kHtml, Style{Lang::kZh, false});
  EXPECT_NE(out.find("<html lang=\"zh-CN\">"), std::string::npos);
  EXPECT_NE(out.find("<h2>" + zh("usage_by_weekday") + "</h2>"), std::string::npos);
  EXPECT_NE(out.find(">" + zh("usage_no_data") + "</text>"), std::string::npos);  // the heatmap legend too
  // The weekday map's row labels and tooltips are in Chinese; the day map's dates stay dates.
  EXPECT_NE(out.find(">" + zh("tco.weekday.wed") + "</text>"), std::string::npos);
  EXPECT_NE(out.find("<title>" +
                     zh(Phrase("usage.chart.cell")
                            .fact("row", zh("tco.weekday.thu"))
                            .fact("hour", "20:00")
                            .fact("value", "95.0%")) +
                     "</title>"),
            std::string::npos);
  EXPECT_EQ(out.find(">Wed</text>"), std::string::npos);
  EXPECT_NE(out.find(">2024-05-01</text>"), std::string::npos);
}

// --- SVG heatmap ----------------------------------------------------------------------------

TEST(UsageRenderTest, SvgHasOneRectPerCellWithDataPlusBackgroundAndLegend) {
  const std::string svg = svg_heatmap(nightly().by_day, "Day × hour");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.rfind("</svg>\n"), std::string::npos);
  // 2 × 24 cells less the one without data; one no-data background; 10 ramp steps + no-data.
  EXPECT_EQ(count_of(svg, "<rect"), 47u + 1 + 11);
  EXPECT_EQ(count_of(svg, "<rect class=\"nodata\""), 1u);
  EXPECT_EQ(count_of(svg, "<rect class=\"legend\""), 11u);
  EXPECT_NE(svg.find("<title>Day × hour</title>"), std::string::npos);
  for (const char* label : {">0</text>", ">12</text>", ">23</text>", ">2024-05-01</text>", ">2024-05-02</text>",
                            ">0%</text>", ">100%</text>"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  for (const char* key : {"usage_no_data", "usage_hour_of_day"})
    EXPECT_NE(svg.find(">" + en(key) + "</text>"), std::string::npos) << key;
  EXPECT_NE(
      svg.find("<title>" +
               en(Phrase("usage.chart.cell").fact("row", "2024-05-01").fact("hour", "20:00").fact("value", "95.0%")) +
               "</title>"),
      std::string::npos);
  EXPECT_EQ(svg.find("2024-05-02 05:00"), std::string::npos);  // no data, no cell
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("url("), std::string::npos);
}

TEST(UsageRenderTest, SvgRampRunsFromWhiteToRed) {
  Row row;
  row[0] = 0, row[1] = 100;
  const std::string svg = svg_heatmap({{"Mon"}, {row}}, "t");
  auto cell = [](const char* hour, const char* value) {
    return en(Phrase("usage.chart.cell").fact("row", "Mon").fact("hour", hour).fact("value", value));
  };
  EXPECT_NE(svg.find("fill=\"#f7fbff\"><title>" + cell("00:00", "0.0%")), std::string::npos) << svg;
  EXPECT_NE(svg.find("fill=\"#cb181d\"><title>" + cell("01:00", "100.0%")), std::string::npos);
}

TEST(UsageRenderTest, SvgThinsRowLabelsForManyRows) {
  // 90 rows of 8 px (720 / 90); labels need 12 px → every 2nd row: 45 labels.
  Heatmap h;
  for (int d = 0; d < 90; ++d) {
    h.rows.push_back("d" + std::to_string(d));
    h.cells.push_back(nightly_peak());
  }
  const std::string svg = svg_heatmap(h, "t");
  EXPECT_EQ(count_of(svg, "text-anchor=\"end\""), 45u);
  EXPECT_NE(svg.find(">d0</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">d1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">d88</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<rect"), 90u * 24 + 12);
}

TEST(UsageRenderTest, SvgWithoutTitleStartsAtTheHourLabels) {
  const std::string svg = svg_heatmap(nightly().by_day, "");
  EXPECT_EQ(svg.find("font-weight=\"bold\""), std::string::npos);
  EXPECT_EQ(svg.find("<title>Day"), std::string::npos);
  EXPECT_NE(svg.find("viewBox=\"0 20.0 "), std::string::npos);
  EXPECT_EQ(count_of(svg, "<rect"), 47u + 12);
}

TEST(UsageRenderTest, SvgWithoutRowsSaysNoData) {
  const std::string svg = svg_heatmap({}, "<empty>");
  EXPECT_EQ(svg.find("<rect"), std::string::npos);
  EXPECT_NE(svg.find(">" + en("usage_no_data") + "</text>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;empty&gt;"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::report
