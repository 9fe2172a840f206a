// Audit of a vendor quote (SPEC D): each check fires on a quote built to trigger it and stays
// quiet on one built not to; the shipped examples give the verdicts their comments promise.
#include "plan/audit.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "report/messages.h"
#include "core/text.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::source_path;

// Everything SPEC D asks for, so that only the part a test changes can fire.
const std::string kService = "service: {response_time_h: 2, mttr_h: 4, penalty: \"5% per hour late\"}\n";
// Each term in a wording the audit reads (README "Contract terms") and judges sound.
const std::map<std::string, std::string> kTerms = {
    {"gpu_model", "A100 80GB SXM4"},
    {"driver_version", "\"535.104.05\""},
    {"cuda_version", "\"12.1\""},
    {"internal_bandwidth", "2 x 25 GbE"},
    {"public_bandwidth", "100 Mbps fixed"},
    {"rack_current", "40 A at 220 V"},  // 7,040 W continuous carries HGX A100's 6,500 W
    {"reboot_sla", "15 min"},
    {"installation", "included"},
    {"performance_clause", "\"ResNet-50 training, >= 1,850 images/s per GPU\""}};

std::string contract_without(const std::string& missing) {
  std::string contract = "contract:\n";
  for (const auto& [field, term] : kTerms)
    if (field != missing) contract += "  " + field + ": " + term + "\n";
  return contract + "  cooling: \"hot/cold aisle for 7 kW racks; emergency cooling\"\n";
}
const std::string kContract = contract_without("");
const std::string kHidden =
    "hidden_costs_covered: [os_licence, ops_staff, security, public_ip, monitoring, support_hours, egress, backup,\n"
    "  storage_overquota, high_density_airflow, emergency_cooling]\n";

// A quote of 8 GPUs with `lines` (YAML list items) and `rest` (the other sections).
std::string quote_yaml(const std::string& lines, const std::string& rest = kService + kContract + kHidden) {
  return "vendor: V\ngpus: 8\nlines:\n" + lines + rest;
}

VendorQuote parse_ok(const std::string& yaml) {
  auto q = parse_vendor_quote(yaml, "q.yaml", default_catalog());
  if (!q) {
    ADD_FAILURE() << q.error().str();
    return {};
  }
  return *q;
}

AuditResult audit_of(const std::string& yaml) { return audit_quote(parse_ok(yaml), default_catalog()); }

// The phrases a fact lists (a list worded in the reader's language).
std::vector<Phrase> phrases(const Finding& f, const std::string& key) {
  const Fact* fact = find_fact(f.facts, key);
  return fact ? fact->phrases : std::vector<Phrase>{};
}

std::string fact(const Finding& f, const std::string& key) {
  const std::string* v = f.find_fact(key);
  return v ? *v : "<no fact " + key + ">";
}

// One GPU line at `price` each (catalog a100-80gb-sxm buy: ¥70,000–100,000 [S0 §1]).
std::string gpu_line(const std::string& price) {
  return "  - {item: A100 80GB SXM4, part: a100-80gb-sxm, qty: 8, unit_price: " + price + "}\n";
}

// --- The shipped examples -------------------------------------------------------------------

TEST(AuditTest, PaddedExampleFlagsThePaddedLinesAndFails) {
  auto q = read_vendor_quote(source_path("examples/vendor-quote-padded.yaml"), default_catalog());
  ASSERT_TRUE(q) << q.error().str();
  AuditResult a = audit_quote(*q, default_catalog());
  EXPECT_TRUE(a.failed());

  // Catalog ranges widened by audit.price_tolerance 10%:
  //   a100-80gb-sxm  98,000 vs 100,000 × 1.1 = 110,000  in range
  //   hgx-a100-8gpu 180,000 vs 200,000 × 1.1 = 220,000  in range
  //   epyc-7763      19,000 vs  20,000 × 1.1 =  22,000  in range
  //   ddr4-3200-64gb  4,200 vs   2,500 × 1.1 =   2,750  above
  //   nvme-u2-3.84tb 21,000 vs 3.84 TB × 1,500 × 2 = 11,520 × 1.1 = 12,672  above
  //   ib-hdr-200g    26,000 vs  12,000 × 1.1 =  13,200  above
  auto ranges = findings_with_id(a.findings, "audit.line_range");
  ASSERT_EQ(ranges.size(), 3u);
  std::vector<std::string> parts;
  for (const auto& f : ranges) {
    EXPECT_EQ(f.severity, Severity::kFail);
    EXPECT_EQ(f.variant, "above");
    parts.push_back(fact(f, "part"));
  }
  EXPECT_EQ(parts, (std::vector<std::string>{"ddr4-3200-64gb", "nvme-u2-3.84tb", "ib-hdr-200g"}));
  EXPECT_EQ(fact(ranges[1], "range"), "¥6,144–11,520");  // 3.84 × [800, 1,500] × 2

  // "Deployment and tuning service" is a "from" price and names no catalog part.
  auto from = findings_with_id(a.findings, "audit.price_from");
  ASSERT_EQ(from.size(), 1u);
  EXPECT_EQ(from[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(from[0], "item"), "Deployment and tuning service");
  ASSERT_EQ(findings_with_id(a.findings, "audit.unpriced_part").size(), 1u);

  auto licence = findings_with_id(a.findings, "audit.licence");
  ASSERT_EQ(licence.size(), 1u);
  EXPECT_EQ(licence[0].severity, Severity::kFail);
  EXPECT_EQ(licence[0].variant, "no_version");

  auto terms = findings_with_id(a.findings, "audit.service_terms");
  ASSERT_EQ(terms.size(), 1u);
  // Only response_time_h is given.
  EXPECT_EQ(phrases(terms[0], "missing"), (std::vector<Phrase>{Phrase("audit.term.mttr"), Phrase("audit.term.penalty")}));

  // Only gpu_model is written; the 8 other contract fields fail.
  for (const std::string& field : required_contract_fields()) {
    auto found = findings_with_id(a.findings, "contract." + field);
    EXPECT_EQ(found.size(), field == "gpu_model" ? 0u : 1u) << field;
  }
  EXPECT_EQ(findings_with_id(a.findings, "audit.hidden_costs").size(), 1u);  // only os_licence covered

  // 8 × 98,000 + 180,000 + 2 × 19,000 + 16 × 4,200 + 4 × 21,000 + 8 × 26,000 + 30,000
  //   = 784,000 + 180,000 + 38,000 + 67,200 + 84,000 + 208,000 + 30,000 = ¥1,391,200
  EXPECT_EQ(a.total_once, Range::point(1391200));
  EXPECT_EQ(a.total_monthly, Range{});
  ASSERT_TRUE(a.buy_per_gpu);
  EXPECT_EQ(*a.buy_per_gpu, Range::point(173900));  // 1,391,200 / 8
  EXPECT_FALSE(a.rent_per_gpu_month);
  auto band = findings_with_id(a.findings, "band.buy_per_gpu");
  ASSERT_EQ(band.size(), 1u);
  EXPECT_EQ(band[0].variant, "above");  // ¥173,900 > ¥40,000 [S0 §3.2]
  EXPECT_EQ(fact(band[0], "per_gpu"), "¥173,900");  // CNY per GPU: the message names the unit

  // Fails come first.
  EXPECT_TRUE(std::is_sorted(a.findings.begin(), a.findings.end(),
                             [](const Finding& x, const Finding& y) { return weighs_more(x.severity, y.severity); }));
}

TEST(AuditTest, CleanExamplePasses) {
  auto q = read_vendor_quote(source_path("examples/vendor-quote-clean.yaml"), default_catalog());
  ASSERT_TRUE(q) << q.error().str();
  AuditResult a = audit_quote(*q, default_catalog());
  EXPECT_FALSE(a.failed());
  // 8 × 88,000 + 150,000 + 2 × 17,000 + 16 × 2,000 + 4 × 9,000 + 2 × 2,500 + 3 × 55,000
  //   = 704,000 + 150,000 + 34,000 + 32,000 + 36,000 + 5,000 + 165,000 = ¥1,126,000
  EXPECT_EQ(a.total_once, Range::point(1126000));
  ASSERT_TRUE(a.buy_per_gpu);
  EXPECT_EQ(*a.buy_per_gpu, Range::point(140750));  // 1,126,000 / 8
  // The only finding is the article's per-GPU band, which any build with new cards exceeds (SPEC §J):
  // a note, not a warning.
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].id, "band.buy_per_gpu");
  EXPECT_EQ(a.findings[0].severity, Severity::kInfo);
}

// --- Line prices ----------------------------------------------------------------------------

TEST(AuditTest, LineMoreThanTenPercentAboveRangeFails) {
  // 100,000 × 1.1 = 110,000 is the last price let through.
  auto above = findings_with_id(audit_of(quote_yaml(gpu_line("110001"))).findings, "audit.line_range");
  ASSERT_EQ(above.size(), 1u);
  EXPECT_EQ(above[0].severity, Severity::kFail);
  EXPECT_EQ(above[0].variant, "above");
  EXPECT_EQ(fact(above[0], "unit_price"), "¥110,001");
  EXPECT_EQ(fact(above[0], "range"), "¥70,000–100,000");
  EXPECT_EQ(fact(above[0], "at"), "q.yaml:4");
  EXPECT_TRUE(findings_with_id(audit_of(quote_yaml(gpu_line("110000"))).findings, "audit.line_range").empty());
}

TEST(AuditTest, LineMoreThanTenPercentBelowRangeWarns) {
  // 70,000 × 0.9 = 63,000 is the lowest price let through.
  auto below = findings_with_id(audit_of(quote_yaml(gpu_line("62999"))).findings, "audit.line_range");
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].severity, Severity::kWarn);
  EXPECT_EQ(below[0].variant, "below");
  EXPECT_TRUE(findings_with_id(audit_of(quote_yaml(gpu_line("63000"))).findings, "audit.line_range").empty());
}

TEST(AuditTest, FromPriceWarns) {
  const std::string from = "  - {item: Setup, qty: 1, unit_price: 5000, from: true}\n";
  auto found = findings_with_id(audit_of(quote_yaml(from)).findings, "audit.price_from");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(found[0], "unit_price"), "¥5,000");
  const std::string fixed = "  - {item: Setup, qty: 1, unit_price: 5000, from: false}\n";
  EXPECT_TRUE(findings_with_id(audit_of(quote_yaml(fixed)).findings, "audit.price_from").empty());
}

TEST(AuditTest, ATrainingQuoteWithTooLittleNvmeWarns) {
  // One 960 GB SATA disk and one 2 TB M.2 NVMe disk: 2 TB of NVMe, the minimum itself.
  const std::string enough =
      "  - {item: SATA, part: sata-ssd-960gb, qty: 1, unit_price: 1200}\n"
      "  - {item: NVMe, part: nvme-m2-2tb, qty: 1, unit_price: 2400}\n";
  EXPECT_TRUE(findings_with_id(audit_of("task: train\n" + quote_yaml(enough)).findings, "audit.storage").empty());
  // Only SATA disks: 0 TB of NVMe < 2 TB [S0 §2.2].
  const std::string sata = "  - {item: SATA, part: sata-ssd-960gb, qty: 4, unit_price: 1200}\n";
  auto train = findings_with_id(audit_of("task: train\n" + quote_yaml(sata)).findings, "audit.storage");
  ASSERT_EQ(train.size(), 1u);
  EXPECT_EQ(train[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(train[0], "nvme"), "0 TB");
  EXPECT_EQ(fact(train[0], "min"), "2 TB");
  // No task stated: a note; an inference server: nothing.
  auto unstated = findings_with_id(audit_of(quote_yaml(sata)).findings, "audit.storage");
  ASSERT_EQ(unstated.size(), 1u);
  EXPECT_EQ(unstated[0].severity, Severity::kInfo);
  EXPECT_EQ(unstated[0].variant, "no_task");
  EXPECT_TRUE(findings_with_id(audit_of("task: inference\n" + quote_yaml(sata)).findings, "audit.storage").empty());
  // A quote that prices no disk is not judged.
  EXPECT_TRUE(
      findings_with_id(audit_of("task: train\n" + quote_yaml(gpu_line("88000"))).findings, "audit.storage").empty());
}

TEST(AuditTest, AUsedCardIsHeldAgainstThirtyToFiftyPercentOfNew) {
  // New A100 SXM: ¥70,000–100,000; used at 30–50% [S0 §4.4]: ¥21,000–50,000.
  const std::string used = "  - {item: \"A100 80GB SXM4 拆机\", part: a100-80gb-sxm, qty: 8, unit_price: 45000}\n";
  AuditResult a = audit_of(quote_yaml(used));
  auto f = findings_with_id(a.findings, "audit.used_card");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_EQ(fact(f[0], "band"), "¥21,000–50,000");
  EXPECT_EQ(fact(f[0], "new"), "¥70,000–100,000");
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].catalog, (Range{21000, 50000}));
  EXPECT_EQ(a.lines[0].verdict, "within");  // against new it would be "below"
  EXPECT_TRUE(findings_with_id(a.findings, "audit.line_range").empty());

  // A used card at ¥80,000 pays nearly new: above 50,000 × 1.1 = 55,000, over by
  // (80,000 − 50,000) × 8 = 240,000.
  const std::string dear =
      "  - {item: A100 80GB SXM4, part: a100-80gb-sxm, qty: 8, unit_price: 80000, condition: used}\n";
  AuditResult d = audit_of(quote_yaml(dear));
  EXPECT_EQ(d.lines[0].verdict, "above");
  EXPECT_EQ(d.overcharge_once, 240000);
  auto range = findings_with_id(d.findings, "audit.line_range");
  ASSERT_EQ(range.size(), 1u);
  EXPECT_EQ(range[0].severity, Severity::kFail);

  // The same card new at ¥45,000 is below the new range: no used note.
  const std::string new_card =
      "  - {item: A100 80GB SXM4, part: a100-80gb-sxm, qty: 8, unit_price: 45000, condition: new}\n";
  AuditResult n = audit_of(quote_yaml(new_card));
  EXPECT_TRUE(findings_with_id(n.findings, "audit.used_card").empty());
  EXPECT_EQ(n.lines[0].verdict, "below");
}

TEST(AuditTest, UsedAndEngineeringSampleWordsAreReadInTheItemText) {
  auto used_note = [](const std::string& item) {
    return findings_with_id(
               audit_of(quote_yaml("  - {item: \"" + item + "\", part: a100-80gb-sxm, qty: 1, unit_price: 40000}\n"))
                   .findings,
               "audit.used_card")
        .size();
  };
  for (const char* item :
       {"A100 80GB 二手", "A100 拆机卡", "A100 翻新", "Used A100 80GB", "A100 (refurbished)", "second-hand A100"})
    EXPECT_EQ(used_note(item), 1u) << item;
  for (const char* item : {"A100 80GB SXM4", "A100 unused warranty", "Reused rails"})
    EXPECT_EQ(used_note(item), 0u) << item;

  auto sample = [](const std::string& item) {
    auto f = findings_with_id(
        audit_of(quote_yaml("  - {item: \"" + item + "\", part: a100-80gb-sxm, qty: 1, unit_price: 40000}\n")).findings,
        "audit.engineering_sample");
    return f.empty() ? std::string("-") : *f[0].find_fact("word");
  };
  EXPECT_EQ(sample("A100 80GB ES"), "ES");
  EXPECT_EQ(sample("A100 ES版"), "ES");
  EXPECT_EQ(sample("A100 工程样品"), "工程样品");
  EXPECT_EQ(sample("A100 engineering sample"), "engineering sample");
  EXPECT_EQ(sample("A100 SERIES"), "-");
  EXPECT_EQ(sample("A100 80GB SXM4"), "-");
  EXPECT_EQ(sample("Des cartes"), "-");
  auto es = findings_with_id(
      audit_of(quote_yaml("  - {item: A100 ES, part: a100-80gb-sxm, qty: 1, unit_price: 40000}\n")).findings,
      "audit.engineering_sample");
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].severity, Severity::kFail);
  EXPECT_EQ(fact(es[0], "at"), "q.yaml:4");
}

TEST(AuditTest, VatIncludedOrNotIsReadAndUnstatedWarns) {
  // One GPU line at ¥88,000 × 8 = ¥704,000 once; VAT 13%: ¥91,520; with it ¥795,520.
  const std::string lines = gpu_line("88000");
  auto unstated = findings_with_id(audit_of(quote_yaml(lines)).findings, "audit.vat");
  ASSERT_EQ(unstated.size(), 1u);
  EXPECT_EQ(unstated[0].severity, Severity::kWarn);
  EXPECT_EQ(unstated[0].variant, "unstated");
  EXPECT_EQ(fact(unstated[0], "vat"), "¥91,520");
  EXPECT_EQ(fact(unstated[0], "rate"), "13%");
  auto excluded = findings_with_id(audit_of("vat: 不含税\n" + quote_yaml(lines)).findings, "audit.vat");
  ASSERT_EQ(excluded.size(), 1u);
  EXPECT_EQ(excluded[0].severity, Severity::kInfo);
  EXPECT_EQ(fact(excluded[0], "with_vat"), "¥795,520");
  EXPECT_TRUE(findings_with_id(audit_of("vat: 含税\n" + quote_yaml(lines)).findings, "audit.vat").empty());
  EXPECT_TRUE(findings_with_id(audit_of("vat: included\n" + quote_yaml(lines)).findings, "audit.vat").empty());
  auto bad = parse_vendor_quote("vat: maybe\n" + quote_yaml(lines), "q.yaml", default_catalog());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "vat");
}

TEST(AuditTest, AWarrantyIsReadInYearsAndOneShorterThanTheTermWarns) {
  auto warranty = [](const std::string& value) {
    return findings_with_id(audit_of("warranty: " + value + "\n" + quote_yaml(gpu_line("88000"))).findings,
                            "audit.warranty");
  };
  // The term is 3 years (threshold term.years).
  for (const char* enough : {"3", "\"3年原厂质保\"", "\"三年上门\"", "\"3 years on site\"", "\"five years\"", "5"})
    EXPECT_TRUE(warranty(enough).empty()) << enough;
  for (const char* short_one : {"1", "\"一年\"", "\"2 yrs\"", "\"1.5年\""}) {
    auto f = warranty(short_one);
    ASSERT_EQ(f.size(), 1u) << short_one;
    EXPECT_EQ(f[0].variant, "short");
    EXPECT_EQ(fact(f[0], "term"), "3");
  }
  EXPECT_EQ(fact(warranty("\"1.5年\"")[0], "years"), "1.5");
  auto none = findings_with_id(audit_of(quote_yaml(gpu_line("88000"))).findings, "audit.warranty");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].variant, "unstated");
  EXPECT_EQ(none[0].severity, Severity::kWarn);
  for (const char* bad : {"\"lifetime\"", "0", "99", "\"see contract\"", "nan", "inf", "-3"}) {
    auto q = parse_vendor_quote(std::string("warranty: ") + bad + "\n" + quote_yaml(gpu_line("88000")), "q.yaml",
                                default_catalog());
    ASSERT_FALSE(q) << bad;
    EXPECT_EQ(q.error().field, "warranty");
  }
}

TEST(AuditTest, AnUnknownTaskIsBadInputNamingTheField) {
  auto q = parse_vendor_quote("task: training\n" + quote_yaml(gpu_line("88000")), "q.yaml", default_catalog());
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().field, "task");
  EXPECT_EQ(q.error().line, 1);
}

// --- Licences and service terms -------------------------------------------------------------

TEST(AuditTest, LicenceWithoutVersionFails) {
  auto a = audit_of(quote_yaml(gpu_line("88000"), "software:\n  - {name: NVIDIA AI Enterprise}\n" + kService +
                                                      kContract + kHidden));
  auto found = findings_with_id(a.findings, "audit.licence");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kFail);
  EXPECT_EQ(found[0].variant, "no_version");
  EXPECT_EQ(fact(found[0], "name"), "NVIDIA AI Enterprise");
}

TEST(AuditTest, LicenceWithVersionButNoModulesWarns) {
  auto a = audit_of(quote_yaml(gpu_line("88000"), "software:\n  - {name: NVIDIA AI Enterprise, version: \"5.0\"}\n" +
                                                      kService + kContract + kHidden));
  auto found = findings_with_id(a.findings, "audit.licence");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarn);
  EXPECT_EQ(found[0].variant, "no_modules");
  EXPECT_EQ(fact(found[0], "version"), "5.0");
}

TEST(AuditTest, LicenceWithVersionAndModulesIsQuiet) {
  auto a = audit_of(quote_yaml(gpu_line("88000"),
                               "software:\n  - {name: NVIDIA AI Enterprise, version: \"5.0\", modules: [TensorRT-LLM]}\n" +
                                   kService + kContract + kHidden));
  EXPECT_TRUE(findings_with_id(a.findings, "audit.licence").empty());
}

TEST(AuditTest, ServiceTermsWithoutMttrFailNamingMttr) {
  auto a = audit_of(quote_yaml(gpu_line("88000"), "service: {response_time_h: 2, penalty: \"5%\"}\n" + kContract + kHidden));
  auto found = findings_with_id(a.findings, "audit.service_terms");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kFail);
  EXPECT_EQ(phrases(found[0], "missing"), std::vector<Phrase>{Phrase("audit.term.mttr")});
  EXPECT_NE(report::localize(found[0], report::Lang::kEn).detail.find("give no MTTR"), std::string::npos);
}

TEST(AuditTest, ServiceTermsWithAllNumbersAreQuiet) {
  EXPECT_TRUE(findings_with_id(audit_of(quote_yaml(gpu_line("88000"))).findings, "audit.service_terms").empty());
}

// --- Contract fields and hidden costs -------------------------------------------------------

TEST(AuditTest, EachMissingContractFieldFailsByName) {
  const auto& fields = required_contract_fields();
  ASSERT_EQ(fields.size(), 9u);  // SPEC D lists nine terms
  for (const std::string& missing : fields) {
    AuditResult a = audit_of(quote_yaml(gpu_line("88000"), kService + contract_without(missing) + kHidden));
    std::vector<std::string> contract_ids;
    for (const auto& f : a.findings)
      if (f.id.rfind("contract.", 0) == 0) {
        contract_ids.push_back(f.id);
        EXPECT_EQ(f.severity, Severity::kFail);
      }
    EXPECT_EQ(contract_ids, std::vector<std::string>{"contract." + missing});
  }
}

TEST(AuditTest, ContractWithoutCoolingWarns) {
  // kContract always writes the cooling term; the same contract without it.
  std::string contract = kContract.substr(0, kContract.find("  cooling:"));
  auto found = findings_with_id(audit_of(quote_yaml(gpu_line("88000"), kService + contract + kHidden)).findings,
                                "contract.cooling");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarn);
  EXPECT_EQ(found[0].source, "S0 §3.3");
}

TEST(AuditTest, CompleteContractRaisesNoContractFinding) {
  for (const auto& f : audit_of(quote_yaml(gpu_line("88000"))).findings)
    EXPECT_NE(f.id.rfind("contract.", 0), 0u) << f.id;
}

TEST(AuditTest, HiddenCostNotCoveredWarnsWithItsName) {
  const std::string covered =
      "hidden_costs_covered: [os_licence, ops_staff, security, public_ip, monitoring, support_hours, backup,\n"
      "  storage_overquota, high_density_airflow, emergency_cooling]\n";  // no egress
  auto found = findings_with_id(audit_of(quote_yaml(gpu_line("88000"), kService + kContract + covered)).findings,
                                "audit.hidden_costs");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarn);
  // catalog hidden_cost egress, named in both languages
  EXPECT_EQ(phrases(found[0], "missing"),
            std::vector<Phrase>{Phrase("audit.term.name").fact("name", "Traffic / egress", "流量费")});
  EXPECT_TRUE(findings_with_id(audit_of(quote_yaml(gpu_line("88000"))).findings, "audit.hidden_costs").empty());
}

// --- Monthly quotes -------------------------------------------------------------------------

TEST(AuditTest, MonthlyLinesGiveRentPerGpuAboveTheBand) {
  AuditResult a = audit_of(quote_yaml("  - {item: 8-GPU server rent, qty: 1, unit_price: 48000, period: month}\n"));
  EXPECT_EQ(a.total_monthly, Range::point(48000));
  EXPECT_EQ(a.total_once, Range{});
  EXPECT_FALSE(a.buy_per_gpu);
  ASSERT_TRUE(a.rent_per_gpu_month);
  EXPECT_EQ(*a.rent_per_gpu_month, Range::point(6000));  // 48,000 / 8
  auto band = findings_with_id(a.findings, "band.rent_per_gpu");
  ASSERT_EQ(band.size(), 1u);  // ¥6,000 > ¥4,500 [S0 §3.2]
  EXPECT_EQ(band[0].severity, Severity::kInfo);
  EXPECT_EQ(band[0].variant, "above");
  EXPECT_EQ(fact(band[0], "per_gpu"), "¥6,000");  // CNY per GPU-month
  EXPECT_EQ(fact(band[0], "band"), "¥3,000–4,500");
}

TEST(AuditTest, MonthlyRentInsideTheBandIsQuiet) {
  // 32,000 / 8 = ¥4,000 per GPU-month, inside ¥3,000–4,500.
  AuditResult a = audit_of(quote_yaml("  - {item: 8-GPU server rent, qty: 1, unit_price: 32000, period: month}\n"));
  ASSERT_TRUE(a.rent_per_gpu_month);
  EXPECT_EQ(*a.rent_per_gpu_month, Range::point(4000));
  EXPECT_TRUE(findings_with_id(a.findings, "band.rent_per_gpu").empty());
}

TEST(AuditTest, MonthlyRentBelowTheBandIsInfo) {
  // 16,000 / 8 = ¥2,000 per GPU-month < ¥3,000.
  auto band = findings_with_id(
      audit_of(quote_yaml("  - {item: 8-GPU server rent, qty: 1, unit_price: 16000, period: month}\n")).findings,
      "band.rent_per_gpu");
  ASSERT_EQ(band.size(), 1u);
  EXPECT_EQ(band[0].severity, Severity::kInfo);
  EXPECT_EQ(band[0].variant, "below");
}

TEST(AuditTest, MonthlyLicenceIsJudgedAgainstATwelfthOfTheYearlyPrice) {
  // nvidia-ai-enterprise ¥28,000 per GPU-year [S1 §3] → ¥2,333.33 a month; ×1.1 = ¥2,566.67.
  const std::string ok = "  - {item: AIE, part: nvidia-ai-enterprise, qty: 8, unit_price: 2500, period: month}\n";
  EXPECT_TRUE(findings_with_id(audit_of(quote_yaml(ok)).findings, "audit.line_range").empty());
  const std::string high = "  - {item: AIE, part: nvidia-ai-enterprise, qty: 8, unit_price: 2600, period: month}\n";
  auto found = findings_with_id(audit_of(quote_yaml(high)).findings, "audit.line_range");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].variant, "above");
}

// --- Bad input ------------------------------------------------------------------------------

TEST(AuditTest, MissingGpusIsAnErrorNamingTheField) {
  auto q = parse_vendor_quote("vendor: V\nlines:\n  - {item: x, unit_price: 1}\n", "q.yaml", default_catalog());
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().file, "q.yaml");
  EXPECT_EQ(q.error().line, 1);  // the document's mapping starts on line 1
  EXPECT_EQ(q.error().field, "gpus");
}

TEST(AuditTest, NegativeUnitPriceIsAnErrorWithItsLine) {
  auto q = parse_vendor_quote("vendor: V\ngpus: 8\nlines:\n  - {item: x, unit_price: -5}\n", "q.yaml", default_catalog());
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().file, "q.yaml");
  EXPECT_EQ(q.error().line, 4);
  EXPECT_EQ(q.error().field, "lines[0].unit_price");
  EXPECT_NE(q.error().message.key.find("negative"), std::string::npos) << q.error().message;
}

TEST(AuditTest, UnknownPeriodIsAnErrorWithItsLine) {
  auto q = parse_vendor_quote("vendor: V\ngpus: 8\nlines:\n  - {item: x, unit_price: 1}\n  - {item: y, unit_price: 2, period: weekly}\n",
                              "q.yaml", default_catalog());
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().line, 5);
  EXPECT_EQ(q.error().field, "lines[1].period");
  EXPECT_EQ(q.error().message, not_one_of("weekly", {"once", "month"}));
}

TEST(AuditTest, UnknownKeyIsAnErrorSuggestingTheNearest) {
  auto q = parse_vendor_quote("vendor: V\ngpus: 8\nlines:\n  - {item: x, unit_price: 1}\nservice:\n  mtr_h: 4\n", "q.yaml", default_catalog());
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().file, "q.yaml");
  EXPECT_EQ(q.error().line, 6);
  EXPECT_EQ(q.error().field, "service.mtr_h");
  EXPECT_EQ(q.error().message.key, "error.yaml.unknown_field");
  ASSERT_TRUE(gpuplan::testing::fact_in(q.error().message, "nearest")) << q.error().str();
  EXPECT_EQ(*gpuplan::testing::fact_in(q.error().message, "nearest"), "mttr_h");
}

TEST(AuditTest, UnknownPartIsAnErrorSuggestingTheNearestId) {
  VendorQuote q = parse_ok(quote_yaml("  - {item: x, unit_price: 1}\n  - {item: card, part: a100-80gb-sxn, unit_price: 1}\n"));
  auto parts = check_parts(q, default_catalog());
  ASSERT_FALSE(parts);
  const Error& e = parts.error();
  EXPECT_EQ(e.file, "q.yaml");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "lines[1].part");
  ASSERT_TRUE(gpuplan::testing::fact_in(e.message, "nearest")) << e.str();
  EXPECT_EQ(*gpuplan::testing::fact_in(e.message, "nearest"), "a100-80gb-sxm");
  EXPECT_TRUE(check_parts(parse_ok(quote_yaml(gpu_line("88000"))), default_catalog()));
}

TEST(AuditTest, UnknownGpuIdNamesItsLine) {
  VendorQuote q = parse_ok("vendor: V\ngpu: a100-80gb-sxn\ngpus: 8\nlines:\n  - {item: x, unit_price: 1}\n");
  auto parts = check_parts(q, default_catalog());
  ASSERT_FALSE(parts);
  const Error& e = parts.error();
  EXPECT_EQ(e.field, "gpu");
  ASSERT_TRUE(gpuplan::testing::fact_in(e.message, "nearest")) << e.str();
  EXPECT_EQ(*gpuplan::testing::fact_in(e.message, "nearest"), "a100-80gb-sxm");
  EXPECT_EQ(e.line, 2);
}

}  // namespace
}  // namespace gpuplan::plan

namespace gpuplan::plan {
namespace {

TEST(AuditLinesTest, EachLineBesideTheCatalogWithTheTotalOvercharge) {
  auto q = read_vendor_quote(source_path("examples/vendor-quote-padded.yaml"), default_catalog());
  ASSERT_TRUE(q) << q.error().str();
  AuditResult a = audit_quote(*q, default_catalog());
  ASSERT_EQ(a.lines.size(), 7u);
  // ¥98,000 a card inside ¥70,000–100,000: within, nothing over.
  EXPECT_EQ(a.lines[0].verdict, "within");
  EXPECT_EQ(a.lines[0].over, 0);
  ASSERT_TRUE(a.lines[0].catalog);
  EXPECT_EQ(*a.lines[0].catalog, (Range{70000, 100000}));
  // DIMMs: (4,200 − 2,500) × 16 = 27,200; NVMe: (21,000 − 11,520) × 4 = 37,920 (3.84 TB ×
  // ¥1,500/TB × 2 endurance = 11,520); IB: (26,000 − 12,000) × 8 = 112,000.
  EXPECT_EQ(a.lines[3].verdict, "above");
  EXPECT_EQ(a.lines[3].over, 27200);
  EXPECT_EQ(a.lines[4].over, 37920);
  EXPECT_EQ(a.lines[5].over, 112000);
  EXPECT_EQ(a.lines[5].line, 14);  // the file's 14th line: 2 comments, 5 keys, `lines:`, 5 lines before it
  // The service names no part: unpriced.
  EXPECT_EQ(a.lines[6].verdict, "unpriced");
  EXPECT_FALSE(a.lines[6].catalog);
  // 27,200 + 37,920 + 112,000 = 177,120.
  EXPECT_EQ(a.overcharge_once, 177120);
  EXPECT_EQ(a.overcharge_monthly, 0);
}

TEST(AuditLinesTest, ALineBelowTheCatalogIsUnder) {
  // ¥50,000 a card against ¥70,000–100,000 (−10%: ¥63,000): below by (70,000 − 50,000) × 8.
  AuditResult a = audit_of(quote_yaml("  - {item: A100, part: a100-80gb-sxm, qty: 8, unit_price: 50000}\n"));
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].verdict, "below");
  EXPECT_EQ(a.lines[0].over, -160000);
  EXPECT_EQ(a.overcharge_once, 0);  // an under-price is no overcharge
}

TEST(AuditLinesTest, AFromPriceIsReadInTheItemText) {
  auto from = [](const std::string& item) {
    AuditResult a = audit_of(quote_yaml("  - {item: \"" + item + "\", qty: 1, unit_price: 30000}\n"));
    return findings_with_id(a.findings, "audit.price_from").size();
  };
  EXPECT_EQ(from("部署调优服务 3万起"), 1u);
  EXPECT_EQ(from("部署调优服务（¥30,000 起）"), 1u);
  EXPECT_EQ(from("调优服务起价"), 1u);
  EXPECT_EQ(from("Deployment from ¥30,000"), 1u);
  EXPECT_EQ(from("Tuning, starting at 30000"), 1u);
  // A public listing as S1 §1 quotes it: an e-commerce page's A100 server "￥429,999起".
  EXPECT_EQ(from("A100服务器 ￥429,999起"), 1u);
  // Not prices: "together" and "from the vendor".
  EXPECT_EQ(from("与服务器一起交付的线缆"), 0u);
  EXPECT_EQ(from("Cables from the vendor"), 0u);
}

}  // namespace
}  // namespace gpuplan::plan
