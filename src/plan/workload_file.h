// A workload as `gpuplan recommend` is given it: the fields of its flags, as given, from the
// command line or a workload YAML file (task, params, method, concurrency, context, latency_ms,
// dataset_tb, budget, mode, gpu). Values stay as written; plan/recommend judges them.
#pragma once

#include <optional>
#include <string>

#include "core/error.h"

namespace gpuplan::plan {

struct WorkloadFields {
  std::string task, params, method, mode, gpu;
  std::optional<int> concurrency, context;
  std::optional<double> latency_ms, dataset_tb, budget;
};

// The bound a count field (concurrency, context) has in a workload file, for its flag too:
// at least `min`, at most bounds::kMaxCount; an Error naming `flag` otherwise.
[[nodiscard]] Result<int> checked_count(const std::string& flag, int value, int min);

// `given` with every field it leaves empty filled from the workload file at `path` (flags win).
// An Error names the file, line and field: an unknown key, a wrong type, a negative number.
[[nodiscard]] Result<WorkloadFields> read_workload_file(const std::string& path, WorkloadFields given);

}  // namespace gpuplan::plan
