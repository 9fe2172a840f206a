#include "plan/workload_file.h"

#include <algorithm>

#include "core/bounds.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "plan/config.h"
#include "plan/model_memory.h"

namespace gpuplan::plan {

Result<int> checked_count(const std::string& flag, int value, int min) {
  return bounds::flag_count(flag, value, min);
}

Result<WorkloadFields> read_workload_file(const std::string& path, WorkloadFields given) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  WorkloadFields& w = given;
  try {
    YamlReader r(path);
    YAML::Node root = r.load(*text);
    r.check_keys(
        root, "",
        {"task", "params", "method", "concurrency", "context", "latency_ms", "dataset_tb", "budget", "mode", "gpu"});
    auto str = [&](const char* k, std::string& out) {
      if (root[k] && out.empty()) out = r.text(root[k], k);
    };
    // A word from a fixed list is checked here, so a wrong one names the file's line, not a flag.
    auto one_of = [&](const char* k, std::string& out, const std::vector<std::string>& allowed) {
      if (!root[k] || !out.empty()) return;
      out = r.text(root[k], k);
      if (std::find(allowed.begin(), allowed.end(), out) == allowed.end()) r.fail(root[k], k, not_one_of(out, allowed));
    };
    one_of("task", w.task, task_names());
    str("params", w.params);
    one_of("method", w.method, method_names());
    one_of("mode", w.mode, {"rent", "buy"});
    str("gpu", w.gpu);
    if (root["concurrency"] && !w.concurrency) w.concurrency = r.count(root["concurrency"], "concurrency", 1);
    // Tokens of context: a whole number, at least one (the KV cache is sized by it).
    if (root["context"] && !w.context) w.context = r.count(root["context"], "context", 1);
    if (root["latency_ms"] && !w.latency_ms) w.latency_ms = r.non_negative(root["latency_ms"], "latency_ms");
    if (root["dataset_tb"] && !w.dataset_tb) w.dataset_tb = r.non_negative(root["dataset_tb"], "dataset_tb");
    if (root["budget"] && !w.budget) w.budget = r.non_negative(root["budget"], "budget");
  } catch (const ParseFailure& f) {
    return f.error;
  }
  return given;
}

}  // namespace gpuplan::plan
