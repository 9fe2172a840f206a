#include "accept/buyer_files.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <regex>

#include "accept/check_helpers.h"
#include "core/text.h"

namespace gpuplan::accept {

using detail::base_name;

namespace {

bool is_sha256(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

Result<std::map<std::string, std::string>> parse_checksums(std::string_view text, const std::string& file) {
  std::map<std::string, std::string> out;
  int line_no = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(at, end - at));
    ++line_no;
    at = end + 1;
    if (line.empty() || line.front() == '#') continue;
    std::string hash, name;
    // BSD style, as `sha256sum --tag` and macOS `shasum` write it: "SHA256 (name) = hex".
    if (line.rfind("SHA256 (", 0) == 0) {
      size_t close = line.rfind(") = ");
      if (close != std::string_view::npos) {
        name = std::string(line.substr(8, close - 8));
        hash = std::string(trim(line.substr(close + 4)));
      }
    } else {
      size_t space = line.find_first_of(" \t");
      if (space != std::string_view::npos) {
        hash = std::string(line.substr(0, space));
        std::string_view rest = trim(line.substr(space));
        if (!rest.empty() && rest.front() == '*') rest.remove_prefix(1);  // binary-mode marker
        name = std::string(rest);
      }
    }
    if (!is_sha256(hash) || name.empty()) return Error{file, line_no, "", Phrase("error.checksums.malformed")};
    out[base_name(name)] = lower(hash);
  }
  return out;
}

namespace {

// Benchmark lines are short ("total images/sec: 1875.30"); std::regex recurses once per character
// it matches, so a multi-megabyte line (a progress bar without newlines, binary junk) could
// overflow the stack. Longer lines are skipped unread.
constexpr size_t kMaxBenchmarkLine = 1024;

// "14,800" → 14800; nullopt when the number does not fit a finite double (a 400-digit figure).
std::optional<double> figure_value(std::string digits) {
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

namespace {

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
  const int n = std::stoi(m[1].matched ? m[1].str() : m[2].str());
  return n > 0 ? std::optional<int>(n) : std::nullopt;
}

bool says_total(const std::string& line) {
  static const std::regex total(R"(\btotal(?:\b|_))", std::regex::icase);
  for (const char* zh : {"总吞吐", "整机", "全部 GPU"})
    if (line.find(zh) != std::string::npos) return true;
  return std::regex_search(line, total) || gpus_on_line(line).has_value();
}

// A statement of the run's GPU count on a header line: tf_cnn_benchmarks' "Devices:
// ['/gpu:0', '/gpu:1']" (its GPU entries; a CPU-only list says nothing), DeepLearningExamples'
// PARAMETER line "world_size : 8", "Num GPUs: 8" (also "8.000", as some scripts print it).
std::optional<int> gpus_stated(const std::string& line) {
  static const std::regex devices(R"(^\s*Devices:\s*\[(.*)\])");
  static const std::regex world(R"(\bworld_size\s*:\s*([0-9]{1,5})\b)");
  static const std::regex num_gpus(R"(\bnum[ _]gpus\s*[:=]\s*([0-9]{1,5})(?:\.0+)?\b)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(line, m, devices)) {
    const std::string list = lower(m[1].str());
    int n = 0;
    for (size_t at = list.find("gpu:"); at != std::string::npos; at = list.find("gpu:", at + 4)) ++n;
    return n > 0 ? std::optional<int>(n) : std::nullopt;
  }
  for (const std::regex* re : {&world, &num_gpus})
    if (std::regex_search(line, m, *re)) {
      const int n = std::stoi(m[1].str());
      return n > 0 ? std::optional<int>(n) : std::nullopt;
    }
  return std::nullopt;
}

// The figure furthest right on a line, if any.
std::optional<double> figure_on_line(const std::string& s) {
  // "images/sec: 1875.3" (tf_cnn_benchmarks; "images/sec/gpu: 1875.3" per GPU) names the figure
  // after its label; "1875 img/s" and
  // "throughput: 14800 images/s" after the number. A label followed by ':' belongs to the first
  // form, so "100 images/sec: 1870" (a step number before the label) is not read as 100.
  // DeepLearningExamples' "train.total_ips : 2441.71 img/s" is the second form.
  static const std::regex label_first(
      R"((?:images?|img)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?(?:\s*/\s*gpu)?\s*[:=]\s*([0-9][0-9,]*(?:\.[0-9]+)?))",
      std::regex::icase);
  static const std::regex number_first(
      R"(([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:images?|img)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?\b(?!\s*[:=]))",
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

}  // namespace

std::optional<BenchmarkFigure> parse_benchmark(std::string_view text) {
  std::optional<BenchmarkFigure> best;
  std::optional<int> gpus;  // the last count stated so far, and its line
  int gpus_line = 0;
  size_t at = 0;
  int line_no = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.size() > kMaxBenchmarkLine) continue;
    const std::string s(line);
    if (auto n = gpus_stated(s)) {
      gpus = n;
      gpus_line = line_no;
    }
    // Lines come in order, so the last line's figure wins.
    const std::optional<double> v = figure_on_line(s);
    if (!v) continue;
    BenchmarkFigure f;
    f.images_per_s = *v;
    f.line = line_no;
    f.text = std::string(trim(line));
    if (says_per_gpu(s))
      f.scope = BenchmarkScope::kPerGpu;
    else if (says_total(s))
      f.scope = BenchmarkScope::kTotal;
    if (auto n = gpus_on_line(s)) {
      f.gpus = n;
      f.gpus_line = line_no;
    } else if (gpus) {
      f.gpus = gpus;
      f.gpus_line = gpus_line;
    }
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
