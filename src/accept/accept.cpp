#include "accept/accept.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>
#include <set>

#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "accept/pci_address.h"
#include "core/civil_time.h"
#include "core/money.h"
#include "core/text.h"
#include "core/version.h"
#include "plan/software_matrix.h"

namespace gpuplan::accept {

// ---------------------------------------------------------------------------------------------
// The checks. Each says what it saw as phrases (ids "accept.*", worded in report/messages) and
// leaves its evidence as phrases too; a raw input line is quoted as it is.

namespace {

using namespace detail;

// G4 --------------------------------------------------------------------------------------------
void check_infiniband(const AcceptInputs& in, const Catalog&, Finding& c) {
  if (!in.facts && !in.ibstat) return needs(c, phrase("accept.needs.ib_input"));
  std::vector<Phrase> down;
  int ports = 0;
  if (in.facts) {
    for (const auto& p : in.facts->ib_ports) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") continue;
      ++ports;
      Phrase port = phrase("accept.ib.sysfs_port")
                        .fact("device", p.device)
                        .fact("port", std::to_string(p.port))
                        .fact("state", p.state)
                        .fact("phys", p.phys_state)
                        .fact("rate", p.rate);
      c.evidence.push_back(port);
      if (!p.active()) down.push_back(phrase("accept.ib.sysfs_down").fact("port", {port}));
    }
  }
  if (in.ibstat) {
    for (const auto& p : *in.ibstat) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") continue;
      ++ports;
      Phrase port = phrase("accept.ib.ibstat_port")
                        .fact("ca", p.ca)
                        .fact("port", std::to_string(p.port))
                        .fact("state", p.state)
                        .fact("phys", p.physical_state)
                        .fact("sm", p.sm_lid ? std::to_string(*p.sm_lid) : "?");
      c.evidence.push_back(port);
      if (p.state != "Active" || p.physical_state != "LinkUp")
        down.push_back(phrase("accept.ib.ibstat_down").fact("port", {port}));
      else if (p.sm_lid && *p.sm_lid == 0)
        down.push_back(phrase("accept.ib.no_subnet_manager").fact("port", {port}));
    }
  }
  if (ports == 0) {
    c.severity = Severity::kPass;
    c.note(phrase("accept.ib.none"));
    return;
  }
  if (!down.empty()) {
    c.severity = Severity::kFail;
    for (auto& p : down) c.note(std::move(p));
    return;
  }
  // Subnet-manager configuration and adaptive routing live in the fabric, not in host files.
  auto att = in.attached.find("infiniband");
  if (att == in.attached.end())
    return needs(c, phrase("accept.ib.needs_attachment").fact("ports", std::to_string(ports)));
  c.severity = Severity::kPass;
  c.evidence.push_back(phrase("accept.ev.attached").fact("file", att->second));
  c.note(phrase("accept.ib.ok").fact("ports", std::to_string(ports)).fact("file", att->second));
}

// G5 --------------------------------------------------------------------------------------------
// The versions are judged by the one software-matrix judgement quote uses (plan/software_matrix.h).
void check_versions(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  std::map<std::string, std::pair<std::string, Phrase>> known;  // component → (version, where from)
  if (in.facts && in.facts->driver && !in.facts->driver->version.empty())
    known["driver"] = {in.facts->driver->version,
                       phrase("accept.from.proc_version").fact("line", in.facts->driver->line)};
  else if (in.nvml && !in.nvml->driver_version.empty())
    known["driver"] = {in.nvml->driver_version, phrase("accept.from.nvml_driver")};
  // The driver's CUDA version is the newest toolkit it can run, not the toolkit installed: it is
  // recorded, and judged only against a declared toolkit (--cuda), never against the matrix.
  if (in.nvml && in.nvml->cuda_driver_version)
    known["cuda-driver"] = {*in.nvml->cuda_driver_version, phrase("accept.from.nvml_cuda")};
  for (const auto& [k, v] : in.versions)
    known[lower(k)] = {v, phrase("accept.from.declared").fact("flag", k).fact("version", v)};
  if (!known.count("driver") && !known.count("cuda")) return needs(c, phrase("accept.needs.versions"));
  c.severity = Severity::kPass;
  std::map<std::string, std::string> versions;
  std::vector<Phrase> seen;
  for (const auto& [component, vs] : known) {
    c.evidence.push_back(
        phrase("accept.ev.version").fact("component", component).fact("version", vs.first).fact("from", {vs.second}));
    seen.push_back(phrase("accept.versions.one").fact("component", component).fact("version", vs.first));
    versions[component] = vs.first;
  }
  const std::vector<Finding> judged = plan::judge_versions(versions, cat);
  c.note(phrase(judged.empty() ? "accept.versions.ok" : "accept.versions.recorded").fact("seen", seen));
  for (const Finding& f : judged) {
    escalate(c.severity, f.severity);
    // The quote's own words for the same judgement (software.matrix/<variant>).
    Phrase p(f.message_key());
    p.facts = f.facts;
    c.note(std::move(p));
  }
}

// G9 --------------------------------------------------------------------------------------------
void check_firmware_versions(const AcceptInputs& in, const Catalog&, Finding& c) {
  c.severity = Severity::kPass;
  if (in.nvml) {
    std::map<std::string, std::set<std::string>> by_model;  // GPU name → VBIOS versions
    for (const auto& g : in.nvml->gpus) {
      std::string v = g.info.vbios.value_or("?");
      c.evidence.push_back(phrase("accept.ev.vbios")
                               .fact("gpu", nvml_gpu(g))
                               .fact("name", g.info.name)
                               .fact("serial", g.info.serial.value_or("?"))
                               .fact("vbios", v));
      by_model[g.info.name].insert(v);
    }
    for (const auto& [model, versions] : by_model)
      if (versions.size() > 1) {
        escalate(c.severity, Severity::kWarn);
        c.note(phrase("accept.firmware.vbios_differ")
                   .fact("model", model)
                   .fact(list_of("versions", {versions.begin(), versions.end()})));
      }
    if (c.notes.empty())
      c.note(phrase("accept.firmware.vbios_recorded").fact("gpus", std::to_string(in.nvml->gpus.size())));
  } else {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.firmware.vbios_needs_nvml").fact("why", {in.nvml_error}));
  }
  auto att = in.attached.find("firmware.versions");
  if (att == in.attached.end()) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.firmware.needs_attachment"));
  } else {
    c.evidence.push_back(phrase("accept.ev.attached").fact("file", att->second));
    c.note(phrase("accept.firmware.attached").fact("file", att->second));
  }
}

// G11 -------------------------------------------------------------------------------------------
void check_firmware_hashes(const AcceptInputs& in, const Catalog&, Finding& c) {
  if (in.firmware.empty()) return needs(c, phrase("accept.hashes.no_images"));
  c.severity = Severity::kPass;
  size_t matched = 0;
  for (const auto& img : in.firmware) {
    const std::string name = base_name(img.path);
    const std::string got = lower(img.sha256);
    auto it = in.expected_sha256.find(name);
    if (it == in.expected_sha256.end()) {
      escalate(c.severity, Severity::kWarn);
      c.evidence.push_back(phrase("accept.ev.hash_unlisted").fact("path", img.path).fact("sha256", got));
      c.note(phrase(in.checksum_file.empty() ? "accept.hashes.no_checksum" : "accept.hashes.not_listed")
                 .fact("name", name)
                 .fact("list", in.checksum_file));
    } else if (lower(it->second) != got) {
      escalate(c.severity, Severity::kFail);
      c.evidence.push_back(phrase("accept.ev.hash_differs")
                               .fact("path", img.path)
                               .fact("sha256", got)
                               .fact("vendor", lower(it->second))
                               .fact("list", in.checksum_file));
      c.note(phrase("accept.hashes.differs").fact("name", name).fact("sha256", got).fact("vendor", lower(it->second)));
    } else {
      ++matched;
      c.evidence.push_back(phrase(in.checksum_file.empty() ? "accept.ev.hash_matches" : "accept.ev.hash_matches_list")
                               .fact("path", img.path)
                               .fact("sha256", got)
                               .fact("list", in.checksum_file));
    }
  }
  c.note(phrase(matched == in.firmware.size() ? "accept.hashes.ok" : "accept.hashes.matched")
             .fact("matched", std::to_string(matched))
             .fact("images", std::to_string(in.firmware.size())));
}

struct CheckDef {
  const char* id;
  const char* source;  // references in docs/sources.md
  void (*run)(const AcceptInputs&, const Catalog&, Finding&);
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
};

}  // namespace

AcceptReport run_acceptance(const AcceptInputs& in, const Catalog& catalog) {
  AcceptReport report;
  report.host = !in.host.empty() ? in.host : in.facts ? in.facts->hostname : "";
  for (const CheckDef& def : kChecks) {
    Finding c = make_finding(def.id, Severity::kNeedsEvidence, "", def.source);
    def.run(in, catalog, c);
    if (c.severity == Severity::kFail) report.passed = false;
    report.checks.push_back(std::move(c));
  }
  return report;
}

}  // namespace gpuplan::accept
