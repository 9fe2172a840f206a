// recommend from memory arithmetic (issue 14 item 2): the GPU count of training and fine-tuning
// from parameters × bytes per parameter + the activations margin, of inference from weights + KV
// cache, rounded up to a platform; the rule as the floor; CPU cores short of the wish warn.
// Every expected figure is worked by hand from the catalog's thresholds (catalog/threshold.yaml):
// 80 GB × 0.9 usable = 72 GB a GPU; full 16, LoRA 2, QLoRA 0.75 bytes a parameter; activations
// margin 20%; inference 2 bytes a weight, 2 bytes a KV value, 4096 tokens of context by default.
#include <gtest/gtest.h>

#include <fstream>

#include "plan/model_memory.h"
#include "plan/recommend.h"
#include "plan/workload_file.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::run_gpuplan;
using gpuplan::testing::temp_dir;

Recommendation rec_of(const Workload& w) {
  auto r = recommend(w, default_catalog());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : Recommendation{};
}

Recommendation rec(Task task, double params_b, Method method = Method::kFull, int concurrency = 0) {
  Workload w;
  w.task = task;
  w.params_b = params_b;
  w.method = method;
  w.concurrency = concurrency;
  return rec_of(w);
}

const Finding& only(const std::vector<Finding>& why, const std::string& id) {
  static const Finding none;
  auto found = findings_with_id(why, id);
  EXPECT_EQ(found.size(), 1u) << id;
  for (const Finding& f : why)
    if (f.id == id) return f;
  return none;
}

std::string fact(const Finding& f, const std::string& key) {
  const std::string* v = f.find_fact(key);
  return v ? *v : "(no fact " + key + ")";
}

// --- Training and fine-tuning: the seeds' cases [S0 §2.1, §3.1] ---------------------------------

TEST(RecommendMemoryTest, FullFineTuneOf13BIsFourGpus) {
  // 13 × 16 = 208 GB of state; × 1.2 = 249.6 GB; ÷ 72 = 3.47 → 4 GPUs: the 4-GPU server, not 8.
  Recommendation r = rec(Task::kFinetune, 13);
  EXPECT_EQ(r.config.gpus, 4);
  EXPECT_EQ(r.config.nodes, 1);
  EXPECT_EQ(r.config.platform, "server-4gpu-pcie");
  EXPECT_EQ(fact(only(r.why, "recommend.rule"), "rule"), "finetune-10-100b");
  const Finding& fit = only(r.why, "recommend.memory_fit");
  EXPECT_EQ(fit.variant, "");
  EXPECT_EQ(fact(fit, "bytes"), "16");
  EXPECT_EQ(fact(fit, "state"), "208 GB");
  EXPECT_EQ(fact(fit, "margin"), "20%");
  EXPECT_EQ(fact(fit, "needed"), "249.6 GB");
  EXPECT_EQ(fact(fit, "per_gpu"), "72 GB");
  EXPECT_EQ(fact(fit, "ratio"), "3.47");
  EXPECT_EQ(fact(fit, "gpus"), "4");
  EXPECT_TRUE(findings_with_id(r.why, "recommend.node_capacity").empty());
}

TEST(RecommendMemoryTest, FullFineTuneOf7BIsFourGpusByTheRuleFloor) {
  // 7 × 16 × 1.2 = 134.4 GB ÷ 72 = 1.87 → 2 GPUs; rule finetune-1-10b's floor is 4.
  Recommendation r = rec(Task::kFinetune, 7);
  EXPECT_EQ(fact(only(r.why, "recommend.memory_fit"), "gpus"), "2");
  EXPECT_EQ(fact(only(r.why, "recommend.rule"), "rule"), "finetune-1-10b");
  EXPECT_EQ(r.config.gpus, 4);
  EXPECT_EQ(r.config.platform, "server-4gpu-pcie");
}

TEST(RecommendMemoryTest, SeventyBPretrainingNeedsWholeEightGpuNodesByTheArithmetic) {
  // Rule pretrain-10-100b: 8 GPUs is the entry configuration [S0 §3.1], the floor. Memory:
  // 70 × 16 = 1,120 GB; × 1.2 = 1,344 GB; ÷ 72 = 18.67 → 19 GPUs → ceil(19 / 8) = 3 HGX nodes.
  // One node holds 8 × 72 = 576 GB: 576 ÷ 16 = 36B parameters of state, 576 ÷ 19.2 = 30B with
  // the margin, so 70B needs more than one node (2 by the state alone, 3 with activations).
  Recommendation r = rec(Task::kPretrain, 70);
  EXPECT_EQ(r.config.gpus, 8);
  EXPECT_EQ(r.config.platform, "hgx-a100-8gpu");
  EXPECT_EQ(r.config.nodes, 3);
  EXPECT_EQ(fact(only(r.why, "recommend.memory_fit"), "needed"), "1,344 GB");
  const Finding& node = only(r.why, "recommend.node_capacity");
  EXPECT_EQ(fact(node, "per_node"), "8");
  EXPECT_EQ(fact(node, "max_state"), "36");
  EXPECT_EQ(fact(node, "bytes_margin"), "19.2");
  EXPECT_EQ(fact(node, "max_params"), "30");
  EXPECT_EQ(fact(node, "gpus"), "19");
  EXPECT_EQ(fact(node, "nodes"), "3");
  // Several nodes: one HDR InfiniBand adapter per GPU and a switch.
  ASSERT_EQ(r.config.nics.size(), 1u);
  EXPECT_EQ(r.config.nics[0], (PartCount{"ib-hdr-200g", 8}));
  ASSERT_TRUE(r.config.network_switch.has_value());
  EXPECT_EQ(r.config.network_switch->count, 1);  // 3 × 8 = 24 adapters on a 40-port switch
  // Several machines: a cluster manager in the budget [S0 §3.1], though rule pretrain-10-100b has none.
  EXPECT_EQ(r.config.cluster_manager, "commercial-16node-3y");
}

TEST(RecommendMemoryTest, LoraAndQloraFitOneGpuWhereTheirPapersDo) {
  // LoRA 13B: 13 × 2 × 1.2 = 31.2 GB ÷ 72 = 0.43 → 1 GPU (rule finetune-peft: floor 1).
  Recommendation lora = rec(Task::kFinetune, 13, Method::kLora);
  EXPECT_EQ(fact(only(lora.why, "recommend.rule"), "rule"), "finetune-peft");
  EXPECT_EQ(fact(only(lora.why, "recommend.memory_fit"), "needed"), "31.2 GB");
  EXPECT_EQ(lora.config.gpus, 1);
  EXPECT_EQ(lora.config.platform, "workstation-1gpu");
  // QLoRA 65B (Dettmers et al. 2023: one 48 GB GPU): 65 × 0.75 × 1.2 = 58.5 GB ≤ 72 → 1 GPU.
  Recommendation qlora = rec(Task::kFinetune, 65, Method::kQlora);
  EXPECT_EQ(fact(only(qlora.why, "recommend.memory_fit"), "bytes"), "0.75");
  EXPECT_EQ(fact(only(qlora.why, "recommend.memory_fit"), "needed"), "58.5 GB");
  EXPECT_EQ(qlora.config.gpus, 1);
}

TEST(RecommendMemoryTest, TheCountRoundsUpToThePlatformAndSaysSo) {
  // LoRA 70B: 70 × 2 × 1.2 = 168 GB ÷ 72 = 2.33 → 3 GPUs → the 4-GPU server's 4.
  Recommendation r = rec(Task::kFinetune, 70, Method::kLora);
  EXPECT_EQ(fact(only(r.why, "recommend.memory_fit"), "gpus"), "3");
  EXPECT_EQ(r.config.gpus, 4);
  const Finding& platform = only(r.why, "recommend.platform");
  EXPECT_EQ(platform.variant, "rounded");
  EXPECT_EQ(fact(platform, "needed"), "3");
  EXPECT_EQ(fact(platform, "gpus"), "4");
}

// --- Inference: weights + KV cache ----------------------------------------------------------

TEST(RecommendMemoryTest, KvCacheOf13BAt4096TokensAndSixteenRequests) {
  // Llama 2 13B shape: 40 layers × 5120. KV = 2 × 40 × 5120 × 2 bytes × 4096 tokens × 16
  // = 819,200 bytes a token × 65,536 tokens = 53,687,091,200 bytes = 53.7 GB. Weights 13 × 2 =
  // 26 GB; 79.69 GB ÷ 72 = 1.11 → 2 GPUs → the 4-GPU server.
  Workload w;
  w.task = Task::kInference;
  w.params_b = 13;
  w.concurrency = 16;
  w.context = 4096;
  Recommendation r = rec_of(w);
  const Finding& fit = only(r.why, "recommend.memory_fit");
  EXPECT_EQ(fit.variant, "inference");
  EXPECT_EQ(fact(fit, "model"), "Llama 2 13B");
  EXPECT_EQ(fact(fit, "layers"), "40");
  EXPECT_EQ(fact(fit, "kv_width"), "5,120");
  EXPECT_EQ(fact(fit, "kv"), "53.7 GB");
  EXPECT_EQ(fact(fit, "weights"), "26 GB");
  EXPECT_EQ(fact(fit, "needed"), "79.7 GB");
  EXPECT_EQ(fact(fit, "ratio"), "1.11");
  EXPECT_EQ(fact(fit, "gpus"), "2");
  EXPECT_EQ(r.config.gpus, 4);

  MemoryFit direct = inference_memory(13, 16, 4096, 80, default_catalog());
  EXPECT_DOUBLE_EQ(direct.kv_gb, 53.6870912);
  EXPECT_DOUBLE_EQ(direct.needed_gb, 79.6870912);
}

TEST(RecommendMemoryTest, GroupedQueryAttentionKeepsTheSeventyBCacheSmall) {
  // Llama 2 70B: 80 layers, 8 KV heads × 128 = 1024. One request at the default 4096 tokens:
  // 2 × 80 × 1024 × 2 × 4096 = 1,342,177,280 bytes = 1.34 GB; + 140 GB of weights = 141.3 GB.
  MemoryFit fit = inference_memory(70, 0, 4096, 80, default_catalog());
  EXPECT_DOUBLE_EQ(fit.kv_gb, 1.34217728);
  EXPECT_EQ(fit.gpus, 2);  // 141.34 ÷ 72 = 1.96
  EXPECT_EQ(fact(fit.why, "concurrency"), "1");
  // A size between references takes the neighbour with the larger cache a token: 30B lies between
  // 13B (40 × 5,120 = 204,800) and 70B (80 × 1,024 = 81,920) → Llama 2 13B's.
  EXPECT_EQ(fact(inference_memory(30, 1, 4096, 80, default_catalog()).why, "model"), "Llama 2 13B");
  // Above every reference: the largest, and a note that the cache may be low.
  MemoryFit big = inference_memory(500, 1, 4096, 80, default_catalog());
  EXPECT_EQ(fact(big.why, "model"), "GPT-3 175B");
  ASSERT_EQ(big.why.notes.size(), 1u);
  EXPECT_EQ(big.why.notes[0].key, "recommend.note.shape_smaller");
}

TEST(RecommendMemoryTest, TheDefaultContextIsTheCatalogs) {
  // No --context: recommend.default_context_tokens (4096), so the same as asking for 4096.
  Workload w;
  w.task = Task::kInference;
  w.params_b = 13;
  w.concurrency = 16;
  EXPECT_EQ(fact(only(rec_of(w).why, "recommend.memory_fit"), "context"), "4,096");
  // Twice the context, twice the cache: 107.4 GB + 26 = 133.4 GB ÷ 72 = 1.85 → 2 GPUs.
  w.context = 8192;
  EXPECT_EQ(fact(only(rec_of(w).why, "recommend.memory_fit"), "kv"), "107.4 GB");
}

TEST(RecommendMemoryTest, SimulationCountsTheWeightsAlone) {
  // 7 × 2 = 14 GB ÷ 72 → 1 GPU; the simulation rule's floor is 4.
  Recommendation r = rec(Task::kSimulation, 7);
  const Finding& fit = only(r.why, "recommend.memory_fit");
  EXPECT_EQ(fit.variant, "weights");
  EXPECT_EQ(fact(fit, "needed"), "14 GB");
  EXPECT_EQ(r.config.gpus, 4);
}

TEST(RecommendMemoryTest, LatencyBoundsTheTimeATokenTakesToReadTheWeights) {
  // 13B × 2 bytes = 26 GB ÷ 1,935 GB/s (A100 80GB PCIe, the family's slower card) = 13.44 ms a
  // token, over 10 ms: ceil(13.44 ÷ 10) = 2 GPUs in tensor parallel, 13 GB and 6.72 ms each. The
  // memory alone needs 1 (26 + 3.36 GB of KV cache ≤ 72), so the latency decides: 2 → the 4-GPU server.
  Workload w;
  w.task = Task::kInference;
  w.params_b = 13;
  w.latency_ms = 10;
  Recommendation r = rec_of(w);
  const Finding& latency = only(r.why, "recommend.latency");
  EXPECT_EQ(latency.variant, "");
  EXPECT_EQ(fact(latency, "bandwidth"), "1,935 GB/s");
  EXPECT_EQ(fact(latency, "step"), "13.44 ms");
  EXPECT_EQ(fact(latency, "gpus"), "2");
  EXPECT_EQ(fact(latency, "split"), "6.72 ms");
  EXPECT_EQ(r.config.gpus, 4);
  // 7B: 14 GB ÷ 1,935 GB/s = 7.24 ms, within 10 ms: one GPU.
  w.params_b = 7;
  Recommendation small = rec_of(w);
  EXPECT_EQ(only(small.why, "recommend.latency").variant, "within");
  EXPECT_EQ(fact(only(small.why, "recommend.latency"), "step"), "7.24 ms");
  EXPECT_EQ(small.config.gpus, 1);
  // Training ignores it: the time per token is an inference figure.
  Workload train;
  train.task = Task::kFinetune;
  train.params_b = 13;
  train.latency_ms = 1;
  EXPECT_TRUE(findings_with_id(rec_of(train).why, "recommend.latency").empty());
}

// --- CPU cores ------------------------------------------------------------------------------

TEST(RecommendMemoryTest, CoresShortOfTheWishWarnNamingBothFigures) {
  // 200 concurrent requests on 7B: KV 2 × 32 × 4096 × 2 × 4096 × 200 = 429.5 GB + 14 GB →
  // 443.5 ÷ 72 = 6.16 → 7 GPUs → an 8-GPU server (2 sockets). 200 ≥ 64 (high concurrency): one
  // core a request = 200 wanted; the most the catalog has is 2 × 64-core EPYC 7763 = 128.
  Recommendation r = rec(Task::kInference, 7, Method::kFull, 200);
  EXPECT_EQ(r.config.gpus, 8);
  const Finding& cpu = only(r.why, "recommend.cpu");
  EXPECT_EQ(cpu.severity, Severity::kWarn);
  EXPECT_EQ(cpu.variant, "short");
  EXPECT_EQ(fact(cpu, "cores_needed"), "200");
  EXPECT_EQ(fact(cpu, "cores"), "128");
  EXPECT_EQ(r.config.cpu, "epyc-7763");
  // Enough cores: 13B fine-tuning wants 4 × 16 = 64, an information line.
  const Recommendation finetune = rec(Task::kFinetune, 13);
  const Finding& enough = only(finetune.why, "recommend.cpu");
  EXPECT_EQ(enough.severity, Severity::kInfo);
  EXPECT_EQ(enough.variant, "");
  EXPECT_EQ(fact(enough, "cores_needed"), "64");
}

// --- Methods, messages, the workload file and the command line ---------------------------------

TEST(RecommendMemoryTest, MethodsParseByName) {
  EXPECT_TRUE(parse_method("lora") == Method::kLora);
  EXPECT_TRUE(parse_method("qlora") == Method::kQlora);
  EXPECT_TRUE(parse_method("full") == Method::kFull);
  EXPECT_FALSE(parse_method("LoRA").has_value());
  EXPECT_EQ(method_names(), (std::vector<std::string>{"full", "lora", "qlora"}));
}

TEST(RecommendMemoryTest, EveryNewWhyHasAMessage) {
  for (const char* key :
       {"recommend.memory_fit", "recommend.memory_fit/inference", "recommend.memory_fit/weights",
        "recommend.node_capacity", "recommend.platform/rounded", "recommend.cpu/short", "recommend.latency",
        "recommend.latency/within", "recommend.method.full", "recommend.method.lora", "recommend.method.qlora",
        "recommend.note.shape_smaller", "error.recommend.method_task"})
    EXPECT_TRUE(report::has_message(key)) << key;
}

TEST(RecommendMemoryTest, TheWorkloadFileTakesMethodAndContext) {
  const std::string path = temp_dir() + "/workload-memory.yaml";
  std::ofstream(path) << "task: finetune\nparams: 70B\nmethod: qlora\ncontext: 8192\n";
  WorkloadFields given;
  given.context = 2048;  // a flag wins over the file
  auto w = read_workload_file(path, given);
  ASSERT_TRUE(w.ok()) << w.error().str();
  EXPECT_EQ(w->method, "qlora");
  EXPECT_EQ(w->context.value_or(0), 2048);
  std::ofstream(path) << "task: inference\nparams: 7B\ncontext: -1\n";
  auto bad = read_workload_file(path, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "context");
  EXPECT_EQ(bad.error().line, 3);
  std::ofstream(path) << "task: inference\nparams: 7B\ncontext: 0\n";  // no KV cache is no context
  auto zero = read_workload_file(path, {});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().file, path);
  EXPECT_EQ(zero.error().line, 3);
}

TEST(RecommendMemoryTest, CommandLineShowsTheArithmeticAndRefusesAMethodOutsideFineTuning) {
  gpuplan::testing::CliResult r = run_gpuplan("recommend --task finetune --params 13B --lang en --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("13B parameters × 16 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("249.6 GB ÷ 72 GB = 3.47 → 4 GPU(s)"), std::string::npos) << r.out;
  gpuplan::testing::CliResult bad = run_gpuplan("recommend --task pretrain --params 70B --method lora");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--method"), std::string::npos) << bad.err;
  gpuplan::testing::CliResult zero = run_gpuplan("recommend --task inference --params 7B --context 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--context"), std::string::npos) << zero.err;
}

}  // namespace
}  // namespace gpuplan::plan
