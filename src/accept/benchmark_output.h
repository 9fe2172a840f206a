// The output of a benchmark run (G10): its throughput figure and what the run was — model, mode
// (training or inference), batch per GPU and the GPUs it ran on — as the output itself says
// them. Pure: the caller reads the file, this reads the text.
// A caller may rely on: an output without a figure is nullopt, never 0; each fact of the run is
// set only when a line of the output states it, with that line, never guessed; of two lines that
// state one fact, the later one before the figure wins (a tool's header after the command line
// that started it).
// Read: tf_cnn_benchmarks (header and `total images/sec`), NVIDIA DeepLearningExamples
// (dllogger `PARAMETER` and `total_ips`), MLPerf Training logs (`:::MLLOG` JSON, MXNet
// `Speed: … samples/sec`, the srun/mpirun command line), MLPerf LoadGen's
// mlperf_log_summary.txt, and a person's own wording ("ResNet-50 training, batch 256",
// "每卡 1,912 img/s").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::accept {

// Whether a benchmark figure is for one GPU or for all the GPUs the run used.
enum class BenchmarkScope { kPerGpu, kTotal };

enum class BenchmarkMode { kTraining, kInference };

// A fact of the run and the 1-based line of the output that states it.
template <class T>
struct Stated {
  T value{};
  int line = 0;
};

// A batch as the output states it: per GPU ("256.0 per device", DeepLearningExamples'
// `batch_size`, "batch 256") or for the whole run (MLPerf's `global_batch_size`).
struct StatedBatch {
  int size = 0;
  bool global = false;
  int line = 0;
};

struct BenchmarkFigure {
  double images_per_s = 0;  // images or samples per second; for ResNet-50 a sample is an image
  // From the words on the figure's own line: "per GPU", "/gpu", "每卡" → per GPU; "total"
  // (tf_cnn_benchmarks' "total images/sec", DeepLearningExamples' "train.total_ips"), "on 8
  // GPUs" → total; MLPerf's system throughput (`"key": "throughput"`, LoadGen's "Samples per
  // second") → total. nullopt when the output says neither.
  std::optional<BenchmarkScope> scope;
  // The GPUs the run used, when the output says: tf_cnn_benchmarks' "Devices: ['/gpu:0', …]"
  // (its GPU entries), "world_size : 8", "Num GPUs: 8", "--num_gpus=8", "on 8 GPUs" on the
  // figure's line, the ranks of `srun --ntasks=8` or `mpirun -np 8`, `--gpus 0,1,…,7`.
  std::optional<int> gpus;
  int line = 0;       // 1-based line of the figure
  std::string text;   // that line, trimmed, to quote as evidence
  int gpus_line = 0;  // 1-based line that stated `gpus`
  // What the run was: "resnet50", "vgg16", "bert", … (lower case, without separators or a
  // version suffix: "ResNet-50 v1.5" is "resnet50").
  std::optional<Stated<std::string>> model;
  std::optional<Stated<BenchmarkMode>> mode;
  std::optional<StatedBatch> batch;
};

// The last throughput figure in the text ("total images/sec: 1875.3", "1875 img/s",
// "Speed: 26681.29 samples/sec", "Samples per second: 313516"), with its scope, the run's GPU
// count, model, mode and batch where the output states them; nullopt when there is no figure.
std::optional<BenchmarkFigure> parse_benchmark(std::string_view text);
// parse_benchmark's figure alone.
std::optional<double> parse_images_per_second(std::string_view text);

// "ResNet-50", "resnet_50", "RN50", "resnet50v1.5" → "resnet50"; "VGG-16" → "vgg16"; "" when
// `name` is not a model's name.
std::string normalise_model(std::string_view name);

}  // namespace gpuplan::accept
