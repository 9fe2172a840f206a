// The catalog's schema: which kinds of entry exist and which fields each may carry.
// The loader validates every file against this table; domain code may then read a
// required field without checking for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::catalog {

enum class FieldType { kNumber, kRange, kString, kBool, kEnum, kRef, kStringList };

struct FieldSchema {
  std::string key;
  FieldType type;
  bool required;
  // kEnum: allowed values joined by '|'; kRef: the kind the id must name.
  std::string detail = {};
};

struct KindSchema {
  std::string kind;
  std::string description;
  std::vector<FieldSchema> fields;

  const FieldSchema* field(std::string_view key) const;
};

const std::vector<KindSchema>& kinds();
const KindSchema* find_kind(std::string_view kind);

}  // namespace gpuplan::catalog
