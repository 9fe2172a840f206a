#include "report/document.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/money.h"

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
tr.strong td { font-weight: 700; color: #1a7f37; }
)";
constexpr std::string_view kCssBarsAndLines = R"(td.bar { width: 320px; }
.bar span { display: block; height: .9em; background: #3182bd; border-radius: 2px; }
.lines { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
.lines p { margin: .1em 0; }
)";
constexpr std::string_view kCssTail = R"(figure { margin: 1em 0; }
svg { max-width: 100%; height: auto; }
)";

std::string page_css(const Report& report) {
  const bool dashboard = report.look == Look::kDashboard;
  const bool bars_or_lines = dashboard || std::any_of(report.blocks.begin(), report.blocks.end(),
                                                      [](const Block& b) { return !b.bars.empty() || b.monospace; });
  std::string css(kCssHead);
  css += dashboard ? ".sub { color: #555; margin: 0; }\n" : ".sub { color: #555; margin-top: 0; }\n";
  css += "table { border-collapse: collapse; margin: .6em 0; }\n";
  css += fmt::format(
      "th, td {{ padding: .3em .8em; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: {}; }}\n",
      dashboard ? "middle" : "top");
  css += kCssTable;
  if (bars_or_lines) css += kCssBarsAndLines;
  return css + std::string(kCssTail);
}

}  // namespace

std::string terminal_text(const Report& report, const Style& style) {
  auto bold = [&](const std::string& s) { return style.colour ? "\x1b[1m" + s + "\x1b[0m" : s; };
  auto green = [&](const std::string& s) { return style.colour && !s.empty() ? "\x1b[1;32m" + s + "\x1b[0m" : s; };
  std::string out = bold(report.title) + "\n";
  for (const auto& s : report.subtitle) out += s + "\n";
  for (const Block& b : report.blocks) {
    out += "\n" + bold(b.heading) + "\n";
    for (const Line& l : b.lines) out += "  " + std::string(l.bullet ? "• " : "") + l.text + "\n";
    if (b.grid) {
      out += indent(style.colour ? b.grid->colour : b.grid->plain, "  ");
      out += style.colour ? b.grid->legend_colour : b.grid->legend;
      for (const auto& n : b.grid->notes) out += "  " + n + "\n";
    }
    if (b.columns.empty()) continue;
    std::vector<std::string> columns = b.columns;
    std::vector<A> align = b.align;
    if (!b.bars.empty()) columns.push_back(""), align.push_back(A::kLeft);
    TextTable t(columns, align);
    for (size_t i = 0; i < b.rows.size() && i < b.terminal_rows; ++i) {
      std::vector<std::string> row = b.rows[i];
      if (is_strong(b, i))
        for (auto& cell : row) cell = green(cell);
      if (!b.bars.empty()) row.push_back(text_bar(bar_of(b, i)));
      t.add_row(std::move(row));
    }
    out += t.str();
    if (b.rows.size() > b.terminal_rows && !b.terminal_more.empty()) out += "  … " + b.terminal_more + "\n";
  }
  return out;
}

std::string markdown_text(const Report& report) {
  const bool stacked = report.look == Look::kDashboard;
  std::string out = "# " + report.title + "\n\n";
  for (size_t i = 0; i < report.subtitle.size(); ++i)
    out += (i > 0 && !stacked ? "\n" : "") + report.subtitle[i] + (stacked ? "  \n" : "\n");
  for (const Block& b : report.blocks) {
    out += "\n## " + b.heading + "\n";
    if (b.monospace && !b.lines.empty()) {
      // File names and reasons are data: a code block keeps them literal, one per line.
      out += "\n```text\n";
      for (const Line& l : b.lines) out += l.text + "\n";
      out += "```\n";
    }
    for (size_t i = 0; i < b.lines.size() && !b.monospace; ++i) {
      const Line& l = b.lines[i];
      // A blank line where a paragraph or a list starts: stacked plain lines in a row break
      // with "  " instead; otherwise each plain line is a paragraph of its own.
      if (i == 0 || l.bullet != b.lines[i - 1].bullet || (!l.bullet && !stacked)) out += "\n";
      out += (l.bullet ? "- " : "") + l.text + (l.bullet || !stacked ? "\n" : "  \n");
    }
    if (b.grid) {
      out += "\n```text\n" + b.grid->plain + b.grid->legend + "```\n";
      for (const auto& n : b.grid->notes) out += "\n" + n + "\n";
    }
    if (b.columns.empty()) continue;
    std::string head = "|", rule = "|";
    for (size_t c = 0; c < b.columns.size(); ++c) {
      head += " " + md_cell(b.columns[c]) + " |";
      rule += b.right(c) ? "--:|" : "---|";
    }
    if (!b.bars.empty()) head += " |", rule += "---|";
    out += "\n" + head + "\n" + rule + "\n";
    for (size_t i = 0; i < b.rows.size(); ++i) {
      const bool strong = is_strong(b, i);
      out += "|";
      for (const auto& cell : b.rows[i])
        out += " " + (strong && !cell.empty() ? "**" + md_cell(cell) + "**" : md_cell(cell)) + " |";
      if (!b.bars.empty()) out += " " + text_bar(bar_of(b, i)) + " |";
      out += "\n";
    }
  }
  return out;
}

std::string html_text(const Report& report, Lang lang) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + std::string(lang == Lang::kZh ? "zh-CN" : "en") +
                    "\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                    html_escape(report.title) + "</title>\n<style>" + page_css(report) + "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(report.title) + "</h1>\n";
  for (const auto& s : report.subtitle) out += "<p class=\"sub\">" + html_escape(s) + "</p>\n";
  for (const Block& b : report.blocks) {
    out += "<section>\n<h2>" + html_escape(b.heading) + "</h2>\n";
    if (b.monospace) out += "<div class=\"lines\">\n";
    bool in_list = false;
    for (const Line& l : b.lines) {
      if (l.bullet != in_list) out += l.bullet ? "<ul>\n" : "</ul>\n";
      in_list = l.bullet;
      out += (l.bullet ? "<li>" : "<p>") + html_escape(l.text) + (l.bullet ? "</li>\n" : "</p>\n");
    }
    if (in_list) out += "</ul>\n";
    if (b.monospace) out += "</div>\n";
    if (!b.columns.empty()) {
      auto cls = [&](size_t c) { return b.right(c) ? std::string(" class=\"num\"") : std::string(); };
      out += "<table>\n<thead><tr>";
      for (size_t c = 0; c < b.columns.size(); ++c) out += "<th" + cls(c) + ">" + html_escape(b.columns[c]) + "</th>";
      if (!b.bars.empty()) out += "<th></th>";
      out += "</tr></thead>\n<tbody>\n";
      for (size_t i = 0; i < b.rows.size(); ++i) {
        out += is_strong(b, i) ? "<tr class=\"strong\">" : "<tr>";
        for (size_t c = 0; c < b.rows[i].size(); ++c) out += "<td" + cls(c) + ">" + html_escape(b.rows[i][c]) + "</td>";
        if (!b.bars.empty())
          out += fmt::format("<td class=\"bar\"><span style=\"width:{:.1f}%\"></span></td>",
                             std::clamp(bar_of(b, i), 0.0, 1.0) * 100);
        out += "</tr>\n";
      }
      out += "</tbody>\n</table>\n";
    }
    if (!b.svg.empty()) out += "<figure>\n" + b.svg + "</figure>\n";
    out += "</section>\n";
  }
  return out + "</body>\n</html>\n";
}

std::string write_report(const Report& report, Format format, const Style& style) {
  switch (format) {
    case Format::kMarkdown:
      return markdown_text(report);
    case Format::kHtml:
      return html_text(report, style.lang);
    case Format::kTable:
      return terminal_text(report, style);
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
