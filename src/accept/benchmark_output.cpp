#include "accept/benchmark_output.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/text.h"

namespace gpuplan::accept {

namespace {

// Benchmark lines are short ("total images/sec: 1875.30"); std::regex recurses once per character
// it matches, so a multi-megabyte line (a progress bar without newlines, binary junk) could
// overflow the stack. Longer lines are skipped unread; the bound leaves room for a launch command
// (MLPerf's `exec numactl … train_imagenet.py …` line is 1,254 characters). An MLPerf log line is
// JSON, read apart.
constexpr size_t kMaxBenchmarkLine = 4096;
constexpr size_t kMaxMllogLine = 64 * 1024;

// "14,800" → 14800; nullopt when the number does not fit a finite double (a 400-digit figure).
std::optional<double> figure_value(std::string digits) {
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A count of at most 6 digits that is at least 1.
std::optional<int> positive_count(const std::string& digits) {
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  const int n = std::stoi(digits);
  return n > 0 ? std::optional<int>(n) : std::nullopt;
}

// --- scope and GPUs -----------------------------------------------------------------------------

// Per GPU: "per GPU", "per device", "per card", "img/s/gpu", "每卡", "每张卡", "每块 GPU", "单卡".
// Checked before the total's words, so "total images/sec/gpu" is per GPU.
bool says_per_gpu(const std::string& line) {
  static const std::regex per_gpu(R"((?:\bper[\s-]*(?:gpu|device|card|accelerator)\b)|(?:/\s*gpu\b))",
                                  std::regex::icase);
  for (const char* zh : {"每卡", "每张卡", "每块 GPU", "每块GPU", "每 GPU", "每GPU", "单卡"})
    if (line.find(zh) != std::string::npos) return true;
  return std::regex_search(line, per_gpu);
}

// "on 8 GPUs", "with 1 GPU", "across 8x GPU", "8 GPUs": the run's GPUs, said on the figure's line
// (a total). A bare singular ("rank 3 GPU") names a GPU, not a count, and is not read.
std::optional<int> gpus_on_line(const std::string& line) {
  static const std::regex n_gpus(
      R"(\b(?:(?:on|with|across|using)\s+([0-9]{1,5})\s*(?:x\s*)?gpus?|([0-9]{1,5})\s*(?:x\s*)?gpus)\b)",
      std::regex::icase);
  std::smatch m;
  if (!std::regex_search(line, m, n_gpus)) return std::nullopt;
  return positive_count(m[1].matched ? m[1].str() : m[2].str());
}

bool says_total(const std::string& line) {
  static const std::regex total(R"(\btotal(?:\b|_))", std::regex::icase);
  for (const char* zh : {"总吞吐", "整机", "全部 GPU"})
    if (line.find(zh) != std::string::npos) return true;
  return std::regex_search(line, total) || gpus_on_line(line).has_value();
}

// A statement of the run's GPU count on a line of its own: tf_cnn_benchmarks' "Devices:
// ['/gpu:0', '/gpu:1']" (its GPU entries; a CPU-only list says nothing), DeepLearningExamples'
// PARAMETER line "world_size : 8", "Num GPUs: 8" or "--num_gpus=8" (also "8.000", as some
// scripts print it), and the launch command: `srun --ntasks=8` and `mpirun -np 8` start one rank
// per GPU, MXNet's `--gpus 0,1,…,7` lists them.
std::optional<int> gpus_stated(const std::string& line) {
  static const std::regex devices(R"(^\s*Devices:\s*\[(.*)\])");
  static const std::regex world(R"(\bworld_size\s*:\s*([0-9]{1,5})\b)");
  static const std::regex num_gpus(R"(\bnum[ _]gpus\s*[:=]\s*([0-9]{1,5})(?:\.0+)?\b)", std::regex::icase);
  static const std::regex ranks(R"((?:--ntasks[=\s]+|(?:^|\s)-np\s+)([0-9]{1,5})\b)");
  static const std::regex gpu_list(R"(--gpus[=\s]+([0-9]+(?:,[0-9]+)+)\b)");
  std::smatch m;
  if (std::regex_search(line, m, devices)) {
    const std::string list = lower(m[1].str());
    int n = 0;
    for (size_t at = list.find("gpu:"); at != std::string::npos; at = list.find("gpu:", at + 4)) ++n;
    return n > 0 ? std::optional<int>(n) : std::nullopt;
  }
  if (std::regex_search(line, m, gpu_list)) return static_cast<int>(std::count(m[1].first, m[1].second, ',')) + 1;
  for (const std::regex* re : {&world, &num_gpus, &ranks})
    if (std::regex_search(line, m, *re)) return positive_count(m[1].str());
  return std::nullopt;
}

// --- what the run was ---------------------------------------------------------------------------

// Model families named in benchmark outputs; "rn" is DeepLearningExamples' short form (RN50).
// SSD is left out: in words it is more often a disk than the detector ("Model: ssd300" is read).
const char* const kFamilies =
    R"(resnet|rn|vgg|inception|googlenet|alexnet|densenet|mobilenet|efficientnet|bert|gpt|llama|vit|yolo|unet|retinanet|maskrcnn|dlrm)";

std::optional<Stated<std::string>> stated_model(const std::string& line, int line_no) {
  static const std::regex tf_cnn(R"(^\s*Model:\s+([A-Za-z][\w.-]*))");
  static const std::regex dle_arch(R"(\barch\s*:\s*([A-Za-z][\w.-]*))");
  static const std::regex command(R"(--(?:model|arch|network)[=\s]+([A-Za-z][\w.-]*))");
  static const std::regex layers(R"(--num[-_]layers[=\s]+([0-9]{1,4})\b)");
  static const std::regex free_text(
      std::string(R"((?:^|[^A-Za-z0-9])((?:)") + kFamilies + R"()[\s_-]?[0-9]*)(?![A-Za-z]))", std::regex::icase);
  std::smatch m;
  std::string name;
  if (std::regex_search(line, m, tf_cnn) || std::regex_search(line, m, dle_arch)) {
    name = normalise_model(m[1].str());
  } else if (std::regex_search(line, m, command)) {
    name = normalise_model(m[1].str());
    // MXNet's image classifier names the family and the depth apart: --network resnet-v1b --num-layers 50.
    std::smatch depth;
    if (name.empty() && lower(m[1].str()).rfind("resnet", 0) == 0 && std::regex_search(line, depth, layers))
      name = "resnet" + depth[1].str();
  } else if (std::regex_search(line, m, free_text)) {
    name = normalise_model(m[1].str());
  }
  if (name.empty()) return std::nullopt;
  return Stated<std::string>{name, line_no};
}

std::optional<Stated<BenchmarkMode>> stated_mode(const std::string& line, int line_no) {
  // tf_cnn_benchmarks' "Mode: training" / "BenchmarkMode.TRAIN", "forward-only" / "FORWARD_ONLY",
  // "BenchmarkMode.EVAL"; MLPerf LoadGen's "Scenario : Offline" (an inference scenario);
  // DeepLearningExamples' "training_only : True", "evaluate : True" and its rates' prefixes
  // ("train.total_ips", "val.total_ips"); MXNet's per-epoch "Epoch[1] … Speed:"; and words.
  static const std::regex tf_cnn(R"(^\s*Mode:\s+(\S+))");
  static const std::regex scenario(R"(^\s*Scenario\s*:\s*(?:Offline|Server|SingleStream|MultiStream)\b)");
  static const std::regex dle_train(
      R"(\btraining_only\s*:\s*True\b|\btrain\.(?:total|compute)_ips\b|\bEpoch\[[0-9]+\])");
  static const std::regex dle_eval(R"(\bevaluate\s*:\s*True\b|\bval\.(?:total|compute)_ips\b)");
  static const std::regex train_words(R"(\btrain(?:ing)?\b)", std::regex::icase);
  static const std::regex inference_words(R"(\b(?:inference|forward[\s-]only)\b)", std::regex::icase);
  std::smatch m;
  auto at = [&](BenchmarkMode mode) { return std::optional<Stated<BenchmarkMode>>({mode, line_no}); };
  if (std::regex_search(line, m, tf_cnn)) {
    const std::string mode = lower(m[1].str());
    if (mode.find("train") != std::string::npos) return at(BenchmarkMode::kTraining);
    if (mode.find("forward") != std::string::npos || mode.find("eval") != std::string::npos ||
        mode.find("inference") != std::string::npos)
      return at(BenchmarkMode::kInference);
    return std::nullopt;
  }
  if (std::regex_search(line, scenario) || std::regex_search(line, dle_eval)) return at(BenchmarkMode::kInference);
  if (std::regex_search(line, dle_train)) return at(BenchmarkMode::kTraining);
  const bool training = std::regex_search(line, train_words) || line.find("训练") != std::string::npos;
  const bool inference = std::regex_search(line, inference_words) || line.find("推理") != std::string::npos;
  if (training == inference) return std::nullopt;  // neither, or a line that names both
  return at(training ? BenchmarkMode::kTraining : BenchmarkMode::kInference);
}

std::optional<StatedBatch> stated_batch(const std::string& line, int line_no) {
  // tf_cnn_benchmarks' header: "Batch size:  2048 global" then "             256.0 per device".
  static const std::regex tf_global(R"(^\s*Batch size:\s+([0-9]{1,6})\s+global\b)");
  static const std::regex tf_per_device(R"(^\s*([0-9]{1,6})(?:\.0+)?\s+per device\s*$)");
  // DeepLearningExamples' PARAMETER line "batch_size : 128" is each GPU's batch (its --batch-size
  // is "mini-batch size per gpu"); "optimizer_batch_size" is another setting.
  static const std::regex dle(R"((?:^|[^\w])batch_size\s*:\s*([0-9]{1,6})\b)");
  // A person's wording: "batch 256 per GPU", "batch size: 256", "批大小 256", "batch 2048 global".
  // A command line's --batch-size is not read: MXNet's is the whole run's, tf_cnn_benchmarks' each GPU's.
  static const std::regex words(
      R"((?:(?:^|[^\w-])batch(?:[\s_-]*size)?|批大小|批量大小|批量)\s*[:=]?\s*([0-9]{1,6})\b(\s*(?:global|total|in total))?)",
      std::regex::icase);
  std::smatch m;
  if (std::regex_search(line, m, tf_global)) return StatedBatch{std::stoi(m[1].str()), true, line_no};
  if (std::regex_search(line, m, tf_per_device) || std::regex_search(line, m, dle) ||
      std::regex_search(line, m, words)) {
    auto n = positive_count(m[1].str());
    if (!n) return std::nullopt;
    return StatedBatch{*n, m.size() > 2 && m[2].matched, line_no};
  }
  return std::nullopt;
}

// --- the figure ---------------------------------------------------------------------------------

// The figure furthest right on a line, if any.
std::optional<double> figure_on_line(const std::string& s) {
  // "images/sec: 1875.3" (tf_cnn_benchmarks; "images/sec/gpu: 1875.3" per GPU) and LoadGen's
  // "Samples per second: 313516" name the figure after their label; "1875 img/s", MXNet's
  // "Speed: 26681.29 samples/sec" and "throughput: 14800 images/s" after the number. A label
  // followed by ':' belongs to the first form, so "100 images/sec: 1870" (a step number before the
  // label) is not read as 100. DeepLearningExamples' "train.total_ips : 2441.71 img/s" is the second.
  static const std::regex label_first(
      R"((?:images?|img|samples?)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?(?:\s*/\s*gpu)?\s*[:=]\s*([0-9][0-9,]*(?:\.[0-9]+)?))",
      std::regex::icase);
  static const std::regex number_first(
      R"(([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:images?|img|samples?)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?\b(?!\s*[:=]))",
      std::regex::icase);
  // A DeepLearningExamples summary names several rates ("train.compute_ips", "train.total_ips"):
  // the total one, with data loading, is the run's throughput.
  static const std::regex total_ips(R"(\btotal_ips\s*:\s*([0-9][0-9,]*(?:\.[0-9]+)?))");
  std::smatch m;
  if (std::regex_search(s, m, total_ips)) return figure_value(m[1].str());
  std::optional<double> in_line;
  std::ptrdiff_t best_at = -1;
  for (const std::regex* re : {&label_first, &number_first}) {
    for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator(); ++it) {
      std::ptrdiff_t pos = it->position(1);
      if (pos < best_at) continue;
      auto v = figure_value((*it)[1].str());
      if (!v) continue;
      in_line = v;
      best_at = pos;
    }
  }
  return in_line;
}

// What one line adds to the run: a fact, or the figure.
struct RunSoFar {
  std::optional<int> gpus;
  int gpus_line = 0;
  std::optional<Stated<std::string>> model;
  std::optional<Stated<BenchmarkMode>> mode;
  std::optional<StatedBatch> batch;
  bool loadgen_summary = false;  // below LoadGen's "MLPerf Results Summary" heading
};

std::optional<double> positive_number(const nlohmann::json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) && d > 0 ? std::optional<double>(d) : std::nullopt;
}

// An MLPerf log line (":::MLLOG {json}"): the system's throughput, or a fact of the run. Keys as
// the MLPerf logging library names them; a line that is not JSON says nothing.
std::optional<double> read_mllog(std::string_view json_text, int line_no, RunSoFar& run) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("key") || !j["key"].is_string()) return std::nullopt;
  const std::string key = j["key"].get<std::string>();
  const nlohmann::json value = j.value("value", nlohmann::json());
  if (key == "throughput") return positive_number(value);
  if (key == "tracked_stats" && value.is_object())
    for (const char* name : {"throughput", "imgs_sec", "samples_per_second"})
      if (value.contains(name)) return positive_number(value[name]);
  if (key == "global_batch_size")
    if (auto n = positive_number(value); n && *n < 1e7 && std::floor(*n) == *n)
      run.batch = StatedBatch{static_cast<int>(*n), true, line_no};
  // MLPerf Training's "resnet" benchmark is ResNet-50 v1.5.
  if (key == "submission_benchmark" && value.is_string()) {
    const std::string name =
        value.get<std::string>() == "resnet" ? "resnet50" : normalise_model(value.get<std::string>());
    if (!name.empty()) run.model = Stated<std::string>{name, line_no};
  }
  if (key == "epoch_start" || key == "epoch_stop" || key == "global_batch_size" || key == "train_samples")
    run.mode = Stated<BenchmarkMode>{BenchmarkMode::kTraining, line_no};
  if (key == "effective_scenario" || key == "requested_scenario")
    run.mode = Stated<BenchmarkMode>{BenchmarkMode::kInference, line_no};
  return std::nullopt;
}

}  // namespace

std::string normalise_model(std::string_view name) {
  static const std::regex family(std::string("^(") + kFamilies + R"()[\s_-]?([0-9]*))", std::regex::icase);
  const std::string s = lower(std::string(trim(name)));
  std::smatch m;
  if (std::regex_search(s, m, family)) {
    std::string base = m[1].str() == "rn" ? "resnet" : m[1].str();
    // A ResNet without its depth ("resnet-v1b") or RN without digits does not say which model ran.
    if ((base == "resnet") && m[2].str().empty()) return "";
    return base + m[2].str();
  }
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::optional<BenchmarkFigure> parse_benchmark(std::string_view text) {
  std::optional<BenchmarkFigure> best;
  RunSoFar run;
  size_t at = 0;
  int line_no = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::optional<double> v;
    std::optional<BenchmarkScope> scope;
    if (const size_t mllog = line.find(":::MLLOG "); mllog != std::string_view::npos) {
      if (line.size() > kMaxMllogLine) continue;
      v = read_mllog(line.substr(mllog + 9), line_no, run);
      if (v) scope = BenchmarkScope::kTotal;  // MLPerf logs the whole system's throughput
    } else {
      if (line.size() > kMaxBenchmarkLine) continue;
      const std::string s(line);
      if (trim(line) == "MLPerf Results Summary") run.loadgen_summary = true;
      if (auto n = gpus_stated(s)) {
        run.gpus = n;
        run.gpus_line = line_no;
      }
      if (auto m = stated_model(s, line_no)) run.model = m;
      if (auto m = stated_mode(s, line_no)) run.mode = m;
      if (auto b = stated_batch(s, line_no)) run.batch = b;
      v = figure_on_line(s);
      if (!v) continue;
      if (says_per_gpu(s))
        scope = BenchmarkScope::kPerGpu;
      else if (says_total(s) || run.loadgen_summary)  // LoadGen measures the system under test
        scope = BenchmarkScope::kTotal;
    }
    if (!v) continue;
    // Lines come in order, so the last line's figure wins.
    BenchmarkFigure f;
    f.images_per_s = *v;
    f.scope = scope;
    f.line = line_no;
    f.text = std::string(trim(line));
    if (auto n = line.size() <= kMaxBenchmarkLine ? gpus_on_line(f.text) : std::nullopt) {
      f.gpus = n;
      f.gpus_line = line_no;
    } else if (run.gpus) {
      f.gpus = run.gpus;
      f.gpus_line = run.gpus_line;
    }
    f.model = run.model;
    f.mode = run.mode;
    f.batch = run.batch;
    best = std::move(f);
  }
  return best;
}

std::optional<double> parse_images_per_second(std::string_view text) {
  auto f = parse_benchmark(text);
  if (!f) return std::nullopt;
  return f->images_per_s;
}

}  // namespace gpuplan::accept
