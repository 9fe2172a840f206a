#include "cli/catalog_path.h"

#include <cstdlib>
#include <filesystem>

namespace gpuplan::cli {

std::string base_catalog_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("GPUPLAN_CATALOG"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path() / GPUPLAN_INSTALL_CATALOG_RELATIVE;
    if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
  return GPUPLAN_SOURCE_CATALOG;
}

std::vector<std::string> catalog_dirs(const std::vector<std::string>& overrides) {
  std::vector<std::string> dirs{base_catalog_dir()};
  dirs.insert(dirs.end(), overrides.begin(), overrides.end());
  return dirs;
}

}  // namespace gpuplan::cli
