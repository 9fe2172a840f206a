// Document: the model shared by the TCO and usage reports, and its three writers. A renderer
// builds its report once as data (a title, subtitle lines, then sections of lines, a text grid,
// a table and an SVG) and writes it as a terminal report, Markdown or one HTML page; also the
// escaping, number and SVG text helpers both renderers draw with.
//
// A caller may rely on: each writer is a pure function of the Report; the terminal gets ANSI
// escapes only when style.colour; the HTML page is self-contained (no scripts, fonts or links)
// and escapes every piece of text, while Block::svg goes in as it is (escaping inside it is the
// SVG's maker's job); Markdown escapes "|" in table cells and writes other text as it is.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/messages.h"
#include "report/render.h"
#include "report/table.h"

namespace gpuplan::report {

struct Line {
  std::string text;
  bool bullet = false;
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
  std::string heading;
  std::vector<Line> lines;
  bool monospace = false;  // the lines are file:line citations: a code block in Markdown, monospaced in HTML
  std::optional<TextGrid> grid;
  std::vector<std::string> columns;     // empty: no table
  std::vector<TextTable::Align> align;  // missing: left
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> strong;  // per row: emphasised (the cheapest strategy)
  std::vector<double> bars;  // per row, 0..1: a bar after the last column; empty: no bar column
  size_t terminal_rows = std::numeric_limits<size_t>::max();  // the terminal shows at most these rows
  std::string terminal_more;                                  // said under a table the terminal cut short
  std::string svg;                                            // HTML only, after the lines and the table

  bool right(size_t column) const { return column < align.size() && align[column] == TextTable::Align::kRight; }
};

// Where the two reports were designed apart; the writers keep each report's look exactly.
enum class Look {
  // Each plain line is its own paragraph; table cells sit at the top of their row (long text
  // wraps).
  kDocument,
  // A run of plain lines is one paragraph with line breaks (Markdown lines end in "  ", the
  // page stacks subtitle lines without a gap); table cells are centred beside their bars.
  kDashboard,
};

struct Report {
  std::string title;
  std::vector<std::string> subtitle;  // one line each
  std::vector<Block> blocks;
  Look look = Look::kDocument;
};

// Title, subtitle, then each block: heading, lines ("  " indent, "• " bullets), grid, and the
// table (cut at terminal_rows, then "  … terminal_more"); bold headings and green strong rows
// only when style.colour. style.lang is not read: the report already holds its words.
std::string terminal_text(const Report& report, const Style& style);

// "# title", subtitle, "## heading" per block; monospace lines and grids in ```text blocks;
// tables as pipe tables (right-aligned columns "--:", strong rows in **bold**).
std::string markdown_text(const Report& report);

// One complete HTML page (<html lang> from `lang`) with its CSS inlined: a <section> per block
// with its lines (<p>, bullets as <ul>), table (class "num" on right-aligned cells, "strong" on
// strong rows, bars as sized <span>s) and svg in a <figure>.
std::string html_text(const Report& report, Lang lang);

// The report in `format` by one of the three writers above (HTML in style.lang). A Report has
// no JSON form: each renderer's JSON shape is its own, so kJson here is a programming error
// (std::logic_error).
std::string write_report(const Report& report, Format format, const Style& style);

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
