// Recommend a configuration from a workload (SPEC C): the catalog's rule for the task and model
// size gives the floor GPU count, the memory arithmetic (plan/model_memory: training state or
// weights + KV cache) decides above it, and the count is rounded up to a platform's GPU count;
// concurrency, latency tolerance and data set size pick CPU, region and storage. Each
// recommendation is a priced quote and says which rule fired and shows its arithmetic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/finding.h"
#include "plan/config.h"
#include "plan/model_memory.h"
#include "plan/quote.h"

namespace gpuplan::plan {

enum class Mode { kRent, kBuy };

struct Workload {
  Task task = Task::kTrain;
  double params_b = 0;              // model size, billions of parameters
  Method method = Method::kFull;    // fine-tuning method (full for training and pre-training)
  std::optional<double> context;    // inference context in tokens; default recommend.default_context_tokens
  int concurrency = 0;              // peak concurrent requests (serving)
  std::optional<double> latency_ms; // latency tolerance
  double dataset_tb = 0;
  std::optional<double> budget;     // CNY: purchase total (buy) or monthly rent (rent)
  Mode mode = Mode::kBuy;
  std::string gpu;                  // catalog gpu id; empty: chosen from `gpu_family`
  std::string gpu_family = "a100-80gb";
};

struct Recommendation {
  ServerConfig config;
  Quote quote;
  std::vector<Finding> why;  // the rules that fired, with their numbers (info findings)
};

Result<Recommendation> recommend(const Workload& workload, const catalog::Catalog& catalog);

// "13B", "7b", "175", "1.5T" -> billions of parameters.
Result<double> parse_params(const std::string& text);

}  // namespace gpuplan::plan
