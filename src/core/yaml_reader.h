// YamlReader: reads typed fields out of a user's YAML document (configurations, vendor
// quotes) and turns every mistake into an Error naming file, line and field. Its methods
// throw ParseFailure; a parser catches it once at its public boundary. Numbers go through
// core/bounds.h; a document with a duplicate key or a second document is refused, since
// yaml-cpp would silently keep the first of each.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/files.h"
#include "core/range.h"
#include "core/units.h"

namespace gpuplan {

// A problem with the shape of a YAML text that yaml-cpp would read without a word: a key given
// twice in one mapping, a second document, or (when `aliases_ok` is false) an anchor or alias,
// which lets a few lines expand to billions of nodes. The 1-based line and the phrase.
struct YamlShapeProblem {
  int line = 0;
  std::string field;  // the duplicated key's dotted path, else empty
  Phrase message;
};
std::optional<YamlShapeProblem> yaml_shape_problem(const std::string& text, bool aliases_ok);

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  // Parses a document that must be a mapping.
  YAML::Node load(const std::string& text) const;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, Phrase message) const;
  // The phrase key with the facts given as (name, value) pairs.
  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, std::string key,
                         std::vector<std::pair<std::string, std::string>> facts) const;
  int line_of(const YAML::Node& n) const;

  // Rejects keys not in `allowed`, suggesting the nearest one.
  void check_keys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& allowed) const;

  std::string text(const YAML::Node& n, const std::string& field) const;
  double number(const YAML::Node& n, const std::string& field) const;
  // From 0 to bounds::kMaxAmount.
  double non_negative(const YAML::Node& n, const std::string& field) const;
  // A whole number from `min` to bounds::kMaxCount (larger is a typo, not a count).
  int count(const YAML::Node& n, const std::string& field, int min) const;
  bool boolean(const YAML::Node& n, const std::string& field) const;
  // `[low, high]` or one number, non-negative, low <= high.
  Range range(const YAML::Node& n, const std::string& field) const;
  // A number in `bare_unit`, or a string with a unit of `dim` ("1 TiB", "16 A").
  double quantity(const YAML::Node& n, const std::string& field, Dimension dim, const std::string& bare_unit) const;
  std::vector<std::string> string_list(const YAML::Node& n, const std::string& field) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace gpuplan
