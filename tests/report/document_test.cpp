// Document writers on hand-made reports: the parts the quote, audit, accept and diagnose reports
// need (blocks without a heading, lines shown in one kind of output only, named values, findings,
// numbered sources and rules, the kQuote look, several reports on one page), each written by
// the terminal, Markdown and HTML writers.
#include "report/document.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.h"

namespace gpuplan::report {
namespace {

using gpuplan::testing::count_of;

const Style kPlain{Lang::kEn, false};
const Style kColour{Lang::kEn, true};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The page's body: what comes after <body>.
std::string body_of(const std::string& page) {
  const size_t at = page.find("<body>\n");
  return at == std::string::npos ? "" : page.substr(at + 7);
}

std::string rule(size_t cells) {
  std::string out;
  for (size_t i = 0; i < cells; ++i) out += "─";
  return out;
}

TEST(DocumentTest, ABlockWithoutAHeadingGoesOnFromTheTextAbove) {
  Report r;
  r.title = "T";
  r.subtitle = {Line("s")};
  Block b;
  b.lines = {Line("x")};
  r.blocks.push_back(b);
  EXPECT_EQ(terminal_text(r, kPlain), "T\ns\n\nx\n");  // no heading line, no indent
  EXPECT_EQ(markdown_text(r), "# T\n\ns\n\nx\n");
  EXPECT_EQ(body_of(html_text(r, Lang::kEn)),
            "<h1>T</h1>\n<p class=\"sub\">s</p>\n<section>\n<p>x</p>\n</section>\n</body>\n</html>\n");
}

TEST(DocumentTest, MarkdownWithoutASubtitleGoesFromTheTitleToTheFirstHeading) {
  Report r;
  r.title = "T";
  Block b;
  b.heading = "H";
  b.lines = {Line("a", true), Line("b", true)};
  r.blocks.push_back(b);
  EXPECT_EQ(markdown_text(r), "# T\n\n## H\n\n- a\n- b\n");
  EXPECT_EQ(terminal_text(r, kPlain), "T\n\nH\n  • a\n  • b\n");
}

TEST(DocumentTest, LinesAndBlocksShownInOneKindOfOutputOnly) {
  Report r;
  r.title = "T";
  Line terminal_only("terminal words");
  terminal_only.shown = Shown::kTerminal;
  Line pages_only("page words", true);
  pages_only.shown = Shown::kPages;
  r.subtitle = {terminal_only, pages_only};
  Block pages_block;
  pages_block.heading = "Pages";
  pages_block.shown = Shown::kPages;
  Block terminal_block;
  terminal_block.heading = "Terminal";
  terminal_block.shown = Shown::kTerminal;
  r.blocks = {pages_block, terminal_block};

  EXPECT_EQ(terminal_text(r, kPlain), "T\nterminal words\n\nTerminal\n");
  EXPECT_EQ(markdown_text(r), "# T\n\n- page words\n\n## Pages\n");
  const std::string page = html_text(r, Lang::kEn);
  EXPECT_TRUE(contains(page, "<ul>\n<li>page words</li>\n</ul>\n<section>\n<h2>Pages</h2>\n</section>\n")) << page;
  EXPECT_FALSE(contains(page, "terminal words"));
  EXPECT_FALSE(contains(page, "Terminal"));
}

TEST(DocumentTest, StrongAndColouredLines) {
  Report r;
  r.title = "T";
  Line verdict("Verdict: fail");
  verdict.strong = true;
  verdict.colour = "Verdict: \x1b[31mfail\x1b[0m";
  r.subtitle = {verdict};
  EXPECT_EQ(terminal_text(r, kPlain), "T\nVerdict: fail\n");
  EXPECT_EQ(terminal_text(r, kColour), "\x1b[1mT\x1b[0m\nVerdict: \x1b[31mfail\x1b[0m\n");
  EXPECT_EQ(markdown_text(r), "# T\n\n**Verdict: fail**\n");
  EXPECT_TRUE(contains(html_text(r, Lang::kEn), "<p class=\"sub\"><strong>Verdict: fail</strong></p>\n"));
}

TEST(DocumentTest, EntriesAlignInTheTerminalAndListOnThePages) {
  Report r;
  r.title = "T";
  Block b;
  b.heading = "Costs";
  b.entries = {{"Staff", "not included"}, {"备份", "¥1–2/month"}};
  r.blocks.push_back(b);
  // Names padded to the widest (5 cells) plus two spaces; 备份 is four cells wide.
  EXPECT_EQ(terminal_text(r, kPlain), "T\n\nCosts\n  Staff  not included\n  备份   ¥1–2/month\n");
  EXPECT_EQ(markdown_text(r), "# T\n\n## Costs\n\n- Staff: not included\n- 备份: ¥1–2/month\n");
  EXPECT_TRUE(contains(html_text(r, Lang::kEn),
                       "<tr><td>Staff</td><td>not included</td></tr>\n<tr><td>备份</td><td>¥1–2/month</td></tr>\n"));
}

Report report_with_findings() {
  Report r;
  r.title = "T";
  Block b;
  b.heading = "Findings";
  FindingList list;
  list.columns = {"Severity", "Id", "Finding", "Source"};
  list.rows.push_back({Severity::kFail, "FAIL", "\x1b[31m", "power.rack", "Rack <over>", "5 kW | 3 kW", {}, "S0 §3.3"});
  list.rows.push_back(
      {Severity::kInfo, "INFO", "\x1b[36m", "future.pcie5", "No PCIe 5", "", {"slot 1", "slot 2"}, "S1 §6"});
  b.findings = list;
  r.blocks.push_back(b);
  return r;
}

TEST(DocumentTest, FindingsAreAListInTheTerminal) {
  const Report r = report_with_findings();
  EXPECT_EQ(terminal_text(r, kPlain),
            "T\n\nFindings\n"
            "  FAIL  power.rack                   Rack <over>\n"
            "        5 kW | 3 kW\n"
            "        [S0 §3.3]\n"
            "  INFO  future.pcie5                 No PCIe 5\n"
            "        · slot 1\n"
            "        · slot 2\n"
            "        [S1 §6]\n");
  EXPECT_TRUE(contains(terminal_text(r, kColour), "  \x1b[31mFAIL\x1b[0m  power.rack"));
}

TEST(DocumentTest, FindingsListTakesItsGeometry) {
  Report r = report_with_findings();
  FindingList& list = *r.blocks[0].findings;
  list.tag_width = 6;
  list.tag_gap = 1;
  list.id_width = 11;  // shorter than "future.pcie5": one space still follows it
  list.indent = 4;
  const std::string text = terminal_text(r, kPlain);
  EXPECT_TRUE(contains(text, "  FAIL   power.rack Rack <over>\n    5 kW | 3 kW\n")) << text;
  EXPECT_TRUE(contains(text, "  INFO   future.pcie5 No PCIe 5\n    · slot 1\n")) << text;
}

TEST(DocumentTest, FindingsAreATableOnThePages) {
  const Report r = report_with_findings();
  EXPECT_EQ(markdown_text(r),
            "# T\n\n## Findings\n\n"
            "| Severity | Id | Finding | Source |\n|---|---|---|---|\n"
            "| FAIL | `power.rack` | **Rack <over>** 5 kW \\| 3 kW | S0 §3.3 |\n"
            "| INFO | `future.pcie5` | **No PCIe 5**  | S1 §6 |\n");
  const std::string page = html_text(r, Lang::kEn);
  EXPECT_TRUE(contains(page,
                       "<tr class=\"fail\"><td>FAIL</td><td><code>power.rack</code></td>"
                       "<td><strong>Rack &lt;over&gt;</strong> 5 kW | 3 kW</td><td>S0 §3.3</td></tr>\n"))
      << page;
  EXPECT_TRUE(contains(page, "<tr class=\"info\">"));
  EXPECT_TRUE(contains(page, "tr.fail td:first-child"));  // the severity colours come with findings only
  EXPECT_FALSE(contains(page, "slot 1"));                 // evidence is the terminal's
}

Report report_with_sources() {
  Report r;
  r.title = "T";
  Block b;
  b.columns = {"Item", "Source"};
  b.rows = {{"a", "src one"}, {"b", "src two"}, {"c", "src one"}, {"total", ""}};
  b.strong = {false, false, false, true};
  b.sources_column = 1;
  b.rules_before = {3};
  r.blocks.push_back(b);
  return r;
}

TEST(DocumentTest, TheTerminalNumbersSourcesAndDrawsRules) {
  // Columns: "total" (5 cells) and "Source" (6), two spaces apart: a rule of 13 cells.
  EXPECT_EQ(terminal_text(report_with_sources(), kPlain), "T\n\nItem   Source\n" + rule(13) +
                                                              "\na      [1]\nb      [2]\nc      [1]\n" + rule(13) +
                                                              "\ntotal\n\n  [1] src one\n  [2] src two\n");
}

TEST(DocumentTest, ThePagesWriteSourcesInTheirCells) {
  const std::string md = markdown_text(report_with_sources());
  EXPECT_TRUE(contains(md, "| a | src one |\n| b | src two |\n| c | src one |\n| **total** |  |\n")) << md;
  const std::string page = html_text(report_with_sources(), Lang::kEn);
  EXPECT_EQ(count_of(page, "<td>src one</td>"), 2u);
  EXPECT_FALSE(contains(page, "[1]"));
}

TEST(DocumentTest, QuoteLookIsPlainInTheTerminalAndTightInMarkdown) {
  Report r = report_with_sources();
  r.look = Look::kQuote;
  r.heading_end = ":";
  r.blocks[0].heading = "Lines";
  const std::string colour = terminal_text(r, kColour);
  EXPECT_EQ(colour.find("\x1b["), std::string::npos) << colour;  // no bold, the strong row not green
  EXPECT_EQ(colour.rfind("T\n\nLines:\nItem", 0), 0u) << colour;
  EXPECT_TRUE(contains(markdown_text(r), "\n## Lines\n"));  // the colon is the terminal's
  EXPECT_TRUE(contains(markdown_text(r), "| **total** | |\n"));
}

TEST(DocumentTest, TheTitleHasItsOwnColour) {
  Report r;
  r.title = "Accept: FAIL";
  r.title_colour = "Accept: \x1b[31mFAIL\x1b[0m";
  r.look = Look::kQuote;
  EXPECT_EQ(terminal_text(r, kColour), "Accept: \x1b[31mFAIL\x1b[0m\n");
  EXPECT_EQ(terminal_text(r, kPlain), "Accept: FAIL\n");
}

TEST(DocumentTest, ReportsOneAfterAnother) {
  Report first;
  first.title = "First <1>";
  first.subtitle = {Line("one")};
  Report second;
  second.title = "Second";
  second.subtitle = {Line("two")};
  const std::vector<Report> parts = {first, second};
  EXPECT_EQ(write_reports(parts, Format::kTable, kPlain), "First <1>\none\n\nSecond\ntwo\n");
  EXPECT_EQ(write_reports(parts, Format::kMarkdown, kPlain), "# First <1>\n\none\n\n# Second\n\ntwo\n");
  const std::string page = write_reports(parts, Format::kHtml, Style{Lang::kZh, false});
  gpuplan::testing::expect_self_contained_html(page, "zh-CN", 0);
  EXPECT_TRUE(contains(page, "<title>First &lt;1&gt;</title>"));
  EXPECT_EQ(count_of(page, "<h1>"), 2u);
  EXPECT_EQ(count_of(page, "<html"), 1u);
  EXPECT_THROW(write_reports(parts, Format::kJson, kPlain), std::logic_error);
  EXPECT_EQ(write_report(first, Format::kTable, kPlain), terminal_text(first, kPlain));
}

}  // namespace
}  // namespace gpuplan::report
