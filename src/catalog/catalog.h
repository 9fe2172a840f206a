// Catalog: the data every price, threshold and version rule comes from. Entries live in
// YAML files (catalog/*.yaml, one kind per file); each carries id, name, source and as_of.
// A later directory overrides an earlier one entry by entry (same id replaces, new id adds).
// Loading validates every entry against catalog/schema.h, so a caller may read a required
// field of a loaded entry without checking that it exists.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/money.h"
#include "core/range.h"

namespace gpuplan::catalog {

struct Entry {
  std::string id;
  std::string kind;
  std::string name;
  std::string name_zh;  // the display name in Chinese; empty: `name` serves both languages
  std::string source;
  std::string source_zh;  // the source in Chinese; empty: `source` serves both languages
  std::string as_of;
  std::string notes;
  std::string file;
  int line = 0;
  YAML::Node node;

  bool has(std::string_view key) const;
  double number(std::string_view key) const;
  std::optional<double> opt_number(std::string_view key) const;
  Range range(std::string_view key) const;
  std::optional<Range> opt_range(std::string_view key) const;
  std::string text(std::string_view key) const;
  bool flag(std::string_view key) const;
  std::vector<std::string> list(std::string_view key) const;

  const std::string& display_name_zh() const { return name_zh.empty() ? name : name_zh; }
  const std::string& display_source_zh() const { return source_zh.empty() ? source : source_zh; }
  // A display text field in Chinese: `<key>_zh` when the entry has one, else `<key>`.
  std::string text_zh(std::string_view key) const;
  // Every field as written, as JSON: plain scalars that read as numbers or booleans become
  // them, quoted ones stay strings.
  nlohmann::json fields_json() const;
};

class Catalog {
 public:
  // Loads each directory's *.yaml in name order; every problem found is appended to
  // `problems` (all of them, not just the first). Entries with problems are left out.
  static Catalog load(const std::vector<std::string>& dirs, std::vector<Error>& problems);

  const Entry* find(std::string_view id) const;
  const Entry* find(std::string_view kind, std::string_view id) const;
  std::vector<const Entry*> of_kind(std::string_view kind) const;
  std::vector<std::string> ids_of_kind(std::string_view kind) const;
  const std::vector<Entry>& entries() const { return entries_; }

  // A threshold entry's value (its low end) or range. Load reports each id of
  // required_thresholds() that no directory has as a problem (error.catalog.missing_threshold,
  // field = the id), so these never throw for a catalog loaded without problems; an id missing
  // from that list is a defect of the code, reported as std::out_of_range naming the id.
  double threshold(std::string_view id) const;
  Range threshold_range(std::string_view id) const;
  const Entry& threshold_entry(std::string_view id) const;

  // The dated rate that converts `currency` to CNY, from the fx entries.
  std::optional<ExchangeRate> rate_to_cny(std::string_view currency) const;

 private:
  std::vector<Entry> entries_;
  std::map<std::string, size_t, std::less<>> by_id_;
};

}  // namespace gpuplan::catalog
