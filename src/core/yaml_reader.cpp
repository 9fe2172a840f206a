#include "core/yaml_reader.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/bounds.h"
#include "core/text.h"

namespace gpuplan {

namespace {

// Walks the parser's events (no tree is built, so an alias bomb costs nothing here): one frame a
// open mapping or sequence, with the keys a mapping has had so far.
class ShapeCheck : public YAML::EventHandler {
 public:
  explicit ShapeCheck(bool aliases_ok) : aliases_ok_(aliases_ok) {}
  std::optional<YamlShapeProblem> problem;
  int documents = 0;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents == 2) report(mark, {}, Phrase("error.yaml.second_document"));
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, "~"); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    if (!aliases_ok_) report(mark, {}, Phrase("error.yaml.alias"));
    leaf(mark, 0, {});
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    leaf(mark, anchor, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool map = false;
    bool at_key = true;  // a mapping's next node is a key
    std::string key;     // the key whose value is being read
    std::set<std::string> keys;
  };
  bool aliases_ok_;
  std::vector<Frame> stack_;

  void report(const YAML::Mark& mark, std::string field, Phrase message) {
    if (!problem) problem = YamlShapeProblem{mark.line + 1, std::move(field), std::move(message)};
  }
  void anchored(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != 0 && !aliases_ok_) report(mark, {}, Phrase("error.yaml.alias"));
  }
  std::string path(const std::string& key) const {
    std::string out;
    for (const Frame& f : stack_)
      if (f.map && !f.at_key) out += f.key + ".";
    return out + key;
  }
  // A node is complete: a mapping's key (checked for a repeat) or value.
  void done(const YAML::Mark& mark, const std::optional<std::string>& scalar) {
    if (stack_.empty() || !stack_.back().map) return;
    Frame& f = stack_.back();
    if (f.at_key && scalar) {
      if (!f.keys.insert(*scalar).second)
        report(mark, path(*scalar), Phrase("error.yaml.duplicate_key").fact("key", *scalar));
      f.key = *scalar;
    }
    f.at_key = !f.at_key;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::optional<std::string>& value) {
    anchored(mark, anchor);
    done(mark, value);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    anchored(mark, anchor);
    stack_.push_back(Frame{map, true, {}, {}});
  }
  void close() {
    stack_.pop_back();
    done(YAML::Mark(), std::nullopt);  // a mapping or sequence as a key is not compared
  }
};

}  // namespace

std::optional<YamlShapeProblem> yaml_shape_problem(const std::string& text, bool aliases_ok) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ShapeCheck check(aliases_ok);
  // A malformed text is left to YAML::Load, which words it with its line.
  try {
    while (!check.problem && parser.HandleNextDocument(check)) {
    }
  } catch (const YAML::Exception&) {
  }
  return check.problem;
}

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
  if (auto shape = yaml_shape_problem(text, /*aliases_ok=*/true))
    throw ParseFailure{Error{file_, shape->line, shape->field, shape->message}};
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
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    fail(n, field, "error.yaml.not_a_number", {{"got", n.Scalar()}});
  }
  if (auto p = bounds::finite(v, n.Scalar())) fail(n, field, std::move(*p));
  return v;
}

double YamlReader::non_negative(const YAML::Node& n, const std::string& field) const {
  double v = number(n, field);
  if (auto p = bounds::amount(v, n.Scalar())) fail(n, field, std::move(*p));
  return v;
}

int YamlReader::count(const YAML::Node& n, const std::string& field, int min) const {
  double v = number(n, field);
  if (auto p = bounds::count(v, min, n.Scalar())) fail(n, field, std::move(*p));
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
  // In base units (bytes), so not held to kMaxAmount: what it counts is bounded where it is used.
  if (auto p = bounds::finite(*q, n.Scalar())) fail(n, field, std::move(*p));
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
