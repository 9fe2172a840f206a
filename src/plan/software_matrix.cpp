#include "plan/software_matrix.h"

#include <cstdlib>

#include "core/version.h"

namespace gpuplan::plan {

namespace {
constexpr const char* kSource = "S0 §3.4; nvidia-cuda-compatibility";
}

std::vector<Finding> judge_versions(const std::map<std::string, std::string>& versions, const catalog::Catalog& cat) {
  std::vector<Finding> out;
  auto version_of = [&](const std::string& component) -> const std::string* {
    auto it = versions.find(component);
    return it == versions.end() ? nullptr : &it->second;
  };
  for (const catalog::Entry* row : cat.of_kind("software")) {
    const std::string component = row->text("component");
    const std::string* version = version_of(component);
    if (!version) continue;
    if (row->has("min_version") && compare_versions(*version, row->text("min_version")) < 0) {
      Finding f = make_finding("software.matrix", Severity::kFail, "below_min", kSource);
      f.fact("component", component).fact("version", *version).fact("min", row->text("min_version"));
      f.fact("row", row->id).fact("as_of", row->as_of);
      out.push_back(std::move(f));
    }
    const auto allowed = row->list("allowed");
    // "12.1.105" is release 12.1.105 of an allowed "12.1" (core/version.h).
    if (!allowed.empty() && !version_in(*version, allowed)) {
      Finding f = make_finding("software.matrix", Severity::kWarn, "not_listed", kSource);
      f.fact("component", component).fact("version", *version).fact(list_of("allowed", allowed));
      f.fact("row", row->id).fact("as_of", row->as_of);
      out.push_back(std::move(f));
    }
  }
  const std::string* cuda = version_of("cuda");
  const std::string* driver = version_of("driver");
  if (cuda && driver) {
    const int major = std::atoi(cuda->c_str());
    for (const catalog::Entry* row : cat.of_kind("cuda_driver")) {
      if (static_cast<int>(row->number("cuda_major")) != major) continue;
      if (compare_versions(*driver, row->text("min_driver")) >= 0) continue;
      Finding f = make_finding("software.matrix", Severity::kFail, "cuda_driver", kSource);
      f.fact("cuda", *cuda).fact("driver", *driver).fact("major", std::to_string(major));
      f.fact("min_driver", row->text("min_driver")).fact("row", row->id).fact("as_of", row->as_of);
      out.push_back(std::move(f));
    }
  }
  const std::string* driver_cuda = version_of("cuda-driver");
  if (cuda && driver_cuda && compare_versions(*cuda, *driver_cuda) > 0) {
    Finding f = make_finding("software.matrix", Severity::kFail, "cuda_newer_than_driver", kSource);
    f.fact("cuda", *cuda).fact("driver_cuda", *driver_cuda);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuplan::plan
