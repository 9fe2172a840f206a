// Each rule fires on a configuration built to trigger it, with the numbers that fired it,
// and stays quiet on one built not to.
#include "plan/rules.h"

#include <gtest/gtest.h>

#include "plan/quote.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::catalog_with;
using gpuplan::testing::config_from;
using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;

std::vector<Finding> run(const std::string& yaml, const catalog::Catalog& cat = default_catalog()) {
  return build_quote(config_from(yaml, cat), cat).findings;
}

std::string fact(const Finding& f, const std::string& key) {
  const std::string* v = f.find_fact(key);
  return v ? *v : "<missing " + key + ">";
}

// The 1-GPU workstation with its defaults draws 300 (GPU) + 135 (Xeon 4314) + 4 × 6 (DIMMs)
// + 3 (SATA) + 7 (M.2) + 10 (10GbE) + 250 (platform) = 729 W.
const char* kWorkstation = "gpu: a100-80gb-pcie\ngpus: 1\n";

TEST(RulesTest, EightSxmGpusOverloadAnEightAmpRack) {
  auto f = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\nrack: rack-8a-220v\n"), "power.rack");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(fact(f[0], "gpu_draw"), "3,200 W");  // 8 × 400 W
  EXPECT_EQ(fact(f[0], "capacity"), "1,760 W");  // 8 A × 220 V
}

TEST(RulesTest, RackAboveItsContinuousFractionWarns) {
  // Two 729 W workstations = 1,458 W: under 1,760 W but over 80% of it (1,408 W).
  auto f = findings_with_id(run(std::string(kWorkstation) + "servers_per_rack: 2\nrack: rack-8a-220v\n"), "power.rack");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(f[0], "load"), "1,458 W");
  EXPECT_EQ(fact(f[0], "continuous"), "1,408 W");
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) + "rack: rack-8a-220v\n"), "power.rack").empty());
}

// No rack stated: nothing is judged, the need is stated. Eight A100 PCIe cards peak at
// 1.8 × 8 × 300 W = 4,320 W: 4,320 / (220 V × 0.8) = 24.5, so at least 25 A; the 32 A circuit
// (5,632 W continuously) is the smallest that carries it.
TEST(RulesTest, AnUnstatedRackStatesTheCircuitTheServerNeeds) {
  auto f = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 8\n"), "power.rack");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_EQ(f[0].variant, "unstated");
  EXPECT_EQ(fact(f[0], "load"), "4,320 W");
  EXPECT_EQ(fact(f[0], "needed_amps"), "25");
  EXPECT_EQ(fact(f[0], "continuous"), "5,632 W");
  EXPECT_NE(fact(f[0], "rack").find("32 A"), std::string::npos);
  // Stated, the same server on 16 A (3,520 W) fails.
  auto stated = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 16\n"), "power.rack");
  ASSERT_EQ(stated.size(), 1u);
  EXPECT_EQ(stated[0].severity, Severity::kFail);
}

// Eight SXM GPUs on HGX peak at the DGX A100's 6,500 W: 6,500 / 176 = 36.9, at least 37 A, more
// than any catalog circuit carries continuously: a warning, not a failure, until a rack is stated.
TEST(RulesTest, AnUnstatedRackNoCatalogCircuitCarriesWarns) {
  auto f = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\n"), "power.rack");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].variant, "unstated_short");
  EXPECT_EQ(fact(f[0], "needed_amps"), "37");
  EXPECT_EQ(fact(f[0], "load"), "6,500 W");
}

TEST(RulesTest, PowerSuppliesTooSmallOrWithoutRedundancy) {
  // 4 × A100 PCIe default build: 1,200 + 2 × 225 + 8 × 6 + 2 × 3 + 12 + 12 + 200 = 1,928 W.
  auto over = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 4\ncooling: air-1600w-platinum\nrack_amps: 16\n"), "power.psu");
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].severity, Severity::kFail);
  // The supplies' DC load is the larger of the parts and the wall figure 1.8 × 1,200 = 2,160 W at
  // 91% PSU efficiency (1,965.6 W): 1,966 W.
  EXPECT_EQ(fact(over[0], "load"), "1,966 W");
  EXPECT_EQ(fact(over[0], "total"), "1,600 W");
  // 4 × H100 PCIe (350 W): 1,400 + 728 = 2,128 W > the 2,000 W left when one of 2 × 2,000 W fails.
  auto redundancy = findings_with_id(run("gpu: h100-80gb-pcie\ngpus: 4\nplatform: server-4gpu-pcie\nrack_amps: 16\n"), "power.psu");
  ASSERT_EQ(redundancy.size(), 1u);
  EXPECT_EQ(redundancy[0].severity, Severity::kWarn);
  // Wall figure 1.8 × 1,400 = 2,520 W × 0.91 = 2,293.2 W, above the parts' 2,128 W.
  EXPECT_EQ(fact(redundancy[0], "load"), "2,293 W");
  EXPECT_EQ(fact(redundancy[0], "without_redundant"), "2,000 W");
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 4\nrack_amps: 16\n"), "power.psu").empty());
}

TEST(RulesTest, OneSixtyFourLaneSocketCannotFeedFourGpus) {
  // One Xeon Silver 4314: 64 lanes. 4 GPUs × 16 + 1 NVMe × 4 + one 25GbE × 8 = 76.
  auto f = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 4\ncpu: xeon-silver-4314\ncpu_sockets: 1\nrack_amps: 16\n"), "pcie.lanes");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(fact(f[0], "needed"), "76");
  EXPECT_EQ(fact(f[0], "available"), "64");
  // Two EPYC 7543 sockets give 128 lanes (EPYC 7003, SPEC §J): 76 fits.
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 4\nrack_amps: 16\n"), "pcie.lanes").empty());
}

TEST(RulesTest, HgxNicsBehindItsSwitchesUseNoCpuLanes) {
  // HGX A100: 8 SXM GPUs behind 4 switch uplinks (64 lanes), 8 HDR NICs on those switches,
  // 4 U.2 NVMe (16 lanes) = 80 of 128.
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\nnics: [{part: ib-hdr-200g, count: 8}]\n"), "pcie.lanes").empty());
}

TEST(RulesTest, SlotRules) {
  auto form = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 4\nplatform: server-4gpu-pcie\nrack_amps: 16\n"), "pcie.slot");
  ASSERT_FALSE(form.empty());
  EXPECT_EQ(form[0].variant, "form_factor");
  EXPECT_EQ(form[0].severity, Severity::kFail);
  auto count = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 8\nplatform: server-4gpu-pcie\nrack_amps: 32\n"), "pcie.slot");
  ASSERT_FALSE(count.empty());
  EXPECT_EQ(count[0].variant, "count");
  // 8 PCIe cards on a board with 4 CPU-direct slots: 4 sit behind a switch.
  auto switched = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 8\nrack_amps: 32\n"), "pcie.slot");
  ASSERT_EQ(switched.size(), 1u);
  EXPECT_EQ(switched[0].variant, "switched");
  EXPECT_EQ(fact(switched[0], "switched"), "4");
  auto gen = findings_with_id(run("gpu: h100-80gb-pcie\ngpus: 4\nplatform: server-4gpu-pcie\nrack_amps: 16\n"), "pcie.slot");
  ASSERT_EQ(gen.size(), 1u);
  EXPECT_EQ(gen[0].variant, "generation");
  // The HGX board's designed switch layout passes.
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\n"), "pcie.slot").empty());
}

TEST(RulesTest, TrainingBelow256GbOfMemoryWarns) {
  auto f = findings_with_id(run(std::string(kWorkstation) + "memory_gb: 128\ntask: train\n"), "memory.min");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(f[0], "memory"), "128 GB");
  EXPECT_EQ(fact(f[0], "min"), "256 GB");
  auto inference = findings_with_id(run(std::string(kWorkstation) + "memory_gb: 128\ntask: inference\n"), "memory.min");
  ASSERT_EQ(inference.size(), 1u);
  EXPECT_EQ(inference[0].severity, Severity::kInfo);
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) + "memory_gb: 256\n"), "memory.min").empty());
}

TEST(RulesTest, MultiNodeNeedsRdmaSingleNodeDoesNotNeedIb) {
  auto missing = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\nnodes: 2\nnics: [{part: eth-10g-dual, count: 1}]\n"), "network.rdma");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].severity, Severity::kFail);
  auto no_switch = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\nnodes: 2\nnics: [{part: ib-hdr-200g, count: 8}]\n"), "network.rdma");
  ASSERT_EQ(no_switch.size(), 1u);
  EXPECT_EQ(no_switch[0].variant, "no_switch");
  // One node with 8 HDR adapters at ¥8,000–12,000 each: ¥64,000–96,000 it does not need.
  auto unneeded = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\nnics: [{part: ib-hdr-200g, count: 8}]\n"), "network.rdma");
  ASSERT_EQ(unneeded.size(), 1u);
  EXPECT_EQ(unneeded[0].severity, Severity::kInfo);
  EXPECT_EQ(fact(unneeded[0], "cost"), "¥64,000–96,000");
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\nnodes: 2\nnics: [{part: ib-hdr-200g, count: 8}]\n"
                                   "switch: {part: ib-hdr-switch-40p, count: 1}\n"),
                               "network.rdma").empty());
}

TEST(RulesTest, NvlinkMattersForMultiGpuTrainingOnly) {
  // A 4-GPU PCIe board without NVLink bridges, added to the catalog for this test.
  auto cat = catalog_with({{"p.yaml", R"(kind: platform
entries:
  - id: plain-4gpu
    name: Plain 4-GPU PCIe server
    max_gpus: 4
    gpu_form_factor: pcie
    interconnect: pcie
    cpu_direct_x16_slots: 4
    switched_x16_slots: 0
    pcie_gen: 4
    cpu_sockets: 2
    base_power_w: 200
    buy: [30000, 50000]
    liquid_ready: false
    tpm2: true
    default_cpu: epyc-7543
    default_memory: ddr4-3200-64gb
    default_memory_modules: 8
    default_system_disk: sata-ssd-480gb
    default_system_disks: 2
    default_data_disk: nvme-u2-3.84tb
    default_data_disks: 1
    default_nic: eth-25g-dual
    default_nics: 1
    default_cooling: air-2x2000w-titanium
    source: test
    as_of: "2024"
)"}});
  auto missing = findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 4\nplatform: plain-4gpu\ntask: train\nrack_amps: 16\n", cat), "network.nvlink");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].severity, Severity::kWarn);
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 4\nplatform: plain-4gpu\ntask: inference\nrack_amps: 16\n", cat),
                               "network.nvlink").empty());
  auto unneeded = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\ntask: inference\n"), "network.nvlink");
  ASSERT_EQ(unneeded.size(), 1u);
  EXPECT_EQ(unneeded[0].severity, Severity::kInfo);
  EXPECT_EQ(fact(unneeded[0], "interconnect"), "nvswitch");
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\ntask: train\n"), "network.nvlink").empty());
}

TEST(RulesTest, MeteredPublicTrafficWarns) {
  auto f = findings_with_id(run(std::string(kWorkstation) + "public_bandwidth: metered\n"), "network.public");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) + "public_bandwidth: fixed\n"), "network.public").empty());
}

TEST(RulesTest, AirCoolingInAHotRoomWarns) {
  auto f = findings_with_id(run(std::string(kWorkstation) + "room_temp_c: 40\n"), "cooling.air");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(fact(f[0], "throttle"), "12%");  // [S1 §2]: ≈12% lower clocks over 72 h
  EXPECT_EQ(fact(f[0], "limit"), "35 °C");   // ASHRAE class A2 allowable inlet
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) + "room_temp_c: 25\n"), "cooling.air").empty());
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) + "room_temp_c: 40\ncooling: liquid-2000w-titanium-x2\n"),
                               "cooling.air").empty());
}

TEST(RulesTest, SoftwareVersionsAgainstTheMatrix) {
  auto old_driver = findings_with_id(run(std::string(kWorkstation) + "software: {driver: \"470.82.01\"}\n"), "software.matrix");
  ASSERT_EQ(old_driver.size(), 1u);
  EXPECT_EQ(old_driver[0].severity, Severity::kFail);
  EXPECT_EQ(old_driver[0].variant, "below_min");
  EXPECT_EQ(fact(old_driver[0], "min"), "525.85.05");
  auto cuda = findings_with_id(run(std::string(kWorkstation) + "software: {cuda: \"12.2\"}\n"), "software.matrix");
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_EQ(cuda[0].variant, "not_listed");
  EXPECT_EQ(fact(cuda[0], "allowed"), "11.8, 12.1");
  auto pair = findings_with_id(run(std::string(kWorkstation) + "software: {cuda: \"12.1\", driver: \"520.61.05\"}\n"),
                               "software.matrix");
  ASSERT_EQ(pair.size(), 2u);  // below the minimum, and too old for CUDA 12
  EXPECT_EQ(pair[1].variant, "cuda_driver");
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) +
                                   "software: {driver: \"535.104.05\", cuda: \"12.1\", cudnn: \"8.9\", pytorch: \"2.1\", tensorflow: \"2.13\"}\n"),
                               "software.matrix").empty());
  auto none = findings_with_id(run(kWorkstation), "software.matrix");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].variant, "unspecified");
}

TEST(RulesTest, PerGpuBands) {
  // 8-GPU rent ¥12,000–15,000 / 8 = ¥1,500–1,875 per GPU-month: below ¥3,000–4,500 [S0 §3.2].
  auto below = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\n"), "band.rent_per_gpu");
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].variant, "below");
  EXPECT_EQ(fact(below[0], "per_gpu"), "¥1,500–1,875");  // CNY per GPU-month: the message names the unit
  // 1 GPU at ¥3,000–5,000 overlaps the band: quiet. Adding AI Enterprise (¥2,333/month) lifts it
  // to ¥5,333–7,333, above ¥4,500.
  EXPECT_TRUE(findings_with_id(run(kWorkstation), "band.rent_per_gpu").empty());
  auto above = findings_with_id(run(std::string(kWorkstation) + "licences: [nvidia-ai-enterprise]\n"), "band.rent_per_gpu");
  ASSERT_EQ(above.size(), 1u);
  EXPECT_EQ(above[0].variant, "above");
  EXPECT_EQ(fact(above[0], "per_gpu"), "¥5,333–7,333");
  // Purchase: the 1-GPU build is ¥101,880 or more, above ¥28,000–40,000 (SPEC §J conflict).
  auto buy = findings_with_id(run(kWorkstation), "band.buy_per_gpu");
  ASSERT_EQ(buy.size(), 1u);
  EXPECT_EQ(buy[0].variant, "above");
  // Notes, not warnings: the band contradicts the article's own card price on every new build.
  EXPECT_EQ(buy[0].severity, Severity::kInfo);
  EXPECT_EQ(above[0].severity, Severity::kInfo);
}

TEST(RulesTest, ComponentBuildUpAgainstTheMarketRange) {
  // 1 GPU: 70–100k card + 20–40k box + 3–5k CPU + 4 × 1.5–2.5k DIMMs + 480–768 SATA
  // + 1,600–3,000 M.2 + 800–1,500 NIC = ¥101,880–160,268, overlapping ¥120k–150k: quiet.
  EXPECT_TRUE(findings_with_id(run(kWorkstation), "market.range").empty());
  // 8 SXM cards at the catalog's lowest ¥70,000 cost ¥560,000, above the whole 8-GPU server's
  // ¥350,000 × 1.1 = ¥385,000: the articles' server price cannot buy the cards. A note, with the
  // budget: the highs 800,000 (cards) + 200,000 (HGX) + 40,000 (CPUs) + 40,000 (16 DIMMs) + 3,072
  // (SATA) + 46,080 (NVMe) + 6,000 (NICs) = ¥1,135,152, above the market's high: the build-up's.
  Quote q = build_quote(config_from("gpu: a100-80gb-sxm\ngpus: 8\n"), default_catalog());
  auto above = findings_with_id(q.findings, "market.range");
  ASSERT_EQ(above.size(), 1u);
  EXPECT_EQ(above[0].variant, "cards_exceed");
  EXPECT_EQ(above[0].severity, Severity::kInfo);
  EXPECT_EQ(fact(above[0], "cards"), "¥560,000");
  EXPECT_EQ(fact(above[0], "market"), "¥280,000–350,000");
  EXPECT_EQ(fact(above[0], "budget"), "¥1,135,152");
  EXPECT_EQ(q.budget.amount, 1135152);
  EXPECT_EQ(q.budget.basis, "build_up");
  // H100 has no market figure in the catalog: said, not guessed, and not a warning.
  auto unknown = findings_with_id(run("gpu: h100-80gb-sxm\ngpus: 8\n"), "market.range");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].variant, "unknown");
  EXPECT_EQ(unknown[0].severity, Severity::kInfo);
}

TEST(RulesTest, TrainingDataOnSataOrHardDisksWarns) {
  auto sata = findings_with_id(
      run("gpu: a100-80gb-sxm\ngpus: 8\ntask: train\ndata_disk: {part: sata-ssd-960gb, count: 4}\n"), "storage.data");
  ASSERT_EQ(sata.size(), 1u);
  EXPECT_EQ(sata[0].variant, "sata");
  EXPECT_EQ(sata[0].severity, Severity::kWarn);
  EXPECT_EQ(fact(sata[0], "sata_iops"), "80,000");   // [S1 §2]
  EXPECT_EQ(fact(sata[0], "nvme_iops"), "800,000");  // [S1 §2]
  EXPECT_EQ(fact(sata[0], "data"), "3.84 TB");       // 4 × 0.96 TB
  auto hdd = findings_with_id(
      run("gpu: a100-80gb-sxm\ngpus: 8\ntask: pretrain\ndata_disk: {part: hdd-16tb, count: 2}\n"), "storage.data");
  ASSERT_EQ(hdd.size(), 1u);
  EXPECT_EQ(hdd[0].variant, "hdd");
  // Inference reads its weights once: no storage finding on the same SATA disks.
  EXPECT_TRUE(findings_with_id(
                  run("gpu: a100-80gb-sxm\ngpus: 8\ntask: inference\ndata_disk: {part: sata-ssd-960gb, count: 4}\n"),
                  "storage.data")
                  .empty());
}

TEST(RulesTest, TrainingNeedsAtLeastTwoTerabytesOfNvme) {
  auto cat = catalog_with({{"disk.yaml", R"(kind: disk
entries:
  - {id: nvme-m2-1tb, name: NVMe M.2 1TB, media: nvme, capacity_tb: 1, buy_per_tb: [800, 1500],
     endurance_multiplier: 1, pcie_lanes: 4, power_w: 7, source: test, as_of: "2024-06"}
)"}});
  // One 1 TB disk: 1 TB < 2 TB [S0 §2.2].
  auto small = findings_with_id(
      run("gpu: a100-80gb-pcie\ngpus: 1\ntask: finetune\ndata_disk: {part: nvme-m2-1tb, count: 1}\n", cat),
      "storage.data");
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].variant, "small");
  EXPECT_EQ(fact(small[0], "data"), "1 TB");
  EXPECT_EQ(fact(small[0], "min"), "2 TB");
  // Two of them make 2 TB, the minimum itself: quiet.
  EXPECT_TRUE(findings_with_id(
                  run("gpu: a100-80gb-pcie\ngpus: 1\ntask: finetune\ndata_disk: {part: nvme-m2-1tb, count: 2}\n", cat),
                  "storage.data")
                  .empty());
  // The defaults of every platform meet it: the 8-GPU board's 4 × 3.84 TB.
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\ntask: train\n"), "storage.data").empty());
}

TEST(RulesTest, TheServerAgainstItsCardsIsANoteBesideTheArticlesTwoToThreeTimes) {
  // 8 × A100 SXM: one node's hardware ¥737,496–1,135,152 (middle 936,324) over 8 × ¥70,000–100,000
  // (middle 680,000) = 1.377×, below 2–3× [S0 §1].
  auto eight = findings_with_id(run("gpu: a100-80gb-sxm\ngpus: 8\n"), "band.server_over_card");
  ASSERT_EQ(eight.size(), 1u);
  EXPECT_EQ(eight[0].severity, Severity::kInfo);
  EXPECT_EQ(eight[0].variant, "below");
  EXPECT_EQ(fact(eight[0], "ratio"), "1.38");
  EXPECT_EQ(fact(eight[0], "node"), "¥737,496–1,135,152");
  // The workstation: ¥101,880–160,268 (middle 131,074) over ¥70,000–100,000 (85,000) = 1.542×.
  auto one = findings_with_id(run(kWorkstation), "band.server_over_card");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(fact(one[0], "ratio"), "1.54");
  // A ¥10,000 card in the same workstation: ¥41,880–70,268 (middle 56,074) over 10,000 = 5.61×,
  // above the band.
  auto cat = catalog_with({{"gpu.yaml", R"(kind: gpu
entries:
  - {id: cheap-card, name: Cheap card, form_factor: pcie, memory_gb: 48, memory_bandwidth_gbs: 864,
     tdp_w: 300, fp16_tflops_dense: 100, bf16_tflops_dense: 100, nvlink_gen: 0, nvlink_bandwidth_gbs: 0,
     pcie_gen: 4, pcie_lanes: 16, buy: 10000, family: cheap, source: test, as_of: "2024-06"}
)"}});
  auto cheap = findings_with_id(run("gpu: cheap-card\ngpus: 1\n", cat), "band.server_over_card");
  ASSERT_EQ(cheap.size(), 1u);
  EXPECT_EQ(cheap[0].variant, "above");
  EXPECT_EQ(fact(cheap[0], "ratio"), "5.61");
}

TEST(RulesTest, ABuildUnderTheMarketPriceIsBudgetedAtTheMarketPrice) {
  // A ¥10,000 card whose 1-GPU servers sell for ¥200k–250k: the workstation's parts are
  // 10,000 + 20–40k + 3–5k + 4 × 1.5–2.5k + 480–768 + 1,600–3,000 + 800–1,500 = ¥41,880–70,268,
  // below ¥200,000 × 0.9 = ¥180,000. A vendor sells at the market price: the budget is the
  // build-up's high raised by 250,000 − 70,268 = 179,732, i.e. ¥250,000.
  auto cat = catalog_with({{"gpu.yaml", R"(kind: gpu
entries:
  - {id: cheap-card, name: Cheap card, form_factor: pcie, memory_gb: 48, memory_bandwidth_gbs: 864,
     tdp_w: 300, fp16_tflops_dense: 100, bf16_tflops_dense: 100, nvlink_gen: 0, nvlink_bandwidth_gbs: 0,
     pcie_gen: 4, pcie_lanes: 16, buy: 10000, family: cheap, source: test, as_of: "2024-06"}
)"},
                           {"market.yaml", R"(kind: market
entries:
  - {id: cheap-1gpu, name: Cheap 1-GPU server, family: cheap, gpus: 1, rent_monthly: [3000, 5000],
     buy: [200000, 250000], source: test, as_of: "2024-06"}
)"}});
  Quote q = build_quote(config_from("gpu: cheap-card\ngpus: 1\n", cat), cat);
  EXPECT_EQ(q.node_hardware_buy, (Range{41880, 70268}));
  EXPECT_EQ(q.budget.amount, 250000);
  EXPECT_EQ(q.budget.basis, "market");
  auto below = findings_with_id(q.findings, "market.range");
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].variant, "below");
  EXPECT_EQ(below[0].severity, Severity::kInfo);
  EXPECT_EQ(fact(below[0], "budget"), "¥250,000");
}

TEST(RulesTest, TheExportRulesOfTheGpuAreANoteInBothLanguages) {
  auto f = findings_with_id(run("gpu: h20-96gb-sxm\ngpus: 8\n"), "gpu.export");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_NE(fact(f[0], "note").find("since 2025-04-09"), std::string::npos);
  const Fact* note = nullptr;
  for (const Fact& x : f[0].facts)
    if (x.key == "note") note = &x;
  ASSERT_TRUE(note && note->value_zh);
  EXPECT_NE(note->value_zh->find("自 2025-04-09 起对华出口需美国许可证"), std::string::npos);
}

TEST(RulesTest, ASecondHandCardIsNotedWithWhatToCheck) {
  auto used = findings_with_id(run("gpu: a100-40gb-pcie\ngpus: 1\n"), "gpu.used");
  ASSERT_EQ(used.size(), 1u);
  EXPECT_EQ(used[0].severity, Severity::kInfo);
  EXPECT_EQ(used[0].source, "S0 §4.4");
  EXPECT_TRUE(findings_with_id(run("gpu: a100-80gb-pcie\ngpus: 1\n"), "gpu.used").empty());
}

TEST(RulesTest, CardsWithoutNvlinkTalkOverPcieInABridgedServer) {
  // The 8-GPU PCIe server has NVLink bridges, but the L40S has no NVLink: training across its 8
  // GPUs goes over PCIe.
  auto l40s = findings_with_id(run("gpu: l40s-48gb-pcie\ngpus: 8\ntask: train\n"), "network.nvlink");
  ASSERT_EQ(l40s.size(), 1u);
  EXPECT_EQ(l40s[0].variant, "missing");
  EXPECT_EQ(l40s[0].severity, Severity::kWarn);
  // The A800 PCIe card takes the bridge (400 GB/s): quiet.
  EXPECT_TRUE(findings_with_id(run("gpu: a800-80gb-pcie\ngpus: 8\ntask: train\n"), "network.nvlink").empty());
}

TEST(RulesTest, FutureProofingAdvisories) {
  auto a100 = build_quote(config_from("gpu: a100-80gb-sxm\ngpus: 8\n"), default_catalog()).findings;
  auto pcie5 = findings_with_id(a100, "future.pcie5");
  ASSERT_EQ(pcie5.size(), 1u);
  EXPECT_EQ(fact(pcie5[0], "cost"), "¥15,000");  // [S1 §6]
  EXPECT_EQ(findings_with_id(a100, "future.liquid").size(), 1u);
  // The HGX H100 board is PCIe 5.0, liquid-ready and has a TPM: no advisories.
  auto h100 = build_quote(config_from("gpu: h100-80gb-sxm\ngpus: 8\n"), default_catalog()).findings;
  for (const auto& f : h100) EXPECT_NE(f.id.rfind("future.", 0), 0u) << f.id;
}

TEST(RulesTest, AReleaseOfAnAllowedVersionIsListed) {
  // The matrix allows CUDA 11.8 and 12.1. "12.1.105" is release 105 of 12.1: listed, as
  // acceptance G5 says (the old rule matched allowed versions exactly and warned). "12.10" is
  // not a release of 12.1 (10 ≠ 1): not_listed.
  EXPECT_TRUE(findings_with_id(run(std::string(kWorkstation) + "software: {cuda: \"12.1.105\"}\n"), "software.matrix")
                  .empty());
  auto ten = findings_with_id(run(std::string(kWorkstation) + "software: {cuda: \"12.10\"}\n"), "software.matrix");
  ASSERT_EQ(ten.size(), 1u);
  EXPECT_EQ(ten[0].variant, "not_listed");
}

TEST(RulesTest, EveryRuleHasAStableId) {
  std::vector<std::string> ids;
  for (const auto& r : rules()) ids.push_back(r.id);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "power.rack", "power.psu", "pcie.lanes", "pcie.slot", "memory.min", "storage.data", "network.rdma",
                     "network.nvlink", "network.public", "gpu.export", "gpu.used", "cooling.air", "software.matrix",
                     "band.rent_per_gpu", "band.buy_per_gpu", "band.server_over_card", "market.range", "future."}));
}

}  // namespace
}  // namespace gpuplan::plan
