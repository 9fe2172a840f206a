// The audit's judgement of what a contract says (issue 13): each typed term of
// VendorQuote::terms (plan/contract_terms.h) against the catalog and against the quote's own
// lines. audit_quote calls it; the terms' presence is judged there (contract.gpu_model, ...).
//
// A caller may rely on: finding ids contract.driver, contract.rack, contract.bandwidth,
// contract.service, contract.licence, contract.performance, contract.gpu and contract.unparsed
// (docs/rules.md); every finding about a written term carries the facts "term" (the text as
// written) and "at" ("file:line"); a term absent from the quote gives no finding here; a term
// gpuplan could not read (ContractTerms::unparsed) gives only its contract.unparsed warning.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "plan/audit.h"
#include "plan/quote.h"

namespace gpuplan::plan {

// Peak draw of one quoted server, from the quote's lines with the power model of `gpuplan
// quote` (add_part_power, then set_system_power with the quoted platform). The lines'
// quantities are divided by the servers the quote prices
// (the quantity of its platform lines; one when it prices none).
struct QuotedPower {
  PowerBudget budget;  // one server
  double servers = 1;
  bool platform_priced = false;  // false: no platform line, so `servers` (1) is an assumption
  std::vector<std::string> not_counted;  // items of hardware lines with no catalog power figure
};
QuotedPower quoted_server_power(const VendorQuote& quote, const catalog::Catalog& catalog);

// Appends the contract.* findings of `quote`'s terms to `out`, term by term in the order above.
void judge_contract_terms(const VendorQuote& quote, const catalog::Catalog& catalog, std::vector<Finding>& out);

}  // namespace gpuplan::plan
