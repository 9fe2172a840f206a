#include "cli/common.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli/catalog_path.h"

namespace gpuplan::cli {

int bad_input(const std::string& message) {
  std::cerr << "gpuplan: error: " << message << "\n";
  return kBadInput;
}

int bad_input(const Error& e) { return bad_input(e.str()); }

bool make_context(const Common& common, Context& ctx, int& exit_code, bool html_ok) {
  if (!report::parse_format(common.format, ctx.format) || (ctx.format == report::Format::kHtml && !html_ok)) {
    exit_code = bad_input("--format: '" + common.format + "' is not one of table, json, md" + (html_ok ? ", html" : ""));
    return false;
  }
  ctx.style.lang = report::lang_from_env();
  if (!common.lang.empty() && !report::parse_lang(common.lang, ctx.style.lang)) {
    exit_code = bad_input("--lang: '" + common.lang + "' is not one of en, zh");
    return false;
  }
  const char* no_color = std::getenv("NO_COLOR");
  ctx.style.colour = ctx.format == report::Format::kTable && !common.no_color && isatty(STDOUT_FILENO) &&
                     !(no_color && *no_color);
  std::vector<Error> problems;
  ctx.catalog = catalog::Catalog::load(catalog_dirs(common.catalogs), problems);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << "gpuplan: catalog: " << p.str() << "\n";
    exit_code = bad_input(std::to_string(problems.size()) + " problem(s) in the catalog; run `gpuplan catalog check`");
    return false;
  }
  return true;
}

int emit(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return kOk;
  }
  std::ofstream out(output);
  out << text;
  if (!out) return bad_input(Error{output, 0, "--output", "cannot write the report"});
  std::cerr << "gpuplan: wrote " << output << "\n";
  return kOk;
}

telemetry::Progress progress_bar(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return {};
  return [](int64_t done, int64_t total) {
    if (total > 0) std::fprintf(stderr, "\rreading: %3.0f%% (%.2f of %.2f GB)", 100.0 * done / total, done / 1e9, total / 1e9);
    if (done >= total) std::fprintf(stderr, "\r%60s\r", "");
  };
}

}  // namespace gpuplan::cli
