// gpuplan audit: a vendor's quote checked line by line against the catalog.
#include "plan/audit.h"

#include <iostream>
#include <memory>

#include "cli/verb.h"
#include "core/bounds.h"
#include "report/render.h"

namespace gpuplan::cli {
namespace {

int run_audit(const Common& common, const std::string& file) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  auto quote = plan::read_vendor_quote(file, ctx.catalog);
  if (!quote) return bad_input(quote.error());
  if (auto parts = plan::check_parts(*quote, ctx.catalog); !parts) return bad_input(parts.error());
  plan::AuditResult result = plan::audit_quote(*quote, ctx.catalog);
  plan::date_prices(result, ctx.today, ctx.catalog);
  // Every figure is bounded as it is read; a total that is not a finite amount is still refused.
  if (!bounds::sane_money(result.total_once) || !bounds::sane_money(result.total_monthly))
    return bad_input(Error{file, 0, {}, bounds::money_overflow(result.total_once.high)});
  std::cout << report::render_audit(result, ctx.format, ctx.style);
  return result.failed() ? kVerdictFailed : kOk;
}

}  // namespace

Run add_audit(CLI::App& cmd) {
  auto file = std::make_shared<std::string>();
  cmd.add_option("quote", *file, ui("cli.help.audit.quote"))->required()->type_name("QUOTE.yaml");
  cmd.footer(examples({"gpuplan audit examples/vendor-quote-padded.yaml"}));
  return [file](const Common& common) { return run_audit(common, *file); };
}

}  // namespace gpuplan::cli
