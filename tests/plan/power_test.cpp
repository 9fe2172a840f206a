// The one power model (issue 14 item 1): a node's peak is the larger of its parts' sum and the
// platform's system-level figure (the vendor's stated maximum, or power.server_factor × GPU
// TDP), and the quote, the rules, the JSON and the audit's contract.rack all use that figure.
// Expected figures are worked by hand from the catalog's data-sheet values in the comments.
#include <gtest/gtest.h>

#include "plan/contract_audit.h"
#include "plan/quote.h"
#include "report/render.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::en;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::quote_from;


std::string fact(const Finding& f, const std::string& key) {
  const std::string* v = f.find_fact(key);
  return v ? *v : "<missing " + key + ">";
}

TEST(PowerTest, EightPcieCardsPeakAtTheServerFactorAboveTheArticlesFourKilowatts) {
  const Quote q = quote_from("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 16\n");
  // Parts: 8 × 300 (GPUs) + 2 × 225 (EPYC 7543) + 16 × 6 (DIMMs) + 2 × 3 (SATA) + 2 × 12 (U.2)
  // + 12 (25GbE) + 400 (platform) = 3,388 W; system: 1.8 × 8 × 300 W = 4,320 W, which governs.
  EXPECT_DOUBLE_EQ(q.power.parts_w(), 3388);
  EXPECT_DOUBLE_EQ(q.power.system_w, 4320);
  EXPECT_EQ(q.power.system_basis, "server_factor");
  EXPECT_NE(q.power.system_source.find("1.8 × GPU TDP"), std::string::npos);
  EXPECT_DOUBLE_EQ(q.power.peak_w(), 4320);
  // [S0 §3.3]: eight cards at full load "easily exceed 4,000 W" — the catalog keeps that figure.
  EXPECT_GT(q.power.peak_w(), default_catalog().threshold("power.eight_gpu_full_load_w"));
  EXPECT_EQ(en(governing_power(q.power)),
            "1.8 × GPU TDP 2,400 W = 4,320 W governs: it counts PSU losses, fans and board the parts leave out");
}

TEST(PowerTest, EightPcieCardsFailASixteenAmpRackOnTheSystemFigure) {
  const Quote q = quote_from("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 16\n");
  auto f = findings_with_id(q.findings, "power.rack");
  ASSERT_EQ(f.size(), 1u);
  // 4,320 W > 16 A × 220 V = 3,520 W: fail (the parts' 3,388 W alone would only have warned).
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(fact(f[0], "load"), "4,320 W");
  EXPECT_EQ(fact(f[0], "capacity"), "3,520 W");
}

TEST(PowerTest, HgxA100PeaksAtTheDgxDataSheetMaximum) {
  const Quote q = quote_from("gpu: a100-80gb-sxm\ngpus: 8\n");
  // Parts: 8 × 400 + 2 × 280 (EPYC 7763) + 16 × 6 + 2 × 3 + 4 × 12 + 2 × 12 + 1,600 = 5,534 W;
  // the DGX A100 data sheet's 6.5 kW maximum (platform system_max_w) is higher and governs.
  EXPECT_DOUBLE_EQ(q.power.parts_w(), 5534);
  EXPECT_DOUBLE_EQ(q.power.system_w, 6500);
  EXPECT_EQ(q.power.system_basis, "vendor_max");
  EXPECT_NE(q.power.system_source.find("DGX A100 data sheet"), std::string::npos);
  EXPECT_DOUBLE_EQ(q.power.peak_w(), 6500);
  EXPECT_EQ(en(governing_power(q.power)), "the vendor's stated system maximum 6,500 W governs");
}

TEST(PowerTest, TheOneGpuWorkstationIsGovernedByItsParts) {
  const Quote q = quote_from("gpu: a100-80gb-pcie\ngpus: 1\n");
  // Parts: 300 + 135 (Xeon 4314) + 4 × 6 + 3 + 7 + 10 + 250 = 729 W; system 1.8 × 300 = 540 W.
  EXPECT_DOUBLE_EQ(q.power.parts_w(), 729);
  EXPECT_DOUBLE_EQ(q.power.system_w, 540);
  EXPECT_DOUBLE_EQ(q.power.peak_w(), 729);
  EXPECT_FALSE(q.power.system_governs());
  EXPECT_EQ(en(governing_power(q.power)), "the parts' sum governs");
}

TEST(PowerTest, PsuRatingIsComparedWithTheDcLoadNotTheWallFigure) {
  // 8 × PCIe on its 2+2 × 2,000 W supplies: 4,000 W without the redundant pair. The wall peak
  // 4,320 W includes the supplies' own loss; at 91% efficiency they deliver 4,320 × 0.91 =
  // 3,931.2 W, above the parts' 3,388 W and within 4,000 W: redundancy holds, no finding.
  EXPECT_TRUE(
      findings_with_id(quote_from("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 32\n").findings, "power.psu").empty());
  // The same 8 cards on one 1,600 W supply: max(3,388, 3,931.2) = 3,931 W > 1,600 W: fail.
  auto f = findings_with_id(
      quote_from("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 32\ncooling: air-1600w-platinum\n").findings, "power.psu");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(fact(f[0], "load"), "3,931 W");
  EXPECT_EQ(fact(f[0], "peak"), "4,320 W");
  EXPECT_EQ(fact(f[0], "efficiency"), "91%");
}

TEST(PowerTest, QuoteJsonShowsBothFiguresAndWhichGoverns) {
  const nlohmann::json j =
      report::quote_json(quote_from("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 16\n"), report::Lang::kEn);
  const nlohmann::json& p = j.at("power_w");
  EXPECT_DOUBLE_EQ(p.at("node_peak").get<double>(), 4320);
  EXPECT_DOUBLE_EQ(p.at("parts").get<double>(), 3388);
  EXPECT_DOUBLE_EQ(p.at("system").get<double>(), 4320);
  EXPECT_EQ(p.at("system_basis"), "server_factor");
  EXPECT_EQ(p.at("governs"), "system");
}

TEST(PowerTest, AuditOfAnHgxQuoteUsesTheSamePeak) {
  // A vendor quote pricing one HGX A100 platform and its 8 GPUs: the same data-sheet 6,500 W.
  VendorQuote vq;
  vq.gpus = 8;
  VendorLine platform;
  platform.item = "HGX A100 8-GPU";
  platform.part = "hgx-a100-8gpu";
  VendorLine gpus;
  gpus.item = "A100 SXM4 80GB";
  gpus.part = "a100-80gb-sxm";
  gpus.qty = 8;
  vq.lines = {platform, gpus};
  const QuotedPower p = quoted_server_power(vq, default_catalog());
  EXPECT_DOUBLE_EQ(p.budget.parts_w(), 8 * 400 + 1600);  // only what the quote lists
  EXPECT_DOUBLE_EQ(p.budget.peak_w(), 6500);
  EXPECT_EQ(p.budget.system_basis, "vendor_max");
}

}  // namespace
}  // namespace gpuplan::plan
