// Audit of a vendor's quote or contract (SPEC D): line prices against the catalog, per-GPU
// figures against the A3 band, "from" prices, licences without version or modules, service
// terms without numbers, hidden costs nobody pays for, and contract terms that must be
// written down. Any `fail` finding fails the audit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/finding.h"
#include "core/range.h"
#include "plan/config.h"
#include "plan/contract_terms.h"
#include "plan/price_age.h"

namespace gpuplan::plan {

struct VendorLine {
  std::string item;
  std::string part;  // catalog id, may be empty
  double qty = 1;
  Range unit_price;
  bool from_price = false;  // "from ¥X" (起)
  bool monthly = false;     // a monthly fee rather than a one-off price
  int line = 0;
  bool used = false;        // second-hand (condition: used, or 二手 / 拆机 / used in the item text)
  std::string sample_word;  // the words that call it an engineering sample ("ES", "工程样品"); empty: none
};

struct VendorLicence {
  std::string name;
  std::optional<std::string> version;
  std::vector<std::string> modules;
  int line = 0;  // of its entry under `software:`
};

struct VendorQuote {
  std::string file;
  std::string vendor;
  std::string gpu;  // catalog gpu id, may be empty
  int gpu_line = 0;
  int gpus = 0;
  std::optional<Task> task;  // what the server is bought for, when the quote says
  std::optional<bool> vat_included;      // vat: included | excluded (含税 | 不含税); nullopt: not said
  std::optional<double> warranty_years;  // warranty: 3, "3年原厂质保", "three years"; nullopt: not said
  std::vector<VendorLine> lines;
  std::vector<VendorLicence> licences;
  ContractTerms terms;  // contract: and service:, typed (plan/contract_terms.h)
  std::vector<std::string> hidden_costs_covered;
};

// The catalog resolves a GPU named in words ("NVIDIA A100 80GB SXM4") to its id.
Result<VendorQuote> parse_vendor_quote(const std::string& text, const std::string& file, const catalog::Catalog& catalog);
Result<VendorQuote> read_vendor_quote(const std::string& path, const catalog::Catalog& catalog);

// One quoted line beside the catalog (`gpuplan audit`'s line table, JSON `lines`).
struct AuditLine {
  std::string item;
  std::string part;  // catalog id; empty: none named
  double qty = 1;
  bool monthly = false;
  int line = 0;                  // in the quote file
  Range quoted;                  // unit price as quoted
  std::optional<Range> catalog;  // the catalog's unit price; nullopt: the catalog prices no such part
  // "within" | "above" | "below" (beyond audit.price_tolerance, as audit.line_range judges) | "unpriced"
  std::string verdict;
  // Above: (quoted low − catalog high) × qty, what is paid over the catalog's dearest figure;
  // below: −(catalog low − quoted high) × qty; 0 within or unpriced. CNY, once or a month.
  double over = 0;
};

struct AuditResult {
  std::string vendor;
  std::vector<AuditLine> lines;
  double overcharge_once = 0;     // the sum of the one-off lines' positive `over`
  double overcharge_monthly = 0;  // the same for the monthly lines
  int gpus = 0;
  Range total_once;
  Range total_monthly;
  std::optional<Range> buy_per_gpu;
  std::optional<Range> rent_per_gpu_month;
  std::vector<Finding> findings;
  std::optional<PriceAge> price_age;  // of the catalog prices the lines were held against; set by date_prices
  bool failed() const { return any_fail(findings); }
};

// The contract terms SPEC D asks to be written down, in the order they are checked.
const std::vector<std::string>& required_contract_fields();

// A line naming a part the catalog lacks is bad input, not a finding: the error names the
// line and suggests the nearest id.
Result<void> check_parts(const VendorQuote& quote, const catalog::Catalog& catalog);

AuditResult audit_quote(const VendorQuote& quote, const catalog::Catalog& catalog);

// Dates the catalog prices the lines were held against on `today` (YYYY-MM-DD): sets price_age
// and adds prices.age when they are past the catalog's limit.
void date_prices(AuditResult& audit, const std::string& today, const catalog::Catalog& catalog);

}  // namespace gpuplan::plan
