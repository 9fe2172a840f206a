#include "report/table.h"

#include <algorithm>

namespace gpuplan::report {
namespace {

bool is_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6);
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    char32_t c = b;
    size_t len = 1;
    if (b >= 0xF0) len = 4, c = b & 0x07;
    else if (b >= 0xE0) len = 3, c = b & 0x0F;
    else if (b >= 0xC0) len = 2, c = b & 0x1F;
    for (size_t k = 1; k < len && i + k < s.size(); ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    if (b == 0x1B) {  // skip an ANSI colour sequence
      size_t end = s.find('m', i);
      i = end == std::string_view::npos ? s.size() : end + 1;
      continue;
    }
    width += is_wide(c) ? 2 : 1;
    i += len;
  }
  return width;
}

TextTable::TextTable(std::vector<std::string> headings, std::vector<Align> align)
    : headings_(std::move(headings)), align_(std::move(align)) {
  align_.resize(headings_.size(), Align::kLeft);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headings_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::add_rule() { rows_.emplace_back(); }

std::string TextTable::str() const {
  std::vector<size_t> width(headings_.size());
  for (size_t c = 0; c < headings_.size(); ++c) width[c] = display_width(headings_[c]);
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string pad(width[c] - display_width(cells[c]), ' ');
      bool last = c + 1 == cells.size();
      if (align_[c] == Align::kRight) out += pad + cells[c];
      else out += cells[c] + (last ? "" : pad);
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  std::string rule;
  for (size_t i = 0; i + 2 < total; ++i) rule += "─";
  std::string out = line(headings_) + rule + "\n";
  for (const auto& row : rows_) out += row.empty() ? rule + "\n" : line(row);
  return out;
}

}  // namespace gpuplan::report
