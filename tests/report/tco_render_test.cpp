// TCO renderers: the public JSON shape, the terminal table in both languages, Markdown, the
// self-contained HTML page and its three SVG charts, on a hand-made result (not analyse()).
#include "report/tco_render.h"

#include <gtest/gtest.h>

#include "test_support.h"

#include <set>
#include <string>
#include <vector>

namespace gpuplan::report {
namespace {

using nlohmann::json;
using gpuplan::testing::count_of;
using gpuplan::testing::keys_of;

// The lines of a terminal section, from its heading to the blank line after it.
std::vector<std::string> section(const std::string& text, const std::string& heading) {
  std::vector<std::string> out;
  size_t at = text.find("\n" + heading + "\n");
  if (at == std::string::npos) return out;
  for (at += heading.size() + 2; at < text.size();) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (line.empty()) break;
    out.push_back(line);
    at = end + 1;
  }
  return out;
}

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

// The cells of the first row of `heading`'s table that starts with `first_cell`.
std::vector<std::string> row(const std::string& text, const std::string& heading, const std::string& first_cell) {
  for (const auto& line : section(text, heading)) {
    auto c = cells(line);
    if (!c.empty() && c[0] == first_cell) return c;
  }
  return {};
}

using Cells = std::vector<std::string>;

using gpuplan::testing::en;
using gpuplan::testing::zh;

Phrase months(const std::string& n) {
  return Phrase("tco_months").fact("n", n);
}

// The why line of the hand-made result below.
Phrase cheapest_why() {
  return Phrase("tco.why.cheapest")
      .fact("strategy", "rent_hourly")
      .fact("total", "¥336,384")
      .fact("months", "36.0")
      .fact("per_hour", "¥12.80")
      .fact("count", "3");
}

// The article's dual-A100 case (SPEC §J), 36 months:
//   buy: ¥600,000 purchase + ¥5,000 a month to run → 600,000 + 36 × 5,000 = ¥780,000.
//   demand: 2 GPUs × 8,760 h × 3 years × 50% = 26,280 used GPU-hours.
//   rent_hourly at ¥12.8/GPU-h: 26,280 × 12.8 = ¥336,384 (¥9,344 a month).
//   rent_monthly at ¥6,000/GPU-month: 2 × 36 × 6,000 = ¥432,000 (¥12,000 a month).
//   per used GPU-hour: 780,000 / 26,280 = 29.680…, 12.80, 432,000 / 26,280 = 16.438….
//   hourly vs monthly: 6,000 / 12.8 = 468.75 busy hours a month.
//   hybrid: B = 0 → 336,384; B = 1 → 390,000 + 168,192 = 558,192; B = 2 → 780,000.
//   tornado margin buy − best rent = 780,000 − 336,384 = 443,616.
tco::TcoResult dual_a100() {
  tco::TcoResult r;
  r.name = "dual A100";
  r.horizon_months = 36;
  r.used_gpu_hours = 26280;
  r.average_utilization = 0.5;
  r.demand_description = Phrase("tco.demand.utilization").fact("share", "50").fact("gpus", "2").fact("busy", "1");
  // "running" has no words in the table: it is shown as its id.
  tco::StrategyResult buy{"buy", 780000, 780000.0 / 26280, {{"purchase", 600000}, {"running", 180000}}, {}};
  tco::StrategyResult hourly{"rent_hourly", 336384, 12.8, {{"on_demand", 336384}}, {}};
  tco::StrategyResult monthly{"rent_monthly", 432000, 432000.0 / 26280, {{"monthly_rent", 432000}}, {}};
  for (int m = 1; m <= 36; ++m) {
    buy.cumulative_by_month.push_back(600000 + 5000.0 * m);
    hourly.cumulative_by_month.push_back(9344.0 * m);
    monthly.cumulative_by_month.push_back(12000.0 * m);
  }
  r.strategies = {buy, hourly, monthly};
  r.break_even = {{"rent_hourly", std::nullopt, std::nullopt}, {"rent_monthly", std::nullopt, std::nullopt}};
  r.hourly_vs_monthly_hours = 468.75;
  r.hybrid = {0, 336384, {{0, 336384}, {1, 558192}, {2, 780000}}};
  // Liquid cooling: 11,668 saved over 36 months against a 38,000 premium → net −26,332, never.
  // "server_kw" has no label in the table: it is shown as its id.
  r.investments = {{"liquid_cooling",
                    38000,
                    0,
                    11668.0 / 36,
                    -26332,
                    std::nullopt,
                    {{"pue", Phrase("tco.value.change").fact("before", "1.45").fact("after", "1.08")},
                     {"server_kw", Phrase("tco.value.figure").fact("value", "1.5")}}},
                   // Premium support: 16.3 h × 12,000 − 55,000 = 140,600 a year → 421,800 in 3 years.
                   {"premium_support", 0, 55000.0 / 12, 16.3 * 12000 / 12, 421800, 1, {}}};
  r.sensitivity.margin = Phrase("tco.margin.buy_minus_best_rent");
  r.sensitivity.base_margin = 443616;
  // purchase ±20%: 443,616 ∓ 120,000; on-demand price ±20%: 780,000 − 336,384 × (0.8, 1.2).
  r.sensitivity.tornado = {
      {"purchase", 323616, 563616}, {"on_demand_gpu_hour", 510892.8, 376339.2}, {"electricity_kwh", 430000, 457232}};
  r.sensitivity.draws = 10000;
  r.sensitivity.seed = 42;
  r.sensitivity.percentiles = {{"buy", 740000, 780000, 830000}, {"rent_hourly", 300000, 336384, 370000}};
  r.sensitivity.p_buy_beats_rent = 0.0;
  r.recommendation = "rent_hourly";
  r.why = {cheapest_why()};
  r.rule_of_thumb = "rent";
  r.non_financial = {{"data_sovereignty", Phrase("tco.factor.data_sovereignty.yes")}};
  return r;
}

// --- JSON -----------------------------------------------------------------------------------

TEST(TcoRenderTest, JsonHasExactlyThePublicKeys) {
  json j = tco_json(dual_a100(), Lang::kEn);
  EXPECT_EQ(keys_of(j), (std::set<std::string>{"currency", "horizon_months", "strategies", "break_even", "hybrid",
                                               "investments", "sensitivity", "recommendation", "non_financial",
                                               "prices", "price_age", "demand", "name"}));
  EXPECT_EQ(keys_of(j["strategies"][0]),
            (std::set<std::string>{"id", "total", "per_used_gpu_hour", "lines", "cumulative_by_month"}));
  EXPECT_EQ(keys_of(j["strategies"][0]["lines"][0]), (std::set<std::string>{"id", "item", "amount"}));
  EXPECT_EQ(keys_of(j["break_even"]),
            (std::set<std::string>{"rent_hourly", "rent_monthly", "hourly_vs_monthly_hours", "continuous_job_days"}));
  EXPECT_EQ(keys_of(j["break_even"]["rent_hourly"]), (std::set<std::string>{"month", "utilization"}));
  EXPECT_EQ(keys_of(j["hybrid"]), (std::set<std::string>{"owned_gpus", "total", "curve"}));
  EXPECT_EQ(keys_of(j["hybrid"]["curve"][0]), (std::set<std::string>{"owned_gpus", "total"}));
  EXPECT_EQ(keys_of(j["investments"][0]), (std::set<std::string>{"id", "upfront", "cost_monthly", "benefit_monthly",
                                                                 "net", "payback_month", "basis"}));
  EXPECT_EQ(keys_of(j["sensitivity"]), (std::set<std::string>{"margin", "base_margin", "tornado", "monte_carlo"}));
  EXPECT_EQ(keys_of(j["sensitivity"]["tornado"][0]), (std::set<std::string>{"input", "low", "high"}));
  EXPECT_EQ(keys_of(j["sensitivity"]["monte_carlo"]),
            (std::set<std::string>{"draws", "seed", "percentiles", "p_buy_beats_rent"}));
  EXPECT_EQ(keys_of(j["sensitivity"]["monte_carlo"]["percentiles"]["buy"]),
            (std::set<std::string>{"p10", "p50", "p90"}));
  EXPECT_EQ(keys_of(j["recommendation"]), (std::set<std::string>{"strategy", "why", "rule_of_thumb"}));
  EXPECT_EQ(keys_of(j["non_financial"][0]), (std::set<std::string>{"factor", "note"}));
  EXPECT_EQ(keys_of(j["demand"]), (std::set<std::string>{"description", "used_gpu_hours", "average_utilization"}));
}

TEST(TcoRenderTest, JsonCarriesMoneyToTheFenAndOtherValuesUnrounded) {
  json j = tco_json(dual_a100(), Lang::kEn);
  EXPECT_EQ(j["currency"], "CNY");
  EXPECT_EQ(j["horizon_months"], 36);
  EXPECT_EQ(j["name"], "dual A100");
  EXPECT_EQ(j["strategies"][1]["id"], "rent_hourly");
  EXPECT_EQ(j["strategies"][1]["total"], 336384);
  // ¥780,000 / 26,280 used GPU-hours = ¥29.680365…: money goes to the fen.
  EXPECT_EQ(j["strategies"][0]["per_used_gpu_hour"].get<double>(), 29.68);
  EXPECT_EQ(j["strategies"][0]["lines"][0]["id"], "purchase");
  EXPECT_EQ(j["strategies"][0]["lines"][0]["item"], en("tco.line.purchase"));
  EXPECT_EQ(j["strategies"][0]["lines"][0]["amount"], 600000);
  EXPECT_EQ(j["strategies"][0]["lines"][1]["item"], "running");  // no words: the id
  ASSERT_EQ(j["strategies"][0]["cumulative_by_month"].size(), 36u);
  EXPECT_EQ(j["strategies"][0]["cumulative_by_month"][0], 605000);
  EXPECT_EQ(j["strategies"][0]["cumulative_by_month"][35], 780000);
  EXPECT_TRUE(j["break_even"]["rent_hourly"]["month"].is_null());
  EXPECT_TRUE(j["break_even"]["rent_hourly"]["utilization"].is_null());
  EXPECT_EQ(j["break_even"]["hourly_vs_monthly_hours"], 468.75);
  EXPECT_EQ(j["hybrid"]["owned_gpus"], 0);
  EXPECT_EQ(j["hybrid"]["curve"][1]["total"], 558192);
  EXPECT_EQ(j["investments"][0]["net"], -26332);
  EXPECT_TRUE(j["investments"][0]["payback_month"].is_null());
  EXPECT_EQ(j["investments"][0]["basis"]["server_kw"], "1.5");
  EXPECT_EQ(j["investments"][0]["basis"][en("tco.basis.pue")], "1.45 → 1.08");
  EXPECT_EQ(j["investments"][1]["payback_month"], 1);
  EXPECT_EQ(j["sensitivity"]["base_margin"], 443616);
  EXPECT_EQ(j["sensitivity"]["tornado"][1]["input"], "on_demand_gpu_hour");
  EXPECT_DOUBLE_EQ(j["sensitivity"]["tornado"][1]["low"].get<double>(), 510892.8);
  EXPECT_EQ(j["sensitivity"]["monte_carlo"]["seed"], 42);
  EXPECT_EQ(j["sensitivity"]["monte_carlo"]["percentiles"]["rent_hourly"]["p50"], 336384);
  EXPECT_EQ(j["recommendation"]["strategy"], "rent_hourly");
  EXPECT_EQ(j["recommendation"]["rule_of_thumb"], "rent");
  EXPECT_EQ(j["recommendation"]["why"], json({en(cheapest_why())}));
  EXPECT_EQ(j["demand"]["used_gpu_hours"], 26280);
  EXPECT_EQ(j["demand"]["description"], en(dual_a100().demand_description));
  EXPECT_EQ(j["sensitivity"]["margin"], en("tco.margin.buy_minus_best_rent"));
  EXPECT_EQ(j["non_financial"][0]["factor"], "data_sovereignty");
  EXPECT_EQ(j["non_financial"][0]["note"], en("tco.factor.data_sovereignty.yes"));
}

TEST(TcoRenderTest, JsonWordsFollowTheLanguageAndIdsAndKeysDoNot) {
  const tco::TcoResult r = dual_a100();
  json e = tco_json(r, Lang::kEn), z = tco_json(r, Lang::kZh);
  EXPECT_EQ(z["strategies"][0]["lines"][0]["id"], "purchase");
  EXPECT_EQ(z["strategies"][0]["lines"][0]["item"], zh("tco.line.purchase"));
  EXPECT_NE(z["strategies"][0]["lines"][0]["item"], e["strategies"][0]["lines"][0]["item"]);
  EXPECT_EQ(z["recommendation"]["why"], json({zh(cheapest_why())}));
  EXPECT_EQ(z["recommendation"]["strategy"], "rent_hourly");
  EXPECT_EQ(z["demand"]["description"], zh(r.demand_description));
  EXPECT_EQ(z["sensitivity"]["margin"], zh("tco.margin.buy_minus_best_rent"));
  EXPECT_EQ(z["non_financial"][0]["factor"], "data_sovereignty");
  EXPECT_EQ(z["non_financial"][0]["note"], zh("tco.factor.data_sovereignty.yes"));
  // The basis keeps its keys in every language.
  EXPECT_EQ(keys_of(z["investments"][0]["basis"]), keys_of(e["investments"][0]["basis"]));
  EXPECT_EQ(z["sensitivity"]["tornado"], e["sensitivity"]["tornado"]);
}

TEST(TcoRenderTest, BreakEvenShowsTheMonthAndUtilizationWhenThereAreSome) {
  // At ¥34.74/GPU-h renting costs 25,360.2 a month: 600,000 + 5,000 m ≤ 25,360.2 m from m = 30
  // (600,000 / 20,360.2 = 29.47); utilization 780,000 / (52,560 × 34.74) = 0.42718 → 42.7%.
  tco::TcoResult r = dual_a100();
  r.break_even[0].month = 30;
  r.break_even[0].utilization = 780000 / (52560 * 34.74);
  json j = tco_json(r, Lang::kEn);
  EXPECT_EQ(j["break_even"]["rent_hourly"]["month"], 30);
  EXPECT_DOUBLE_EQ(j["break_even"]["rent_hourly"]["utilization"].get<double>(), 780000 / (52560 * 34.74));
  const std::string table = render_tco(r, Format::kTable, Style{});
  EXPECT_NE(table.find("rent_monthly  " + en("tco_never_in_horizon")), std::string::npos) << table;
}

TEST(TcoRenderTest, JsonFormatIsTheJsonValue) {
  const tco::TcoResult r = dual_a100();
  EXPECT_EQ(json::parse(render_tco(r, Format::kJson, Style{})), tco_json(r, Lang::kEn));
}

// --- Terminal table -------------------------------------------------------------------------

TEST(TcoRenderTest, TableShowsTotalsTheCheapestAndTheRecommendation) {
  const std::string out = render_tco(dual_a100(), Format::kTable, Style{});
  EXPECT_EQ(
      out.rfind(en(Phrase("tco.report.title").fact("name", "dual A100").fact("months", {months("36")})) + "\n", 0), 0u)
      << out;
  EXPECT_NE(out.find(en(Phrase("tco.report.demand")
                            .fact("description", {dual_a100().demand_description})
                            .fact("used", "26,280")
                            .fact("utilization", "50.0%"))),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("¥780,000"), std::string::npos);
  EXPECT_NE(out.find("¥336,384"), std::string::npos);
  // Two decimals for the per-GPU-hour figures only: 780,000 / 26,280 = 29.68.
  EXPECT_NE(out.find("¥29.68"), std::string::npos);
  EXPECT_NE(out.find("¥12.80"), std::string::npos);
  const std::string cheapest = "← " + en("tco_cheapest");
  EXPECT_EQ(row(out, en("tco_strategies"), "rent_hourly"),
            (Cells{"rent_hourly", en("tco_s_rent_hourly"), "¥336,384", "¥12.80", cheapest}));
  EXPECT_EQ(row(out, en("tco_strategies"), "buy"), (Cells{"buy", en("tco_s_buy"), "¥780,000", "¥29.68"}));
  EXPECT_EQ(count_of(out, cheapest), 1u);
  EXPECT_NE(out.find(en(Phrase("tco.report.with_rule")
                            .fact("head", "rent_hourly — " + en("tco_s_rent_hourly"))
                            .fact("verdict", en("usage.verdict.rent")))),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("• " + en(cheapest_why())), std::string::npos);
  EXPECT_EQ(out.find("\x1b["), std::string::npos);  // no colour unless asked
}

TEST(TcoRenderTest, TableShowsCostLinesInWordsAndUnknownIdsAsThey) {
  const std::string out = render_tco(dual_a100(), Format::kTable, Style{});
  EXPECT_EQ(row(out, en("tco_cost_lines"), "buy"), (Cells{"buy", en("tco.line.purchase"), "¥600,000"}));
  EXPECT_NE(out.find("running"), std::string::npos);
  EXPECT_EQ(row(out, en("tco_cost_lines"), "rent_hourly"),
            (Cells{"rent_hourly", en("tco.line.on_demand"), "¥336,384"}));
}

TEST(TcoRenderTest, TableShowsBreakEvenBoundaryHybridAndInvestments) {
  const std::string out = render_tco(dual_a100(), Format::kTable, Style{});
  EXPECT_EQ(row(out, en("tco_break_even"), "rent_hourly"),
            (Cells{"rent_hourly", en("tco_never_in_horizon"), en("tco_no_utilization")}));
  // 468.75 rounds to 469.
  EXPECT_NE(out.find(en(Phrase("tco_monthly_above").fact("hours", "469"))), std::string::npos);
  EXPECT_NE(out.find(en(Phrase("tco_hybrid_optimum").fact("b", "0").fact("total", "¥336,384"))), std::string::npos);
  // Liquid cooling never pays back; premium support in month 1.
  // 11,668 / 36 = 324.1 a month.
  const std::string basis =
      en(Phrase("tco.report.basis_item").fact("label", en("tco.basis.pue")).fact("value", "1.45 → 1.08")) + "; " +
      en(Phrase("tco.report.basis_item").fact("label", "server_kw").fact("value", "1.5"));
  EXPECT_EQ(row(out, en("tco_investments"), "liquid_cooling"),
            (Cells{"liquid_cooling", "¥38,000", "¥0", "¥324", "-¥26,332", en("tco_never"), basis}));
  EXPECT_EQ(row(out, en("tco_investments"), "premium_support"),
            (Cells{"premium_support", "¥0", "¥4,583", "¥16,300", "¥421,800", "1"}));
}

TEST(TcoRenderTest, TableShowsTornadoMonteCarloAndNonFinancialFactors) {
  const std::string out = render_tco(dual_a100(), Format::kTable, Style{});
  EXPECT_NE(out.find(en(Phrase("tco.report.margin")
                            .fact("margin", {Phrase("tco.margin.buy_minus_best_rent")})
                            .fact("base", "¥443,616"))),
            std::string::npos)
      << out;
  // purchase swings 563,616 − 323,616 = 240,000, and none of the bars crosses zero.
  EXPECT_EQ(row(out, en("tco_tornado"), "purchase"), (Cells{"purchase", "¥323,616", "¥563,616", "¥240,000"}));
  EXPECT_EQ(out.find(en("tco_flips")), std::string::npos);
  EXPECT_NE(out.find(en(Phrase("tco.report.monte_carlo").fact("draws", "10,000").fact("seed", "42").fact("p", "0.0%"))),
            std::string::npos)
      << out;
  EXPECT_EQ(row(out, en("tco_monte_carlo"), "rent_hourly"), (Cells{"rent_hourly", "¥300,000", "¥336,384", "¥370,000"}));
  EXPECT_EQ(row(out, en("tco_non_financial"), en("tco.factor.data_sovereignty")),
            (Cells{en("tco.factor.data_sovereignty"), en("tco.factor.data_sovereignty.yes")}));
}

TEST(TcoRenderTest, TableCutsTheTornadoToTheTopInputs) {
  tco::TcoResult r = dual_a100();
  for (int i = 0; i < 4; ++i) r.sensitivity.tornado.push_back({"minor_" + std::to_string(i), 440000, 447000});
  const std::string out = render_tco(r, Format::kTable, Style{});
  EXPECT_NE(out.find("minor_1"), std::string::npos);
  EXPECT_EQ(out.find("minor_2"), std::string::npos);  // 7 bars, the top 5 shown
  EXPECT_NE(out.find(en(Phrase("tco_more_inputs").fact("n", "2"))), std::string::npos);
  EXPECT_NE(render_tco(r, Format::kMarkdown, Style{}).find("minor_3"), std::string::npos);
}

TEST(TcoRenderTest, TableMarksABarThatFlipsTheDecision) {
  tco::TcoResult r = dual_a100();
  r.sensitivity.tornado.push_back({"utilization", -20000, 500000});
  EXPECT_NE(render_tco(r, Format::kTable, Style{}).find(en("tco_flips")), std::string::npos);
}

TEST(TcoRenderTest, TableInChinese) {
  const std::string out = render_tco(dual_a100(), Format::kTable, Style{Lang::kZh, false});
  EXPECT_EQ(
      out.rfind(zh(Phrase("tco.report.title").fact("name", "dual A100").fact("months", {months("36")})) + "\n", 0), 0u)
      << out;
  for (const char* key :
       {"tco_strategies", "recommendation", "tco_break_even", "tco_hourly_vs_monthly", "tco_investments", "tco_tornado",
        "tco_non_financial", "tco_s_rent_hourly", "tco_cheapest", "tco_never", "tco_never_in_horizon",
        "tco.line.purchase", "tco.line.on_demand", "tco.basis.pue", "tco.factor.data_sovereignty",
        "tco.factor.data_sovereignty.yes", "usage.verdict.rent"})
    EXPECT_NE(out.find(zh(key)), std::string::npos) << key;
  for (const Phrase& p :
       {Phrase("tco_monthly_above").fact("hours", "469"), cheapest_why(), dual_a100().demand_description,
        Phrase("tco.report.margin").fact("margin", {Phrase("tco.margin.buy_minus_best_rent")}).fact("base", "¥443,616"),
        Phrase("tco.report.monte_carlo").fact("draws", "10,000").fact("seed", "42").fact("p", "0.0%")})
    EXPECT_NE(out.find(zh(p)), std::string::npos) << zh(p);
  EXPECT_NE(out.find("¥336,384"), std::string::npos);
  // No English words are left but ids: each English phrase of the result is worded in Chinese.
  for (const char* key : {"tco.line.on_demand", "tco.margin.buy_minus_best_rent", "tco.factor.data_sovereignty.yes"})
    EXPECT_EQ(out.find(en(key)), std::string::npos) << key;
  EXPECT_EQ(out.find(en(cheapest_why())), std::string::npos);
}

TEST(TcoRenderTest, TableColoursOnlyWhenAsked) {
  const std::string out = render_tco(dual_a100(), Format::kTable, Style{Lang::kEn, true});
  EXPECT_NE(out.find("\x1b[1;32m¥336,384\x1b[0m"), std::string::npos);
  // Colour codes take no width: the columns still line up.
  EXPECT_NE(out.find("\x1b[1;32mrent_hourly\x1b[0m   "), std::string::npos) << out;
}

// --- Markdown -------------------------------------------------------------------------------

TEST(TcoRenderTest, MarkdownHasHeadedSectionsAndTables) {
  const std::string out = render_tco(dual_a100(), Format::kMarkdown, Style{});
  EXPECT_EQ(
      out.rfind("# " + en(Phrase("tco.report.title").fact("name", "dual A100").fact("months", {months("36")})) + "\n",
                0),
      0u);
  for (const char* key :
       {"tco_strategies", "recommendation", "tco_cost_lines", "tco_break_even", "tco_hourly_vs_monthly", "tco_hybrid",
        "tco_investments", "tco_tornado", "tco_monte_carlo", "tco_non_financial"})
    EXPECT_NE(out.find("\n## " + en(key) + "\n"), std::string::npos) << key;
  EXPECT_NE(out.find("| " + en("tco_strategy") + " | " + en("tco_strategy_name") + " | " + en("total") + " | " +
                     en("tco_per_used_gpu_hour") + " |  |\n|---|---|--:|--:|---|\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("| **rent_hourly** | **" + en("tco_s_rent_hourly") + "** | **¥336,384** | **¥12.80** | **← " +
                     en("tco_cheapest") + "** |"),
            std::string::npos);
  EXPECT_NE(out.find("| buy | " + en("tco_s_buy") + " | ¥780,000 | ¥29.68 |  |"), std::string::npos);
  const std::string head = en(Phrase("tco.report.with_rule")
                                  .fact("head", "rent_hourly — " + en("tco_s_rent_hourly"))
                                  .fact("verdict", en("usage.verdict.rent")));
  EXPECT_NE(out.find("\n## " + en("recommendation") + "\n\n" + head + "\n\n- " + en(cheapest_why()) + "\n\n## " +
                     en("tco_cost_lines") + "\n\n| " + en("tco_strategy") + " |"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("\n\n\n"), std::string::npos);  // one blank line between parts, never two
  EXPECT_EQ(out.find("<svg"), std::string::npos);
}

TEST(TcoRenderTest, MarkdownEscapesPipesInCells) {
  tco::TcoResult r = dual_a100();
  r.non_financial = {{"lock-in", Phrase("a | b")}};  // neither has words: each is shown as it is
  EXPECT_NE(render_tco(r, Format::kMarkdown, Style{}).find("| lock-in | a \\| b |"), std::string::npos);
}

// --- HTML -----------------------------------------------------------------------------------

TEST(TcoRenderTest, HtmlIsOneSelfContainedPage) {
  const std::string out = render_tco(dual_a100(), Format::kHtml, Style{});
  gpuplan::testing::expect_self_contained_html(out, "en", 3);
  EXPECT_NE(out.find("<tr class=\"strong\"><td>rent_hourly</td>"), std::string::npos);
  EXPECT_NE(out.find("<td class=\"num\">" + en("tco_never") + "</td>"), std::string::npos);
  EXPECT_NE(out.rfind("</html>\n"), std::string::npos);
}

TEST(TcoRenderTest, HtmlEscapesText) {
  tco::TcoResult r = dual_a100();
  r.name = "<b>&";
  r.why = {Phrase("\"quoted\" & 'single'")};  // a key without words is shown as it is
  r.strategies[0].id = "<buy>";
  const std::string out = render_tco(r, Format::kHtml, Style{});
  EXPECT_NE(out.find("&lt;b&gt;&amp;"), std::string::npos);
  EXPECT_EQ(out.find("<b>&"), std::string::npos);
  EXPECT_NE(out.find("&quot;quoted&quot; &amp; &#39;single&#39;"), std::string::npos);
  EXPECT_EQ(out.find("<buy>"), std::string::npos);  // nor in the chart legend
  EXPECT_NE(out.find("&lt;buy&gt;"), std::string::npos);
}

TEST(TcoRenderTest, HtmlInChinese) {
  const std::string out = render_tco(dual_a100(), Format::kHtml, Style{Lang::kZh, true});
  EXPECT_NE(out.find("<html lang=\"zh-CN\">"), std::string::npos);
  EXPECT_NE(out.find("<h2>" + zh("tco_strategies") + "</h2>"), std::string::npos);
  for (const char* key : {"tco_chart_cumulative", "tco_chart_hybrid", "tco_chart_tornado"})  // the chart titles too
    EXPECT_NE(out.find(zh(key)), std::string::npos) << key;
  // The charts' labels and tooltips.
  EXPECT_NE(out.find(zh(Phrase("tco.chart.optimum").fact("b", "0").fact("total", "¥336,384"))), std::string::npos);
  EXPECT_NE(out.find(zh(Phrase("tco.chart.point").fact("b", "1").fact("total", "¥558,192"))), std::string::npos);
  EXPECT_NE(out.find(zh(Phrase("tco.chart.series").fact("strategy", "buy").fact("total", "¥780,000"))),
            std::string::npos);
  EXPECT_NE(out.find(zh(Phrase("tco.chart.margin")
                            .fact("margin", {Phrase("tco.margin.buy_minus_best_rent")})
                            .fact("currency", "CNY"))),
            std::string::npos);
  EXPECT_NE(
      out.find(zh(Phrase("tco.chart.bar").fact("input", "purchase").fact("low", "¥323,616").fact("high", "¥563,616"))),
      std::string::npos);
  EXPECT_NE(out.find(">" + zh("tco_month") + "</text>"), std::string::npos);
  EXPECT_EQ(out.find("\x1b["), std::string::npos);             // colour is for terminals
}

// --- SVG charts ------------------------------------------------------------------------------

TEST(TcoRenderTest, CumulativeChartHasOneLinePerStrategyAndALegend) {
  const std::string svg = svg_cumulative_cost(dual_a100());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.rfind("</svg>\n"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<polyline"), 3u);
  for (const char* id : {"buy", "rent_hourly", "rent_monthly"})
    EXPECT_NE(svg.find(std::string("class=\"legend\">") + id + "</text>"), std::string::npos) << id;
  // y axis from ¥0 to ¥800k (the 780,000 peak rounded up to a step of 100k); x in months 0..36.
  EXPECT_NE(svg.find(">¥0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">¥800k</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">36</text>"), std::string::npos);
  EXPECT_NE(svg.find(">" + en("tco_month") + "</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>" + en(Phrase("tco.chart.series").fact("strategy", "buy").fact("total", "¥780,000")) +
                     "</title>"),
            std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(TcoRenderTest, CumulativeChartFirstPointIsMonthOne) {
  // Plot x from 90 to 590 over months 0..36, y from 330 (¥0) to 36 (¥800k): month 1 of buy at
  // x = 90 + 500/36 = 103.9, y = 330 − 294 × 605,000 / 800,000 = 107.7.
  const std::string svg = svg_cumulative_cost(dual_a100());
  EXPECT_NE(svg.find("points=\"103.9,107.7 "), std::string::npos) << svg;
}

TEST(TcoRenderTest, HybridChartMarksTheOptimum) {
  const std::string svg = svg_hybrid_curve(dual_a100());
  EXPECT_EQ(count_of(svg, "<polyline"), 1u);
  EXPECT_EQ(count_of(svg, "<circle class=\"optimum\""), 1u);
  EXPECT_NE(svg.find(en(Phrase("tco.chart.optimum").fact("b", "0").fact("total", "¥336,384")) + "</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">" + en("tco_owned_gpus") + "</text>"), std::string::npos);
}

TEST(TcoRenderTest, HybridChartMarksAnInteriorOptimumWhereItIs) {
  tco::TcoResult r = dual_a100();
  r.hybrid = {1, 300000, {{0, 336384}, {1, 300000}, {2, 780000}}};
  const std::string svg = svg_hybrid_curve(r);
  // x axis 0..2 over 90..730: B = 1 at x = 410.
  EXPECT_NE(svg.find("<circle class=\"optimum\" cx=\"410.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find(en(Phrase("tco.chart.optimum").fact("b", "1").fact("total", "¥300,000"))), std::string::npos);
}

TEST(TcoRenderTest, TornadoHasOneBarPerInputLargestFirst) {
  const std::string svg = svg_tornado(dual_a100());
  EXPECT_EQ(count_of(svg, "<rect"), 3u);
  const size_t purchase = svg.find(">purchase</text>"), on_demand = svg.find(">on_demand_gpu_hour</text>"),
               electricity = svg.find(">electricity_kwh</text>");
  ASSERT_NE(purchase, std::string::npos);
  ASSERT_NE(on_demand, std::string::npos);
  ASSERT_NE(electricity, std::string::npos);
  EXPECT_LT(purchase, on_demand);
  EXPECT_LT(on_demand, electricity);
  EXPECT_NE(svg.find(en("tco_base") + " ¥443,616"), std::string::npos);
  EXPECT_NE(svg.find(en("tco_buy_equals_rent")), std::string::npos);
  // on_demand_gpu_hour's −20% end is the right one: the labels say so.
  EXPECT_NE(
      svg.find(en(Phrase("tco.chart.bar").fact("input", "purchase").fact("low", "¥323,616").fact("high", "¥563,616"))),
      std::string::npos);
}

TEST(TcoRenderTest, TornadoBarSpansLowToHigh) {
  // x axis 0..600k (6 steps of 100k) over 210..720: purchase 323,616..563,616 → x 485.1, width 204.0.
  const std::string svg = svg_tornado(dual_a100());
  EXPECT_NE(svg.find("<rect class=\"bar\" x=\"485.1\" y=\"70.0\" width=\"204.0\""), std::string::npos) << svg;
}

TEST(TcoRenderTest, ChartsSurviveEmptyResults) {
  tco::TcoResult r;
  for (const std::string& svg : {svg_cumulative_cost(r), svg_hybrid_curve(r), svg_tornado(r)}) {
    EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
    EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
  }
  EXPECT_EQ(count_of(svg_tornado(r), "<rect"), 0u);
  const std::string table = render_tco(r, Format::kTable, Style{});
  EXPECT_NE(table.find(en("tco_not_run")), std::string::npos);
  // Without a name or a demand description the title and subtitle still read.
  EXPECT_EQ(table.rfind(en(Phrase("tco.report.title_unnamed").fact("months", {months("0")})) + "\n", 0), 0u) << table;
  EXPECT_NE(table.find(en(Phrase("tco.report.demand_undescribed").fact("used", "0").fact("utilization", "0.0%"))),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace gpuplan::report
