#include "plan/recommend.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::config_from;
using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;

Recommendation rec(Task task, double params_b, double dataset_tb = 0, std::optional<double> latency = std::nullopt) {
  Workload w;
  w.task = task;
  w.params_b = params_b;
  w.dataset_tb = dataset_tb;
  w.latency_ms = latency;
  auto r = recommend(w, default_catalog());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : Recommendation{};
}

TEST(RecommendTest, InferenceOfASmallModelIsOneGpu) {
  // 7B × 2 bytes (FP16) = 14 GB fits one 80 GB card.
  Recommendation r = rec(Task::kInference, 7);
  EXPECT_EQ(r.config.gpus, 1);
  EXPECT_EQ(r.config.nodes, 1);
  EXPECT_EQ(r.config.platform, "workstation-1gpu");
  EXPECT_EQ(r.config.gpu, "a100-80gb-pcie");
  EXPECT_EQ(r.why[0].id, "recommend.rule");
  EXPECT_EQ(*r.why[0].find_fact("rule"), "inference-any");
}

TEST(RecommendTest, MemoryFitRaisesTheGpuCount) {
  // 70B × 2 bytes = 140 GB; 80 GB × 0.9 usable = 72 GB per GPU → 2 GPUs, on the 4-GPU board.
  Recommendation r = rec(Task::kInference, 70);
  EXPECT_EQ(r.config.gpus, 2);
  EXPECT_EQ(r.config.platform, "server-4gpu-pcie");
  auto fit = findings_with_id(r.why, "recommend.memory_fit");
  ASSERT_EQ(fit.size(), 1u);
  EXPECT_EQ(*fit[0].find_fact("needed"), "140 GB");
}

TEST(RecommendTest, FullFineTuneOf13BIsAnEightGpuNvSwitchNode) {
  // Rule finetune 10–100B → 8 GPUs [S0 §3.1]; 13B × 16 bytes = 208 GB fits in 8 × 72 GB.
  Recommendation r = rec(Task::kFinetune, 13, 2);
  EXPECT_EQ(r.config.gpus, 8);
  EXPECT_EQ(r.config.platform, "hgx-a100-8gpu");  // multi-GPU training prefers NVSwitch
  EXPECT_EQ(r.config.gpu, "a100-80gb-sxm");
  // 8 GPUs × 16 cores = 128 cores: two 64-core EPYC 7763.
  EXPECT_EQ(r.config.cpu, "epyc-7763");
  // max(256 GB, 8 × 80 GB) = 640 GB → 16 × 64 GB modules (power of two) = 1,024 GB.
  EXPECT_EQ(r.config.memory.count, 16);
  // 2 TB data set × 2 headroom = 4 TB → 2 × 3.84 TB NVMe.
  EXPECT_EQ(r.config.data_disk, (PartCount{"nvme-u2-3.84tb", 2}));
  // Parts 3,200 + 560 + 16 × 6 + 2 × 3 + 2 × 12 + 2 × 12 + 1,600 = 5,510 W, but the peak is the DGX
  // A100 data sheet's 6,500 W: over 32 A's continuous 5,632 W, within its 7,040 W, so the largest
  // circuit with a warning.
  EXPECT_EQ(r.config.rack, "rack-32a-220v");
  auto rack = findings_with_id(r.quote.findings, "power.rack");
  ASSERT_EQ(rack.size(), 1u);
  EXPECT_EQ(rack[0].severity, Severity::kWarn);
  EXPECT_GT(r.quote.total_buy.low, 0);
}

TEST(RecommendTest, HundredsOfBillionsNeedSeveralNodesWithIbAndAClusterManager) {
  // 175B × 16 bytes = 2,800 GB / 72 GB = 38.9 → 39 GPUs → 5 nodes of 8.
  Recommendation r = rec(Task::kPretrain, 175);
  EXPECT_EQ(r.config.gpus, 8);
  EXPECT_EQ(r.config.nodes, 5);
  ASSERT_EQ(r.config.nics.size(), 1u);
  EXPECT_EQ(r.config.nics[0], (PartCount{"ib-hdr-200g", 8}));
  ASSERT_TRUE(r.config.network_switch.has_value());
  EXPECT_EQ(r.config.network_switch->count, 1);  // 40 ports for 5 × 8 adapters
  EXPECT_EQ(r.config.cluster_manager, "commercial-16node-3y");
  EXPECT_TRUE(findings_with_id(r.quote.findings, "network.rdma").empty());
}

TEST(RecommendTest, LatencyToleranceChoosesTheRegion) {
  EXPECT_EQ(rec(Task::kInference, 7, 0, 10).config.region, "cn-east");  // 5 ms, baseline price
  EXPECT_EQ(rec(Task::kInference, 7, 0, 50).config.region, "cn-west");  // 20 ms is within 50, and cheaper
  EXPECT_EQ(rec(Task::kInference, 7, 0, 1).config.region, "cn-east");   // none within: the fastest
}

TEST(RecommendTest, OverBudgetIsSaid) {
  Workload w;
  w.task = Task::kFinetune;
  w.params_b = 13;
  w.budget = 500000;
  auto r = recommend(w, default_catalog());
  ASSERT_TRUE(r.ok());
  auto over = findings_with_id(r->why, "recommend.budget");
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(*over[0].find_fact("budget"), "¥500,000");
}

TEST(RecommendTest, WrittenConfigQuotesTheSame) {
  Recommendation r = rec(Task::kPretrain, 175, 10, 10);
  ServerConfig again = config_from(write_config_yaml(r.config));
  EXPECT_EQ(again, r.config);
  Quote q = build_quote(again, default_catalog());
  EXPECT_EQ(q.total_buy, r.quote.total_buy);
  EXPECT_EQ(q.total_rent_monthly, r.quote.total_rent_monthly);
}

TEST(RecommendTest, ParsesModelSizes) {
  EXPECT_DOUBLE_EQ(*parse_params("13B"), 13);
  EXPECT_DOUBLE_EQ(*parse_params("7b"), 7);
  EXPECT_DOUBLE_EQ(*parse_params("1.5T"), 1500);
  EXPECT_DOUBLE_EQ(*parse_params("350M"), 0.35);
  EXPECT_DOUBLE_EQ(*parse_params("70"), 70);
  EXPECT_FALSE(parse_params("13Q").ok());
  EXPECT_FALSE(parse_params("-7B").ok());
  EXPECT_FALSE(parse_params("").ok());
}

}  // namespace
}  // namespace gpuplan::plan
