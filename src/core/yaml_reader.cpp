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

void YamlReader::fail(const YAML::Node& at, const std::string& field, Phrase message) const {
  throw ParseFailure{Error{file_, line_of(at), field, std::move(message)}};
}

void YamlReader::fail(const YAML::Node& at, const std::string& field, std::string key,
                      std::vector<std::pair<std::string, std::string>> facts) const {
  Phrase p{std::move(key)};
  for (auto& [name, value] : facts) p.fact(std::move(name), std::move(value));
  fail(at, field, std::move(p));
}

YAML::Node YamlReader::load(const std::string& text) const {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ParseFailure{Error{file_, e.mark.line + 1, {}, Phrase("error.yaml.malformed").fact("why", e.msg)}};
  }
  if (!root.IsMap()) throw ParseFailure{Error{file_, 1, {}, Phrase("error.yaml.not_mapping")}};
  return root;
}

void YamlReader::check_keys(const YAML::Node& map, const std::string& prefix,
                            const std::vector<std::string>& allowed) const {
  if (!map.IsMap()) fail(map, prefix, Phrase("error.yaml.must_be_mapping"));
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      Phrase p("error.yaml.unknown_field");
      p.facts.push_back(did_you_mean(key, allowed));
      fail(kv.first, prefix.empty() ? key : prefix + "." + key, std::move(p));
    }
  }
}

std::string YamlReader::text(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar() || n.Scalar().empty()) fail(n, field, Phrase("error.yaml.not_text"));
  return n.Scalar();
}

double YamlReader::number(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) fail(n, field, Phrase("error.yaml.not_number"));
  try {
    double v = n.as<double>();
    if (!std::isfinite(v)) fail(n, field, "error.yaml.not_finite", {{"got", n.Scalar()}});
    return v;
  } catch (const YAML::Exception&) {
    fail(n, field, "error.yaml.not_a_number", {{"got", n.Scalar()}});
  }
}

double YamlReader::non_negative(const YAML::Node& n, const std::string& field) const {
  double v = number(n, field);
  if (v < 0) fail(n, field, "error.yaml.negative", {{"got", n.Scalar()}});
  return v;
}

int YamlReader::count(const YAML::Node& n, const std::string& field, int min) const {
  double v = number(n, field);
  if (v != std::floor(v)) fail(n, field, "error.yaml.not_whole", {{"got", n.Scalar()}});
  if (v < min) fail(n, field, "error.yaml.below_min", {{"min", std::to_string(min)}, {"got", n.Scalar()}});
  if (v > kMaxCount) fail(n, field, "error.yaml.implausible", {{"got", n.Scalar()}});
  return static_cast<int>(v);
}

bool YamlReader::boolean(const YAML::Node& n, const std::string& field) const {
  if (n.IsScalar()) {
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  fail(n, field, Phrase("error.yaml.not_bool"));
}

Range YamlReader::range(const YAML::Node& n, const std::string& field) const {
  if (n.IsSequence()) {
    if (n.size() != 2) fail(n, field, Phrase("error.yaml.not_range"));
    Range r{non_negative(n[0], field), non_negative(n[1], field)};
    if (r.low > r.high) fail(n, field, Phrase("error.yaml.low_above_high"));
    return r;
  }
  return Range::point(non_negative(n, field));
}

double YamlReader::quantity(const YAML::Node& n, const std::string& field, Dimension dim,
                            const std::string& bare_unit) const {
  if (!n.IsScalar()) fail(n, field, "error.yaml.not_quantity", {{"units", units_of(dim)}});
  auto q = parse_quantity(n.Scalar(), dim, bare_unit);
  if (!q) fail(n, field, q.error().message);
  if (*q < 0) fail(n, field, "error.yaml.negative", {{"got", n.Scalar()}});
  return *q;
}

std::vector<std::string> YamlReader::string_list(const YAML::Node& n, const std::string& field) const {
  if (!n.IsSequence()) fail(n, field, Phrase("error.yaml.not_list"));
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i) out.push_back(text(n[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

}  // namespace gpuplan
