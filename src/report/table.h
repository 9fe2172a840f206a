// TextTable: columns aligned by display width (CJK characters take two cells), for the
// terminal renderer. Colour is the caller's choice (only on a TTY, never with NO_COLOR).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::report {

size_t display_width(std::string_view utf8);

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  explicit TextTable(std::vector<std::string> headings, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  void add_rule();  // a separator line before the next row
  std::string str() const;

 private:
  std::vector<std::string> headings_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a rule
};

}  // namespace gpuplan::report
