// readers.h's GpuRegistry ("host/gpu" names → ids) and gpu_lookup.h's host_of.
#include "telemetry/gpu_lookup.h"

#include <filesystem>

namespace gpuplan::telemetry {

uint32_t GpuRegistry::id(const std::string& host, const std::string& gpu) {
  std::string name = host + "/" + gpu;
  if (auto it = ids_.find(name); it != ids_.end()) return it->second;
  if (names_.size() >= limits::kMaxGpus) {
    if (overflow_.empty()) overflow_ = std::move(name);
    return kOverflow;
  }
  const auto id = static_cast<uint32_t>(names_.size());
  ids_.emplace(name, id);
  names_.push_back(std::move(name));
  return id;
}

namespace detail {

namespace fs = std::filesystem;

std::string host_of(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (const char* ext : {".gz", ".csv", ".log", ".txt", ".prom"}) {
    std::string e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
      name.resize(name.size() - e.size());
  }
  return name;
}

}  // namespace detail
}  // namespace gpuplan::telemetry
