// The acceptance checks of what runs on the server: versions (G5: the driver, CUDA and the
// declared libraries against the software matrix), firmware.versions (G9: the VBIOS the same on
// every GPU of a model, the rest of the firmware in an attached file) and firmware.hashes (G11:
// each firmware image's SHA-256 as the vendor's checksum list gives it).
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "core/text.h"
#include "plan/software_matrix.h"

namespace gpuplan::accept::detail {

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

}  // namespace gpuplan::accept::detail
