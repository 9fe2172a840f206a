// run_acceptance and the one table it walks: every acceptance check's id, its source (the action
// of the acceptance article it carries out) and the function that judges it (accept/checks.h).
#include "accept/accept.h"

#include "accept/attachment_helpers.h"
#include "accept/checks.h"

namespace gpuplan::accept {

namespace {

using catalog::Catalog;
using namespace detail;

struct CheckDef {
  const char* id;
  const char* source;  // references in docs/sources.md
  void (*run)(const AcceptInputs&, const Catalog&, Finding&);
  bool contract_only = false;  // runs (and appears) only when a contract is given
};

// The acceptance checks, in report order (accept.h promises this order). Their titles are the
// messages of their ids.
const CheckDef kChecks[] = {
    {"soak", "S1 §5 #1", check_soak},
    {"pcie.topology", "S1 §5 #2", check_pcie_topology},
    {"pcie.aer", "S1 §5 #3", check_pcie_aer},
    {"infiniband", "S1 §5 #4", check_infiniband},
    {"versions", "S1 §5 #5; S0 §3.4", check_versions},
    {"load", "S1 §5 #6", check_load},
    {"pcie.aspm", "S1 §5 #7", check_pcie_aspm},
    {"iommu", "S1 §5 #8", check_iommu},
    {"firmware.versions", "S1 §5 #9", check_firmware_versions},
    {"performance", "S1 §5 #10", check_performance},
    {"firmware.hashes", "S1 §5 #11", check_firmware_hashes},
    {"health.archive", "S1 §5 #12", check_health_archive},
    {"xid", "nvidia-xid; S1 §5 #3", check_xid},
    {"ecc", "nvidia-page-retirement; S1 §5 #12", check_ecc},
    {"gpu.count", "S1 §5", check_gpu_count},
    {"contract.delivery", "S1 §5", check_contract_delivery, true},
};

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kIncomplete:
      return "incomplete";
    case Verdict::kFail:
      return "fail";
  }
  return "fail";
}

Verdict verdict_of(const std::vector<Finding>& checks) {
  Verdict v = Verdict::kPass;
  for (const Finding& c : checks) {
    if (c.severity == Severity::kFail) return Verdict::kFail;
    if (c.severity == Severity::kNeedsEvidence) v = Verdict::kIncomplete;
  }
  return v;
}

AcceptReport run_acceptance(const AcceptInputs& in, const Catalog& catalog) {
  AcceptReport report;
  report.host = !in.host.empty() ? in.host : in.facts ? in.facts->hostname : "";
  for (const CheckDef& def : kChecks) {
    if (def.contract_only && !in.contract) continue;
    Finding c = make_finding(def.id, Severity::kNeedsEvidence, "", def.source);
    def.run(in, catalog, c);
    note_unread_attachments(in, c);  // files a person must judge say so; they never make a pass
    report.checks.push_back(std::move(c));
  }
  report.verdict = verdict_of(report.checks);
  return report;
}

}  // namespace gpuplan::accept
