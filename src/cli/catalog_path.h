// Where the catalog lives: $GPUPLAN_CATALOG, else beside an installed binary
// (../share/gpuplan/catalog), else the source tree the binary was built from. Directories
// given with --catalog are laid over it in order.
#pragma once

#include <string>
#include <vector>

namespace gpuplan::cli {

std::string base_catalog_dir();
std::vector<std::string> catalog_dirs(const std::vector<std::string>& overrides);

}  // namespace gpuplan::cli
