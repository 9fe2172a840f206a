// The software matrix: versions against the dated compatibility matrix of the catalog (kinds
// software and cuda_driver). One judgement, used by the quote's B6 rule and by acceptance's
// versions check, so that a version is judged the same before purchase and on delivery.
//
// Severity rule (docs/rules.md#software.matrix): a version below a row's min_version fails (the
// stack is below what the matrix requires); a version outside a row's allowed releases warns
// (not known to work, not known to fail); a CUDA toolkit whose major release needs a newer
// driver than the one given fails (cuda_driver rows), and so does a toolkit newer than the
// CUDA version the installed driver reports it can run ("cuda-driver", from NVML).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"

namespace gpuplan::plan {

// `versions` maps a component (driver, cuda, cudnn, nccl, pytorch, tensorflow, cuda-driver) to its
// version. Returns findings with id software.matrix and variant below_min, not_listed,
// cuda_driver or cuda_newer_than_driver, in the catalog's row order; none when all is well.
std::vector<Finding> judge_versions(const std::map<std::string, std::string>& versions, const catalog::Catalog& cat);

}  // namespace gpuplan::plan
