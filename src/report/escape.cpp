#include "report/escape.h"

#include <cstdio>

namespace gpuplan::report {

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (a byte of 0x80 or above), or 0 when
// there is none: a stray continuation byte, an overlong form, a surrogate, a cut-off sequence.
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
  const unsigned char lead = byte(0), second = byte(1);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the bounds on the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  }
  if (length == 0 || second < low || second > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if (byte(k) < 0x80 || byte(k) > 0xbf) return 0;
  return length;
}

}  // namespace

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[8];
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      out += "\\r";
      ++i;
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (const size_t length = utf8_length(text, i); length == 0) {
      // Not UTF-8: a terminal set for 8-bit controls would take a bare 0x9B as CSI.
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    } else if (c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      // A C1 control in UTF-8 (0xC2 0x80..0x9F); CSI (U+009B) alone starts an escape sequence.
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      out += buf;
      i += 2;
    } else {
      out.append(text.substr(i, length));
      i += length;
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
