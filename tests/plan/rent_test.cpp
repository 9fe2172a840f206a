// Rent priced from the configuration (issue 14 item 3): the market class's whole-server rent is
// the baseline (catalog/market.yaml says what it includes); InfiniBand adapters, data disks
// beyond the class's included TB and a fixed bandwidth tier are add-on lines, each with its
// catalog source. And the per-GPU rent band states the source's own conflict (SPEC §J).
// Expected ranges are worked by hand from catalog/rent_addon.yaml and market.yaml.
#include <gtest/gtest.h>

#include "plan/config.h"
#include "plan/quote.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::en;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::quote_from;


const QuoteLine* line_of(const Quote& q, const std::string& id) {
  for (const QuoteLine& l : q.lines)
    if (l.id == id) return &l;
  return nullptr;
}

void expect_range(const Range& r, double low, double high) {
  EXPECT_DOUBLE_EQ(r.low, low);
  EXPECT_DOUBLE_EQ(r.high, high);
}

// The [S1 §1] high build around one card: liquid cooling, 1 TB, 4 × U.2, an IB adapter, plus a
// 100 Mbps fixed line, the image and a 16 A circuit.
const char* kLoadedWorkstation =
    "gpu: a100-80gb-pcie\ngpus: 1\ncooling: liquid-2000w-titanium-x2\nmemory_gb: 1024\n"
    "data_disk: {part: nvme-u2-3.84tb, count: 4}\nnics: [{part: ib-hdr-200g, count: 1}]\n"
    "public_bandwidth: fixed-100mbps\nsoftware_image: true\nrack_amps: 16\nregion: cn-east\n";

TEST(RentTest, BareOneGpuClassRentsAtTheMarketRangeAlone) {
  const Quote q = quote_from("gpu: a100-80gb-pcie\ngpus: 1\nregion: cn-east\n");
  // Default workstation: 1 × 2 TB data disk = the class's included 2 TB; Ethernet; no tier.
  expect_range(q.total_rent_monthly, 3000, 5000);  // a100-80gb-1gpu × cn-east 1.0
  EXPECT_EQ(line_of(q, "rent-nvme-per-tb"), nullptr);
  EXPECT_EQ(line_of(q, "rent-ib-hdr-adapter"), nullptr);
}

TEST(RentTest, LoadedOneGpuBuildRentsForMoreLineByLine) {
  const Quote q = quote_from(kLoadedWorkstation);
  const QuoteLine* ib = line_of(q, "rent-ib-hdr-adapter");
  ASSERT_NE(ib, nullptr);
  expect_range(ib->rent_monthly, 300, 600);  // 1 adapter × ¥300–600
  EXPECT_NE(ib->source.find("[S0 §2.3]"), std::string::npos);
  const QuoteLine* storage = line_of(q, "rent-nvme-per-tb");
  ASSERT_NE(storage, nullptr);
  // 4 × 3.84 = 15.36 TB − 2 TB included = 13.36 TB × ¥50–100 = ¥668–1,336.
  EXPECT_DOUBLE_EQ(storage->qty, 13.36);
  expect_range(storage->rent_monthly, 668, 1336);
  EXPECT_EQ(en(storage->item),
            "NVMe data storage beyond the class, per TB-month: data disks 15.36 TB − 2 TB in the market class, × 1 "
            "node(s) = 13.36 TB");
  const QuoteLine* bandwidth = line_of(q, "fixed-100mbps");
  ASSERT_NE(bandwidth, nullptr);
  expect_range(bandwidth->rent_monthly, 7725, 8000);  // 5 × 25 + 95 × 80 .. 100 × 80
  // 3,000–5,000 (class) + 300–600 (IB) + 668–1,336 (storage) + 7,725–8,000 (bandwidth)
  // + 100–500 (image) + 800 (16 A circuit) = ¥12,593–16,236 a month.
  expect_range(q.total_rent_monthly, 12593, 16236);
}

TEST(RentTest, TenAndHundredMbpsFixedDifferSeveralFold) {
  const Quote ten = quote_from("gpu: a100-80gb-pcie\ngpus: 1\npublic_bandwidth: fixed-10mbps\n");
  const Quote hundred = quote_from("gpu: a100-80gb-pcie\ngpus: 1\npublic_bandwidth: fixed-100mbps\n");
  expect_range(line_of(ten, "fixed-10mbps")->rent_monthly, 525, 800);  // 5 × 25 + 5 × 80 .. 10 × 80
  // [S0 §2.3] "several-fold": even the cheapest 100 Mbps reading is 7,725 / 800 ≈ 9.7 × the dearest 10 Mbps.
  EXPECT_GT(line_of(hundred, "fixed-100mbps")->rent_monthly.low, 9 * line_of(ten, "fixed-10mbps")->rent_monthly.high);
  EXPECT_EQ(en(line_of(ten, "fixed-10mbps")->item),
            "Fixed public bandwidth 10 Mbps (no traffic charge; up to 3.24 TB a month at full rate)");
  // Plain "fixed" and "metered" stay valid and price no tier.
  EXPECT_EQ(line_of(quote_from("gpu: a100-80gb-pcie\ngpus: 1\npublic_bandwidth: fixed\n"), "fixed-10mbps"), nullptr);
}

TEST(RentTest, StorageAndAdaptersScaleWithNodes) {
  // Two 8-GPU HGX nodes with 8 × 7.68 TB each and 8 IB adapters each: 61.44 − 15.36 = 46.08 TB
  // a node beyond the class, 92.16 TB in all × ¥50–100 = ¥4,608–9,216; 16 adapters × ¥300–600.
  const Quote q = quote_from(
      "gpu: a100-80gb-sxm\ngpus: 8\nnodes: 2\ndata_disk: {part: nvme-u2-7.68tb, count: 8}\n"
      "nics: [{part: ib-hdr-200g, count: 8}]\n");
  const QuoteLine* storage = line_of(q, "rent-nvme-per-tb");
  ASSERT_NE(storage, nullptr);
  EXPECT_NEAR(storage->qty, 92.16, 1e-9);
  EXPECT_NEAR(storage->rent_monthly.low, 4608, 1e-6);
  EXPECT_NEAR(storage->rent_monthly.high, 9216, 1e-6);
  expect_range(line_of(q, "rent-ib-hdr-adapter")->rent_monthly, 4800, 9600);
}

TEST(RentTest, AnUnknownBandwidthTierIsAnErrorNamingTheField) {
  auto parsed = parse_config_yaml("gpu: a100-80gb-pcie\ngpus: 1\npublic_bandwidth: fixed-1gbps\n", "c.yaml");
  ASSERT_TRUE(parsed.ok());
  auto resolved = resolve_config(*parsed, default_catalog());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().field, "public_bandwidth");
  EXPECT_EQ(resolved.error().line, 3);
  EXPECT_NE(en(resolved.error().message).find("fixed-100mbps"), std::string::npos);
}

TEST(RentTest, BelowTheRentBandIsStatedAsTheSourcesConflict) {
  // 8 GPUs at ¥12,000–15,000 is ¥1,500–1,875 a GPU, below the article's ¥3,000–4,500 band.
  const Quote q = quote_from("gpu: a100-80gb-sxm\ngpus: 8\nregion: cn-east\n");
  auto f = findings_with_id(q.findings, "band.rent_per_gpu");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_EQ(f[0].variant, "below");
  ASSERT_EQ(f[0].notes.size(), 1u);
  // The article's own classes, largest first: 12,000–15,000 ÷ 8, 7,000–12,000 ÷ 4, 3,000–5,000 ÷ 1.
  EXPECT_EQ(en(f[0].notes[0]),
            "The article's own whole-server rents per GPU [S0 §2.1]: 8-GPU server ¥12,000–15,000 = ¥1,500–1,875 a "
            "GPU, 4-GPU server ¥7,000–12,000 = ¥1,750–3,000 a GPU, 1-GPU server ¥3,000–5,000 = ¥3,000–5,000 a GPU.");
}

}  // namespace
}  // namespace gpuplan::plan
