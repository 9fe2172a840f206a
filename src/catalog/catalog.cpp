#include "catalog/catalog.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "catalog/required_thresholds.h"
#include "catalog/schema.h"
#include "core/bounds.h"
#include "core/dates.h"
#include "core/files.h"
#include "core/text.h"
#include "core/yaml_reader.h"

namespace gpuplan::catalog {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kCommonKeys = {"id", "name", "name_zh", "source", "source_zh", "as_of", "notes"};

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

std::optional<double> as_number(const YAML::Node& n) {
  if (!n.IsScalar()) return std::nullopt;
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

// The values an enum field allows, from its schema's "a|b|c".
std::vector<std::string> enum_values(const std::string& detail) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= detail.size();) {
    size_t bar = detail.find('|', at);
    if (bar == std::string::npos) bar = detail.size();
    out.push_back(detail.substr(at, bar - at));
    at = bar + 1;
  }
  return out;
}

// A catalog figure: finite and from 0 to bounds::kMaxAmount (`.nan` or `.inf` would print ¥nan).
std::optional<Phrase> bad_figure(const YAML::Node& v, double n) {
  return bounds::amount(n, v.Scalar());
}

// Validates one field's value; nullopt when it is fine.
std::optional<Phrase> check_value(const FieldSchema& f, const YAML::Node& v) {
  switch (f.type) {
    case FieldType::kNumber: {
      auto n = as_number(v);
      if (!n) return Phrase("error.yaml.not_number");
      return bad_figure(v, *n);
    }
    case FieldType::kRange: {
      if (v.IsSequence()) {
        if (v.size() != 2) return Phrase("error.yaml.not_range");
        auto lo = as_number(v[0]), hi = as_number(v[1]);
        if (!lo || !hi) return Phrase("error.catalog.range_not_numbers");
        if (auto p = bad_figure(v[0], *lo)) return p;
        if (auto p = bad_figure(v[1], *hi)) return p;
        if (*lo > *hi)
          return Phrase("error.catalog.low_above_high").fact("low", v[0].Scalar()).fact("high", v[1].Scalar());
        return std::nullopt;
      }
      auto n = as_number(v);
      if (!n) return Phrase("error.yaml.not_range");
      return bad_figure(v, *n);
    }
    case FieldType::kString:
    case FieldType::kRef:
      if (v.IsScalar()) return std::nullopt;
      return Phrase("error.catalog.not_string");
    case FieldType::kBool: {
      if (!v.IsScalar()) return Phrase("error.yaml.not_bool");
      try {
        v.as<bool>();
        return std::nullopt;
      } catch (const YAML::Exception&) {
        return Phrase("error.yaml.not_bool");
      }
    }
    case FieldType::kEnum: {
      const std::vector<std::string> allowed = enum_values(f.detail);
      if (!v.IsScalar()) return Phrase("error.catalog.not_enum").fact(list_of("allowed", allowed));
      if (std::find(allowed.begin(), allowed.end(), v.Scalar()) == allowed.end())
        return not_one_of(v.Scalar(), allowed);
      return std::nullopt;
    }
    case FieldType::kStringList: {
      if (!v.IsSequence()) return Phrase("error.catalog.not_string_list");
      for (const auto& item : v)
        if (!item.IsScalar()) return Phrase("error.catalog.not_string_list");
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// Plain scans, not std::regex: its recursive matcher overflows the stack on a 30,000-character id.
bool valid_id(const std::string& id) {
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (id.empty() || !lower_or_digit(id[0])) return false;
  return std::all_of(id.begin(), id.end(),
                     [&](char c) { return lower_or_digit(c) || c == '.' || c == '_' || c == '-'; });
}

// Parses one file's entries, appending valid ones to `out` and problems to `problems`.
void load_file(const fs::path& path, std::vector<Entry>& out, std::vector<Error>& problems) {
  const std::string file = path.string();
  auto text = read_text_file(file);
  if (!text) {
    problems.push_back(text.error());
    return;
  }
  // Anchors and aliases are refused (a few lines of them expand to billions of nodes that
  // `catalog show` walks), and so are a repeated key and a second document, which yaml-cpp ignores.
  if (auto shape = yaml_shape_problem(*text, /*aliases_ok=*/false)) {
    problems.push_back({file, shape->line, shape->field, shape->message});
    return;
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::ParserException& e) {
    problems.push_back({file, e.mark.line + 1, {}, Phrase("error.yaml.malformed").fact("why", e.msg)});
    return;
  } catch (const YAML::Exception& e) {
    problems.push_back({file, 0, {}, Phrase("error.file.cannot_read").fact("why", e.what())});
    return;
  }
  if (!root.IsMap() || !root["kind"] || !root["entries"] || !root["entries"].IsSequence()) {
    problems.push_back({file, 1, {}, Phrase("error.catalog.not_catalog_file")});
    return;
  }
  const std::string kind = root["kind"].Scalar();
  const KindSchema* schema = find_kind(kind);
  if (!schema) {
    std::vector<std::string> names;
    for (const auto& k : kinds()) names.push_back(k.kind);
    problems.push_back({file, line_of(root["kind"]), "kind", unknown_id("kind", kind, names)});
    return;
  }
  for (const YAML::Node& node : root["entries"]) {
    const int line = line_of(node);
    if (!node.IsMap()) {
      problems.push_back({file, line, "entries", Phrase("error.catalog.entry_not_mapping")});
      continue;
    }
    Entry e;
    e.kind = kind;
    e.file = file;
    e.line = line;
    e.node = node;
    bool ok = true;
    auto problem = [&](const YAML::Node& at, const std::string& field, Phrase msg) {
      problems.push_back(Error{file, at ? line_of(at) : line, field, std::move(msg)});
      ok = false;
    };
    e.id = node["id"] && node["id"].IsScalar() ? node["id"].Scalar() : "";
    const std::string where = e.id.empty() ? "entry" : e.id;
    if (e.id.empty())
      problem(node, "id", Phrase("error.catalog.missing").fact("field", "id"));
    else if (!valid_id(e.id))
      problem(node["id"], where + ".id", Phrase("error.catalog.bad_id").fact("id", e.id));
    for (const char* key : {"name", "source", "as_of"}) {
      if (!node[key] || !node[key].IsScalar() || node[key].Scalar().empty())
        problem(node, where + "." + key, Phrase("error.catalog.missing").fact("field", key));
    }
    if (ok) {
      e.name = node["name"].Scalar();
      e.source = node["source"].Scalar();
      e.as_of = node["as_of"].Scalar();
      if (!parse_catalog_date(e.as_of))
        problem(node["as_of"], where + ".as_of", Phrase("error.catalog.bad_date").fact("got", e.as_of));
    }
    if (node["notes"]) e.notes = node["notes"].Scalar();
    if (node["name_zh"] && node["name_zh"].IsScalar()) e.name_zh = node["name_zh"].Scalar();
    if (node["source_zh"] && node["source_zh"].IsScalar()) e.source_zh = node["source_zh"].Scalar();
    std::vector<std::string> known = kCommonKeys;
    for (const auto& f : schema->fields) known.push_back(f.key);
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        Phrase unknown("error.catalog.unknown_key");
        unknown.fact("key", key).fact("kind", kind).facts.push_back(did_you_mean(key, known));
        problem(kv.first, where + "." + key, std::move(unknown));
        continue;
      }
      if (const FieldSchema* f = schema->field(key)) {
        if (auto msg = check_value(*f, kv.second)) problem(kv.second, where + "." + key, std::move(*msg));
      }
    }
    // An exchange rate of 0 would cost a foreign offer at ¥0 and recommend it.
    if (kind == "fx" && node["cny"] && !check_value(FieldSchema{"cny", FieldType::kNumber, true}, node["cny"]) &&
        node["cny"].as<double>() <= 0)
      problem(node["cny"], where + ".cny", Phrase("cli.value.above").fact("min", "0").fact("got", node["cny"].Scalar()));
    for (const auto& f : schema->fields)
      if (f.required && !node[f.key])
        problem(node, where + "." + f.key, Phrase("error.catalog.missing_required").fact("field", f.key));
    if (ok) out.push_back(std::move(e));
  }
}

}  // namespace

bool Entry::has(std::string_view key) const { return static_cast<bool>(node[std::string(key)]); }

double Entry::number(std::string_view key) const { return node[std::string(key)].as<double>(); }

std::optional<double> Entry::opt_number(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return number(key);
}

Range Entry::range(std::string_view key) const {
  YAML::Node v = node[std::string(key)];
  if (v.IsSequence()) return {v[0].as<double>(), v[1].as<double>()};
  return Range::point(v.as<double>());
}

std::optional<Range> Entry::opt_range(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return range(key);
}

std::string Entry::text_zh(std::string_view key) const {
  const std::string zh = std::string(key) + "_zh";
  return has(zh) ? text(zh) : text(key);
}

std::string Entry::text(std::string_view key) const {
  return has(key) ? node[std::string(key)].Scalar() : std::string();
}

bool Entry::flag(std::string_view key) const { return has(key) && node[std::string(key)].as<bool>(); }

std::vector<std::string> Entry::list(std::string_view key) const {
  std::vector<std::string> out;
  if (has(key))
    for (const auto& item : node[std::string(key)]) out.push_back(item.Scalar());
  return out;
}

Catalog Catalog::load(const std::vector<std::string>& dirs, std::vector<Error>& problems) {
  Catalog c;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      problems.push_back({dir, 0, {}, Phrase("error.catalog.no_directory")});
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& de : fs::directory_iterator(dir, ec))
      if (de.path().extension() == ".yaml" || de.path().extension() == ".yml") files.push_back(de.path());
    std::sort(files.begin(), files.end());
    std::vector<Entry> loaded;
    for (const auto& f : files) load_file(f, loaded, problems);
    // Within one directory an id must be unique; across directories a later one replaces.
    std::map<std::string, const Entry*> seen_here;
    for (Entry& e : loaded) {
      if (auto it = seen_here.find(e.id); it != seen_here.end()) {
        problems.push_back({e.file, e.line, e.id + ".id",
                            Phrase("error.catalog.duplicate_id")
                                .fact("id", e.id)
                                .fact("first", it->second->file + ":" + std::to_string(it->second->line))});
        continue;
      }
      seen_here[e.id] = &e;
      if (auto it = c.by_id_.find(e.id); it != c.by_id_.end()) {
        c.entries_[it->second] = e;
      } else {
        c.by_id_[e.id] = c.entries_.size();
        c.entries_.push_back(e);
      }
    }
  }
  // References are checked once everything is loaded, so an override may point at a base entry.
  for (const Entry& e : c.entries_) {
    const KindSchema* schema = find_kind(e.kind);
    for (const auto& f : schema->fields) {
      if (f.type != FieldType::kRef || !e.has(f.key)) continue;
      std::string target = e.text(f.key);
      if (!c.find(f.detail, target)) {
        problems.push_back({e.file, line_of(e.node[f.key]), e.id + "." + f.key,
                            unknown_id(f.detail, target, c.ids_of_kind(f.detail))});
      }
    }
  }
  // Every threshold the code reads, so that a missing one is bad input here, not a failure later.
  for (std::string_view id : required_thresholds())
    if (!c.find("threshold", id))
      problems.push_back(
          {{}, 0, std::string(id), Phrase("error.catalog.missing_threshold").fact("id", std::string(id))});
  return c;
}

const Entry* Catalog::find(std::string_view id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &entries_[it->second];
}

const Entry* Catalog::find(std::string_view kind, std::string_view id) const {
  const Entry* e = find(id);
  return e && e->kind == kind ? e : nullptr;
}

std::vector<const Entry*> Catalog::of_kind(std::string_view kind) const {
  std::vector<const Entry*> out;
  for (const Entry& e : entries_)
    if (e.kind == kind) out.push_back(&e);
  return out;
}

std::vector<std::string> Catalog::ids_of_kind(std::string_view kind) const {
  std::vector<std::string> out;
  for (const Entry* e : of_kind(kind)) out.push_back(e->id);
  return out;
}

const Entry& Catalog::threshold_entry(std::string_view id) const {
  const Entry* e = find("threshold", id);
  // Load reported every listed id it lacks; another id is a defect of the code, not of the input.
  if (!e) throw std::out_of_range("catalog has no threshold '" + std::string(id) + "'");
  return *e;
}

double Catalog::threshold(std::string_view id) const { return threshold_entry(id).range("value").low; }

Range Catalog::threshold_range(std::string_view id) const { return threshold_entry(id).range("value"); }

std::optional<ExchangeRate> Catalog::rate_to_cny(std::string_view currency) const {
  if (currency == "CNY") return ExchangeRate{"CNY", "CNY", 1, {}, {}};
  for (const Entry* e : of_kind("fx"))
    if (e->text("from") == currency) return ExchangeRate{e->text("from"), "CNY", e->number("cny"), e->as_of, e->source};
  return std::nullopt;
}

namespace {

nlohmann::json yaml_to_json(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.Scalar()] = yaml_to_json(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& item : n) j.push_back(yaml_to_json(item));
    return j;
  }
  if (!n.IsScalar()) return nullptr;
  // Plain scalars that read as numbers or booleans become them; quoted ones stay strings.
  if (n.Tag() != "!") {
    try {
      return n.as<double>();
    } catch (const YAML::Exception&) {
    }
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  return n.Scalar();
}

}  // namespace

nlohmann::json Entry::fields_json() const { return yaml_to_json(node); }

}  // namespace gpuplan::catalog
