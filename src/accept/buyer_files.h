// Parsers for the buyer's files: the vendor's firmware checksum list and the output of a
// ResNet-50 benchmark. Pure: the caller reads the file, these read the text.
// A caller may rely on: a malformed checksum line is an Error naming the file and line; a
// benchmark output without a figure is nullopt, never 0; a figure's scope (per GPU or the whole
// run) and the run's GPU count are set only when the output says them in words, never guessed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpuplan::accept {

// A sha256sum-style list ("<hex>  <name>" or "<hex> *<name>"); names are reduced to their file
// name. Errors name the line.
Result<std::map<std::string, std::string>> parse_checksums(std::string_view text, const std::string& file);

// Whether a benchmark figure is for one GPU or for all the GPUs the run used.
enum class BenchmarkScope { kPerGpu, kTotal };

struct BenchmarkFigure {
  double images_per_s = 0;
  // From the words on the figure's own line: "per GPU", "/gpu", "每卡" → per GPU; "total"
  // (tf_cnn_benchmarks' "total images/sec", DeepLearningExamples' "train.total_ips"), "on 8
  // GPUs" → total. nullopt when the line says neither.
  std::optional<BenchmarkScope> scope;
  // The GPUs the run used, when the output says: tf_cnn_benchmarks' "Devices: ['/gpu:0', …]"
  // (its GPU entries), DeepLearningExamples' "world_size : 8", "Num GPUs: 8", "on 8 GPUs" on the
  // figure's line; the last such statement at or before the figure.
  std::optional<int> gpus;
  int line = 0;       // 1-based line of the figure
  std::string text;   // that line, trimmed, to quote as evidence
  int gpus_line = 0;  // 1-based line that stated `gpus`
};

// The images/s a ResNet-50 benchmark printed ("total images/sec: 1875.3", "1875 img/s",
// "throughput: 14800 images/s"): the last such figure in the text, with its scope and GPU count
// where the output states them; nullopt when there is no figure.
std::optional<BenchmarkFigure> parse_benchmark(std::string_view text);
// parse_benchmark's figure alone.
std::optional<double> parse_images_per_second(std::string_view text);

}  // namespace gpuplan::accept
