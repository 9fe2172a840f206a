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
  // 70B × 2 bytes = 140 GB + a 4096-token KV cache of Llama 2 70B (2 × 80 × 1024 × 2 × 4096 =
  // 1.34 GB) = 141.3 GB; 80 GB × 0.9 usable = 72 GB per GPU → 2 GPUs, rounded up to the 4-GPU board.
  Recommendation r = rec(Task::kInference, 70);
  EXPECT_EQ(r.config.gpus, 4);
  EXPECT_EQ(r.config.platform, "server-4gpu-pcie");
  auto fit = findings_with_id(r.why, "recommend.memory_fit");
  ASSERT_EQ(fit.size(), 1u);
  EXPECT_EQ(*fit[0].find_fact("needed"), "141.3 GB");
  EXPECT_EQ(*fit[0].find_fact("gpus"), "2");
}

TEST(RecommendTest, FullFineTuneOf13BIsAFourGpuServer) {
  // Rule finetune-10-100b → floor 4 GPUs [S0 §2.1]; 13B × 16 bytes × 1.2 = 249.6 GB ÷ 72 GB → 4.
  Recommendation r = rec(Task::kFinetune, 13, 2);
  EXPECT_EQ(r.config.gpus, 4);
  EXPECT_EQ(r.config.platform, "server-4gpu-pcie");
  EXPECT_EQ(r.config.gpu, "a100-80gb-pcie");
  // max(256 GB, 4 × 80 GB) = 320 GB → 8 × 64 GB modules (power of two) = 512 GB.
  EXPECT_EQ(r.config.memory.count, 8);
  // 2 TB data set × 2 headroom = 4 TB → 2 × 3.84 TB NVMe.
  EXPECT_EQ(r.config.data_disk, (PartCount{"nvme-u2-3.84tb", 2}));
  EXPECT_GT(r.quote.total_buy.low, 0);
}

TEST(RecommendTest, HundredsOfBillionsNeedSeveralNodesWithIbAndAClusterManager) {
  // 175B × 16 bytes × 1.2 = 3,360 GB / 72 GB = 46.7 → 47 GPUs → 6 nodes of 8.
  Recommendation r = rec(Task::kPretrain, 175);
  EXPECT_EQ(r.config.gpus, 8);
  EXPECT_EQ(r.config.nodes, 6);
  ASSERT_EQ(r.config.nics.size(), 1u);
  EXPECT_EQ(r.config.nics[0], (PartCount{"ib-hdr-200g", 8}));
  ASSERT_TRUE(r.config.network_switch.has_value());
  EXPECT_EQ(r.config.network_switch->count, 2);  // 6 × 8 = 48 adapters, 40 ports a switch
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
  w.budget = 200000;
  auto r = recommend(w, default_catalog());
  ASSERT_TRUE(r.ok());
  auto over = findings_with_id(r->why, "recommend.budget");
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(*over[0].find_fact("budget"), "¥200,000");
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
