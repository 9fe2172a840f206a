// Renderers for `gpuplan catalog`: the list of entries (a table, Markdown or JSON), one entry's
// fields, and what `catalog check` found. Pure functions of catalog data.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "report/render.h"

namespace gpuplan::report {

// JSON: every entry's fields with "kind" and "file"; table and Markdown: id, kind, name (in
// the reader's language), as_of and source (the table cuts a source past 60 characters).
std::string render_catalog_list(const std::vector<const catalog::Entry*>& entries, Format format, const Style& style);
// JSON: the entry's fields with "kind" and "file" ("file:line"); otherwise "key: value" lines.
std::string render_catalog_entry(const catalog::Entry& entry, Format format);
// JSON {"entries", "problems": [{file, line, field, message}]}; otherwise each problem as an
// error line and a summary.
std::string render_catalog_check(size_t entries, const std::vector<Error>& problems, Format format, Lang lang);

}  // namespace gpuplan::report
