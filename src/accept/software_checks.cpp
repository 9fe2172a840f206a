// The acceptance checks of what runs on the server: versions (G5: the driver, CUDA and the
// declared libraries against the software matrix), firmware.versions (G9: the VBIOS the same on
// every GPU of a model, the rest of the firmware in an attached file) and firmware.hashes (G11:
// each firmware image's SHA-256 as the vendor's checksum list gives it).
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "accept/attachment_helpers.h"
#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "core/text.h"
#include "core/version.h"
#include "plan/software_matrix.h"

namespace gpuplan::accept::detail {

// G5 --------------------------------------------------------------------------------------------
namespace {

// The delivered driver against the contract's: the same release (or a release of the branch the
// contract names, "535" for 535.104.05) passes; older fails, the buyer was promised at least it;
// newer warns: it may be fine, but it is not what was agreed, and a person confirms the stack
// was validated on it. No driver read: needs evidence.
void judge_contract_driver(const std::map<std::string, std::string>& versions, const plan::VendorQuote& contract,
                           Finding& c) {
  const std::string& promised = *contract.terms.driver;
  const auto it = versions.find("driver");
  if (it == versions.end()) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(contract_term_note("accept.versions.contract_driver_unknown", contract, "driver"));
    return;
  }
  const int order = version_in(it->second, {promised}) ? 0 : compare_versions(it->second, promised);
  const Severity s = order < 0 ? Severity::kFail : order > 0 ? Severity::kWarn : Severity::kPass;
  escalate(c.severity, s);
  c.note(contract_term_note(order < 0   ? "accept.versions.contract_driver_older"
                            : order > 0 ? "accept.versions.contract_driver_newer"
                                        : "accept.versions.contract_driver_same",
                            contract, "driver")
             .fact("driver", it->second));
}

}  // namespace

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
  // The contract's CUDA stands for the toolkit the buyer was promised, judged as a declared --cuda.
  const plan::ContractTerms* terms = in.contract ? &in.contract->terms : nullptr;
  if (terms && terms->cuda && !known.count("cuda"))
    known["cuda"] = {*terms->cuda, contract_term_note("accept.from.contract", *in.contract, "cuda")};
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
  if (terms && terms->driver) judge_contract_driver(versions, *in.contract, c);
}

// G9 --------------------------------------------------------------------------------------------
namespace {

// Identical parts carry one version: each model with more than one warns, naming its versions.
// `versions` maps a model to (version → the GPUs that carry it).
void judge_uniform(const std::map<std::string, std::map<std::string, std::vector<std::string>>>& by_model, Finding& c) {
  for (const auto& [model, versions] : by_model) {
    if (versions.size() < 2) continue;
    escalate(c.severity, Severity::kWarn);
    std::vector<Phrase> which;
    for (const auto& [v, gpus] : versions)
      which.push_back(gpus.empty() ? phrase("accept.firmware.version").fact("version", v)
                                   : phrase("accept.firmware.version_on").fact("version", v).fact(list_of("gpus", gpus)));
    c.note(phrase("accept.firmware.vbios_differ").fact("model", model.empty() ? "?" : model).fact("versions", which));
  }
}

// The firmware an attached file shows: BMC (ipmitool), BIOS (dmidecode), VBIOS (nvidia-smi -q).
// Returns whether it showed firmware outside the GPUs (BMC or BIOS), which the host cannot show.
bool judge_firmware_file(const Attachment& a, Finding& c) {
  static const std::vector<std::string> known(std::begin(probe::kFirmwareForms), std::end(probe::kFirmwareForms));
  const probe::FirmwareEvidence& ev = *a.firmware;
  if (!attachment_usable(a, ev.forms, ev.incomplete, known, c)) return false;
  std::vector<Phrase> read;
  if (ev.bmc)
    read.push_back(phrase("accept.firmware.bmc")
                       .fact("version", ev.bmc->firmware)
                       .fact("maker", ev.bmc->manufacturer.empty() ? "?" : ev.bmc->manufacturer));
  if (ev.bios)
    read.push_back(phrase("accept.firmware.bios")
                       .fact("version", ev.bios->version)
                       .fact("date", ev.bios->release_date.empty() ? "?" : ev.bios->release_date));
  std::map<std::string, std::map<std::string, std::vector<std::string>>> by_model;
  for (const auto& g : ev.gpus) {
    by_model[g.name][g.vbios].push_back(g.bus_id);
    c.evidence.push_back(phrase("accept.ev.vbios_attached")
                             .fact("file", a.file)
                             .fact("gpu", g.bus_id.empty() ? "?" : g.bus_id)
                             .fact("name", g.name.empty() ? "?" : g.name)
                             .fact("vbios", g.vbios));
  }
  for (const auto& [model, versions] : by_model) {
    std::vector<std::string> vs;
    for (const auto& [v, gpus] : versions) vs.push_back(v);
    read.push_back(
        phrase("accept.firmware.vbios_read")
            .fact("model", model.empty() ? "?" : model)
            .fact("gpus", std::to_string(std::accumulate(versions.begin(), versions.end(), size_t{0},
                                                         [](size_t n, const auto& v) { return n + v.second.size(); })))
            .fact(list_of("versions", vs)));
  }
  c.note(phrase("accept.firmware.read").fact("file", a.file).fact("read", read));
  judge_uniform(by_model, c);
  return ev.bmc || ev.bios;
}

}  // namespace

void check_firmware_versions(const AcceptInputs& in, const Catalog&, Finding& c) {
  c.severity = Severity::kPass;
  if (in.nvml) {
    std::map<std::string, std::map<std::string, std::vector<std::string>>> by_model;  // name → VBIOS → GPUs
    for (const auto& g : in.nvml->gpus) {
      std::string v = g.info.vbios.value_or("?");
      c.evidence.push_back(phrase("accept.ev.vbios")
                               .fact("gpu", nvml_gpu(g))
                               .fact("name", g.info.name)
                               .fact("serial", g.info.serial.value_or("?"))
                               .fact("vbios", v));
      by_model[g.info.name][v].push_back(nvml_gpu(g));
    }
    judge_uniform(by_model, c);
    if (c.notes.empty())
      c.note(phrase("accept.firmware.vbios_recorded").fact("gpus", std::to_string(in.nvml->gpus.size())));
  } else {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.firmware.vbios_needs_nvml").fact("why", {in.nvml_error}));
  }
  bool outside_gpus = false;  // BMC or BIOS firmware read from an attachment
  const auto attached = attachments_for(in, "firmware.versions");
  for (const Attachment* a : attached) {
    const bool read = a->firmware && !a->empty && !a->firmware->forms.empty();
    outside_gpus = judge_firmware_file(*a, c) || outside_gpus;
    if (!read) escalate(c.severity, Severity::kNeedsEvidence);  // an unread file never passes
  }
  if (!outside_gpus) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.firmware.needs_attachment"));
    return;
  }
  // Action 9 also asks for the ME firmware version and the vendor's documented update path,
  // which no output gpuplan reads shows: what was read is recorded, and a person confirms the rest.
  // (escalate ranks warn above needs-evidence; a check still missing NVML stays needs-evidence.)
  if (c.severity == Severity::kPass) c.severity = Severity::kWarn;
  c.note(phrase("accept.firmware.me_and_update_path"));
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
