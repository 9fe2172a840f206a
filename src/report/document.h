// Document: the one model every verb's report is built as, and its three writers. A renderer
// builds its report once as data (a title, subtitle lines, then sections of lines, a text grid,
// named values, findings, a table and an SVG) and writes it as a terminal report, Markdown or
// one HTML page; also the escaping, number and SVG text helpers the renderers draw with.
//
// A caller may rely on: each writer is a pure function of the Report; the terminal gets ANSI
// escapes only when style.colour; the HTML page is self-contained (no scripts, fonts or links)
// and escapes every piece of text, while Block::svg goes in as it is (escaping inside it is the
// SVG's maker's job); Markdown escapes "|" in table cells and writes other text as it is; the
// terminal and Markdown writers escape every control character but newline and tab in the text
// they are given (report/escape.h), keeping only their own colour sequences.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/finding.h"
#include "report/messages.h"
#include "report/render.h"
#include "report/table.h"

namespace gpuplan::report {

// Where a line or a block shows: where a report's terminal and page layouts were designed apart,
// each keeps its own words.
enum class Shown {
  kEverywhere,
  kTerminal,  // the terminal only
  kPages,     // Markdown and HTML only
};

struct Line {
  // Not explicit: a plain string is a plain line (report.subtitle.push_back(sentence)).
  Line(std::string words, bool is_bullet = false) : text(std::move(words)), bullet(is_bullet) {}

  std::string text;
  bool bullet = false;
  bool strong = false;  // bold in Markdown and HTML
  std::string colour;   // the terminal's text when style.colour (with ANSI escapes); empty: `text`
  Shown shown = Shown::kEverywhere;
};

// A name and its value: aligned in two columns in the terminal, "- name: value" in Markdown.
struct Entry {
  std::string name;
  std::string value;
};

// One finding (or acceptance check) as the report words it.
struct FindingRow {
  Severity severity = Severity::kInfo;  // the HTML row's class ("fail", "warn", …)
  std::string tag;                      // the severity as a word: "FAIL" / "失败"
  std::string ansi;                     // the tag's colour in a colour terminal (an ANSI escape)
  std::string id;
  std::string title;
  std::string detail;
  std::vector<std::string> evidence;  // the terminal lists them under the detail ("· "); the pages do not
  std::string source;
};

// Findings: a list in the terminal, a table under `columns` (severity, id, finding, source) in
// Markdown and HTML. The terminal writes "  TAG  id  title" with the tag padded to tag_width
// cells and tag_gap spaces after it, the id padded to id_width characters (at least one space),
// then the detail, the evidence and "[source]" each on a line `indent` spaces deep.
struct FindingList {
  std::vector<std::string> columns;
  std::vector<FindingRow> rows;
  size_t tag_width = 4;
  size_t tag_gap = 2;
  size_t id_width = 29;
  size_t indent = 8;
};

// A picture drawn in characters (a heatmap) for the terminal and Markdown; HTML draws
// Block::svg in its place.
struct TextGrid {
  std::string plain;               // lines ending in "\n", no escape codes
  std::string colour;              // the same with ANSI colour, for a colour terminal
  std::string legend;              // written under it as it is (own indent and "\n")
  std::string legend_colour;       // the same with ANSI colour
  std::vector<std::string> notes;  // a sentence each, under the legend
};

struct Block {
  std::string heading;  // empty: the block goes on from the text above (no heading; terminal lines flush left)
  std::vector<Line> lines;
  bool monospace = false;  // the lines are file:line citations: a code block in Markdown, monospaced in HTML
  std::optional<TextGrid> grid;
  std::vector<Entry> entries;
  std::optional<FindingList> findings;
  std::vector<std::string> columns;     // empty: no table
  std::vector<TextTable::Align> align;  // missing: left
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> strong;  // per row: emphasised (a total, the cheapest strategy): bold, no colour
  // Per row: the verdict the row states, painted on the pages in the one status scheme that
  // findings use (pass, info, warn, fail, needs-evidence); missing or nullopt: no status.
  std::vector<std::optional<Severity>> status;
  std::vector<double> bars;  // per row, 0..1: a bar after the last column; empty: no bar column
  size_t terminal_rows = std::numeric_limits<size_t>::max();  // the terminal shows at most these rows
  std::string terminal_more;                                  // said under a table the terminal cut short
  std::vector<size_t> rules_before;                           // the terminal draws a rule above each of these rows
  // The terminal cites this column's texts by number ("[2]", first seen first) and lists them
  // under the table; the pages write them in their cells.
  std::optional<size_t> sources_column;
  std::string svg;  // HTML only, after the lines and the table
  Shown shown = Shown::kEverywhere;

  bool right(size_t column) const { return column < align.size() && align[column] == TextTable::Align::kRight; }
};

// Where the reports were designed apart; the writers keep each report's look exactly.
enum class Look {
  // Each plain line is its own paragraph; table cells sit at the top of their row (long text
  // wraps).
  kDocument,
  // A run of plain lines is one paragraph with line breaks (Markdown lines end in "  ", the
  // page stacks subtitle lines without a gap); table cells are centred beside their bars.
  kDashboard,
  // The quote, the recommendation and the audit (and the terminal of accept and diagnose): as
  // kDocument, but the terminal writes no bold and leaves strong rows plain, and Markdown writes
  // an empty table cell as "| |".
  kQuote,
};

struct Report {
  std::string title;
  std::string title_colour;    // the terminal's title when style.colour; empty: `title`
  std::vector<Line> subtitle;  // one line each
  std::vector<Block> blocks;
  Look look = Look::kDocument;
  std::string heading_end;  // the terminal writes it after each heading (a colon)
};

// Title, subtitle, then each block: heading, lines ("  " indent, "• " bullets), grid, entries,
// findings, and the table (cut at terminal_rows, then "  … terminal_more"; then its numbered
// sources); bold headings and green strong rows only when style.colour (never in kQuote).
// style.lang is not read: the report already holds its words. Lines and blocks shown on the
// pages only are left out.
std::string terminal_text(const Report& report, const Style& style);

// "# title", subtitle, "## heading" per block; monospace lines and grids in ```text blocks;
// entries as a list; findings and tables as pipe tables (right-aligned columns "--:", strong rows
// in **bold**). Lines and blocks shown in the terminal only are left out.
std::string markdown_text(const Report& report);

// One complete HTML page (<html lang> from `lang`) with its CSS inlined: a <section> per block
// with its lines (<p>, bullets as <ul>), entries, findings (a row class per severity), table
// (class "num" on right-aligned cells, "strong" on strong rows, bars as sized <span>s) and svg in
// a <figure>. Lines and blocks shown in the terminal only are left out.
std::string html_text(const Report& report, Lang lang);

// The report in `format` by one of the three writers above (HTML in style.lang). A Report has
// no JSON form: each renderer's JSON shape is its own, so kJson here is a programming error
// (std::logic_error).
std::string write_report(const Report& report, Format format, const Style& style);

// Reports one after another (a recommendation, then its quote): the terminal's and Markdown's
// texts joined by a blank line; one HTML page, titled by the first, with an <h1> for each.
std::string write_reports(const std::vector<Report>& parts, Format format, const Style& style);

// &, <, >, " and ' as entities: safe in HTML/SVG text and attribute values.
std::string html_escape(std::string_view text);

// "42.5%" for 42.5: one decimal, with format_number's grouping.
std::string format_percent(double pct);

// An SVG coordinate or length: one decimal ("12.0").
std::string svg_number(double v);

// A <text> element at (x, y), the text escaped; `extra` is more attributes, written as given.
std::string svg_text(double x, double y, const std::string& text, std::string_view anchor = "start",
                     std::string_view extra = "");

}  // namespace gpuplan::report
