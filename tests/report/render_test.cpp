// Rendering: number and money formats, display widths and aligned tables, message lookup in
// both languages, the public JSON and Markdown shapes of a quote, and the HTML page of a quote,
// a recommendation and an audit.
#include "report/render.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "core/money.h"
#include "core/yaml_reader.h"
#include "plan/audit.h"
#include "plan/quote.h"
#include "plan/recommend.h"
#include "report/document.h"
#include "report/messages.h"
#include "report/table.h"
#include "test_support.h"

namespace gpuplan::report {
namespace {

using gpuplan::testing::config_from;
using gpuplan::testing::count_of;
using gpuplan::testing::default_catalog;
using gpuplan::testing::expect_self_contained_html;
using gpuplan::testing::source_path;

std::set<std::string> keys_of(const nlohmann::json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

plan::Quote training_quote() {
  auto text = read_text_file(source_path("examples/a100-8gpu-training.yaml"));
  EXPECT_TRUE(text);
  return plan::build_quote(config_from(text ? *text : ""), default_catalog());
}

plan::AuditResult audit_of(const std::string& example) {
  auto q = plan::read_vendor_quote(source_path("examples/" + example), default_catalog());
  EXPECT_TRUE(q);
  return q ? plan::audit_quote(*q, default_catalog()) : plan::AuditResult{};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- Numbers and money ----------------------------------------------------------------------

TEST(RenderTest, FormatNumberGroupsThousandsAndRounds) {
  EXPECT_EQ(format_number(1234567.8), "1,234,568");
  EXPECT_EQ(format_number(999), "999");
  EXPECT_EQ(format_number(1000), "1,000");
  EXPECT_EQ(format_number(-1234.5, 1), "-1,234.5");
  EXPECT_EQ(format_number(1937.5, 2), "1,937.50");
  EXPECT_EQ(format_number(-0.4), "0");  // never "-0"
}

TEST(RenderTest, FormatMoneyPrefixesTheCurrency) {
  EXPECT_EQ(format_money(70000, "CNY"), "¥70,000");
  EXPECT_EQ(format_money(15000, "USD"), "US$15,000");
  EXPECT_EQ(format_money(12, "EUR"), "EUR 12");
  EXPECT_EQ(format_money(3.432, "USD", 2), "US$3.43");
}

TEST(RenderTest, FormatMoneyRangeShowsLowToHighOnce) {
  EXPECT_EQ(format_money_range({70000, 100000}, "CNY"), "¥70,000–100,000");  // one card [S0 §1]
  EXPECT_EQ(format_money_range(Range::point(55000), "CNY"), "¥55,000");
  EXPECT_EQ(format_money_range({55000.2, 54999.8}, "CNY"), "¥55,000");  // both ends print the same
}

// --- Widths and tables ----------------------------------------------------------------------

TEST(RenderTest, DisplayWidthCountsCjkAsTwoCells) {
  EXPECT_EQ(display_width("合计"), 4u);
  EXPECT_EQ(display_width("Total"), 5u);
  EXPECT_EQ(display_width("¥70,000–100,000"), 15u);  // ¥ and – are narrow
  EXPECT_EQ(display_width("\x1b[1;31mFAIL\x1b[0m"), 4u);  // colour codes take no cells
}

TEST(RenderTest, TextTableRightAlignsNumberColumnUnderCjkRows) {
  using A = TextTable::Align;
  TextTable t({"Line", "Qty"}, {A::kLeft, A::kRight});
  t.add_row({"a", "8"});
  t.add_rule();
  t.add_row({"合计", "1,234"});
  // Column widths: max("Line" 4, "a" 1, "合计" 4) = 4 and max("Qty" 3, "8" 1, "1,234" 5) = 5,
  // two spaces between; the rule spans 4 + 2 + 5 = 11 cells.
  const std::string rule = [] {
    std::string r;
    for (int i = 0; i < 11; ++i) r += "─";
    return r;
  }();
  EXPECT_EQ(t.str(), "Line    Qty\n" + rule + "\na         8\n" + rule + "\n合计  1,234\n");
}

// --- Messages -------------------------------------------------------------------------------

TEST(RenderTest, LocalizeFillsFactsInEnglishAndChinese) {
  Finding f = make_finding("audit.service_terms", Severity::kFail, "", "S1 §3");
  f.fact("missing", "MTTR-X");
  const MessageText* m = find_message("audit.service_terms");
  ASSERT_TRUE(m);
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    LocalizedFinding l = localize(f, lang);
    EXPECT_EQ(l.title, lang == Lang::kZh ? m->zh_title : m->en_title);
    EXPECT_NE(l.detail.find("MTTR-X"), std::string::npos) << l.detail;  // the fact, in its place
    EXPECT_EQ(l.detail.find("{missing}"), std::string::npos) << l.detail;
  }
  EXPECT_NE(localize(f, Lang::kEn).detail, localize(f, Lang::kZh).detail);
}

TEST(RenderTest, LocalizePicksTheVariantsMessage) {
  Finding f;
  f.id = "power.rack";
  f.variant = "near";
  f.fact("servers", "1").fact("load", "3,486 W").fact("amps", "16").fact("volts", "220");
  f.fact("capacity", "3,520 W").fact("continuous", "2,816 W").fact("fraction", "80%");
  // The variant's own title and words ("power.rack/near"), not the id's or another variant's.
  const MessageText* near = find_message("power.rack/near");
  ASSERT_TRUE(near);
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    LocalizedFinding l = localize(f, lang);
    EXPECT_EQ(l.title, lang == Lang::kZh ? near->zh_title : near->en_title);
    EXPECT_EQ(l.detail, say("power.rack/near", lang, f.facts));
    EXPECT_NE(l.detail.find("2,816 W"), std::string::npos) << l.detail;
  }
}

TEST(RenderTest, FillLeavesAnUnknownPlaceholderVisible) {
  Phrase p;
  p.fact("a", "1");
  EXPECT_EQ(fill("{a} and {b}", p.facts, Lang::kEn), "1 and {b}");
}

TEST(RenderTest, EveryFindingTheCodeEmitsHasAMessage) {
  const char* keys[] = {
      // quote rules (src/plan/rules.cpp)
      "power.rack/over", "power.rack/near", "power.psu/over", "power.psu/no_redundancy", "pcie.lanes",
      "pcie.slot/form_factor", "pcie.slot/count", "pcie.slot/switched", "pcie.slot/generation", "memory.min",
      "network.rdma/missing", "network.rdma/no_switch", "network.rdma/unneeded", "network.nvlink/missing",
      "network.nvlink/unneeded", "cooling.air", "software.matrix/unspecified", "software.matrix/below_min",
      "software.matrix/not_listed", "software.matrix/cuda_driver", "band.rent_per_gpu/above",
      "band.rent_per_gpu/below", "band.buy_per_gpu/above", "band.buy_per_gpu/below", "market.range/above",
      "market.range/below", "market.range/unknown", "future.pcie5", "future.nvlink", "future.liquid", "future.tpm",
      // audit (src/plan/audit.cpp)
      "audit.line_range/above", "audit.line_range/below", "audit.unpriced_part", "audit.price_from",
      "audit.licence/no_version", "audit.licence/no_modules", "audit.service_terms", "audit.hidden_costs",
      // recommendation reasons (src/plan/recommend.cpp)
      "recommend.rule", "recommend.memory_fit", "recommend.platform", "recommend.cpu", "recommend.memory",
      "recommend.storage", "recommend.network", "recommend.region", "recommend.budget"};
  for (const char* key : keys) EXPECT_TRUE(has_message(key)) << key;
  for (const std::string& field : plan::required_contract_fields())
    EXPECT_TRUE(has_message("contract." + field)) << "contract." << field;
  EXPECT_FALSE(has_message("power.rack/sideways"));
}

// --- Quote shapes ---------------------------------------------------------------------------

TEST(RenderTest, QuoteJsonHasThePublicKeys) {
  nlohmann::json j = quote_json(training_quote(), Lang::kEn);
  for (const char* key : {"currency", "config", "lines", "totals", "per_gpu", "hidden_costs", "findings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["currency"], "CNY");
  EXPECT_EQ(j["config"]["gpus"], 8);
  EXPECT_EQ(j["config"]["nodes"], 1);
  const std::set<std::string> range_keys{"low", "high"};
  ASSERT_FALSE(j["lines"].empty());
  for (const auto& line : j["lines"]) {
    EXPECT_EQ(keys_of(line), (std::set<std::string>{"id", "item", "qty", "buy", "rent_monthly", "source"}));
    EXPECT_EQ(keys_of(line["buy"]), range_keys);
    EXPECT_EQ(keys_of(line["rent_monthly"]), range_keys);
  }
  EXPECT_EQ(keys_of(j["totals"]), (std::set<std::string>{"buy", "rent_monthly"}));
  EXPECT_EQ(keys_of(j["per_gpu"]), (std::set<std::string>{"buy", "rent_monthly"}));
  // The 8-GPU build-up's high is above the market's ¥350,000: the budget is the lines' high.
  EXPECT_EQ(keys_of(j["budget"]), (std::set<std::string>{"amount", "basis"}));
  EXPECT_EQ(j["budget"]["amount"], j["totals"]["buy"]["high"]);
  EXPECT_EQ(j["budget"]["basis"], "build_up");
  EXPECT_EQ(j["hidden_costs"].size(), 11u);  // catalog/hidden_cost.yaml: SPEC A4's nine, S0 §3.3's two
  ASSERT_FALSE(j["findings"].empty());
  for (const auto& f : j["findings"])
    for (const char* key : {"id", "severity", "title", "detail", "source"}) EXPECT_TRUE(f.contains(key)) << key;

  // GPU line: 8 × ¥70,000–100,000 [S0 §1].
  EXPECT_EQ(j["lines"][0]["id"], "a100-80gb-sxm");
  EXPECT_EQ(j["lines"][0]["qty"], 8);
  EXPECT_EQ(j["lines"][0]["buy"]["low"], 560000);
  EXPECT_EQ(j["lines"][0]["buy"]["high"], 800000);
}

TEST(RenderTest, QuoteMarkdownHasATableHeaderRow) {
  plan::Quote q = training_quote();
  std::string en = render_quote(q, Format::kMarkdown, Style{Lang::kEn, false});
  EXPECT_NE(en.find("| Line | Qty | Buy | Rent / month | Source |\n|---|--:|--:|--:|---|\n"), std::string::npos) << en;
  EXPECT_NE(en.find("| NVIDIA A100 80GB SXM4 | 8 | ¥560,000–800,000 | — |"), std::string::npos) << en;
  std::string zh = render_quote(q, Format::kMarkdown, Style{Lang::kZh, false});
  EXPECT_NE(zh.find("| 项目 | 数量 | 采购 | 月租 | 来源 |"), std::string::npos) << zh;
}

TEST(RenderTest, QuoteTableShowsTotalsWithoutColourWhenAsked) {
  std::string out = render_quote(training_quote(), Format::kTable, Style{Lang::kEn, false});
  // Buy: 560,000 + 100,000 + 24,000 + 24,000 + 1,920 + 24,576 + 3,000 + 165,000 = 902,496 (low)
  //      800,000 + 200,000 + 40,000 + 40,000 + 3,072 + 46,080 + 6,000 + 165,000 = 1,300,152 (high)
  EXPECT_NE(out.find("¥902,496–1,300,152"), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b["), std::string::npos);
}

TEST(RenderTest, QuoteTableColoursTheSeverityTagsOnly) {
  const plan::Quote q = training_quote();
  ASSERT_FALSE(q.findings.empty());
  const std::string plain = render_quote(q, Format::kTable, Style{Lang::kEn, false});
  const std::string colour = render_quote(q, Format::kTable, Style{Lang::kEn, true});
  const std::string tag = severity_label(q.findings[0].severity, Lang::kEn);
  EXPECT_TRUE(has(colour, "\x1b[0m  " + q.findings[0].id)) << colour;
  // Without the escape codes the colour text is the plain text.
  std::string stripped;
  for (size_t i = 0; i < colour.size(); ++i) {
    if (colour[i] == '\x1b')
      i = colour.find('m', i);
    else
      stripped += colour[i];
  }
  EXPECT_EQ(stripped, plain);
  EXPECT_TRUE(has(plain, "  " + tag));
}

TEST(RenderTest, QuoteHtmlIsOnePageWithTheLinesTotalsAndFindings) {
  const plan::Quote q = training_quote();
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    const std::string page = render_quote(q, Format::kHtml, Style{lang, false});
    expect_self_contained_html(page, lang == Lang::kZh ? "zh-CN" : "en", 0);
    EXPECT_EQ(count_of(page, "</html>"), 1u);
    EXPECT_TRUE(has(page, "<th>" + ui("line", lang) + "</th><th class=\"num\">" + ui("qty", lang) + "</th>"));
    EXPECT_TRUE(
        has(page, "<td>NVIDIA A100 80GB SXM4</td><td class=\"num\">8</td><td class=\"num\">¥560,000–800,000</td>"))
        << page;
    EXPECT_TRUE(has(page, "<tr class=\"strong\"><td>" + ui("total", lang) + "</td>"));
    EXPECT_TRUE(has(page, "¥902,496–1,300,152"));
    EXPECT_TRUE(has(page, "<h2>" + ui("hidden_costs", lang) + "</h2>"));
    EXPECT_TRUE(has(page, "<h2>" + ui("findings", lang) + "</h2>"));
    for (const Finding& f : q.findings) {
      EXPECT_TRUE(has(page, "<tr class=\"" + std::string(severity_name(f.severity)) + "\"><td>" +
                                severity_label(f.severity, lang) + "</td><td><code>" + f.id + "</code></td>"))
          << f.id;
      EXPECT_TRUE(has(page, "<strong>" + html_escape(localize(f, lang).title) + "</strong>")) << f.id;
    }
    EXPECT_FALSE(has(page, "[1]"));  // the sources stand in their cells
    EXPECT_EQ(page.find("\x1b["), std::string::npos);
  }
}

TEST(RenderTest, QuoteHtmlEscapesTheConfigurationsWords) {
  plan::Quote q = training_quote();
  q.config.name = "<script>alert(\"x\")</script> & co";
  const std::string page = render_quote(q, Format::kHtml, Style{Lang::kEn, false});
  EXPECT_FALSE(has(page, "<script>"));
  EXPECT_TRUE(has(page, "<h1>Quote: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co</h1>")) << page;
  EXPECT_TRUE(has(page, "<title>Quote: &lt;script&gt;"));
}

TEST(RenderTest, RecommendationHtmlIsOnePageWithItsQuote) {
  plan::Workload w;
  w.task = plan::Task::kFinetune;
  w.params_b = 13;
  w.dataset_tb = 2;
  auto r = plan::recommend(w, default_catalog());
  ASSERT_TRUE(r);
  const std::string page = render_recommendation(*r, Format::kHtml, Style{Lang::kZh, false});
  expect_self_contained_html(page, "zh-CN", 0);
  EXPECT_EQ(count_of(page, "<h1>"), 2u);  // the recommendation, then its quote
  EXPECT_EQ(page.find("<h1>" + ui("recommendation", Lang::kZh)), page.find("<h1>"));
  EXPECT_TRUE(has(page, "<h2>" + ui("why", Lang::kZh) + colon(Lang::kZh, false) + "</h2>\n<ul>\n<li>"));
  for (const Finding& f : r->why) EXPECT_TRUE(has(page, "<li>" + html_escape(localize(f, Lang::kZh).detail) + "</li>"));
  EXPECT_TRUE(has(page, "<h1>" + ui("quote", Lang::kZh) + colon(Lang::kZh)));
}

TEST(RenderTest, AuditHtmlShowsTheVerdictTotalsAndFindings) {
  const plan::AuditResult a = audit_of("vendor-quote-padded.yaml");
  ASSERT_TRUE(a.failed());
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    const std::string page = render_audit(a, Format::kHtml, Style{lang, false});
    expect_self_contained_html(page, lang == Lang::kZh ? "zh-CN" : "en", 0);
    EXPECT_TRUE(has(page, "<h1>" + html_escape(ui("audit", lang) + colon(lang) + a.vendor) + "</h1>"));
    EXPECT_TRUE(has(page, "<p class=\"sub\"><strong>" + ui("verdict", lang) + colon(lang) + ui("fail", lang) +
                              "</strong></p>\n<ul>\n<li>"))
        << page;
    EXPECT_TRUE(has(page, "¥1,391,200"));
    // The failed findings, and the three lines above the catalog in the line table.
    EXPECT_EQ(count_of(page, "<tr class=\"fail\">"),
              3 + static_cast<size_t>(std::count_if(a.findings.begin(), a.findings.end(),
                                                    [](const Finding& f) { return f.severity == Severity::kFail; })));
    EXPECT_TRUE(has(page, "<h2>" + ui("audit.lines", lang) + "</h2>"));
    EXPECT_TRUE(has(page, "<td class=\"num\">+¥112,000</td>")) << page;  // (26,000 − 12,000) × 8
    EXPECT_TRUE(has(page, "<tr class=\"strong\"><td></td><td>" + ui("audit.overcharge", lang) + "</td>"));
    EXPECT_TRUE(has(page, "¥177,120"));
    EXPECT_TRUE(has(page, "<code>audit.line_range</code>"));
    // "From" price: the quotes in the English finding are escaped.
    if (lang == Lang::kEn) {
      EXPECT_TRUE(has(page, "<strong>&quot;From&quot; price</strong>")) << page;
    }
  }
}

TEST(RenderTest, AuditJsonHasTheLineTable) {
  const nlohmann::json j =
      nlohmann::json::parse(render_audit(audit_of("vendor-quote-padded.yaml"), Format::kJson, Style{}));
  ASSERT_EQ(j["lines"].size(), 7u);
  EXPECT_EQ(keys_of(j["lines"][0]),
            (std::set<std::string>{"item", "part", "qty", "monthly", "line", "quoted", "catalog", "verdict", "over"}));
  EXPECT_EQ(j["lines"][3]["verdict"], "above");
  EXPECT_EQ(j["lines"][3]["over"], 27200);  // (4,200 − 2,500) × 16
  EXPECT_EQ(j["lines"][6]["catalog"], nullptr);
  EXPECT_EQ(j["lines"][6]["part"], nullptr);
  EXPECT_EQ(j["overcharge"]["once"], 177120);
  EXPECT_EQ(j["overcharge"]["monthly"], 0);
  // The terminal in Chinese: the table's heading and the verdict word.
  const std::string zh = render_audit(audit_of("vendor-quote-padded.yaml"), Format::kTable, Style{Lang::kZh, false});
  EXPECT_TRUE(has(zh, "逐项对照目录：")) << zh;
  EXPECT_TRUE(has(zh, "偏高"));
  EXPECT_TRUE(has(zh, "多收合计"));
}

TEST(RenderTest, AuditTableColoursTheVerdictOnlyWhenAsked) {
  const plan::AuditResult a = audit_of("vendor-quote-padded.yaml");
  const std::string plain = render_audit(a, Format::kTable, Style{Lang::kEn, false});
  const std::string colour = render_audit(a, Format::kTable, Style{Lang::kEn, true});
  EXPECT_TRUE(has(plain, "\nVerdict: fail\n")) << plain;
  EXPECT_TRUE(has(colour, "\nVerdict: \x1b[1;31mfail\x1b[0m\n")) << colour;
  EXPECT_EQ(plain.find("\x1b["), std::string::npos);
  EXPECT_EQ(render_audit(a, Format::kMarkdown, Style{Lang::kEn, true}).find("\x1b["), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::report
