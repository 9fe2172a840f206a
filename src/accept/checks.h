// The acceptance checks, one function each (detail of accept/, not for other modules). Each
// judges its part of AcceptInputs into the Finding it is given, which run_acceptance made
// needs-evidence under the check's id and source; accept.cpp holds the one table of ids, sources
// and these functions, in report order. The declarations are grouped by the file that defines them.
// Each check says what it saw as phrases (ids "accept.*", worded in report/messages) and leaves
// its evidence as phrases too; a raw input line is quoted as it is.
#pragma once

#include "accept/accept.h"

namespace gpuplan::accept::detail {

// pcie_checks.cpp
void check_pcie_topology(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_pcie_aer(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_pcie_aspm(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_iommu(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);

// sample_log_checks.cpp
void check_soak(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_load(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_health_archive(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);

// gpu_checks.cpp
void check_performance(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_xid(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_ecc(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_gpu_count(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);

// infiniband_check.cpp
void check_infiniband(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);

// contract_delivery.cpp
void check_contract_delivery(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);

// software_checks.cpp
void check_versions(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_firmware_versions(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);
void check_firmware_hashes(const AcceptInputs& in, const catalog::Catalog& cat, Finding& c);

}  // namespace gpuplan::accept::detail
