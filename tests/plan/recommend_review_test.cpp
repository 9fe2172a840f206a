// recommend: the review's findings on the memory-arithmetic recommendation (issue 14). Every
// expected figure is worked by hand from the catalog (catalog/threshold.yaml, gpu.yaml,
// platform.yaml, model_shape.yaml): inference 2 bytes a weight, 2 bytes a KV value; the A100 80GB
// PCIe reads 1,935 GB/s; the largest platform holds 8 GPUs.
#include <gtest/gtest.h>

#include <fstream>

#include "plan/model_memory.h"
#include "plan/recommend.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::run_gpuplan;

Recommendation review_rec(const Workload& w) {
  auto r = recommend(w, default_catalog());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : Recommendation{};
}

Workload inference(double params_b) {
  Workload w;
  w.task = Task::kInference;
  w.params_b = params_b;
  return w;
}

const Finding* first(const std::vector<Finding>& why, const std::string& id) {
  for (const Finding& f : why)
    if (f.id == id) return &f;
  return nullptr;
}

std::string fact_of(const Finding* f, const std::string& key) {
  if (!f) return "(no finding)";
  const std::string* v = f->find_fact(key);
  return v ? *v : "(no fact " + key + ")";
}

// --- 1. Latency: no NaN, no overflow, tensor parallelism inside one node ---------------------------

TEST(RecommendReviewTest, ATinyLatencyIsCappedAtOneNodeAndWarns) {
  // 13B × 2 = 26 GB ÷ 1,935 GB/s = 13.44 ms a token; 0.001 ms would want 13,437 GPUs: capped at the
  // 8 of the largest node, 13.44 ÷ 8 = 1.68 ms a token, still over: a warning, one node.
  Workload w = inference(13);
  w.latency_ms = 0.001;
  Recommendation r = review_rec(w);
  const Finding* latency = first(r.why, "recommend.latency");
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ(latency->variant, "unreachable");
  EXPECT_EQ(latency->severity, Severity::kWarn);
  EXPECT_EQ(fact_of(latency, "gpus"), "8");
  EXPECT_EQ(fact_of(latency, "split"), "1.68 ms");
  EXPECT_EQ(r.config.nodes, 1);
  EXPECT_EQ(r.config.gpus, 8);
}

TEST(RecommendReviewTest, SeventyBAtOneMillisecondStaysInOneNode) {
  // 70 × 2 = 140 GB ÷ 1,935 GB/s = 72.35 ms; 1 ms wants 73 GPUs: capped at 8 (9.04 ms a token).
  Workload w = inference(70);
  w.latency_ms = 1;
  Recommendation r = review_rec(w);
  EXPECT_EQ(first(r.why, "recommend.latency")->variant, "unreachable");
  EXPECT_EQ(fact_of(first(r.why, "recommend.latency"), "split"), "9.04 ms");
  EXPECT_EQ(r.config.nodes, 1);
}

TEST(RecommendReviewTest, NonFiniteOrZeroLatencyIsRefusedOnTheCommandLine) {
  for (const char* bad : {"nan", "inf", "0", "-1"}) {
    auto out = run_gpuplan(std::string("recommend --task inference --params 13B --lang en --latency-ms ") + bad);
    EXPECT_EQ(out.exit_code, 2) << bad;
    EXPECT_NE(out.err.find("--latency-ms"), std::string::npos) << bad << ": " << out.err;
  }
}

// --- 3. The KV cache never shrinks as the model grows ----------------------------------------------

TEST(RecommendReviewTest, FourteenBGetsAtLeastThirteenBsKvCache) {
  // 14B lies between Llama 2 13B (40 layers × 5,120 = 204,800 a token) and 70B (80 × 1,024 =
  // 81,920, grouped-query attention): the larger, 13B's. 2 × 40 × 5,120 × 2 bytes × 4,096 tokens ×
  // 64 requests = 214,748,364,800 bytes = 214.7 GB, as for 13B itself (before: 85.9 GB).
  const auto& cat = default_catalog();
  MemoryFit m13 = inference_memory(13, 64, 4096, 80, cat);
  MemoryFit m14 = inference_memory(14, 64, 4096, 80, cat);
  EXPECT_NEAR(m14.kv_gb, 214.7483648, 1e-6);
  EXPECT_GE(m14.kv_gb, m13.kv_gb);
  EXPECT_EQ(fact_of(&m14.why, "model"), "Llama 2 13B");
  EXPECT_TRUE(m14.why.notes.empty());  // 70B exists: not "beyond the largest"
}

// --- 4. Cores per node, not for the whole cluster ----------------------------------------------

TEST(RecommendReviewTest, ManyNodesSplitTheRequestsBetweenTheirCpus) {
  // 7B at 1,000 requests × 32,768 tokens: 2 × 32 × 4,096 × 2 × 32,768 × 1,000 = 17,179.9 GB of KV
  // cache + 14 GB of weights ÷ 72 GB = 238.8 → 239 GPUs → 30 nodes of 8. Each node serves
  // ceil(1,000 ÷ 30) = 34 requests: no "cores short" warning.
  Workload w = inference(7);
  w.concurrency = 1000;
  w.context = 32768;
  Recommendation r = review_rec(w);
  EXPECT_EQ(r.config.nodes, 30);
  const Finding* cpu = first(r.why, "recommend.cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->variant, "");
  EXPECT_EQ(cpu->severity, Severity::kInfo);
  // --- 5. Each 7B replica (14 GB + one request's 17.2 GB cache) fits one GPU: the 30 nodes serve
  // alone, so no InfiniBand and no cluster manager.
  EXPECT_FALSE(r.config.network_switch.has_value());
  EXPECT_TRUE(r.config.cluster_manager.empty());
  EXPECT_EQ(first(r.why, "recommend.network"), nullptr);
}

// --- 2 and 6. Count flags: whole numbers with the workload file's bounds ------------------------

TEST(RecommendReviewTest, ContextAndConcurrencyFlagsTakeTheFilesBounds) {
  // --context: a whole number from 1 to 100,000 (YamlReader::kMaxCount), as the file's key.
  for (const char* bad : {"nan", "inf", "1e308", "1.5", "0", "100001"}) {
    auto out = run_gpuplan(std::string("recommend --task inference --params 7B --lang en --context ") + bad);
    EXPECT_EQ(out.exit_code, 2) << bad;
    EXPECT_NE(out.err.find("--context"), std::string::npos) << bad << ": " << out.err;
  }
  auto huge = run_gpuplan("recommend --task inference --params 7B --lang en --concurrency 2147483647");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.err.find("--concurrency: is implausibly large (got 2147483647)"), std::string::npos) << huge.err;
  EXPECT_EQ(run_gpuplan("recommend --task inference --params 7B --lang en --context 100000").exit_code, 0);
}

// --- 7. Rack: a peak no catalog circuit carries is a warning, not a calm reason ------------------

TEST(RecommendReviewTest, APeakNoCircuitCarriesWarnsAsPowerRackDoes) {
  // 70B pre-training → HGX A100 nodes peaking at the DGX A100 data sheet's 6,500 W; the largest
  // catalog circuit, 32 A × 220 V × 0.8 = 5,632 W continuous, is short of it.
  Workload w;
  w.task = Task::kPretrain;
  w.params_b = 70;
  Recommendation r = review_rec(w);
  const Finding* rack = first(r.why, "recommend.rack");
  ASSERT_NE(rack, nullptr);
  EXPECT_EQ(rack->variant, "short");
  EXPECT_EQ(rack->severity, Severity::kWarn);
  EXPECT_EQ(fact_of(rack, "peak"), "6,500 W");
  EXPECT_EQ(fact_of(rack, "continuous"), "5,632 W");
  EXPECT_EQ(r.config.rack, "rack-32a-220v");
  // A 13B fine-tune on the 4-GPU PCIe server: 1.8 × 4 × 300 W = 2,160 W fits 16 A's 2,816 W.
  Workload ft;
  ft.task = Task::kFinetune;
  ft.params_b = 13;
  const Finding* fits = first(review_rec(ft).why, "recommend.rack");
  ASSERT_NE(fits, nullptr);
  EXPECT_EQ(fits->variant, "");
  EXPECT_EQ(fits->severity, Severity::kInfo);
}

// --- 6. A wrong word in a workload file names the file's line, not a flag ----------------------

TEST(RecommendReviewTest, AWrongWordInAWorkloadFileNamesItsLine) {
  const std::string dir = gpuplan::testing::temp_dir();
  for (const std::string line : {"method: foo", "task: pretraining", "mode: lease"}) {
    const std::string path = gpuplan::testing::write_file(dir, "w.yaml", "params: 13B\n" + line + "\n");
    auto out = run_gpuplan("recommend --lang en " + path + (line.rfind("task", 0) == 0 ? "" : " --task finetune"));
    EXPECT_EQ(out.exit_code, 2) << line;
    const std::string key = line.substr(0, line.find(':'));
    EXPECT_NE(out.err.find(path + ":2: " + key), std::string::npos) << line << ": " << out.err;
  }
}

}  // namespace
}  // namespace gpuplan::plan
