#include "report/document.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/money.h"
#include "report/escape.h"

namespace gpuplan::report {
namespace {

using A = TextTable::Align;

constexpr int kBarWidth = 30;  // cells of a full (100%) text bar

// A bar of `fraction` (0..1) of kBarWidth cells, in eighths.
std::string text_bar(double fraction) {
  static constexpr std::string_view kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const long eighths = std::lround(std::clamp(fraction, 0.0, 1.0) * kBarWidth * 8);
  std::string out;
  for (long i = 0; i < eighths / 8; ++i) out += "█";
  return out + std::string(kEighths[eighths % 8]);
}

double bar_of(const Block& b, size_t row) {
  return row < b.bars.size() ? b.bars[row] : 0;
}

bool is_strong(const Block& b, size_t row) {
  return row < b.strong.size() && b.strong[row];
}

// Each line of `text` with `pad` in front.
std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out += pad + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

// No scripts, fonts or links: the page must open offline and from an untrusted mailbox.
constexpr std::string_view kCssHead = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", "Microsoft YaHei", sans-serif;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
)";
constexpr std::string_view kCssTable = R"(th { background: #f4f4f4; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.strong td { font-weight: 700; }
)";
constexpr std::string_view kCssBarsAndLines = R"(td.bar { width: 320px; }
.bar span { display: block; height: .9em; background: #3182bd; border-radius: 2px; }
.lines { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
.lines p { margin: .1em 0; }
)";
constexpr std::string_view kCssTail = R"(figure { margin: 1em 0; }
svg { max-width: 100%; height: auto; }
)";

// The one status scheme of every page: a row's first cell (its status word) takes the colour and a
// bar of it on the left edge, so a verdict reads the same in accept, diagnose, quote and audit.
constexpr std::string_view kCssStatus = R"(tr.pass td:first-child { color: #1a7f37; font-weight: 600; }
tr.info td:first-child { color: #175cd3; }
tr.warn td:first-child { color: #b54708; font-weight: 600; }
tr.fail td:first-child { color: #b42318; font-weight: 700; }
tr.needs-evidence td:first-child { color: #6941c6; font-weight: 600; }
tr.pass td:first-child, tr.info td:first-child, tr.warn td:first-child, tr.fail td:first-child,
tr.needs-evidence td:first-child { border-left: 4px solid currentColor; white-space: nowrap; }
)";

bool shown_in_terminal(Shown s) {
  return s != Shown::kPages;
}
bool shown_on_pages(Shown s) {
  return s != Shown::kTerminal;
}

// The lines a page writer shows.
std::vector<Line> on_pages(const std::vector<Line>& lines) {
  std::vector<Line> out;
  for (const Line& l : lines)
    if (shown_on_pages(l.shown)) out.push_back(l);
  return out;
}

bool any_block(const std::vector<Report>& parts, bool (*test)(const Block&)) {
  for (const Report& r : parts)
    if (std::any_of(r.blocks.begin(), r.blocks.end(), test)) return true;
  return false;
}

std::string page_css(const std::vector<Report>& parts) {
  const bool dashboard = parts.front().look == Look::kDashboard;
  const bool bars_or_lines =
      dashboard || any_block(parts, [](const Block& b) { return !b.bars.empty() || b.monospace; });
  std::string css(kCssHead);
  css += dashboard ? ".sub { color: #555; margin: 0; }\n" : ".sub { color: #555; margin-top: 0; }\n";
  css += "table { border-collapse: collapse; margin: .6em 0; }\n";
  css += fmt::format(
      "th, td {{ padding: .3em .8em; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: {}; }}\n",
      dashboard ? "middle" : "top");
  css += kCssTable;
  if (bars_or_lines) css += kCssBarsAndLines;
  if (any_block(parts, [](const Block& b) { return b.findings.has_value() || !b.status.empty(); })) css += kCssStatus;
  return css + std::string(kCssTail);
}

// --- The terminal ---------------------------------------------------------------------------

std::string terminal_lines(const std::vector<Line>& lines, const std::string& pad, const Style& style) {
  std::string out;
  for (const Line& l : lines)
    if (shown_in_terminal(l.shown))
      out += pad + (l.bullet ? "• " : "") + (style.colour && !l.colour.empty() ? l.colour : l.text) + "\n";
  return out;
}

std::string terminal_entries(const std::vector<Entry>& entries) {
  size_t width = 0;
  for (const Entry& e : entries) width = std::max(width, display_width(e.name));
  std::string out;
  for (const Entry& e : entries)
    out += "  " + e.name + std::string(width + 2 - display_width(e.name), ' ') + e.value + "\n";
  return out;
}

std::string terminal_findings(const FindingList& list, const Style& style) {
  const std::string indent(list.indent, ' ');
  std::string out;
  for (const FindingRow& f : list.rows) {
    const size_t width = display_width(f.tag);
    std::string tag = f.tag + std::string(list.tag_width > width ? list.tag_width - width : 0, ' ');
    if (style.colour) tag = f.ansi + tag + "\x1b[0m";
    out += "  " + tag + std::string(list.tag_gap, ' ') + f.id +
           std::string(f.id.size() < list.id_width ? list.id_width - f.id.size() : 1, ' ') + f.title + "\n";
    if (!f.detail.empty()) out += indent + f.detail + "\n";
    for (const auto& e : f.evidence) out += indent + "· " + e + "\n";
    out += indent + "[" + f.source + "]\n";
  }
  return out;
}

// "[n]" for `source`, numbered in the order first cited.
std::string cite(std::vector<std::string>& sources, const std::string& source) {
  auto it = std::find(sources.begin(), sources.end(), source);
  if (it == sources.end()) it = sources.insert(sources.end(), source);
  return "[" + std::to_string(it - sources.begin() + 1) + "]";
}

std::string terminal_table(const Block& b, bool green_rows) {
  auto green = [&](const std::string& s) { return green_rows && !s.empty() ? "\x1b[1;32m" + s + "\x1b[0m" : s; };
  std::vector<std::string> columns = b.columns;
  std::vector<A> align = b.align;
  if (!b.bars.empty()) columns.push_back(""), align.push_back(A::kLeft);
  TextTable t(columns, align);
  std::vector<std::string> sources;
  for (size_t i = 0; i < b.rows.size() && i < b.terminal_rows; ++i) {
    if (std::find(b.rules_before.begin(), b.rules_before.end(), i) != b.rules_before.end()) t.add_rule();
    std::vector<std::string> row = b.rows[i];
    if (b.sources_column && *b.sources_column < row.size() && !row[*b.sources_column].empty())
      row[*b.sources_column] = cite(sources, row[*b.sources_column]);
    if (is_strong(b, i))
      for (auto& cell : row) cell = green(cell);
    if (!b.bars.empty()) row.push_back(text_bar(bar_of(b, i)));
    t.add_row(std::move(row));
  }
  std::string out = t.str();
  if (b.rows.size() > b.terminal_rows && !b.terminal_more.empty()) out += "  … " + b.terminal_more + "\n";
  if (b.sources_column) {
    out += "\n";
    for (size_t i = 0; i < sources.size(); ++i) out += fmt::format("  [{}] {}\n", i + 1, sources[i]);
  }
  return out;
}

std::string terminal_block(const Block& b, const Report& report, const Style& style) {
  const bool plain = report.look == Look::kQuote;
  std::string out = "\n";
  if (!b.heading.empty()) {
    const std::string heading = b.heading + report.heading_end;
    out += (style.colour && !plain ? "\x1b[1m" + heading + "\x1b[0m" : heading) + "\n";
  }
  out += terminal_lines(b.lines, b.heading.empty() ? "" : "  ", style);
  if (b.grid) {
    out += indent(style.colour ? b.grid->colour : b.grid->plain, "  ");
    out += style.colour ? b.grid->legend_colour : b.grid->legend;
    for (const auto& n : b.grid->notes) out += "  " + n + "\n";
  }
  out += terminal_entries(b.entries);
  if (b.findings) out += terminal_findings(*b.findings, style);
  if (!b.columns.empty()) out += terminal_table(b, style.colour && !plain);
  return out;
}

// --- Markdown -------------------------------------------------------------------------------

// Plain lines and bullets: a blank line where a paragraph or a list starts; stacked plain lines
// in a row break with "  " instead, otherwise each plain line is a paragraph of its own.
std::string markdown_lines(const std::vector<Line>& lines, bool stacked) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (i == 0 || l.bullet != lines[i - 1].bullet || (!l.bullet && !stacked)) out += "\n";
    out += (l.bullet ? "- " : "") + (l.strong ? "**" + l.text + "**" : l.text) + (l.bullet || !stacked ? "\n" : "  \n");
  }
  return out;
}

std::string markdown_findings(const FindingList& list) {
  std::string out = "\n|";
  for (const auto& c : list.columns) out += " " + md_cell(c) + " |";
  out += "\n|";
  for (size_t c = 0; c < list.columns.size(); ++c) out += "---|";
  out += "\n";
  for (const FindingRow& f : list.rows)
    out += fmt::format("| {} | `{}` | **{}** {} | {} |\n", f.tag, f.id, md_cell(f.title), md_cell(f.detail),
                       md_cell(f.source));
  return out;
}

std::string markdown_table(const Block& b, bool tight_empty_cells) {
  std::string head = "|", rule = "|";
  for (size_t c = 0; c < b.columns.size(); ++c) {
    head += " " + md_cell(b.columns[c]) + " |";
    rule += b.right(c) ? "--:|" : "---|";
  }
  if (!b.bars.empty()) head += " |", rule += "---|";
  std::string out = "\n" + head + "\n" + rule + "\n";
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const bool strong = is_strong(b, i);
    out += "|";
    for (const auto& cell : b.rows[i]) {
      if (cell.empty() && tight_empty_cells)
        out += " |";
      else
        out += " " + (strong && !cell.empty() ? "**" + md_cell(cell) + "**" : md_cell(cell)) + " |";
    }
    if (!b.bars.empty()) out += " " + text_bar(bar_of(b, i)) + " |";
    out += "\n";
  }
  return out;
}

std::string markdown_block(const Block& b, const Report& report) {
  std::string out = b.heading.empty() ? "" : "\n## " + b.heading + "\n";
  const std::vector<Line> lines = on_pages(b.lines);
  if (b.monospace && !lines.empty()) {
    // File names and reasons are data: a code block keeps them literal, one per line.
    out += "\n```text\n";
    for (const Line& l : lines) out += l.text + "\n";
    out += "```\n";
  }
  if (!b.monospace) out += markdown_lines(lines, report.look == Look::kDashboard);
  if (b.grid) {
    out += "\n```text\n" + b.grid->plain + b.grid->legend + "```\n";
    for (const auto& n : b.grid->notes) out += "\n" + n + "\n";
  }
  if (!b.entries.empty()) out += "\n";
  for (const Entry& e : b.entries) out += "- " + e.name + ": " + e.value + "\n";
  if (b.findings) out += markdown_findings(*b.findings);
  if (!b.columns.empty()) out += markdown_table(b, report.look == Look::kQuote);
  return out;
}

// --- HTML -----------------------------------------------------------------------------------

// Plain lines as paragraphs opened by `open_p`, runs of bullets as lists.
std::string html_lines(const std::vector<Line>& lines, const std::string& open_p) {
  std::string out;
  bool in_list = false;
  for (const Line& l : lines) {
    if (l.bullet != in_list) out += l.bullet ? "<ul>\n" : "</ul>\n";
    in_list = l.bullet;
    const std::string text = l.strong ? "<strong>" + html_escape(l.text) + "</strong>" : html_escape(l.text);
    out += (l.bullet ? "<li>" : open_p) + text + (l.bullet ? "</li>\n" : "</p>\n");
  }
  if (in_list) out += "</ul>\n";
  return out;
}

std::string html_entries(const std::vector<Entry>& entries) {
  std::string out = "<table>\n<tbody>\n";
  for (const Entry& e : entries)
    out += "<tr><td>" + html_escape(e.name) + "</td><td>" + html_escape(e.value) + "</td></tr>\n";
  return out + "</tbody>\n</table>\n";
}

std::string html_findings(const FindingList& list) {
  std::string out = "<table>\n<thead><tr>";
  for (const auto& c : list.columns) out += "<th>" + html_escape(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const FindingRow& f : list.rows) {
    out += fmt::format("<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td><strong>{}</strong>",
                       severity_name(f.severity), html_escape(f.tag), html_escape(f.id), html_escape(f.title));
    if (!f.detail.empty()) out += " " + html_escape(f.detail);
    out += "</td><td>" + html_escape(f.source) + "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string html_table(const Block& b) {
  auto cls = [&](size_t c) { return b.right(c) ? std::string(" class=\"num\"") : std::string(); };
  std::string out = "<table>\n<thead><tr>";
  for (size_t c = 0; c < b.columns.size(); ++c) out += "<th" + cls(c) + ">" + html_escape(b.columns[c]) + "</th>";
  if (!b.bars.empty()) out += "<th></th>";
  out += "</tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < b.rows.size(); ++i) {
    std::string classes = i < b.status.size() && b.status[i] ? severity_name(*b.status[i]) : "";
    if (is_strong(b, i)) classes += classes.empty() ? "strong" : " strong";
    out += classes.empty() ? "<tr>" : "<tr class=\"" + classes + "\">";
    for (size_t c = 0; c < b.rows[i].size(); ++c) out += "<td" + cls(c) + ">" + html_escape(b.rows[i][c]) + "</td>";
    if (!b.bars.empty())
      out += fmt::format("<td class=\"bar\"><span style=\"width:{:.1f}%\"></span></td>",
                         std::clamp(bar_of(b, i), 0.0, 1.0) * 100);
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string html_block(const Block& b) {
  std::string out = "<section>\n";
  if (!b.heading.empty()) out += "<h2>" + html_escape(b.heading) + "</h2>\n";
  if (b.monospace) out += "<div class=\"lines\">\n";
  out += html_lines(on_pages(b.lines), "<p>");
  if (b.monospace) out += "</div>\n";
  if (!b.entries.empty()) out += html_entries(b.entries);
  if (b.findings) out += html_findings(*b.findings);
  if (!b.columns.empty()) out += html_table(b);
  if (!b.svg.empty()) out += "<figure>\n" + b.svg + "</figure>\n";
  return out + "</section>\n";
}

std::string html_page(const std::vector<Report>& parts, Lang lang) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + std::string(lang == Lang::kZh ? "zh-CN" : "en") +
                    "\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                    html_escape(parts.front().title) + "</title>\n<style>" + page_css(parts) +
                    "</style>\n</head>\n<body>\n";
  for (const Report& report : parts) {
    out += "<h1>" + html_escape(report.title) + "</h1>\n";
    out += html_lines(on_pages(report.subtitle), "<p class=\"sub\">");
    for (const Block& b : report.blocks)
      if (shown_on_pages(b.shown)) out += html_block(b);
  }
  return out + "</body>\n</html>\n";
}

}  // namespace

std::string terminal_text(const Report& given, const Style& style) {
  const Report report = without_controls(given);
  const bool bold = style.colour && report.look != Look::kQuote;
  std::string out = style.colour && !report.title_colour.empty() ? report.title_colour
                    : bold                                       ? "\x1b[1m" + report.title + "\x1b[0m"
                                                                 : report.title;
  out += "\n" + terminal_lines(report.subtitle, "", style);
  for (const Block& b : report.blocks)
    if (shown_in_terminal(b.shown)) out += terminal_block(b, report, style);
  return out;
}

std::string markdown_text(const Report& given) {
  const Report report = without_controls(given);
  std::string out = "# " + report.title + "\n";
  out += markdown_lines(on_pages(report.subtitle), report.look == Look::kDashboard);
  for (const Block& b : report.blocks)
    if (shown_on_pages(b.shown)) out += markdown_block(b, report);
  return out;
}

std::string html_text(const Report& report, Lang lang) {
  return html_page({report}, lang);
}

std::string write_report(const Report& report, Format format, const Style& style) {
  return write_reports({report}, format, style);
}

std::string write_reports(const std::vector<Report>& parts, Format format, const Style& style) {
  if (parts.empty()) throw std::logic_error("write_reports: no report to write");
  std::string out;
  switch (format) {
    case Format::kMarkdown:
      for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "\n" : "") + markdown_text(parts[i]);
      return out;
    case Format::kHtml:
      return html_page(parts, style.lang);
    case Format::kTable:
      for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "\n" : "") + terminal_text(parts[i], style);
      return out;
    case Format::kJson:
      break;
  }
  throw std::logic_error("write_report: a Report has no JSON form; the renderer writes its own");
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string format_percent(double pct) {
  return format_number(pct, 1) + "%";
}

std::string svg_number(double v) {
  return fmt::format("{:.1f}", v);
}

std::string svg_text(double x, double y, const std::string& text, std::string_view anchor, std::string_view extra) {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}{}>{}</text>\n", svg_number(x), svg_number(y), anchor,
                     extra.empty() ? "" : " ", extra, html_escape(text));
}

}  // namespace gpuplan::report
