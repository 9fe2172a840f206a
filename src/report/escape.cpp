#include "report/escape.h"

#include <cstdio>

namespace gpuplan::report {

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    char buf[8];
    if (c == '\r') {
      out += "\\r";
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      // A C1 control in UTF-8 (0xC2 0x80..0x9F); CSI (U+009B) alone starts an escape sequence.
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[++i]));
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string escape_controls_but_colour(std::string_view text) {
  std::string out;
  size_t done = 0;
  for (size_t at = text.find('\x1b'); at != std::string_view::npos; at = text.find('\x1b', at + 1)) {
    size_t end = at + 1;
    if (end < text.size() && text[end] == '[') {
      ++end;
      while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == ';')) ++end;
      if (end < text.size() && text[end] == 'm') {
        out += escape_controls(text.substr(done, at - done));
        out += text.substr(at, end + 1 - at);
        done = end + 1;
        at = end;
      }
    }
  }
  return out + escape_controls(text.substr(done));
}

Report without_controls(Report report) {
  auto plain = [](std::string& s) { s = escape_controls(s); };
  auto coloured = [](std::string& s) { s = escape_controls_but_colour(s); };
  auto lines = [&](std::vector<Line>& ls) {
    for (Line& l : ls) {
      plain(l.text);
      coloured(l.colour);
    }
  };
  plain(report.title);
  coloured(report.title_colour);
  lines(report.subtitle);
  for (Block& b : report.blocks) {
    plain(b.heading);
    lines(b.lines);
    if (b.grid) {
      plain(b.grid->plain);
      plain(b.grid->legend);
      coloured(b.grid->colour);
      coloured(b.grid->legend_colour);
      for (std::string& n : b.grid->notes) plain(n);
    }
    for (Entry& e : b.entries) {
      plain(e.name);
      plain(e.value);
    }
    if (b.findings)
      for (FindingRow& f : b.findings->rows) {
        for (std::string* s : {&f.tag, &f.id, &f.title, &f.detail, &f.source}) plain(*s);
        for (std::string& e : f.evidence) plain(e);
      }
    for (std::string& c : b.columns) plain(c);
    for (auto& row : b.rows)
      for (std::string& cell : row) plain(cell);
    plain(b.terminal_more);
  }
  return report;
}

}  // namespace gpuplan::report
