// Benchmark scope stated, never guessed (issue 12, item 5): whether a figure is per GPU or for the
// whole run, and on how many GPUs the run was, come from the benchmark's own words
// (tests/fixtures/benchmarks/README.md names each output's source) or from --benchmark-scope and
// --benchmark-gpus; without them `performance` needs evidence. A per-GPU figure is never divided.
// The clause's minimum is the catalog's accept.performance.min_images_per_s_per_gpu, 1,850.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "accept/accept.h"
#include "core/text.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using nlohmann::json;
using testing::default_catalog;
using testing::read_file;
using testing::run_gpuplan;
using testing::source_path;

std::string fixture(const std::string& name) {
  return source_path("tests/fixtures/benchmarks/" + name);
}

// NVML showing `n` GPUs: the host's count, which no total is divided by.
nvml::NvmlFacts nvml_gpus(int n) {
  nvml::NvmlFacts f;
  for (int i = 0; i < n; ++i) {
    nvml::GpuFacts g;
    g.info.index = i;
    f.gpus.push_back(g);
  }
  return f;
}

Finding performance(const AcceptInputs& in) {
  for (const Finding& c : run_acceptance(in, default_catalog()).checks)
    if (c.id == "performance") return c;
  ADD_FAILURE() << "no performance check";
  return {};
}

// An 8-GPU host and the figure parsed from `text`.
AcceptInputs host_with(const std::string& text) {
  AcceptInputs in;
  in.nvml = nvml_gpus(8);
  in.benchmark = parse_benchmark(text);
  in.benchmark_source = "bench.txt";
  return in;
}

std::string detail_en(const Finding& c) {
  return report::localize(c, report::Lang::kEn).detail;
}

// --- what the output says ------------------------------------------------------------------------

TEST(BenchmarkTest, TfCnnBenchmarksTotalOverTheDevicesItListed) {
  auto f = parse_benchmark(read_file(fixture("tf_cnn_benchmarks-8gpu.txt")));
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->images_per_s, 15120.80);  // "total images/sec: 15120.80", line 25
  EXPECT_EQ(f->scope, BenchmarkScope::kTotal);
  EXPECT_EQ(f->gpus, 8);  // Devices: ['/gpu:0', … '/gpu:7'], line 10
  EXPECT_EQ(f->gpus_line, 10);
  EXPECT_EQ(f->line, 25);
  EXPECT_EQ(f->text, "total images/sec: 15120.80");
}

TEST(BenchmarkTest, TfCnnBenchmarksWithoutItsHeaderSaysTotalButNotHowManyGpus) {
  auto f = parse_benchmark(read_file(fixture("tf_cnn_benchmarks-no-header.txt")));
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->images_per_s, 138.95);
  EXPECT_EQ(f->scope, BenchmarkScope::kTotal);
  EXPECT_FALSE(f->gpus.has_value());
}

TEST(BenchmarkTest, DeepLearningExamplesPyTorchTotalIpsOverItsWorldSize) {
  auto f = parse_benchmark(read_file(fixture("dle-pytorch-rn50-16gpu.txt")));
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->images_per_s, 10393.54);  // the last iteration's train.total_ips
  EXPECT_EQ(f->scope, BenchmarkScope::kTotal);
  EXPECT_EQ(f->gpus, 16);  // PARAMETER … world_size : 16 (two nodes of 8), line 1
  EXPECT_EQ(f->gpus_line, 1);
  EXPECT_EQ(f->line, 9);
}

TEST(BenchmarkTest, DeepLearningExamplesTensorFlowTotalIpsWithoutAGpuCount) {
  auto f = parse_benchmark(read_file(fixture("dle-tensorflow-rn50.txt")));
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->images_per_s, 2872.6572422280487);
  EXPECT_EQ(f->scope, BenchmarkScope::kTotal);
  EXPECT_FALSE(f->gpus.has_value());
}

TEST(BenchmarkTest, TheTotalRateOfASummaryWinsOverTheComputeRateAfterIt) {
  // A dllogger summary naming both rates: the total one (with data loading) is the run's.
  auto f = parse_benchmark(
      "DLL 2021-04-13 10:21:19.178931 - Summary: train.loss : 2.97  train.total_ips : 2449.35 images/s  "
      "train.lr : 0.256  train.compute_ips : 2601.80 images/s\n");
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->images_per_s, 2449.35);
  EXPECT_EQ(f->scope, BenchmarkScope::kTotal);
}

TEST(BenchmarkTest, PerGpuWordingsInEnglishAndChinese) {
  auto en = parse_benchmark(read_file(fixture("per-gpu-wording.txt")));
  ASSERT_TRUE(en);
  EXPECT_DOUBLE_EQ(en->images_per_s, 1900.2);
  EXPECT_EQ(en->scope, BenchmarkScope::kPerGpu);
  auto zh = parse_benchmark(read_file(fixture("per-gpu-wording-zh.txt")));
  ASSERT_TRUE(zh);
  EXPECT_DOUBLE_EQ(zh->images_per_s, 1905.3);
  EXPECT_EQ(zh->scope, BenchmarkScope::kPerGpu);
  // "/gpu" in the label is per GPU even after "total" (a Horovod script's "total images/sec/gpu").
  auto per_gpu_label = parse_benchmark("total images/sec/gpu: 1893.2\ntotal images/sec: 15145.6\n");
  ASSERT_TRUE(per_gpu_label);
  EXPECT_DOUBLE_EQ(per_gpu_label->images_per_s, 15145.6);  // the last line: the total
  EXPECT_EQ(per_gpu_label->scope, BenchmarkScope::kTotal);
  per_gpu_label = parse_benchmark("total images/sec/gpu: 1893.2\n");
  ASSERT_TRUE(per_gpu_label);
  EXPECT_DOUBLE_EQ(per_gpu_label->images_per_s, 1893.2);
  EXPECT_EQ(per_gpu_label->scope, BenchmarkScope::kPerGpu);
  auto per_device = parse_benchmark("ResNet-50: 1,893 img/s per device\n");
  ASSERT_TRUE(per_device);
  EXPECT_EQ(per_device->scope, BenchmarkScope::kPerGpu);
}

TEST(BenchmarkTest, OnNGpusIsATotalWithItsCountAndABareFigureSaysNeither) {
  auto on8 = parse_benchmark("throughput: 14,800 images/s on 8 GPUs\n");
  ASSERT_TRUE(on8);
  EXPECT_EQ(on8->scope, BenchmarkScope::kTotal);
  EXPECT_EQ(on8->gpus, 8);
  auto one = parse_benchmark("ResNet-50 with 1 GPU: 1,875 img/s\n");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->scope, BenchmarkScope::kTotal);
  EXPECT_EQ(one->gpus, 1);
  // "rank 3 GPU" names a GPU, it does not count them.
  auto rank = parse_benchmark("rank 3 GPU: 1,875 img/s\n");
  ASSERT_TRUE(rank);
  EXPECT_FALSE(rank->scope.has_value());
  EXPECT_FALSE(rank->gpus.has_value());
  auto bare = parse_benchmark("epoch 1: 1875 img/s\n");
  ASSERT_TRUE(bare);
  EXPECT_FALSE(bare->scope.has_value());
  EXPECT_FALSE(bare->gpus.has_value());
  // tf_cnn_benchmarks run on the CPU lists no GPU: no count.
  EXPECT_FALSE(parse_benchmark("Devices:     ['/cpu:0']\ntotal images/sec: 12.5\n")->gpus.has_value());
}

// --- the check -----------------------------------------------------------------------------------

TEST(BenchmarkTest, ATotalIsDividedByTheRunsGpusAsTheOutputSays) {
  // 15,120.80 ÷ 8 = 1,890.1 ≥ 1,850.
  Finding c = performance(host_with(read_file(fixture("tf_cnn_benchmarks-8gpu.txt"))));
  EXPECT_EQ(c.severity, Severity::kPass);
  EXPECT_EQ(detail_en(c),
            "15,120.8 images/s for the whole run (as line 25 of the output states) ÷ 8 GPUs (as line 10 of the output "
            "states) = 1,890.1 images/s per GPU, at or above the clause's 1,850 (ResNet-50 training, batch 256).");
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_EQ(report::say(c.evidence[0], report::Lang::kEn), "bench.txt:25: total images/sec: 15120.80");
}

TEST(BenchmarkTest, APerGpuFigureIsNeverDivided) {
  // 1,900.2 per GPU on an 8-GPU host: judged as 1,900.2 (divided it would be 237.5 and fail).
  Finding pass = performance(host_with(read_file(fixture("per-gpu-wording.txt"))));
  EXPECT_EQ(pass.severity, Severity::kPass);
  EXPECT_EQ(detail_en(pass),
            "1,900.2 images/s per GPU (as line 3 of the output states), at or above the clause's 1,850 (ResNet-50 "
            "training, batch 256).");
  // The issue's own figure: 1,500.2 per GPU is below 1,850 as it stands, not as 187.5.
  Finding below = performance(host_with("1500.2 img/s per GPU\n"));
  EXPECT_EQ(below.severity, Severity::kFail);
  EXPECT_NE(detail_en(below).find("1,500.2 images/s per GPU"), std::string::npos) << detail_en(below);
  EXPECT_EQ(detail_en(below).find("187.5"), std::string::npos) << detail_en(below);
}

TEST(BenchmarkTest, SixteenGpusOfTwoServersAreDividedBySixteen) {
  // 10,393.54 ÷ 16 = 649.59625 → 649.60 < 1,850: the V100 run of the fixture fails the A100 clause.
  Finding c = performance(host_with(read_file(fixture("dle-pytorch-rn50-16gpu.txt"))));
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_NE(detail_en(c).find("÷ 16 GPUs (as line 1 of the output states) = 649.60 images/s per GPU"),
            std::string::npos)
      << detail_en(c);
}

TEST(BenchmarkTest, ATotalWithoutAGpuCountNeedsBenchmarkGpusNotTheHostsCount) {
  AcceptInputs in = host_with(read_file(fixture("tf_cnn_benchmarks-no-header.txt")));
  Finding c = performance(in);
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].key, "accept.performance.no_benchmark_gpus");
  EXPECT_NE(detail_en(c).find("pass --benchmark-gpus N"), std::string::npos) << detail_en(c);
  // The buyer says it ran on one GPU: 138.95 per GPU, far below 1,850.
  in.benchmark_gpus = 1;
  Finding one = performance(in);
  EXPECT_EQ(one.severity, Severity::kFail);
  EXPECT_NE(detail_en(one).find("÷ 1 GPUs (as --benchmark-gpus states) = "), std::string::npos) << detail_en(one);
}

TEST(BenchmarkTest, AFigureOfUnknownScopeNeedsTheScopeFlag) {
  AcceptInputs in = host_with("epoch 1: 1875 img/s\n");
  Finding c = performance(in);
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].key, "accept.performance.no_scope");
  EXPECT_NE(detail_en(c).find("--benchmark-scope per-gpu"), std::string::npos) << detail_en(c);
  in.benchmark_scope = BenchmarkScope::kPerGpu;
  EXPECT_EQ(performance(in).severity, Severity::kPass);  // 1,875 ≥ 1,850
  in.benchmark_scope = BenchmarkScope::kTotal;
  EXPECT_EQ(performance(in).notes.at(0).key, "accept.performance.no_benchmark_gpus");
  in.benchmark_gpus = 8;  // 1,875 ÷ 8 = 234.4
  EXPECT_EQ(performance(in).severity, Severity::kFail);
}

// --- the command ---------------------------------------------------------------------------------

TEST(BenchmarkTest, FlagsReachTheCheckAndBadValuesAreRefused) {
  const std::string dir = testing::temp_dir();
  const std::string bench = testing::write_file(dir, "bench.txt", "epoch 1: 1875 img/s\n");
  auto needs = run_gpuplan("accept --nvml off --gpus 8 --benchmark " + bench + " --format json");
  const auto check = [](const json& j) {
    for (const auto& c : j.at("checks"))
      if (c.at("id") == "performance") return c;
    return json();
  };
  EXPECT_EQ(check(json::parse(needs.out)).at("status"), "needs-evidence") << needs.out;
  auto per_gpu =
      run_gpuplan("accept --nvml off --gpus 8 --benchmark " + bench + " --benchmark-scope per-gpu --format json");
  EXPECT_EQ(check(json::parse(per_gpu.out)).at("status"), "pass") << per_gpu.out;
  auto total = run_gpuplan("accept --nvml off --benchmark " + bench +
                           " --benchmark-scope total --benchmark-gpus 8 --format json");
  EXPECT_EQ(check(json::parse(total.out)).at("status"), "fail") << total.out;  // 234.4 per GPU
  auto bad_scope = run_gpuplan("accept --nvml off --benchmark " + bench + " --benchmark-scope node --lang en");
  EXPECT_EQ(bad_scope.exit_code, 2);
  const Error expected{{}, 0, "--benchmark-scope", not_one_of("node", {"per-gpu", "total"})};
  EXPECT_EQ(bad_scope.err, "gpuplan: " + report::ui("cli.error", report::Lang::kEn) + ": " +
                               report::error_text(expected, report::Lang::kEn) + "\n");
  auto bad_gpus = run_gpuplan("accept --nvml off --benchmark " + bench + " --benchmark-gpus 0 --lang en");
  EXPECT_EQ(bad_gpus.exit_code, 2);
  EXPECT_NE(bad_gpus.err.find("--benchmark-gpus"), std::string::npos) << bad_gpus.err;
}

}  // namespace
}  // namespace gpuplan::accept
