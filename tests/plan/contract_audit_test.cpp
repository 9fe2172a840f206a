// The audit's judgement of contract terms (plan/contract_audit.h): each contract.* finding fires
// on the term built to trigger it, with the facts computed by hand from the catalog, and stays
// quiet on the clean example's terms. The terms are built in C++ as the parser fills them
// (typed value + `written` text and line), on the clean example's lines and licences.
#include "plan/contract_audit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/files.h"
#include "plan/audit.h"
#include "plan/quote.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::config_from;
using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::source_path;

std::string fact(const Finding& f, const std::string& key) {
  const std::string* v = f.find_fact(key);
  return v ? *v : "<no fact " + key + ">";
}

// The clean example as the parser reads it: lines, licences, service figures and typed terms.
VendorQuote clean_quote() {
  auto q = read_vendor_quote(source_path("examples/vendor-quote-clean.yaml"), default_catalog());
  if (!q) {
    ADD_FAILURE() << q.error().str();
    return {};
  }
  return *q;
}

std::vector<Finding> judged(const VendorQuote& q) {
  std::vector<Finding> out;
  judge_contract_terms(q, default_catalog(), out);
  return out;
}

std::string file_at(int line) {
  return source_path("examples/vendor-quote-clean.yaml") + ":" + std::to_string(line);
}

TEST(ContractAuditTest, CleanTermsGiveNoFinding) {
  const VendorQuote q = clean_quote();
  const auto out = judged(q);
  for (const Finding& f : out) ADD_FAILURE() << f.message_key() << " " << fact(f, "term");
  // And the whole audit of the clean example with these terms still passes.
  EXPECT_FALSE(audit_quote(q, default_catalog()).failed());
}

// --- contract.driver ------------------------------------------------------------------------

TEST(ContractAuditTest, Driver470FailsBelowTheMatrixAndTooOldForCuda12) {
  VendorQuote q = clean_quote();
  q.terms.driver = "470";
  q.terms.written["driver"] = {"470", 25};
  const auto out = findings_with_id(judged(q), "contract.driver");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kFail);
  EXPECT_EQ(out[0].variant, "below_min");
  EXPECT_EQ(fact(out[0], "term"), "470");
  EXPECT_EQ(fact(out[0], "at"), file_at(25));
  EXPECT_EQ(fact(out[0], "min"), "525.85.05");  // catalog/software.yaml driver-min
  // CUDA 12.1 needs 525 (catalog/cuda_driver.yaml cuda-12-driver): said in a note.
  ASSERT_EQ(out[0].notes.size(), 1u);
  EXPECT_EQ(out[0].notes[0].key, "contract.note.driver_cuda");
}

TEST(ContractAuditTest, DriverAboveTheMinimumButTooOldForCuda13Fails) {
  VendorQuote q = clean_quote();
  q.terms.cuda = "13.0";  // needs 580 (cuda-13-driver); 535.104.05 is above the 525.85.05 minimum
  const auto out = findings_with_id(judged(q), "contract.driver");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "cuda");
  EXPECT_EQ(fact(out[0], "min_driver"), "580");
  EXPECT_EQ(fact(out[0], "cuda"), "13.0");
}

TEST(ContractAuditTest, DriverThatIsNoVersionIsNotJudgedAsVersionZero) {
  VendorQuote q = clean_quote();
  q.terms.driver = "latest";
  EXPECT_TRUE(findings_with_id(judged(q), "contract.driver").empty());
}

// --- contract.rack --------------------------------------------------------------------------

// The clean example's server, by hand from the catalog: GPUs 8 × 400 W = 3,200 W; CPUs 2 × 280 W
// (epyc-7763) = 560 W; memory 16 × 6 W = 96 W; NVMe 4 × 12 W = 48 W; NICs 2 × 12 W = 24 W;
// platform hgx-a100-8gpu base 1,600 W: 5,528 W. The support line is a service, not hardware.
TEST(ContractAuditTest, QuotedServerPowerFromTheLines) {
  const QuotedPower p = quoted_server_power(clean_quote(), default_catalog());
  EXPECT_DOUBLE_EQ(p.budget.gpus_w, 3200);
  EXPECT_DOUBLE_EQ(p.budget.cpus_w, 560);
  EXPECT_DOUBLE_EQ(p.budget.memory_w, 96);
  EXPECT_DOUBLE_EQ(p.budget.disks_w, 48);
  EXPECT_DOUBLE_EQ(p.budget.nics_w, 24);
  EXPECT_DOUBLE_EQ(p.budget.platform_w, 1600);
  EXPECT_DOUBLE_EQ(p.budget.parts_w(), 5528);
  EXPECT_DOUBLE_EQ(p.servers, 1);
  EXPECT_TRUE(p.not_counted.empty());
}

TEST(ContractAuditTest, EightAmpRackFailsForEightSxm) {
  VendorQuote q = clean_quote();
  q.terms.rack = RackTerm{8, 220};
  q.terms.written["rack"] = {"8 A at 220 V", 29};
  q.lines.push_back({"Rack cabling kit", "", 1, Range::point(500), false, false, 18, false, ""});
  const auto out = findings_with_id(judged(q), "contract.rack");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kFail);
  EXPECT_EQ(out[0].variant, "over");
  EXPECT_EQ(fact(out[0], "term"), "8 A at 220 V");
  EXPECT_EQ(fact(out[0], "at"), file_at(29));
  EXPECT_EQ(fact(out[0], "amps"), "8");
  EXPECT_EQ(fact(out[0], "volts"), "220");
  EXPECT_EQ(fact(out[0], "continuous"), "1,408 W");  // 8 × 220 × 0.8 (rack.continuous_fraction)
  // The lines' parts come to 5,528 W (QuotedServerPowerFromTheLines); the quoted HGX A100
  // platform's data-sheet maximum, 6,500 W, governs the peak (plan/quote.h set_system_power).
  EXPECT_EQ(fact(out[0], "peak"), "6,500 W");
  EXPECT_EQ(fact(out[0], "gpu_draw"), "3,200 W");
  // The line without a catalog part is named as not counted.
  ASSERT_EQ(out[0].notes.size(), 1u);
  EXPECT_EQ(out[0].notes[0].key, "contract.note.not_counted");
  ASSERT_NE(testing::fact_in(out[0].notes[0], "items"), nullptr);
  EXPECT_EQ(*testing::fact_in(out[0].notes[0], "items"), "Rack cabling kit");
}

TEST(ContractAuditTest, ThirtyTwoAmpRackWarnsOverItsContinuousShareAsPowerRackDoes) {
  // 32 A × 220 V = 7,040 W rating, × 0.8 = 5,632 W continuous; the HGX A100 peaks at 6,500 W:
  // within the rating, over the continuous share, so warn (power.rack judges the same way).
  VendorQuote q = clean_quote();
  q.terms.rack = RackTerm{32, 220};
  q.terms.written["rack"] = {"32A 220V", 29};
  const auto out = findings_with_id(judged(q), "contract.rack");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(out[0].variant, "near");
  EXPECT_EQ(fact(out[0], "capacity"), "7,040 W");
  EXPECT_EQ(fact(out[0], "continuous"), "5,632 W");
  EXPECT_EQ(fact(out[0], "peak"), "6,500 W");
}

TEST(ContractAuditTest, RackWithoutVoltageIsJudgedAtTheCatalogsStandardVoltage) {
  VendorQuote q = clean_quote();
  q.terms.rack = RackTerm{16, std::nullopt};  // 16 × 220 × 0.8 = 2,816 W < 6,500 W
  q.terms.written["rack"] = {"16A", 29};
  const auto out = findings_with_id(judged(q), "contract.rack");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(fact(out[0], "continuous"), "2,816 W");
  EXPECT_EQ(fact(out[0], "volts"), "220");  // threshold rack.default_volts
  ASSERT_EQ(out[0].notes.size(), 1u);
  EXPECT_EQ(out[0].notes[0].key, "contract.note.rack_voltage");
}

TEST(ContractAuditTest, RackWithoutVoltageWarnsWhenTheCatalogHasNoStandardVoltage) {
  // The shipped catalog, copied without its rack.default_volts threshold.
  const std::string dir = testing::temp_dir() + "/catalog";
  std::filesystem::copy(source_path("catalog"), dir, std::filesystem::copy_options::recursive);
  std::string threshold = *read_text_file(dir + "/threshold.yaml");
  const size_t begin = threshold.find("  - id: rack.default_volts\n");
  ASSERT_NE(begin, std::string::npos);
  threshold.erase(begin, threshold.find("\n  - id: ", begin + 1) + 1 - begin);
  testing::write_file(dir, "threshold.yaml", threshold);
  std::vector<Error> problems;
  const catalog::Catalog cat = catalog::Catalog::load({dir}, problems);
  ASSERT_TRUE(problems.empty()) << problems.front().str();
  ASSERT_EQ(cat.find("threshold", "rack.default_volts"), nullptr);
  VendorQuote q = clean_quote();
  q.terms.rack = RackTerm{32, std::nullopt};
  q.terms.written["rack"] = {"32安", 29};
  std::vector<Finding> out;
  judge_contract_terms(q, cat, out);
  const auto rack = findings_with_id(out, "contract.rack");
  ASSERT_EQ(rack.size(), 1u);
  EXPECT_EQ(rack[0].severity, Severity::kWarn);
  EXPECT_EQ(rack[0].variant, "no_voltage");
  EXPECT_EQ(fact(rack[0], "term"), "32安");
}

// --- contract.bandwidth ---------------------------------------------------------------------

TEST(ContractAuditTest, MeteredBandwidthWarnsWithTheMonthlyCost) {
  VendorQuote q = clean_quote();
  q.terms.public_bandwidth = PublicBandwidthTerm{100, Billing::kMetered, 20};
  q.terms.written["public_bandwidth"] = {"100 Mbps, metered (按流量计费), about 20 TB/month", 28};
  const auto out = findings_with_id(judged(q), "contract.bandwidth");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(out[0].variant, "metered");
  EXPECT_EQ(fact(out[0], "term"), "100 Mbps, metered (按流量计费), about 20 TB/month");
  EXPECT_EQ(fact(out[0], "tb"), "20");
  EXPECT_EQ(fact(out[0], "monthly"), "¥16,000");  // 20 TB × 1,000 GB × ¥0.8/GB (egress.price_gb)
  EXPECT_EQ(fact(out[0], "price_gb"), "¥0.8");
}

TEST(ContractAuditTest, MeteredBandwidthWithoutVolumeSaysWhatATerabyteCosts) {
  VendorQuote q = clean_quote();
  q.terms.public_bandwidth = PublicBandwidthTerm{100, Billing::kMetered, std::nullopt};
  const auto out = findings_with_id(judged(q), "contract.bandwidth");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "metered_no_volume");
  EXPECT_EQ(fact(out[0], "per_tb"), "¥800");  // 1,000 GB × ¥0.8
}

// --- contract.service -----------------------------------------------------------------------

TEST(ContractAuditTest, ServiceWorseThanThePricedTierAndNoPenaltyFail) {
  VendorQuote q = clean_quote();
  q.terms.service.response_h = 4;
  q.terms.written["service.response_h"] = {"4", 20};
  q.terms.service.mttr_h = 48;
  q.terms.written["service.mttr_h"] = {"48", 21};
  q.terms.service.penalty = PenaltyTerm{true, false};
  q.terms.written["service.penalty"] = {"none", 22};
  const auto out = findings_with_id(judged(q), "contract.service");
  ASSERT_EQ(out.size(), 3u);
  // Premium 2 h / 4 h is priced (premium-2h-4h line).
  EXPECT_EQ(out[0].variant, "response");
  EXPECT_EQ(out[0].severity, Severity::kFail);
  EXPECT_EQ(fact(out[0], "written"), "4 h");
  EXPECT_EQ(fact(out[0], "tier_h"), "2 h");
  EXPECT_EQ(fact(out[0], "at"), file_at(20));
  EXPECT_EQ(out[1].variant, "mttr");
  EXPECT_EQ(out[1].severity, Severity::kFail);
  EXPECT_EQ(fact(out[1], "term"), "48");
  EXPECT_EQ(fact(out[1], "tier_h"), "4 h");
  EXPECT_EQ(out[2].variant, "no_penalty");
  EXPECT_EQ(out[2].severity, Severity::kFail);
  EXPECT_EQ(fact(out[2], "term"), "none");
}

TEST(ContractAuditTest, WithNoTierPricedTheBasicTierOnlyWarns) {
  VendorQuote q = clean_quote();
  std::erase_if(q.lines, [](const VendorLine& l) { return l.part == "premium-2h-4h"; });
  q.terms.service.mttr_h = 72;      // basic-5x8-nbd fixes within 48 h
  q.terms.service.response_h = 24;  // basic answers in 24 h: not worse
  const auto out = findings_with_id(judged(q), "contract.service");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "mttr_basic");
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(out[0], "tier_h"), "48 h");
}

TEST(ContractAuditTest, PenaltyWithoutAmountAndShortHoursWarn) {
  VendorQuote q = clean_quote();
  q.terms.service.penalty = PenaltyTerm{false, false};
  q.terms.written["service.penalty"] = {"compensation as agreed", 22};
  q.terms.service.hours = ServiceHours::k5x8;
  q.terms.written["service.hours"] = {"5x8", 23};
  const auto out = findings_with_id(judged(q), "contract.service");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].variant, "penalty_no_amount");
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(out[1].variant, "hours");  // premium-2h-4h answers 7x24
  EXPECT_EQ(out[1].severity, Severity::kWarn);
  EXPECT_EQ(fact(out[1], "term"), "5x8");
}

// --- contract.licence -----------------------------------------------------------------------

TEST(ContractAuditTest, AiEnterprise2022WithOnlyTritonWarnsOnceNamingBoth) {
  VendorQuote q = clean_quote();
  q.licences = {{"NVIDIA AI Enterprise", "2022", {"Triton"}}};
  const auto out = findings_with_id(judged(q), "contract.licence");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "old_release");  // 2022 < supported_from_year 2023 (catalog/licence.yaml)
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(out[0], "term"), "NVIDIA AI Enterprise 2022");
  EXPECT_EQ(fact(out[0], "supported_from"), "4");
  EXPECT_EQ(fact(out[0], "year"), "2023");
  ASSERT_EQ(out[0].notes.size(), 1u);
  EXPECT_EQ(out[0].notes[0].key, "contract.note.licence_missing");
  EXPECT_EQ(*testing::fact_in(out[0].notes[0], "missing"), "TensorRT-LLM");
  EXPECT_EQ(*testing::fact_in(out[0].notes[0], "modules"), "Triton");
}

TEST(ContractAuditTest, CurrentLicenceWithoutTensorRtLlmWarns) {
  VendorQuote q = clean_quote();
  q.licences = {{"NVIDIA AI Enterprise", "5.0", {"Triton", "NIM"}}};
  const auto out = findings_with_id(judged(q), "contract.licence");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "missing_module");
  EXPECT_EQ(fact(out[0], "missing"), "TensorRT-LLM");
  EXPECT_EQ(fact(out[0], "modules"), "Triton, NIM");
}

TEST(ContractAuditTest, LicenceReleaseBelowTheSupportedOneWarnsAndACurrentOneDoesNot) {
  VendorQuote q = clean_quote();
  q.licences = {{"NVIDIA AI Enterprise", "3.1", {"tensorrt llm", "Triton"}}};
  auto out = findings_with_id(judged(q), "contract.licence");
  ASSERT_EQ(out.size(), 1u);  // the module is there, spelt differently
  EXPECT_EQ(out[0].variant, "old_release");
  q.licences = {{"NVIDIA AI Enterprise", "4.0", {"TensorRT-LLM"}}};
  EXPECT_TRUE(findings_with_id(judged(q), "contract.licence").empty());
  q.licences = {{"NVIDIA AI Enterprise", std::nullopt, {}}};  // audit.licence's case, not this one
  EXPECT_TRUE(findings_with_id(judged(q), "contract.licence").empty());
}

// --- contract.performance -------------------------------------------------------------------

TEST(ContractAuditTest, PerformanceClauseBelowTheReferenceWarns) {
  VendorQuote q = clean_quote();
  q.terms.performance->min_images_per_gpu = 1500;
  q.terms.written["performance"] = {">= 1,500 images/s per GPU", 32};
  const auto out = findings_with_id(judged(q), "contract.performance");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(out[0], "written"), "1,500");
  EXPECT_EQ(fact(out[0], "reference"), "1,850");  // a100-80gb-sxm resnet50_images_per_s [S1 §5 #10]
  EXPECT_EQ(fact(out[0], "term"), ">= 1,500 images/s per GPU");
  q.terms.performance.reset();  // missing: contract.performance_clause's, not repeated here
  EXPECT_TRUE(findings_with_id(judged(q), "contract.performance").empty());
}

// --- contract.gpu ---------------------------------------------------------------------------

TEST(ContractAuditTest, ContractGpuModelOrCountDisagreeingWithTheLinesFails) {
  VendorQuote q = clean_quote();
  q.terms.gpu = GpuTerm{"a100-80gb-pcie", 8};
  q.terms.written["gpu"] = {"A100 80GB PCIe", 24};
  auto out = findings_with_id(judged(q), "contract.gpu");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "model");
  EXPECT_EQ(out[0].severity, Severity::kFail);
  EXPECT_EQ(fact(out[0], "model"), "a100-80gb-pcie");
  q.terms.gpu = GpuTerm{"a100-80gb-sxm", 4};
  out = findings_with_id(judged(q), "contract.gpu");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "count");
  EXPECT_EQ(fact(out[0], "count"), "4");
  EXPECT_EQ(fact(out[0], "quoted"), "8");  // 8 GPUs on one hgx-a100-8gpu platform
}

// --- the weak-terms example, term by term --------------------------------------------------

// examples/vendor-quote-weak-terms.yaml as the parser reads it: the clean example's lines with
// weak terms; the audit fails with one contract.* finding per weak term, each naming it.
TEST(ContractAuditTest, WeakTermsFailTheAuditOneFindingPerTerm) {
  auto q = read_vendor_quote(source_path("examples/vendor-quote-weak-terms.yaml"), default_catalog());
  ASSERT_TRUE(q) << q.error().str();
  const AuditResult a = audit_quote(*q, default_catalog());
  EXPECT_TRUE(a.failed());
  std::vector<std::string> got;
  for (const Finding& f : a.findings)
    if (f.id.rfind("contract.", 0) == 0) got.push_back(f.message_key() + " " + fact(f, "term"));
  std::sort(got.begin(), got.end());
  const std::vector<std::string> want = {
      "contract.bandwidth/metered 100 Mbps, metered (按流量计费), about 20 TB/month",
      "contract.driver/below_min 470",
      "contract.licence/old_release NVIDIA AI Enterprise 2022",
      "contract.rack/over 8 A at 220 V",
      "contract.service/mttr 48",
      "contract.service/no_penalty none",
      "contract.service/response 4",
  };
  EXPECT_EQ(got, want);
}

// --- contract.unparsed ----------------------------------------------------------------------

TEST(ContractAuditTest, UnparsedTermWarnsQuotingItsText) {
  VendorQuote q = clean_quote();
  q.terms.rack.reset();
  q.terms.written["rack"] = {"enough for the server", 29};
  q.terms.unparsed = {"rack"};
  const auto out = judged(q);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "contract.unparsed");
  EXPECT_EQ(out[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(out[0], "field"), "rack");
  EXPECT_EQ(fact(out[0], "term"), "enough for the server");
  EXPECT_EQ(fact(out[0], "at"), file_at(29));
}

// --- review fixes: long terms quoted short, licence line, servers assumed -------------------

TEST(ContractAuditTest, AnOverlongUnparsedTermIsQuotedCutShort) {
  // A 50,000-byte term is quoted by its first 120 bytes and "…"; a character is never cut in two.
  VendorQuote q = clean_quote();
  q.terms.rack.reset();
  q.terms.written["rack"] = {"x" + std::string(50000, '9'), 29};
  q.terms.unparsed = {"rack"};
  auto out = judged(q);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(fact(out[0], "term"), "x" + std::string(119, '9') + "…");
  std::string chinese;
  for (int i = 0; i < 300; ++i) chinese += "一";
  // "一" is 3 bytes: after "A", byte 120 is inside the 40th character (bytes 118..120), cut before it.
  q.terms.written["rack"] = {"A" + chinese, 29};
  out = judged(q);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(fact(out[0], "term"), "A" + chinese.substr(0, 39 * 3) + "…");  // 1 + 117 bytes: 39 whole characters
}

TEST(ContractAuditTest, LicenceFindingNamesTheLineOfItsSoftwareEntry) {
  VendorQuote q = clean_quote();  // examples/vendor-quote-clean.yaml: software entry on line 18
  ASSERT_EQ(q.licences.size(), 1u);
  EXPECT_EQ(q.licences[0].line, 18);
  q.licences[0].version = "2022";
  const auto out = findings_with_id(judged(q), "contract.licence");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(fact(out[0], "at"), file_at(18));
}

TEST(ContractAuditTest, WithNoPlatformLineTheServerCountIsAssumedAndOnlyWarns) {
  // 16 A100 SXM and nothing else: as one server, 16 × 400 W = 6,400 W of parts and 1.8 × 6,400 W =
  // 11,520 W at system level (power.server_factor, no platform to name a maximum), over 40 × 220 ×
  // 0.8 = 7,040 W; and 16 GPUs on one server against the contract's 8. Two HGX servers of 6,500 W
  // (data-sheet maximum) would fit both.
  const std::string text =
      "vendor: V\ngpus: 16\nlines:\n  - {item: A100, part: a100-80gb-sxm, qty: 16, unit_price: 1}\n"
      "contract:\n  rack: 40 A at 220 V\n  gpu: {model: a100-80gb-sxm, count: 8}\n";
  auto q = parse_vendor_quote(text, "q.yaml", default_catalog());
  ASSERT_TRUE(q) << q.error().str();
  EXPECT_FALSE(quoted_server_power(*q, default_catalog()).platform_priced);
  const auto out = judged(*q);
  auto rack = findings_with_id(out, "contract.rack");
  ASSERT_EQ(rack.size(), 1u);
  EXPECT_EQ(rack[0].severity, Severity::kWarn);
  EXPECT_EQ(rack[0].variant, "over_assumed");
  EXPECT_EQ(fact(rack[0], "peak"), "11.52 kW");
  EXPECT_EQ(fact(rack[0], "continuous"), "7,040 W");
  EXPECT_EQ(fact(rack[0], "at"), "q.yaml:6");
  auto gpu = findings_with_id(out, "contract.gpu");
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_EQ(gpu[0].severity, Severity::kWarn);
  EXPECT_EQ(gpu[0].variant, "count_assumed");
  EXPECT_EQ(fact(gpu[0], "count"), "8");
  EXPECT_EQ(fact(gpu[0], "quoted"), "16");
  // With the platform line (2 servers) both fit: no finding.
  q->lines.push_back({"HGX", "hgx-a100-8gpu", 2, Range::point(1), false, false, 5, false, ""});
  const auto priced = judged(*q);
  EXPECT_TRUE(findings_with_id(priced, "contract.gpu").empty());
  EXPECT_TRUE(findings_with_id(priced, "contract.rack").empty())
      << fact(findings_with_id(priced, "contract.rack")[0], "peak");
}

// --- the shared power model -----------------------------------------------------------------

// node_power after its refactor onto add_part_power gives the figures it gave before, by hand
// from the catalog parts examples/a100-8gpu-training.yaml resolves to: GPUs 8 × 400 W; CPUs
// 2 × 280 W; memory 16 × 6 W; disks 2 × 3 W (sata-ssd-960gb) + 4 × 12 W (nvme-u2-3.84tb) = 54 W;
// NICs 2 × 12 W; platform 1,600 W; 5,534 W in all.
TEST(ContractAuditTest, NodePowerAddsThePartsAsBefore) {
  const ServerConfig c = config_from(*read_text_file(source_path("examples/a100-8gpu-training.yaml")));
  const catalog::Catalog& cat = default_catalog();
  const PowerBudget p = node_power(c, cat);
  EXPECT_DOUBLE_EQ(p.gpus_w, 3200);
  EXPECT_DOUBLE_EQ(p.cpus_w, 560);
  EXPECT_DOUBLE_EQ(p.memory_w, 96);
  EXPECT_DOUBLE_EQ(p.disks_w, 54);
  EXPECT_DOUBLE_EQ(p.nics_w, 24);
  EXPECT_DOUBLE_EQ(p.platform_w, 1600);
  EXPECT_DOUBLE_EQ(p.parts_w(), 5534);
  PowerBudget one;
  EXPECT_FALSE(add_part_power(one, *cat.find("support", "premium-2h-4h"), 1));  // a service draws nothing
  EXPECT_DOUBLE_EQ(one.parts_w(), 0);
}

}  // namespace
}  // namespace gpuplan::plan
