// The diagnosis rules (private to diagnose/), SPEC §H1–H6, each adding its findings to `out`.
// The ones that read logs (H1 thermal, H3 input-bound, H4 memory) are in log_hypotheses.cpp;
// H2, H5 and H6 in diagnose.cpp.
#pragma once

#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "diagnose/diagnose.h"

namespace gpuplan::diagnose::detail {

void check_thermal(const DiagnoseInputs& in, const catalog::Catalog& cat, std::vector<Finding>& out);
void check_input_bound(const DiagnoseInputs& in, const catalog::Catalog& cat, std::vector<Finding>& out);
void check_memory(const DiagnoseInputs& in, const catalog::Catalog& cat, std::vector<Finding>& out);

}  // namespace gpuplan::diagnose::detail
