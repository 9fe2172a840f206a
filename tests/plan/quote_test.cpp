#include "plan/quote.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::config_from;
using gpuplan::testing::default_catalog;
using gpuplan::testing::source_path;

const QuoteLine* line(const Quote& q, const std::string& id) {
  for (const auto& l : q.lines)
    if (l.id == id) return &l;
  return nullptr;
}

TEST(QuoteTest, GpuLineIsCardPriceTimesCount) {
  Quote q = build_quote(config_from("gpu: a100-80gb-sxm\ngpus: 8\n"), default_catalog());
  const QuoteLine* gpus = line(q, "a100-80gb-sxm");
  ASSERT_NE(gpus, nullptr);
  EXPECT_EQ(gpus->qty, 8);
  EXPECT_EQ(gpus->buy, (Range{560000, 800000}));  // 8 × ¥70,000–100,000 [S0 §1]
  EXPECT_EQ(gpus->rent_monthly, (Range{0, 0}));
  EXPECT_NE(gpus->source.find("2024"), std::string::npos);
}

TEST(QuoteTest, RentIsTheWholeServerMarketRangeTimesRegionFactor) {
  // 8-GPU servers rent for ¥12,000–15,000 a month [S0 §2.1]; cn-east is the 1.0 baseline.
  Quote east = build_quote(config_from("gpu: a100-80gb-sxm\ngpus: 8\nregion: cn-east\n"), default_catalog());
  EXPECT_EQ(line(east, "server-rent")->rent_monthly, (Range{12000, 15000}));
  // cn-west is 20–40% cheaper: factor 1/1.4–1/1.2 = 0.71–0.83 → ¥8,520–12,450.
  Quote west = build_quote(config_from("gpu: a100-80gb-sxm\ngpus: 8\nregion: cn-west\n"), default_catalog());
  EXPECT_NEAR(line(west, "server-rent")->rent_monthly.low, 12000 * 0.71, 1e-6);
  EXPECT_NEAR(line(west, "server-rent")->rent_monthly.high, 15000 * 0.83, 1e-6);
  // Two GPUs rent the 4-GPU class: ¥7,000–12,000.
  Quote two = build_quote(config_from("gpu: a100-80gb-pcie\ngpus: 2\n"), default_catalog());
  EXPECT_EQ(two.market->gpus, 4);
  EXPECT_EQ(line(two, "server-rent")->rent_monthly, (Range{7000, 12000}));
}

TEST(QuoteTest, MonthlyExtrasAndSubscriptions) {
  Quote q = build_quote(config_from(R"(gpu: a100-80gb-pcie
gpus: 1
rack: rack-16a-220v
software_image: true
licences: [nvidia-ai-enterprise]
support: premium-2h-4h
term_years: 3
)"), default_catalog());
  EXPECT_EQ(line(q, "rack-16a-220v")->rent_monthly, Range::point(800));             // [S0 §3.3]
  EXPECT_EQ(line(q, "preinstalled-ai-image")->rent_monthly, (Range{100, 500}));      // [S0 §2.5]
  // AI Enterprise ¥28,000 per GPU-year [S1 §3]: 1 GPU × 3 years = ¥84,000; ¥2,333.33 a month.
  EXPECT_EQ(line(q, "nvidia-ai-enterprise")->buy, Range::point(84000));
  EXPECT_NEAR(line(q, "nvidia-ai-enterprise")->rent_monthly.low, 28000.0 / 12, 1e-9);
  // Premium support ¥55,000 a year × 3 years, bought only.
  EXPECT_EQ(line(q, "premium-2h-4h")->buy, Range::point(165000));
  // Rent total: ¥3,000–5,000 server + ¥800 rack + ¥100–500 image + ¥2,333.33 licence.
  EXPECT_NEAR(q.total_rent_monthly.low, 3000 + 800 + 100 + 28000.0 / 12, 1e-6);
  EXPECT_NEAR(q.total_rent_monthly.high, 5000 + 800 + 500 + 28000.0 / 12, 1e-6);
}

TEST(QuoteTest, TotalsAreTheSumOfLinesAndPerGpuDividesByAllGpus) {
  Quote q = build_quote(config_from("gpu: a100-80gb-sxm\ngpus: 8\nnodes: 2\nnics: [{part: ib-hdr-200g, count: 8}]\n"),
                        default_catalog());
  Range buy, rent;
  for (const auto& l : q.lines) buy += l.buy, rent += l.rent_monthly;
  EXPECT_EQ(q.total_buy, buy);
  EXPECT_EQ(q.total_rent_monthly, rent);
  EXPECT_EQ(line(q, "a100-80gb-sxm")->buy, (Range{1120000, 1600000}));  // 16 × ¥70k–100k
  EXPECT_EQ(line(q, "ib-hdr-200g")->qty, 16);
  EXPECT_EQ(q.buy_per_gpu, q.total_buy / 16);
  EXPECT_EQ(line(q, "server-rent")->rent_monthly, (Range{24000, 30000}));  // 2 × ¥12,000–15,000
}

TEST(QuoteTest, DiskPriceIsCapacityTimesPerTbTimesEndurance) {
  // 3.84 TB × ¥800–1,500/TB × 2 (enterprise endurance) = ¥6,144–11,520 [S0 §2.2].
  EXPECT_EQ(disk_price(*default_catalog().find("disk", "nvme-u2-3.84tb"), 1), (Range{6144, 11520}));
}

TEST(QuoteTest, PowerAddsThePartsDataSheetsBesideTheSystemFigure) {
  ServerConfig c = config_from("gpu: a100-80gb-sxm\ngpus: 8\n");
  PowerBudget p = node_power(c, default_catalog());
  EXPECT_EQ(p.gpus_w, 3200);  // 8 × 400 W (SXM, SPEC §J)
  EXPECT_EQ(p.cpus_w, 560);   // 2 × EPYC 7763 at 280 W
  // The parts come to 5,534 W; the DGX A100 data sheet's 6.5 kW maximum governs (power_test.cpp).
  EXPECT_EQ(p.peak_w(), 6500);
}

TEST(QuoteTest, HiddenCostsArePricedWhenGivenAndOtherwiseNotIncluded) {
  Quote q = build_quote(config_from("gpu: a100-80gb-pcie\ngpus: 1\nhidden_costs: {ops_staff: [8000, 15000], public_ip: 300}\n"),
                        default_catalog());
  ASSERT_EQ(q.hidden_costs.size(), 11u);  // the nine of SPEC A4, and S0 §3.3's airflow and emergency cooling
  int priced = 0;
  for (const auto& h : q.hidden_costs) priced += h.monthly.has_value();
  EXPECT_EQ(priced, 2);
  EXPECT_EQ(q.hidden_monthly, (Range{8300, 15300}));
}

// S1 §1's two example systems, quoted as the article describes them, against its ¥650,000 and
// ¥380,000 (docs/sources.md#corrections).
TEST(QuoteTest, TheS1ExampleSystemsQuotedAsBuilt) {
  auto quote_of = [](const std::string& file) {
    auto text = gpuplan::testing::read_file(source_path(file));
    return build_quote(config_from(text), default_catalog());
  };
  // Dearer: card 70,000–100,000 + dual-socket PCIe server 35,000–60,000 + 2 × Xeon 8380
  // 24,000–40,000 + 16 × 64 GB 24,000–40,000 + 2 system SATA 480 GB 960–1,536 + 4 × U.2 3.84 TB
  // 24,576–46,080 + 25GbE NIC 1,500–3,000 + liquid 38,000 + its piping 18,000 + 3 × 55,000 7×24
  // support = ¥401,036–511,616: the article's ¥650,000 is 1.27× the high end.
  const Quote high = quote_of("examples/s1-1gpu-high.yaml");
  EXPECT_EQ(high.total_buy, (Range{401036, 511616}));
  // Cheaper: card 70,000–100,000 + workstation 20,000–40,000 + EPYC 7763 12,000–20,000 + 8 × 64 GB
  // 12,000–20,000 + 3 × SATA 480 GB 1,440–2,304 + 10GbE 800–1,500, air and basic warranty included
  // = ¥116,240–183,804: the article's ¥380,000 is 2.07× the high end, and above S0's whole 1-GPU
  // server (¥120,000–150,000).
  const Quote low = quote_of("examples/s1-1gpu-low.yaml");
  EXPECT_EQ(low.total_buy, (Range{116240, 183804}));
  ASSERT_TRUE(low.market);
  EXPECT_EQ(low.market->buy, (Range{120000, 150000}));
  // The article's difference, ¥270,000, against the quotes' middles: 456,326 − 150,022 = 306,304.
  EXPECT_EQ(high.total_buy.mid() - low.total_buy.mid(), 306304);
  // Training data on SATA in the cheaper build: S1 §2's 80k against 800k IOPS.
  EXPECT_EQ(gpuplan::testing::findings_with_id(low.findings, "storage.data").size(), 1u);
}

}  // namespace
}  // namespace gpuplan::plan
