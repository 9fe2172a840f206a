#include "core/yaml_reader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/text.h"

namespace gpuplan {

int YamlReader::line_of(const YAML::Node& n) const {
  return n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}

void YamlReader::fail(const YAML::Node& at, const std::string& field, const std::string& message) const {
  throw ParseFailure{Error{file_, line_of(at), field, message}};
}

YAML::Node YamlReader::load(const std::string& text) const {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ParseFailure{Error{file_, e.mark.line + 1, {}, "malformed YAML: " + e.msg}};
  }
  if (!root.IsMap()) throw ParseFailure{Error{file_, 1, {}, "expected a YAML mapping of fields"}};
  return root;
}

void YamlReader::check_keys(const YAML::Node& map, const std::string& prefix,
                            const std::vector<std::string>& allowed) const {
  if (!map.IsMap()) fail(map, prefix, "must be a mapping");
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(kv.first, prefix.empty() ? key : prefix + "." + key, "unknown field" + did_you_mean(key, allowed));
  }
}

std::string YamlReader::text(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar() || n.Scalar().empty()) fail(n, field, "must be a non-empty string");
  return n.Scalar();
}

double YamlReader::number(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) fail(n, field, "must be a number");
  try {
    double v = n.as<double>();
    if (!std::isfinite(v)) fail(n, field, "must be a finite number");
    return v;
  } catch (const YAML::Exception&) {
    fail(n, field, "'" + n.Scalar() + "' is not a number");
  }
}

double YamlReader::non_negative(const YAML::Node& n, const std::string& field) const {
  double v = number(n, field);
  if (v < 0) fail(n, field, "must not be negative (got " + n.Scalar() + ")");
  return v;
}

int YamlReader::count(const YAML::Node& n, const std::string& field, int min) const {
  double v = number(n, field);
  if (v != std::floor(v)) fail(n, field, "must be a whole number (got " + n.Scalar() + ")");
  if (v < min) fail(n, field, "must be at least " + std::to_string(min) + " (got " + n.Scalar() + ")");
  if (v > 100000) fail(n, field, "is implausibly large (got " + n.Scalar() + ")");
  return static_cast<int>(v);
}

bool YamlReader::boolean(const YAML::Node& n, const std::string& field) const {
  if (n.IsScalar()) {
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  fail(n, field, "must be true or false");
}

Range YamlReader::range(const YAML::Node& n, const std::string& field) const {
  if (n.IsSequence()) {
    if (n.size() != 2) fail(n, field, "must be [low, high] or one number");
    Range r{non_negative(n[0], field), non_negative(n[1], field)};
    if (r.low > r.high) fail(n, field, "low is above high");
    return r;
  }
  return Range::point(non_negative(n, field));
}

double YamlReader::quantity(const YAML::Node& n, const std::string& field, Dimension dim,
                            const std::string& bare_unit) const {
  if (!n.IsScalar()) fail(n, field, "must be a number or a quantity with a unit (" + units_of(dim) + ")");
  auto q = parse_quantity(n.Scalar(), dim, bare_unit);
  if (!q) fail(n, field, q.error().message);
  if (*q < 0) fail(n, field, "must not be negative");
  return *q;
}

std::vector<std::string> YamlReader::string_list(const YAML::Node& n, const std::string& field) const {
  if (!n.IsSequence()) fail(n, field, "must be a list");
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i) out.push_back(text(n[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, {}, std::string("cannot open: ") + std::strerror(errno)};
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Error{path, 0, {}, "read failed"};
  return buf.str();
}

}  // namespace gpuplan
