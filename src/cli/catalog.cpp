// gpuplan catalog list | show | check: the price and rule catalog, and its validation.
#include <iostream>
#include <memory>

#include "catalog/schema.h"
#include "cli/catalog_path.h"
#include "cli/verb.h"
#include "core/text.h"
#include "report/catalog_render.h"

namespace gpuplan::cli {
namespace {

struct CatalogArgs {
  std::string list_kind, show_id, check_dir;
};

int run_list(const Common& common, const std::string& kind) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  if (!kind.empty() && !catalog::find_kind(kind)) {
    std::vector<std::string> names;
    for (const auto& k : catalog::kinds()) names.push_back(k.kind);
    return bad_input(unknown_id("kind", kind, names));
  }
  std::vector<const catalog::Entry*> entries;
  for (const auto& e : ctx.catalog.entries())
    if (kind.empty() || e.kind == kind) entries.push_back(&e);
  std::cout << report::render_catalog_list(entries, ctx.format, ctx.style);
  return kOk;
}

int run_show(const Common& common, const std::string& id) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  const catalog::Entry* e = ctx.catalog.find(id);
  if (!e) {
    std::vector<std::string> ids;
    for (const auto& x : ctx.catalog.entries()) ids.push_back(x.id);
    return bad_input(unknown_id("catalog_entry", id, ids));
  }
  std::cout << report::render_catalog_entry(*e, ctx.format);
  return kOk;
}

int run_check(const Common& common, const std::string& dir) {
  std::vector<std::string> overrides = common.catalogs;
  if (!dir.empty()) overrides.push_back(dir);
  std::vector<Error> problems;
  catalog::Catalog cat = catalog::Catalog::load(catalog_dirs(overrides), problems);
  // An unknown --format shows the check as a table.
  const report::Format format = report::parse_format(common.format).value_or(report::Format::kTable);
  std::cout << report::render_catalog_check(cat.entries().size(), problems, format, language());
  return problems.empty() ? kOk : kBadInput;
}

}  // namespace

Run add_catalog(CLI::App& cmd) {
  auto args = std::make_shared<CatalogArgs>();
  cmd.require_subcommand(1);
  auto* list = cmd.add_subcommand("list", ui("cli.help.catalog.list"));
  list->add_option("kind", args->list_kind, ui("cli.help.catalog.list.kind"));
  auto* show = cmd.add_subcommand("show", ui("cli.help.catalog.show"));
  show->add_option("id", args->show_id, ui("cli.help.catalog.show.id"))->required();
  auto* check = cmd.add_subcommand("check", ui("cli.help.catalog.check"));
  check->add_option("dir", args->check_dir, ui("cli.help.catalog.check.dir"))->type_name("DIR");
  cmd.footer(examples({"gpuplan catalog list gpu", "gpuplan catalog show a100-80gb-sxm --format json",
                       "gpuplan catalog check my-prices/"}));
  for (CLI::App* sub : {list, show, check}) sub->fallthrough();
  return [args, list, show](const Common& common) {
    if (*list) return run_list(common, args->list_kind);
    if (*show) return run_show(common, args->show_id);
    return run_check(common, args->check_dir);
  };
}

}  // namespace gpuplan::cli
