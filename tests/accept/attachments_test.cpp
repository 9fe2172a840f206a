// Attachments are read or they do not pass (issue 12, item 6): `infiniband` and
// `firmware.versions` judged from the real tool outputs in tests/fixtures/tools (README.md there
// names each source), an empty or unreadable file never passing, the other checks' attachments
// left to a person with a note; and NCCL judged against the catalog's software matrix (the
// `nccl` row of catalog/software.yaml: 2.7.3, the first release with A100 support). Ends with
// the gpuplan binary itself on a host fixture.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "accept/accept.h"
#include "core/sha256.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::fact_in;
using gpuplan::testing::run_gpuplan;
using gpuplan::testing::source_path;
using Facts = std::vector<std::pair<std::string, std::string>>;

std::string fixture(const std::string& name) {
  return source_path("tests/fixtures/tools/" + name);
}

std::string text_of(const std::string& name) {
  return testing::read_file(fixture(name));
}

// An attachment as request.cpp reads it: the fixture's text through the check's reader.
Attachment attach(const std::string& check, const std::string& name) {
  const std::string text = text_of(name);
  Attachment a;
  a.check = check;
  a.file = name;
  a.sha256 = "0";
  a.empty = text.find_first_not_of(" \t\r\n") == std::string::npos;
  if (check == "infiniband") a.ib = probe::read_ib_evidence(text);
  if (check == "firmware.versions") a.firmware = probe::read_firmware_evidence(text);
  if (check == "ecc") a.memory = probe::read_memory_health(text);
  return a;
}

Finding judged(const AcceptInputs& in, const std::string& id) {
  for (Finding& f : run_acceptance(in, default_catalog()).checks)
    if (f.id == id) return f;
  ADD_FAILURE() << id;
  return {};
}

// Whether `c` has a note `key` whose facts hold every one of `facts`.
bool says(const Finding& c, const std::string& key, const Facts& facts = {}) {
  for (const Phrase& p : c.notes) {
    bool all = p.key == key;
    for (const auto& [name, value] : facts) {
      const std::string* got = all ? fact_in(p, name) : nullptr;
      all = got && *got == value;
    }
    if (all) return true;
  }
  return false;
}

std::string dump(const Finding& c) {
  std::string s = std::string(severity_name(c.severity)) + ":";
  for (const Phrase& p : c.notes) s += " " + ::testing::PrintToString(p);
  return s;
}

// A host whose sysfs shows one InfiniBand port up: the fabric's side must come from an attachment.
AcceptInputs host_with_active_port() {
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  probe::IbPort p;
  p.device = "mlx5_0";
  p.state = "4: ACTIVE";
  p.phys_state = "5: LinkUp";
  p.rate = "200 Gb/sec (4X HDR)";
  p.link_layer = "InfiniBand";
  in.facts->ib_ports = {p};
  return in;
}

// --- infiniband ---------------------------------------------------------------------------------

TEST(AttachmentsTest, EmptyInfinibandAttachmentIsNotEvidence) {
  AcceptInputs in = host_with_active_port();
  in.attachments = {attach("infiniband", "empty.txt")};
  Finding c = judged(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << dump(c);
  EXPECT_TRUE(says(c, "accept.attach.empty", {{"file", "empty.txt"}})) << dump(c);
  EXPECT_TRUE(says(c, "accept.ib.needs_attachment", {{"ports", "1"}})) << dump(c);
  EXPECT_FALSE(says(c, "accept.ib.ok")) << dump(c);
  // A host without InfiniBand does not turn an empty attachment into a pass either.
  in.facts->ib_ports.clear();
  EXPECT_EQ(judged(in, "infiniband").severity, Severity::kNeedsEvidence);
}

TEST(AttachmentsTest, UnreadableInfinibandAttachmentNamesTheFormsRead) {
  AcceptInputs in = host_with_active_port();
  in.attachments = {attach("infiniband", "ipmitool-mc-info-dell.txt")};
  Finding c = judged(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << dump(c);
  EXPECT_TRUE(says(c, "accept.attach.not_understood",
                   {{"file", "ipmitool-mc-info-dell.txt"}, {"forms", "ibstat, ibstatus, sminfo, ibdiagnet"}}))
      << dump(c);
}

TEST(AttachmentsTest, SminfoMasterShowsTheSubnetManager) {
  AcceptInputs in = host_with_active_port();
  in.attachments = {attach("infiniband", "sminfo-master.txt")};
  Finding c = judged(in, "infiniband");
  // The subnet manager is shown; adaptive routing is not, so the check is not yet passed.
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << dump(c);
  EXPECT_TRUE(says(c, "accept.ib.ok", {{"ports", "1"}, {"files", "sminfo-master.txt"}, {"forms", "sminfo"}}))
      << dump(c);
  EXPECT_TRUE(says(c, "accept.ib.ar_not_shown")) << dump(c);
}

TEST(AttachmentsTest, IbdiagnetShowsAdaptiveRoutingButNeedsTheSubnetManager) {
  AcceptInputs in = host_with_active_port();
  in.attachments = {attach("infiniband", "ibdiagnet-ar-summary.txt")};
  Finding alone = judged(in, "infiniband");
  // The summary names no master SM and no port: it does not show a subnet manager answering.
  EXPECT_EQ(alone.severity, Severity::kNeedsEvidence) << dump(alone);
  EXPECT_TRUE(says(alone, "accept.ib.no_sm_shown", {{"forms", "ibdiagnet"}})) << dump(alone);
  in.attachments.push_back(attach("infiniband", "sminfo-master.txt"));
  Finding both = judged(in, "infiniband");
  EXPECT_EQ(both.severity, Severity::kPass) << dump(both);
  EXPECT_TRUE(says(both, "accept.ib.ar_enabled", {{"switches", "3"}})) << dump(both);
  EXPECT_TRUE(says(both, "accept.ib.ok",
                   {{"files", "ibdiagnet-ar-summary.txt, sminfo-master.txt"}, {"forms", "ibdiagnet, sminfo"}}))
      << dump(both);
}

TEST(AttachmentsTest, AttachedIbstatusWithADownPortFails) {
  AcceptInputs in;  // no host facts: the attachment alone is judged like --ibstat
  in.attachments = {attach("infiniband", "ibstatus-hdr-one-down.txt")};
  Finding c = judged(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kFail) << dump(c);
  ASSERT_EQ(c.notes.size(), 1u) << dump(c);
  EXPECT_EQ(c.notes[0].key, "accept.ib.ibstat_down");
  EXPECT_EQ(*fact_in(c.notes[0], "ca"), "mlx5_1");
  EXPECT_EQ(*fact_in(c.notes[0], "state"), "Down");
}

TEST(AttachmentsTest, AttachedIbstatusAllActivePassesOnItsSmLid) {
  AcceptInputs in;
  in.attachments = {attach("infiniband", "ibstatus-edr-4port.txt")};
  Finding c = judged(in, "infiniband");
  // Four active ports naming SM lid 0x1; adaptive routing unseen: needs ibdiagnet --routing.
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << dump(c);
  EXPECT_TRUE(says(c, "accept.ib.ok", {{"ports", "4"}, {"forms", "ibstatus"}})) << dump(c);
  EXPECT_TRUE(says(c, "accept.ib.ar_not_shown")) << dump(c);
}

TEST(AttachmentsTest, PortsSlowerThanTheirPeersWarn) {
  // The active HDR port of ibstatus-hdr-one-down.txt (its first block) at 200, then the four
  // EDR ports at 100 (4X EDR): the four are named.
  AcceptInputs in;
  Attachment hdr = attach("infiniband", "ibstatus-hdr-one-down.txt");
  const std::string text = text_of("ibstatus-hdr-one-down.txt");
  hdr.ib = probe::read_ib_evidence(text.substr(0, text.find("\n\n") + 1));
  ASSERT_EQ(hdr.ib->ports.size(), 1u);
  in.attachments = {hdr, attach("infiniband", "ibstatus-edr-4port.txt")};
  Finding c = judged(in, "infiniband");
  ASSERT_EQ(c.severity, Severity::kWarn) << dump(c);
  EXPECT_TRUE(says(c, "accept.ib.slow_ports",
                   {{"rate", "200"},
                    {"ports",
                     "mlx5_0 port 1 100 Gb/s, mlx5_1 port 1 100 Gb/s, mlx5_2 port 1 100 Gb/s, "
                     "mlx5_3 port 1 100 Gb/s"}}))
      << dump(c);
}

TEST(AttachmentsTest, FailedSminfoQueryAndTruncatedIbstatDoNotPass) {
  AcceptInputs in = host_with_active_port();
  in.attachments = {attach("infiniband", "sminfo-query-failed.txt")};
  Finding failed = judged(in, "infiniband");
  EXPECT_EQ(failed.severity, Severity::kWarn) << dump(failed);
  EXPECT_TRUE(says(failed, "accept.ib.sminfo_failed", {{"line", "sminfo: iberror: query failed"}})) << dump(failed);
  in.attachments = {attach("infiniband", "ibstat-truncated.txt")};
  Finding cut = judged(in, "infiniband");
  EXPECT_NE(cut.severity, Severity::kPass) << dump(cut);
  EXPECT_TRUE(says(cut, "accept.attach.incomplete", {{"forms", "ibstat"}})) << dump(cut);
}

// --- firmware.versions --------------------------------------------------------------------------

TEST(AttachmentsTest, UniformFirmwarePassesAndSaysWhatItRead) {
  AcceptInputs in;
  in.nvml_error = Phrase("accept.nvml.off");
  in.attachments = {attach("firmware.versions", "ipmitool-mc-info-dell.txt"),
                    attach("firmware.versions", "nvidia-smi-q-a100-2gpu.txt")};
  Finding c = judged(in, "firmware.versions");
  // Without NVML the host's own VBIOS view is missing; the attachments still say what they hold.
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << dump(c);
  EXPECT_TRUE(says(c, "accept.firmware.vbios_needs_nvml")) << dump(c);
  EXPECT_FALSE(says(c, "accept.firmware.needs_attachment")) << dump(c);
  const Phrase* bmc = nullptr;
  for (const Phrase& p : c.notes)
    if (p.key == "accept.firmware.read" && *fact_in(p, "file") == "ipmitool-mc-info-dell.txt") bmc = &p;
  ASSERT_TRUE(bmc) << dump(c);
  EXPECT_EQ(*fact_in(*bmc, "version"), "1.54");
  EXPECT_EQ(*fact_in(*bmc, "maker"), "DELL Inc");
  EXPECT_TRUE(says(c, "accept.firmware.read",
                   {{"model", "NVIDIA A100-SXM4-40GB"}, {"gpus", "2"}, {"versions", "92.00.36.00.04"}}))
      << dump(c);
}

nvml::NvmlFacts two_a100s() {
  nvml::NvmlFacts f;
  for (int i = 0; i < 2; ++i) {
    nvml::GpuFacts g;
    g.info.index = i;
    g.info.name = "NVIDIA A100-SXM4-40GB";
    g.info.vbios = "92.00.36.00.04";
    g.info.pci_bus_id = i ? "00000000:35:00.0" : "00000000:2F:00.0";
    f.gpus.push_back(g);
  }
  return f;
}

TEST(AttachmentsTest, FirmwareWithNvmlAndBiosIsReadAndLeavesTheMeVersionToAPerson) {
  AcceptInputs in;
  in.nvml = two_a100s();
  in.attachments = {attach("firmware.versions", "dmidecode-bios-coreboot.txt")};
  Finding c = judged(in, "firmware.versions");
  EXPECT_EQ(c.severity, Severity::kWarn) << dump(c);
  EXPECT_TRUE(says(c, "accept.firmware.me_and_update_path")) << dump(c);
  EXPECT_TRUE(
      says(c, "accept.firmware.read", {{"version", "CBET4000 4.21-237-ga4c74578ecd4-dirty"}, {"date", "09/11/2023"}}))
      << dump(c);
}

TEST(AttachmentsTest, MixedVbiosOnIdenticalGpusWarnsNamingThem) {
  AcceptInputs in;
  in.nvml = two_a100s();
  in.attachments = {attach("firmware.versions", "ipmitool-mc-info-dell.txt"),
                    attach("firmware.versions", "nvidia-smi-q-a100-mixed-vbios.txt")};
  Finding c = judged(in, "firmware.versions");
  EXPECT_EQ(c.severity, Severity::kWarn) << dump(c);
  const Phrase* differ = nullptr;
  for (const Phrase& p : c.notes)
    if (p.key == "accept.firmware.vbios_differ") differ = &p;
  ASSERT_NE(differ, nullptr) << dump(c);
  EXPECT_EQ(gpuplan::testing::english(*differ),
            "NVIDIA A100-SXM4-40GB GPUs carry different VBIOS versions (92.00.36.00.04 (00000000:2F:00.0), "
            "92.00.45.00.03 (00000000:35:00.0)): ask the vendor why");
  // Chinese brackets around the GPUs, not ASCII ones.
  EXPECT_EQ(gpuplan::testing::zh(*differ),
            "NVIDIA A100-SXM4-40GB GPU 的 VBIOS 版本不一致（92.00.36.00.04（00000000:2F:00.0）、"
            "92.00.45.00.03（00000000:35:00.0））：请向厂商问明原因");
}

TEST(AttachmentsTest, UnreadableEmptyOrVbiosOnlyFirmwareFilesNeedEvidence) {
  AcceptInputs in;
  in.nvml = two_a100s();
  in.attachments = {attach("firmware.versions", "sminfo-master.txt")};
  Finding foreign = judged(in, "firmware.versions");
  EXPECT_EQ(foreign.severity, Severity::kNeedsEvidence) << dump(foreign);
  EXPECT_TRUE(says(foreign, "accept.attach.not_understood",
                   {{"file", "sminfo-master.txt"}, {"forms", "ipmitool mc info, dmidecode -t bios, nvidia-smi -q"}}))
      << dump(foreign);
  in.attachments = {attach("firmware.versions", "empty.txt")};
  EXPECT_EQ(judged(in, "firmware.versions").severity, Severity::kNeedsEvidence);
  // VBIOS alone: the BMC and BIOS are still unseen.
  in.attachments = {attach("firmware.versions", "nvidia-smi-q-a100-2gpu.txt")};
  Finding vbios = judged(in, "firmware.versions");
  EXPECT_EQ(vbios.severity, Severity::kNeedsEvidence) << dump(vbios);
  EXPECT_TRUE(says(vbios, "accept.firmware.needs_attachment")) << dump(vbios);
  // A good file next to an unreadable one still does not pass.
  in.attachments = {attach("firmware.versions", "ipmitool-mc-info-dell.txt"), attach("firmware.versions", "empty.txt")};
  EXPECT_EQ(judged(in, "firmware.versions").severity, Severity::kNeedsEvidence);
}

// --- attachments a person judges -----------------------------------------------------------------

TEST(AttachmentsTest, OtherChecksSayTheirAttachmentIsForAPerson) {
  AcceptInputs in;
  in.attachments = {attach("soak", "nvidia-smi-q-a100-2gpu.txt"), attach("performance", "empty.txt")};
  Finding soak = judged(in, "soak");
  EXPECT_EQ(soak.severity, Severity::kNeedsEvidence) << dump(soak);
  EXPECT_TRUE(says(soak, "accept.attach.for_a_person", {{"file", "nvidia-smi-q-a100-2gpu.txt"}})) << dump(soak);
  Finding perf = judged(in, "performance");
  EXPECT_NE(perf.severity, Severity::kPass) << dump(perf);
  EXPECT_TRUE(says(perf, "accept.attach.empty", {{"file", "empty.txt"}})) << dump(perf);
}

// --- versions: NCCL against the matrix ------------------------------------------------------------

TEST(AttachmentsTest, NcclBelowTheMatrixMinimumFails) {
  AcceptInputs in;
  in.nvml = two_a100s();
  in.nvml->driver_version = "535.129.03";
  in.versions["cuda"] = "12.1";
  in.versions["nccl"] = "1.0";
  Finding old = judged(in, "versions");
  EXPECT_EQ(old.severity, Severity::kFail) << dump(old);
  EXPECT_TRUE(says(old, "software.matrix/below_min", {{"component", "nccl"}, {"version", "1.0"}, {"min", "2.7.3"}}))
      << dump(old);
  EXPECT_FALSE(says(old, "accept.versions.ok")) << dump(old);
  in.versions["nccl"] = "2.18.3";
  Finding current = judged(in, "versions");
  EXPECT_EQ(current.severity, Severity::kPass) << dump(current);
  EXPECT_TRUE(says(current, "accept.versions.ok")) << dump(current);
}

// --- ecc from an attached nvidia-smi -q (issue 26) ----------------------------------------------

TEST(AttachmentsTest, RowRemappingInAnAttachedNvidiaSmiQIsJudgedWithoutNvml) {
  // stas00/ml-engineering's A100-SXM4-80GB: DRAM Correctable 177 (volatile and aggregate),
  // Remapped Rows Correctable 1, Pending Yes; Retired Pages N/A. Without NVML this was
  // needs-evidence and the pending remap went unreported: now warn, naming both.
  const auto health = probe::read_memory_health(text_of("nvidia-smi-q-a100-remap-pending.txt"));
  ASSERT_EQ(health.size(), 1u);
  EXPECT_EQ(health[0].bus_id, "00000000:10:1C.0");
  EXPECT_EQ(health[0].volatile_corrected, 177u);   // SRAM 0 + DRAM 177
  EXPECT_EQ(health[0].aggregate_uncorrected, 0u);
  EXPECT_EQ(health[0].rows_correctable, 1u);
  EXPECT_EQ(health[0].remap_pending, true);
  EXPECT_EQ(health[0].remap_failed, false);
  EXPECT_FALSE(health[0].retired_sbe.has_value());  // "N/A"
  AcceptInputs in;
  in.attachments = {attach("ecc", "nvidia-smi-q-a100-remap-pending.txt")};
  Finding c = judged(in, "ecc");
  EXPECT_EQ(c.severity, Severity::kWarn) << dump(c);
  const std::string gpu = "nvidia-smi-q-a100-remap-pending.txt: GPU 00000000:10:1C.0";
  EXPECT_TRUE(says(c, "accept.ecc.remap_pending", {{"gpu", gpu}})) << dump(c);
  EXPECT_TRUE(says(c, "accept.ecc.corrected", {{"gpu", gpu}, {"count", "177"}})) << dump(c);
  EXPECT_TRUE(says(c, "accept.ecc.from_attachment", {{"gpus", "1"}})) << dump(c);
}

TEST(AttachmentsTest, UncorrectableRemappedRowsPendingOnAnA10Warn) {
  // gpud's A10 capture: Remapped Rows Uncorrectable Error 4, Pending Yes, no failure: the rows
  // take effect at the next reset (warn), the ECC counters are 0.
  const auto health = probe::read_memory_health(text_of("nvidia-smi-q-a10-remap-uncorrectable.txt"));
  ASSERT_EQ(health.size(), 1u);
  EXPECT_EQ(health[0].rows_uncorrectable, 4u);
  EXPECT_EQ(health[0].volatile_uncorrected, 0u);
  AcceptInputs in;
  in.attachments = {attach("ecc", "nvidia-smi-q-a10-remap-uncorrectable.txt")};
  Finding c = judged(in, "ecc");
  EXPECT_EQ(c.severity, Severity::kWarn) << dump(c);
  EXPECT_TRUE(says(c, "accept.ecc.remap_pending")) << dump(c);
  // An nvidia-smi -q without those sections is no ECC evidence: still needs NVML.
  in.attachments = {attach("ecc", "nvidia-smi-q-a100-2gpu.txt")};
  Finding unread = judged(in, "ecc");
  EXPECT_EQ(unread.severity, Severity::kNeedsEvidence) << dump(unread);
  EXPECT_TRUE(says(unread, "accept.ecc.attachment_unread")) << dump(unread);
}

// --- the binary -----------------------------------------------------------------------------------

std::map<std::string, std::string> statuses_of(const std::string& out) {
  std::map<std::string, std::string> s;
  const nlohmann::json report = nlohmann::json::parse(out);
  for (const auto& c : report.at("checks")) s[c.at("id").get<std::string>()] = c.at("status").get<std::string>();
  EXPECT_EQ(s.size(), 15u) << out;  // every check, so a missing one cannot pass for "not pass"
  return s;
}

TEST(AttachmentsTest, CliEmptyInfinibandAttachmentAndOldNcclDoNotPass) {
  const std::string host = source_path("tests/fixtures/hosts/hgx-a100-8gpu");
  auto empty = run_gpuplan("accept --root " + host + " --attach infiniband=" + fixture("empty.txt") +
                           " --format json --lang en");
  ASSERT_FALSE(empty.out.empty()) << empty.err;
  EXPECT_NE(statuses_of(empty.out)["infiniband"], "pass") << empty.out;
  EXPECT_NE(empty.out.find("is attached but empty"), std::string::npos) << empty.out;
  // The subnet manager (sminfo) and adaptive routing (ibdiagnet --routing), each from its tool.
  auto read = run_gpuplan("accept --root " + host + " --attach infiniband=" + fixture("sminfo-master.txt") +
                          " --attach infiniband=" + fixture("ibdiagnet-ar-summary.txt") + " --format json --lang en");
  EXPECT_EQ(statuses_of(read.out)["infiniband"], "pass") << read.out;
  auto nccl = run_gpuplan("accept --root " + host + " --cuda 12.1 --nccl 1.0 --format json --lang en");
  EXPECT_EQ(statuses_of(nccl.out)["versions"], "fail") << nccl.out;
  EXPECT_EQ(nccl.exit_code, 1) << nccl.err;
}

}  // namespace
}  // namespace gpuplan::accept
