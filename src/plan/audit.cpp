#include "plan/audit.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/money.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "plan/contract_audit.h"
#include "plan/quote.h"

namespace gpuplan::plan {
namespace {

// A "from" price written into the item's text: "3万起", "¥30,000 起", "起价", "from ¥30,000",
// "starting at 30000". Not "一起" or "from the vendor": 起 must follow a figure or open 起价, and
// "from" must be followed by a figure or a currency sign.
bool says_from_price(const std::string& item) {
  static const std::regex kZh(R"((\d|万|元)\s*起|起价)");
  static const std::regex kEn(R"((^|[^a-z])(from|starting at|starting from)\s*(¥|￥|\$|rmb|cny|\d))",
                              std::regex::icase);
  return std::regex_search(item, kZh) || std::regex_search(item, kEn);
}

// Second-hand parts as quotes name them: 二手, 拆机 (pulled from a server), 翻新 (refurbished).
bool says_used(const std::string& item) {
  static const std::regex kUsed(R"(二手|拆机|翻新|(^|[^a-z])(used|refurbished|second-hand|pre-owned)([^a-z]|$))",
                                std::regex::icase);
  return std::regex_search(item, kUsed);
}

// An engineering sample as quotes name it (S0 §4.4): 工程样品 / 工程样卡 / 工程版, "engineering
// sample", or ES as a word of its own in capitals ("ES版", "A100 ES"; not "SERIES"). The words
// found; empty when none.
std::string sample_words(const std::string& item) {
  static const std::regex kZh(R"(工程样品|工程样卡|工程版)");
  static const std::regex kEn(R"(engineering sample)", std::regex::icase);
  static const std::regex kEs(R"((^|[^A-Za-z])ES([^A-Za-z]|$))");
  std::smatch m;
  if (std::regex_search(item, m, kZh) || std::regex_search(item, m, kEn)) return m.str(0);
  if (std::regex_search(item, m, kEs)) return "ES";
  return "";
}

// The years of a warranty as quotes write it: 3, "3年原厂质保", "三年", "3 years on site".
std::optional<double> warranty_years_of(const std::string& text) {
  static const std::regex kYears(R"((\d+(\.\d+)?)\s*(年|years?|yrs?)(?![a-z]))", std::regex::icase);
  static const std::vector<std::pair<std::string, double>> kZh = {{"一年", 1}, {"两年", 2}, {"二年", 2},
                                                                  {"三年", 3}, {"四年", 4}, {"五年", 5}};
  static const std::vector<std::pair<std::string, double>> kEn = {
      {"one year", 1}, {"two years", 2}, {"three years", 3}, {"four years", 4}, {"five years", 5}};
  std::smatch m;
  if (std::regex_search(text, m, kYears)) return std::stod(m.str(1));
  for (const auto& [word, years] : kZh)
    if (text.find(word) != std::string::npos) return years;
  const std::string lowered = lower(text);
  for (const auto& [word, years] : kEn)
    if (lowered.find(word) != std::string::npos) return years;
  return std::nullopt;
}

using catalog::Catalog;
using catalog::Entry;

// The finding ids name the terms by their older keys (contract.gpu_model, …), a public interface;
// the term each reads in ContractTerms is beside it.
const std::vector<std::string> kContractFields = {
    "gpu_model",       "driver_version", "cuda_version", "internal_bandwidth", "public_bandwidth",
    "rack_current",    "reboot_sla",     "installation", "performance_clause"};
const std::vector<std::string> kTermFields = {"gpu",  "driver",         "cuda",         "internal_network", "public_bandwidth",
                                              "rack", "reboot_sla_min", "installation", "performance"};

// S0 §2.2: a training server needs at least recommend.min_data_tb of NVMe for its data. Judged
// only when the quote prices disks; a warning for a training quote, a note when it names no task.
void check_storage(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  if (q.task && !is_training(*q.task)) return;
  bool disks = false;
  double nvme_tb = 0;
  for (const VendorLine& line : q.lines) {
    const Entry* part = line.part.empty() ? nullptr : cat.find("disk", line.part);
    if (!part) continue;
    disks = true;
    if (part->text("media") == "nvme") nvme_tb += line.qty * part->number("capacity_tb");
  }
  const double min_tb = cat.threshold("recommend.min_data_tb");
  if (!disks || nvme_tb >= min_tb) return;
  Finding f =
      make_finding("audit.storage", q.task ? Severity::kWarn : Severity::kInfo, q.task ? "" : "no_task", "S0 §2.2");
  f.fact("nvme", format_figure(nvme_tb, 2) + " TB").fact("min", format_figure(min_tb, 2) + " TB");
  if (q.task) f.fact("task", task_name(*q.task));
  out.push_back(f);
}

// Whether the prices include VAT decides a 13% difference on the equipment (china-vat).
void check_vat(const VendorQuote& q, AuditResult& a, const Catalog& cat) {
  if (q.vat_included.value_or(false)) return;
  const double rate = cat.threshold("vat.rate");
  Finding f = make_finding("audit.vat", q.vat_included ? Severity::kInfo : Severity::kWarn,
                           q.vat_included ? "excluded" : "unstated", "china-vat");
  f.fact("rate", format_number(rate * 100) + "%")
      .fact("once", format_money_range(a.total_once, "CNY"))
      .fact("vat", format_money_range(a.total_once * rate, "CNY"))
      .fact("with_vat", format_money_range(a.total_once * (1 + rate), "CNY"));
  a.findings.push_back(f);
}

// S1 §3: the warranty (质保) is a term to write down, and one shorter than the term the server is
// costed over leaves its last years unrepaired.
void check_warranty(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  const double term = cat.threshold("term.years");
  if (q.warranty_years && *q.warranty_years >= term) return;
  Finding f = make_finding("audit.warranty", Severity::kWarn, q.warranty_years ? "short" : "unstated", "S1 §3");
  f.fact("term", format_number(term));
  if (q.warranty_years) f.fact("years", format_number(*q.warranty_years, 1));
  out.push_back(f);
}

VendorQuote parse(const std::string& text, const std::string& file, const Catalog& catalog) {
  YamlReader r(file);
  YAML::Node root = r.load(text);
  r.check_keys(root, "",
               {"vendor", "date", "currency", "gpu", "gpus", "task", "vat", "warranty", "lines", "software", "service",
                "contract", "hidden_costs_covered"});
  VendorQuote q;
  q.file = file;
  q.vendor = root["vendor"] ? r.text(root["vendor"], "vendor") : file;
  if (root["currency"] && root["currency"].Scalar() != "CNY")
    r.fail(root["currency"], "currency", "error.audit.currency", {{"got", root["currency"].Scalar()}});
  if (root["gpu"]) {
    q.gpu = r.text(root["gpu"], "gpu");
    q.gpu_line = r.line_of(root["gpu"]);
  }
  if (!root["gpus"]) r.fail(root, "gpus", Phrase("error.audit.missing_gpus"));
  q.gpus = r.count(root["gpus"], "gpus", 1);
  if (const auto v = root["vat"]) {
    const std::string s = r.text(v, "vat");
    if (s == "included" || s == "含税")
      q.vat_included = true;
    else if (s == "excluded" || s == "不含税")
      q.vat_included = false;
    else
      r.fail(v, "vat", not_one_of(s, {"included", "excluded", "含税", "不含税"}));
  }
  if (const auto w = root["warranty"]) {
    const std::string s = r.text(w, "warranty");
    char* end = nullptr;
    const double plain = std::strtod(s.c_str(), &end);
    q.warranty_years = !s.empty() && *end == 0 ? std::optional<double>(plain) : warranty_years_of(s);
    if (!q.warranty_years || !std::isfinite(*q.warranty_years) || *q.warranty_years <= 0 || *q.warranty_years > 20)
      r.fail(w, "warranty", Phrase("error.audit.warranty").fact("got", s));
  }
  if (const auto t = root["task"]) {
    const std::string s = r.text(t, "task");
    q.task = parse_task(s);
    if (!q.task) r.fail(t, "task", not_one_of(s, task_names()));
  }
  if (!root["lines"] || !root["lines"].IsSequence() || root["lines"].size() == 0)
    r.fail(root["lines"] ? root["lines"] : root, "lines", Phrase("error.audit.missing_lines"));
  for (size_t i = 0; i < root["lines"].size(); ++i) {
    const YAML::Node n = root["lines"][i];
    const std::string at = "lines[" + std::to_string(i) + "]";
    r.check_keys(n, at, {"item", "part", "qty", "unit_price", "from", "period", "condition"});
    VendorLine line;
    line.line = r.line_of(n);
    if (!n["item"]) r.fail(n, at + ".item", Phrase("error.audit.missing_item"));
    line.item = r.text(n["item"], at + ".item");
    if (n["part"]) line.part = r.text(n["part"], at + ".part");
    if (n["qty"]) line.qty = r.count(n["qty"], at + ".qty", 1);
    if (!n["unit_price"]) r.fail(n, at + ".unit_price", Phrase("error.audit.missing_price"));
    line.unit_price = r.range(n["unit_price"], at + ".unit_price");
    if (n["from"]) line.from_price = r.boolean(n["from"], at + ".from");
    line.from_price = line.from_price || says_from_price(line.item);
    line.used = says_used(line.item);
    line.sample_word = sample_words(line.item);
    if (n["condition"]) {
      std::string c = r.text(n["condition"], at + ".condition");
      if (c != "new" && c != "used") r.fail(n["condition"], at + ".condition", not_one_of(c, {"new", "used"}));
      line.used = c == "used";
    }
    if (n["period"]) {
      std::string p = r.text(n["period"], at + ".period");
      if (p != "once" && p != "month") r.fail(n["period"], at + ".period", not_one_of(p, {"once", "month"}));
      line.monthly = p == "month";
    }
    q.lines.push_back(line);
  }
  if (const auto s = root["software"]) {
    if (!s.IsSequence()) r.fail(s, "software", Phrase("error.audit.software_not_list"));
    for (size_t i = 0; i < s.size(); ++i) {
      const std::string at = "software[" + std::to_string(i) + "]";
      r.check_keys(s[i], at, {"name", "version", "modules"});
      if (!s[i]["name"]) r.fail(s[i], at + ".name", Phrase("error.audit.missing_licence_name"));
      VendorLicence l{r.text(s[i]["name"], at + ".name"), std::nullopt, {}, r.line_of(s[i])};
      if (s[i]["version"]) l.version = r.text(s[i]["version"], at + ".version");
      if (s[i]["modules"]) l.modules = r.string_list(s[i]["modules"], at + ".modules");
      q.licences.push_back(l);
    }
  }
  q.terms = read_contract_terms(r, root["contract"], root["service"], catalog);
  if (root["hidden_costs_covered"]) q.hidden_costs_covered = r.string_list(root["hidden_costs_covered"], "hidden_costs_covered");
  return q;
}

// The catalog's price range for one unit of `e`, for a one-off or a monthly line.
std::optional<Range> catalog_unit_price(const Entry& e, bool monthly) {
  if (e.kind == "disk") return monthly ? std::nullopt : std::optional<Range>(disk_price(e, 1));
  if (e.kind == "licence") return monthly ? e.range("per_gpu_year") / 12 : e.range("per_gpu_year");
  if (e.kind == "support") return monthly ? e.range("per_year") / 12 : e.range("per_year");
  for (const char* key : {monthly ? "rent_monthly" : "buy"})
    if (e.has(key)) return e.range(key);
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& required_contract_fields() { return kContractFields; }

Result<VendorQuote> parse_vendor_quote(const std::string& text, const std::string& file, const Catalog& catalog) {
  try {
    return parse(text, file, catalog);
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

Result<VendorQuote> read_vendor_quote(const std::string& path, const Catalog& catalog) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_vendor_quote(*text, path, catalog);
}

Result<void> check_parts(const VendorQuote& q, const Catalog& cat) {
  std::vector<std::string> ids;
  for (const Entry& e : cat.entries()) ids.push_back(e.id);
  for (size_t i = 0; i < q.lines.size(); ++i) {
    const VendorLine& line = q.lines[i];
    if (!line.part.empty() && !cat.find(line.part))
      return Error{q.file, line.line, "lines[" + std::to_string(i) + "].part", unknown_id("catalog_part", line.part, ids)};
  }
  if (!q.gpu.empty() && !cat.find("gpu", q.gpu))
    return Error{q.file, q.gpu_line, "gpu", unknown_id("gpu", q.gpu, cat.ids_of_kind("gpu"))};
  return {};
}

AuditResult audit_quote(const VendorQuote& q, const Catalog& cat) {
  AuditResult a;
  a.vendor = q.vendor;
  a.gpus = q.gpus;
  const double tolerance = cat.threshold("audit.price_tolerance");
  for (const VendorLine& line : q.lines) {
    Range total = line.unit_price * line.qty;
    (line.monthly ? a.total_monthly : a.total_once) += total;
    const std::string where = q.file + ":" + std::to_string(line.line);
    if (line.from_price) {
      Finding f = make_finding("audit.price_from", Severity::kWarn, "", "S1 §1");
      f.fact("item", line.item).fact("unit_price", format_money_range(line.unit_price, "CNY")).fact("at", where);
      a.findings.push_back(f);
    }
    if (!line.sample_word.empty()) {
      Finding f = make_finding("audit.engineering_sample", Severity::kFail, "", "S0 §4.4");
      f.fact("item", line.item).fact("word", line.sample_word).fact("at", where);
      a.findings.push_back(f);
    }
    const Entry* part = line.part.empty() ? nullptr : cat.find(line.part);
    std::optional<Range> expected = part ? catalog_unit_price(*part, line.monthly) : std::nullopt;
    // A used card is held against the used band of its new price (S0 §4.4), unless the catalog
    // prices the part used already.
    if (line.used && part && part->kind == "gpu" && expected && part->text("condition") != "used") {
      const Range new_price = *expected;
      expected = new_price * cat.threshold_range("used.card_fraction");
      Finding f = make_finding("audit.used_card", Severity::kInfo, "", "S0 §4.4");
      f.fact("item", line.item)
          .fact("unit_price", format_money_range(line.unit_price, "CNY"))
          .fact("band", format_money_range(*expected, "CNY"))
          .fact("new", format_money_range(new_price, "CNY"))
          .fact("at", where);
      a.findings.push_back(f);
    }
    AuditLine& row = a.lines.emplace_back(
        AuditLine{line.item, line.part, line.qty, line.monthly, line.line, line.unit_price, expected, "unpriced", 0});
    if (expected) {
      row.verdict = "within";
      if (line.unit_price.low > expected->high * (1 + tolerance)) {
        row.verdict = "above";
        row.over = (line.unit_price.low - expected->high) * line.qty;
        (line.monthly ? a.overcharge_monthly : a.overcharge_once) += row.over;
      } else if (line.unit_price.high < expected->low * (1 - tolerance)) {
        row.verdict = "below";
        row.over = -(expected->low - line.unit_price.high) * line.qty;
      }
    }
    if (!expected) {
      Finding f = make_finding("audit.unpriced_part", Severity::kInfo, "", "S0 §5");
      f.fact("item", line.item).fact("unit_price", format_money_range(line.unit_price, "CNY")).fact("at", where);
      a.findings.push_back(f);
      continue;
    }
    const std::string variant = row.verdict;
    if (variant == "within") continue;
    Finding f = make_finding("audit.line_range", variant == "above" ? Severity::kFail : Severity::kWarn, variant, "S0 §5");
    f.fact("item", line.item).fact("unit_price", format_money_range(line.unit_price, "CNY"))
        .fact("range", format_money_range(*expected, "CNY")).fact("part", part->id)
        .fact("source", part->source + ", " + part->as_of, part->display_source_zh() + "，" + part->as_of).fact("tolerance", format_number(tolerance * 100) + "%").fact("at", where);
    a.findings.push_back(f);
  }

  // A3: per-GPU figures of whichever totals the quote has, as notes: the band contradicts the
  // article's own card and server prices (rules.cpp check_band); the lines are judged above.
  auto band = [&](const char* id, const Range& per_gpu, const char* threshold) {
    Range b = cat.threshold_range(threshold);
    Finding f;
    if (per_gpu.low > b.high)
      f = make_finding(id, Severity::kInfo, "above", "S0 §3.2; corrections");
    else if (per_gpu.high < b.low) f = make_finding(id, Severity::kInfo, "below", "S0 §3.2; corrections");
    else return;
    f.fact("per_gpu", format_money_range(per_gpu, "CNY")).fact("band", format_money_range(b, "CNY"));
    a.findings.push_back(f);
  };
  if (a.total_once.high > 0) {
    a.buy_per_gpu = a.total_once / q.gpus;
    band("band.buy_per_gpu", *a.buy_per_gpu, "band.buy_per_gpu");
  }
  if (a.total_monthly.high > 0) {
    a.rent_per_gpu_month = a.total_monthly / q.gpus;
    band("band.rent_per_gpu", *a.rent_per_gpu_month, "band.rent_per_gpu_month");
  }

  for (const VendorLicence& l : q.licences) {
    if (!l.version) {
      Finding f = make_finding("audit.licence", Severity::kFail, "no_version", "S1 §3");
      f.fact("name", l.name);
      a.findings.push_back(f);
    } else if (l.modules.empty()) {
      Finding f = make_finding("audit.licence", Severity::kWarn, "no_modules", "S1 §3");
      f.fact("name", l.name).fact("version", *l.version);
      a.findings.push_back(f);
    }
  }

  check_storage(q, cat, a.findings);
  check_vat(q, a, cat);
  check_warranty(q, cat, a.findings);

  std::vector<Phrase> missing_terms;
  auto need = [&](bool present, const char* term) {
    if (!present) missing_terms.push_back(Phrase(term));
  };
  // Written is what this check asks; what the terms say is judged by the contract.* findings.
  need(q.terms.has("service.response_h"), "audit.term.response_time");
  need(q.terms.has("service.mttr_h"), "audit.term.mttr");
  need(q.terms.has("service.penalty"), "audit.term.penalty");
  if (!missing_terms.empty()) {
    Finding f = make_finding("audit.service_terms", Severity::kFail, "", "S1 §3");
    f.fact("missing", missing_terms);
    a.findings.push_back(f);
  }

  std::vector<Phrase> missing_hidden;
  for (const Entry* h : cat.of_kind("hidden_cost"))
    if (std::find(q.hidden_costs_covered.begin(), q.hidden_costs_covered.end(), h->id) == q.hidden_costs_covered.end())
      missing_hidden.push_back(Phrase("audit.term.name").fact("name", h->name, h->display_name_zh()));
  if (!missing_hidden.empty()) {
    Finding f = make_finding("audit.hidden_costs", Severity::kWarn, "", "S0 §3.5");
    f.fact("missing", missing_hidden);
    a.findings.push_back(f);
  }

  for (size_t i = 0; i < kContractFields.size(); ++i) {
    const std::string& field = kContractFields[i];
    bool written = q.terms.has(kTermFields[i]);  // parsed or not: an unreadable term is still written down
    // The fields a contract must name [S0 §5]; installation work [S1 §2], the performance clause [S1 §5 #10].
    const char* source = field == "installation" ? "S0 §5; S1 §2" : field == "performance_clause" ? "S0 §5; S1 §5 #10" : "S0 §5";
    if (!written) a.findings.push_back(make_finding("contract." + field, Severity::kFail, "", source));
  }
  // S0 §3.3 asks it when renting rack space; a missing answer is a question to put, not a defect.
  if (!q.terms.has("cooling")) a.findings.push_back(make_finding("contract.cooling", Severity::kWarn, "", "S0 §3.3"));
  judge_contract_terms(q, cat, a.findings);
  std::stable_sort(a.findings.begin(), a.findings.end(), [](const Finding& x, const Finding& y) { return weighs_more(x.severity, y.severity); });
  return a;
}

void date_prices(AuditResult& a, const std::string& today, const Catalog& cat) {
  std::vector<const Entry*> priced;
  for (const AuditLine& line : a.lines)
    if (line.catalog) priced.push_back(cat.find(line.part));
  a.price_age = price_age(priced, today, cat);
  // In its place among the findings, which audit_quote sorts heaviest first.
  if (auto stale = stale_prices(a.price_age))
    a.findings.insert(std::find_if(a.findings.begin(), a.findings.end(),
                                   [&](const Finding& f) { return weighs_more(stale->severity, f.severity); }),
                      *stale);
}

}  // namespace gpuplan::plan
