#include "report/catalog_render.h"

#include <nlohmann/json.hpp>

#include "report/table.h"

namespace gpuplan::report {
namespace {

nlohmann::json entry_json(const catalog::Entry& e, std::string file) {
  nlohmann::json j = e.fields_json();
  j["kind"] = e.kind;
  j["file"] = std::move(file);
  return j;
}

}  // namespace

std::string render_catalog_list(const std::vector<const catalog::Entry*>& entries, Format format, const Style& style) {
  if (format == Format::kJson) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto* e : entries) out.push_back(entry_json(*e, e->file));
    return out.dump(2) + "\n";
  }
  const Lang lang = style.lang;
  const bool zh = lang == Lang::kZh;
  const std::vector<std::string> headings = {ui("cli.catalog.col.id", lang), ui("cli.catalog.col.kind", lang),
                                             ui("cli.catalog.col.name", lang), ui("cli.catalog.col.as_of", lang),
                                             ui("cli.catalog.col.source", lang)};
  std::string out;
  if (format == Format::kMarkdown) {
    out += "|";
    for (const auto& h : headings) out += " " + h + " |";
    out += "\n|---|---|---|---|---|\n";
    for (const auto* e : entries)
      out += "| " + e->id + " | " + e->kind + " | " + (zh ? e->display_name_zh() : e->name) + " | " + e->as_of + " | " +
             (zh ? e->display_source_zh() : e->source) + " |\n";
    return out;
  }
  TextTable t(headings);
  for (const auto* e : entries) {
    const std::string& full = zh ? e->display_source_zh() : e->source;
    std::string source = full.size() > 60 ? full.substr(0, full.rfind(' ', 57)) + " …" : full;
    t.add_row({e->id, e->kind, zh ? e->display_name_zh() : e->name, e->as_of, source});
  }
  return t.str();
}

std::string render_catalog_entry(const catalog::Entry& entry, Format format) {
  nlohmann::json j = entry_json(entry, entry.file + ":" + std::to_string(entry.line));
  if (format == Format::kJson) return j.dump(2) + "\n";
  std::string out;
  for (const auto& [key, value] : j.items())
    out += key + ": " + (value.is_string() ? value.get<std::string>() : value.dump()) + "\n";
  return out;
}

std::string render_catalog_check(size_t entries, const std::vector<Error>& problems, Format format, Lang lang) {
  if (format == Format::kJson) {
    nlohmann::json j = {{"entries", entries}, {"problems", nlohmann::json::array()}};
    for (const auto& p : problems)
      j["problems"].push_back(
          {{"file", p.file}, {"line", p.line}, {"field", p.field}, {"message", say(p.message, lang)}});
    return j.dump(2) + "\n";
  }
  std::string out;
  for (const auto& p : problems) out += error_text(p, lang) + "\n";
  return out +
         say(Phrase("cli.catalog.summary")
                 .fact("entries", std::to_string(entries))
                 .fact("problems", std::to_string(problems.size())),
             lang) +
         "\n";
}

}  // namespace gpuplan::report
