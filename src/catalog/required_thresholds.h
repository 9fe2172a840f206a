// The threshold entries gpuplan reads by id (Catalog::threshold, threshold_range,
// threshold_entry). Catalog::load reports each one no directory has as a problem naming the id,
// so a caller may rely on: a catalog loaded without problems answers every id listed here, and
// `gpuplan catalog check` names a missing one. A test keeps the list and the code's reads in step.
#pragma once

#include <string_view>
#include <vector>

namespace gpuplan::catalog {

const std::vector<std::string_view>& required_thresholds();

}  // namespace gpuplan::catalog
