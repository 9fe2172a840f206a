// `accept --contract` (issue 13, item 3): the delivered server against the quote it was bought
// on. The contract is examples/vendor-quote-clean.yaml with its typed terms set here (the terms
// parser is another part of the issue); the host is built in C++ as probe_inventory would fill
// it: the clean delivery matches the quote line by line, the swapped one has 12 DIMMs, a 1.92 TB
// NVMe in place of a 3.84 TB one and an Intel X710 for the ConnectX-6 Lx.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "accept/accept.h"
#include "accept/log_summary.h"
#include "core/files.h"
#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using testing::default_catalog;
using testing::english;
using testing::run_gpuplan;
using testing::source_path;

// Sectors × 512 by the IDEMA LBA count for N GB: 97,696,368 + 1,953,504 × (N − 50).
// 3,840 GB: 97,696,368 + 1,953,504 × 3,790 = 7,501,476,528 sectors = 3,840,755,982,336 bytes.
constexpr double k384Bytes = 7'501'476'528.0 * 512;
// 1,920 GB: 97,696,368 + 1,953,504 × 1,870 = 3,750,748,848 sectors = 1,920,383,410,176 bytes.
constexpr double k192Bytes = 3'750'748'848.0 * 512;

plan::VendorQuote clean_contract() {
  auto text = read_text_file(source_path("examples/vendor-quote-clean.yaml"));
  EXPECT_TRUE(text);
  auto q = plan::parse_vendor_quote(*text, "vendor-quote-clean.yaml", default_catalog());
  EXPECT_TRUE(q) << (q ? "" : english(q.error().phrase()));
  plan::ContractTerms& t = q->terms;
  t.driver = "535.104.05";
  t.written["driver"] = {"535.104.05", 25};
  t.cuda = "12.1";
  t.written["cuda"] = {"12.1", 26};
  t.rack = plan::RackTerm{32, 220};
  t.written["rack"] = {"32 A at 220 V", 29};
  t.performance = plan::PerformanceTerm{"resnet50-train", 256, 2000};
  t.written["performance"] = {">= 2,000 images/s per GPU", 32};
  return *q;
}

probe::PciDevice gpu_at(int bus, uint16_t device = 0x20b2) {
  probe::PciDevice d;
  d.address = fmt::format("0000:{:02x}:00.0", bus);
  d.vendor = 0x10de;
  d.device = device;
  d.class_code = 0x030200;
  d.kind = probe::PciKind::kGpu;
  return d;
}

probe::NetInterface nic(const std::string& name, const std::string& pci, const std::string& id, int mbps) {
  probe::NetInterface n;
  n.name = name;
  n.pci_address = pci;
  n.vendor_device = id;
  n.speed_mbps = mbps;
  n.operstate = "up";
  return n;
}

probe::BlockDevice nvme(int i, double bytes, const std::string& model = "SAMSUNG MZWLJ3T8HBLS-00007") {
  probe::BlockDevice d;
  d.name = "nvme" + std::to_string(i) + "n1";
  d.transport = "nvme";
  d.model = model;
  d.size_bytes = bytes;
  return d;
}

// The host the clean quote describes: 8 × A100 SXM4 80GB, 2 × EPYC 7763, 16 × 64 GiB, 4 × 3.84 TB
// NVMe, 2 × dual-port ConnectX-6 Lx at 25 Gb/s.
probe::HostFacts clean_host() {
  probe::HostFacts h;
  h.hostname = "delivered-a100";
  for (int bus : {0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd}) h.pci.devices.push_back(gpu_at(bus));
  h.inventory.cpu = {"AMD EPYC 7763 64-Core Processor", 2, 256};
  h.inventory.memory.total_gib = 1007.5;
  h.inventory.memory.dimm_source = "edac";
  for (int i = 0; i < 16; ++i)
    h.inventory.memory.dimms.push_back({"mc" + std::to_string(i / 8) + "/dimm" + std::to_string(i % 8), 64, "DDR4",
                                        3200, "",
                                        fmt::format("/sys/devices/system/edac/mc/mc{}/dimm{}", i / 8, i % 8)});
  for (int i = 0; i < 4; ++i) h.inventory.disks.push_back(nvme(i, k384Bytes));
  h.inventory.nics = {
      nic("ens1f0", "0000:31:00.0", "15b3:101f", 25000), nic("ens1f1", "0000:31:00.1", "15b3:101f", 25000),
      nic("ens2f0", "0000:b1:00.0", "15b3:101f", 25000), nic("ens2f1", "0000:b1:00.1", "15b3:101f", 25000)};
  return h;
}

LogSummary soak_with_peak(double watts) {
  LogSummary s;
  s.file = "soak.csv";
  s.peak_power = PowerPeak{watts, 8, 0};
  return s;
}

AcceptInputs delivered(probe::HostFacts facts, std::optional<LogSummary> soak = soak_with_peak(3200)) {
  AcceptInputs in;
  in.facts = std::move(facts);
  in.contract = clean_contract();
  in.soak = std::move(soak);
  return in;
}

Finding delivery(const AcceptInputs& in) {
  for (const auto& c : run_acceptance(in, default_catalog()).checks)
    if (c.id == "contract.delivery") return c;
  ADD_FAILURE() << "no contract.delivery";
  return {};
}

std::vector<std::string> notes_en(const Finding& c) {
  std::vector<std::string> out;
  for (const auto& n : c.notes) out.push_back(english(n));
  return out;
}

std::string all_evidence(const Finding& c) {
  std::string out;
  for (const auto& e : c.evidence) out += english(e) + "\n";
  return out;
}

TEST(ContractDelivery, MatchingServerPassesLineByLine) {
  const Finding c = delivery(delivered(clean_host()));
  EXPECT_EQ(c.severity, Severity::kPass);
  // Rack: 32 A × 220 V × 80% = 5,632 W; the soak's GPU peak 3,200 W is within it.
  EXPECT_EQ(
      notes_en(c),
      (std::vector<std::string>{
          "\"NVIDIA A100 80GB SXM4\" × 8 (vendor-quote-clean.yaml:10): delivered 8 × a100-80gb-sxm",
          "\"AMD EPYC 7763\" × 2 (vendor-quote-clean.yaml:12): delivered 2 × \"AMD EPYC 7763 64-Core Processor\"",
          "\"64 GB DDR4-3200 RDIMM\" × 16 (vendor-quote-clean.yaml:13): delivered 16 × 64 GiB DIMMs, 1,024 GiB "
          "installed (from EDAC in sysfs)",
          "\"3.84 TB U.2 NVMe\" × 4 (vendor-quote-clean.yaml:14): delivered 4 × nvme of 3.84 TB",
          // The ids found on the host, not the part's list of accepted ones.
          "\"Dual-port 25GbE adapter\" × 2 (vendor-quote-clean.yaml:15): delivered 4 port(s) on 2 card(s) of "
          "15b3:101f",
          "Peak power 3,200 W (the 8 GPUs together at 1970-01-01 00:00:00, soak log) is within the rack circuit "
          "\"32 A at 220 V\" (vendor-quote-clean.yaml:29): 32 A × 220 V × 80.0% for continuous load = 5,632 W; GPU "
          "power only: the CPUs, fans and disks add to it"}));
  const std::string ev = all_evidence(c);
  EXPECT_NE(ev.find("contract: vendor-quote-clean.yaml"), std::string::npos) << ev;
  EXPECT_NE(ev.find("/sys/bus/pci/devices/0000:07:00.0: 10de:20b2 (a100-80gb-sxm)"), std::string::npos) << ev;
  EXPECT_NE(ev.find("/proc/cpuinfo: model name \"AMD EPYC 7763 64-Core Processor\", 2 physical package(s), 256 "
                    "logical processor(s)"),
            std::string::npos)
      << ev;
  EXPECT_NE(ev.find("/proc/meminfo: MemTotal 1,007.5 GiB"), std::string::npos) << ev;
  EXPECT_NE(ev.find("/sys/devices/system/edac/mc/mc1/dimm7: 64 GiB DDR4"), std::string::npos) << ev;
  // 3,840,755,982,336 bytes / 1e12 = 3.84 TB.
  EXPECT_NE(ev.find("/sys/block/nvme3n1: nvme, model SAMSUNG MZWLJ3T8HBLS-00007, 3,840,755,982,336 bytes (3.84 TB)"),
            std::string::npos)
      << ev;
  EXPECT_NE(ev.find("/sys/class/net/ens2f1: 15b3:101f at 0000:b1:00.1, 25,000 Mb/s, link up"), std::string::npos) << ev;
  EXPECT_NE(ev.find("soak.csv: peak 3,200 W, the 8 GPUs together at 1970-01-01 00:00:00"), std::string::npos) << ev;
}

TEST(ContractDelivery, SwappedPartsEachFailNamingTheLineAndTheEvidence) {
  probe::HostFacts h = clean_host();
  h.inventory.memory.dimms.resize(12);
  h.inventory.disks[2] = nvme(2, k192Bytes, "SAMSUNG MZWLJ1T9HBJR-00007");
  h.inventory.nics = {
      nic("ens1f0", "0000:31:00.0", "8086:1572", 10000), nic("ens1f1", "0000:31:00.1", "8086:1572", 10000),
      nic("ens2f0", "0000:b1:00.0", "8086:1572", 10000), nic("ens2f1", "0000:b1:00.1", "8086:1572", 10000)};
  const Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kFail);
  const auto notes = notes_en(c);
  ASSERT_EQ(notes.size(), 6u);
  // 12 × 64 GiB = 768 GiB against 16 × 64 = 1,024 contracted.
  EXPECT_EQ(
      notes[2],
      "\"64 GB DDR4-3200 RDIMM\" × 16 (vendor-quote-clean.yaml:13): delivered 12 × 64 GiB DIMMs, 768 GiB installed "
      "(from EDAC in sysfs), below the contract: the vendor delivers the contracted part");
  // 1,920,383,410,176 bytes = 1.92 TB, 50% under 3.84 TB: far outside the 2% tolerance.
  EXPECT_EQ(
      notes[3],
      "\"3.84 TB U.2 NVMe\" × 4 (vendor-quote-clean.yaml:14): delivered 3 × nvme of 3.84 TB, nvme2n1 "
      "(SAMSUNG MZWLJ1T9HBJR-00007) of 1.92 TB, smaller, below the contract: the vendor delivers the contracted part");
  // X710 is the catalog's eth-10g-dual: 10 Gb/s < 25 Gb/s. No port of an accepted id: the note
  // names the ids the part allows, and each port delivered in their place.
  EXPECT_EQ(notes[4].substr(0, notes[4].find(" ens1f1")),
            "\"Dual-port 25GbE adapter\" × 2 (vendor-quote-clean.yaml:15): delivered no port of an id the part allows "
            "(15b3:1015, 15b3:1017, 15b3:101f, 8086:159b, 14e4:16d7), ens1f0 (8086:1572, 10,000 Mb/s) in its place,");
  EXPECT_NE(notes[4].find("below the contract"), std::string::npos);
  EXPECT_NE(all_evidence(c).find("/sys/class/net/ens1f0: 8086:1572 at 0000:31:00.0, 10,000 Mb/s, link up"),
            std::string::npos);
  EXPECT_NE(all_evidence(c).find("/sys/block/nvme2n1: nvme, model SAMSUNG MZWLJ1T9HBJR-00007, 1,920,383,410,176 bytes"),
            std::string::npos);
  // The unchanged lines still pass.
  EXPECT_NE(notes[0].find("delivered 8 × a100-80gb-sxm"), std::string::npos);
  EXPECT_EQ(notes[0].find("below"), std::string::npos);
}

TEST(ContractDelivery, AFortyGigabyteA100ForAnEightyFails) {
  // 10de:20b0 is pci.ids' "GA100 [A100 SXM4 40GB]", catalogued as a100-40gb-sxm: 40 GB is less
  // than the contract's 80 GB, so the catalog ranks it below the contracted part.
  probe::HostFacts h = clean_host();
  h.pci.devices[7] = gpu_at(0xbd, 0x20b0);
  Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_EQ(
      notes_en(c)[0],
      "\"NVIDIA A100 80GB SXM4\" × 8 (vendor-quote-clean.yaml:10): delivered 1 × a100-40gb-sxm, 7 × a100-80gb-sxm, "
      "below the contract: the vendor delivers the contracted part");
}

TEST(ContractDelivery, FewerGpusFailAModelTheCatalogDoesNotListWarns) {
  probe::HostFacts h = clean_host();
  h.pci.devices[7] = gpu_at(0xbd, 0x1db5);  // 10de:1db5 (pci.ids "Tesla V100 SXM2 32GB"): not in the catalog
  Finding c = delivery(delivered(h));
  // The catalog cannot rank it (as for a CPU it does not list): a person compares, it does not fail.
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_EQ(notes_en(c)[0],
            "\"NVIDIA A100 80GB SXM4\" × 8 (vendor-quote-clean.yaml:10): delivered 1 × 10de:1db5, 7 × a100-80gb-sxm, "
            "a part the catalog cannot rank: a person compares it with the contract");
  // Seven GPUs for eight: fewer, whatever their model.
  h.pci.devices.pop_back();
  c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_EQ(notes_en(c)[0],
            "\"NVIDIA A100 80GB SXM4\" × 8 (vendor-quote-clean.yaml:10): delivered 7 × a100-80gb-sxm, below the "
            "contract: the vendor delivers the contracted part");
}

TEST(ContractDelivery, CpuModelAndSocketsAgainstTheLine) {
  probe::HostFacts h = clean_host();
  // EPYC 7453: 28 cores against the contract's 64-core 7763, ranked lower by the catalog.
  h.inventory.cpu = {"AMD EPYC 7453 28-Core Processor", 2, 112};
  Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_EQ(notes_en(c)[1],
            "\"AMD EPYC 7763\" × 2 (vendor-quote-clean.yaml:12): delivered 2 × \"AMD EPYC 7453 28-Core Processor\", "
            "below the contract: the vendor delivers the contracted part");
  // A model the catalog does not know: a person compares it.
  h.inventory.cpu = {"AMD EPYC 9654 96-Core Processor", 2, 384};
  c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_NE(notes_en(c)[1].find("a part the catalog cannot rank"), std::string::npos);
  // The right model on one socket: fewer than the line's 2.
  h.inventory.cpu = {"AMD EPYC 7763 64-Core Processor", 1, 128};
  EXPECT_EQ(delivery(delivered(h)).severity, Severity::kFail);
}

TEST(ContractDelivery, InfinibandPortsAndRates) {
  AcceptInputs in = delivered(clean_host());
  in.contract->lines.push_back({"HDR 200G HCA", "ib-hdr-200g", 2, {}, false, false, 40, false, ""});
  // No InfiniBand port read: needs evidence for that line.
  Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  EXPECT_NE(notes_en(c)[5].find("no InfiniBand port was read from /sys/class/infiniband"), std::string::npos);
  probe::IbPort port{"mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand", "0000:4b:00.0"};
  in.facts->ib_ports = {port, port};
  in.facts->ib_ports[1].device = "mlx5_1";
  EXPECT_EQ(delivery(in).severity, Severity::kPass);
  // One port linked at EDR 100 Gb/s: the part is there, the link is slow.
  in.facts->ib_ports[1].rate = "100 Gb/sec (4X EDR)";
  c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_EQ(notes_en(c)[5],
            "\"HDR 200G HCA\" × 2 (vendor-quote-clean.yaml:40): 2 InfiniBand port(s) (1 below 200 Gb/s, 0 without "
            "link), slower than the part: check the cable, transceiver and switch port");
  // One HCA for two: fewer ports than the contract.
  in.facts->ib_ports.resize(1);
  EXPECT_EQ(delivery(in).severity, Severity::kFail);
}

TEST(ContractDelivery, ExtraOrLargerPartsWarn) {
  probe::HostFacts h = clean_host();
  h.inventory.disks.push_back(nvme(4, k384Bytes));
  // 8 × 128 GiB = 1,024 GiB: as much memory as 16 × 64 GiB, in another layout.
  h.inventory.memory.dimms.resize(8);
  for (auto& d : h.inventory.memory.dimms) d.size_gb = 128;
  const Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kWarn);
  const auto notes = notes_en(c);
  EXPECT_EQ(
      notes[2],
      "\"64 GB DDR4-3200 RDIMM\" × 16 (vendor-quote-clean.yaml:13): delivered 8 × 128 GiB DIMMs, 1,024 GiB "
      "installed (from EDAC in sysfs), not the contract's part but no less: confirm the change was agreed in writing");
  EXPECT_EQ(notes[5],
            "nvme4n1 (SAMSUNG MZWLJ3T8HBLS-00007, 3.84 TB) is on no line of the contract: an extra part, confirm it "
            "was agreed");
}

TEST(ContractDelivery, EmptyInventoryNeedsEvidenceNamingWhatSettlesIt) {
  probe::HostFacts h = clean_host();
  h.inventory = {};
  const Finding c = delivery(delivered(h, std::nullopt));
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  const auto notes = notes_en(c);
  ASSERT_EQ(notes.size(), 6u);
  EXPECT_NE(notes[1].find("/proc/cpuinfo showed no model name"), std::string::npos) << notes[1];
  EXPECT_NE(notes[2].find("--attach contract.delivery=dmidecode-memory.txt"), std::string::npos) << notes[2];
  EXPECT_NE(notes[3].find("/sys/block"), std::string::npos);
  EXPECT_NE(notes[4].find("/sys/class/net"), std::string::npos);
  EXPECT_NE(notes[5].find("pass --soak FILE"), std::string::npos) << notes[5];
}

TEST(ContractDelivery, PeakPowerAboveTheRackCircuitFails) {
  // 32 A × 220 V × 0.8 = 5,632 W; 5,700 W of GPU power alone is above it.
  Finding c = delivery(delivered(clean_host(), soak_with_peak(5700)));
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_NE(notes_en(c).back().find("Peak power 5,700 W"), std::string::npos);
  EXPECT_NE(notes_en(c).back().find("exceeds the rack circuit \"32 A at 220 V\""), std::string::npos);
  // At 5,632 W exactly the circuit carries it.
  EXPECT_EQ(delivery(delivered(clean_host(), soak_with_peak(5632))).severity, Severity::kPass);
  // No rack term (the audit's contract.rack_current fails it): the parts decide, a note says so.
  AcceptInputs in = delivered(clean_host());
  in.contract->terms.rack.reset();
  in.contract->terms.written.erase("rack");
  c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kPass);
  EXPECT_NE(notes_en(c).back().find("the contract's rack circuit (not written)"), std::string::npos);
}

TEST(ContractDelivery, DuplicateGpuSerialsFail) {
  AcceptInputs in = delivered(clean_host());
  in.nvml = nvml::NvmlFacts{};
  for (unsigned i = 0; i < 3; ++i) {
    nvml::GpuFacts g;
    g.info.index = i;
    g.info.name = "NVIDIA A100-SXM4-80GB";
    g.info.pci_bus_id = fmt::format("00000000:{:02X}:00.0", 7 + i);
    g.info.serial = i == 2 ? "1564720004631" : "156472000463" + std::to_string(i);
    in.nvml->gpus.push_back(g);
  }
  const Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_NE(std::find(c.notes.begin(), c.notes.end(),
                      Phrase("accept.delivery.duplicate_serial")
                          .fact("serial", "1564720004631")
                          .fact(list_of("gpus", {"GPU 1 (00000000:08:00.0)", "GPU 2 (00000000:09:00.0)"}))),
            c.notes.end());
}

TEST(ContractDelivery, LinkDownNeedsEvidenceSlowLinkWarns) {
  probe::HostFacts h = clean_host();
  h.inventory.nics[1].speed_mbps.reset();
  h.inventory.nics[1].operstate = "down";
  EXPECT_EQ(delivery(delivered(h)).severity, Severity::kNeedsEvidence);
  h.inventory.nics[1] = nic("ens1f1", "0000:31:00.1", "15b3:101f", 10000);
  const Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_NE(notes_en(c)[5].find("ens1f1 (15b3:101f) linked at 10,000 Mb/s, slower than the part"), std::string::npos);
}

// `dmidecode -t memory` attached to contract.delivery, read as request.cpp reads it.
Attachment dmidecode_attachment(const std::string& fixture) {
  Attachment a;
  a.check = "contract.delivery";
  a.file = fixture;
  auto text = read_text_file(source_path("tests/fixtures/tools/" + fixture));
  EXPECT_TRUE(text);
  auto dimms = probe::parse_dmidecode_memory(*text);
  EXPECT_TRUE(dimms) << (dimms ? "" : english(dimms.error().phrase()));
  a.dimms = *dimms;
  return a;
}

TEST(ContractDelivery, AttachedDmidecodeCountsTheDimmsWhenEdacListsNone) {
  // An AMD host: amd64_edac lists ranks, so the inventory has no DIMM list.
  probe::HostFacts h = clean_host();
  h.inventory.memory.dimms.clear();
  h.inventory.memory.dimm_source = "";
  AcceptInputs in = delivered(h);
  in.attachments.push_back(dmidecode_attachment("dmidecode-memory-16dimm-ddr4-3200.txt"));
  const Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kPass);
  // The fixture: 32 slots, slot 1 of each of 16 channels a 64 GB module, slot 2 empty.
  EXPECT_EQ(notes_en(c)[2],
            "\"64 GB DDR4-3200 RDIMM\" × 16 (vendor-quote-clean.yaml:13): delivered 16 × 64 GiB DIMMs, 1,024 GiB "
            "installed (from dmidecode -t memory in dmidecode-memory-16dimm-ddr4-3200.txt)");
  const std::string ev = all_evidence(c);
  EXPECT_NE(ev.find("dmidecode-memory-16dimm-ddr4-3200.txt: slot P1-DIMMA1: 64 GiB DDR4, part number "
                    "M393A8G40AB2-CWE"),
            std::string::npos)
      << ev;
  // Read by its check: no "a person must judge it" note.
  for (const auto& n : notes_en(c)) EXPECT_EQ(n.find("a person must judge"), std::string::npos) << n;
}

TEST(ContractDelivery, EdacAndDmidecodeDisagreeingWarnAndNeitherWins) {
  probe::HostFacts h = clean_host();
  h.inventory.memory.dimms.resize(12);  // EDAC: 12 × 64 GiB; dmidecode: 16 × 64 GiB
  AcceptInputs in = delivered(h);
  in.attachments.push_back(dmidecode_attachment("dmidecode-memory-16dimm-ddr4-3200.txt"));
  Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_EQ(notes_en(c)[2],
            "\"64 GB DDR4-3200 RDIMM\" × 16 (vendor-quote-clean.yaml:13): the two DIMM lists disagree: 12 × 64 GiB "
            "DIMMs, 768 GiB installed (from EDAC in sysfs); 16 × 64 GiB DIMMs, 1,024 GiB installed (from dmidecode -t "
            "memory in dmidecode-memory-16dimm-ddr4-3200.txt). Neither is taken over the other: check the slots in the "
            "BIOS setup or on the board, then fix the file or the memory");
  // Both below the contract (12 × 64 GiB; the EPYC capture's 8 × 8 GiB = 64 GiB): a failure either way.
  in.attachments = {dmidecode_attachment("dmidecode-memory-supermicro-epyc.txt")};
  c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_NE(notes_en(c)[2].find("the two DIMM lists disagree, and both are below the contract: 12 × 64 GiB DIMMs, "
                                "768 GiB installed (from EDAC in sysfs); 8 × 8 GiB DIMMs, 64 GiB installed"),
            std::string::npos)
      << notes_en(c)[2];
  // The same modules in both lists: one note, from EDAC.
  in = delivered(clean_host());
  in.attachments.push_back(dmidecode_attachment("dmidecode-memory-16dimm-ddr4-3200.txt"));
  EXPECT_EQ(delivery(in).severity, Severity::kPass);
}

TEST(ContractDelivery, EvidenceNamesTheSysfsPathBesideTheBoardLabel) {
  probe::HostFacts h = clean_host();
  h.inventory.memory.dimms[0].locator = "P0_Node0_Channel0_Dimm0 P1-DIMMA1";  // the driver's dimm_label
  const std::string ev = all_evidence(delivery(delivered(h)));
  EXPECT_NE(ev.find("/sys/devices/system/edac/mc/mc0/dimm0 (labelled P0_Node0_Channel0_Dimm0 P1-DIMMA1): 64 GiB DDR4"),
            std::string::npos)
      << ev;
  EXPECT_NE(ev.find("/sys/devices/system/edac/mc/mc0/dimm1: 64 GiB DDR4\n"), std::string::npos) << ev;
}

TEST(ContractDelivery, ChineseReportIsWordedInChinese) {
  probe::HostFacts h = clean_host();
  h.inventory.nics[0] = nic("ens1f0", "0000:31:00.0", "8086:1572", 10000);
  const Finding c = delivery(delivered(h));
  std::string all;
  for (const auto& n : c.notes) all += testing::zh(n) + "\n";
  for (const auto& e : c.evidence) all += testing::zh(e) + "\n";
  EXPECT_NE(all.find("交付 2 块网卡（15b3:101f）上的 3 个端口"), std::string::npos) << all;
  EXPECT_NE(
      all.find("/proc/cpuinfo：型号“AMD EPYC 7763 64-Core Processor”，2 个物理封装（CPU 插槽），256 个逻辑处理器"),
      std::string::npos)
      << all;
  EXPECT_NE(all.find("/sys/class/net/ens1f0：8086:1572，PCI 地址 0000:31:00.0，10,000 Mb/s，链路状态 up"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("soak.csv：峰值 3,200 W，8 块 GPU 合计"), std::string::npos) << all;
  // No English word of the evidence left in it.
  for (const char* word : {"bytes", "model", "physical package", "serial", "over", "link", "logical"})
    EXPECT_EQ(all.find(word), std::string::npos) << word << "\n" << all;
}

TEST(ContractDelivery, OnlyWithAContract) {
  AcceptInputs in = delivered(clean_host());
  const AcceptReport with = run_acceptance(in, default_catalog());
  ASSERT_EQ(with.checks.size(), 16u);
  EXPECT_EQ(with.checks.back().id, "contract.delivery");
  in.contract.reset();
  const AcceptReport without = run_acceptance(in, default_catalog());
  EXPECT_EQ(without.checks.size(), 15u);
  EXPECT_EQ(without.checks.back().id, "gpu.count");
}

TEST(ContractDelivery, PerformanceTakesTheContractsClause) {
  AcceptInputs in = delivered(clean_host());
  in.benchmark = BenchmarkFigure{};
  in.benchmark->images_per_s = 1900;
  in.benchmark->scope = BenchmarkScope::kPerGpu;
  in.benchmark->line = 3;
  in.benchmark->text = "total images/sec: 1900 per GPU";
  // The output says it ran the clause's benchmark (the contract names no batch).
  in.benchmark->model = Stated<std::string>{"resnet50", 1};
  in.benchmark->mode = Stated<BenchmarkMode>{BenchmarkMode::kTraining, 1};
  in.benchmark->batch = StatedBatch{256, false, 2};
  // 1,900 ≥ the catalog's 1,850 but < the contract's 2,000.
  auto perf = [&](const AcceptInputs& x) {
    for (const auto& c : run_acceptance(x, default_catalog()).checks)
      if (c.id == "performance") return c;
    return Finding{};
  };
  Finding c = perf(in);
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_EQ(english(c.notes.back()),
            "the minimum 2,000 images/s per GPU is the contract's (vendor-quote-clean.yaml:32: \">= 2,000 images/s per "
            "GPU\"), in place of the catalog's default");
  in.contract.reset();
  EXPECT_EQ(perf(in).severity, Severity::kPass);
}

Finding versions_of(const AcceptInputs& in) {
  for (const auto& c : run_acceptance(in, default_catalog()).checks)
    if (c.id == "versions") return c;
  return {};
}

TEST(ContractDelivery, VersionsJudgedAgainstTheContractsDriverAndCuda) {
  AcceptInputs in = delivered(clean_host());
  in.facts->driver = probe::DriverVersion{"535.54.03", "NVRM version: 535.54.03"};
  Finding c = versions_of(in);
  EXPECT_EQ(c.severity, Severity::kFail);  // 535.54.03 < 535.104.05
  EXPECT_NE(std::find_if(c.notes.begin(), c.notes.end(),
                         [](const Phrase& p) { return p.key == "accept.versions.contract_driver_older"; }),
            c.notes.end());
  // The contract's CUDA 12.1 is judged as declared, quoted from its line.
  EXPECT_NE(all_evidence(c).find("cuda 12.1 (the contract (vendor-quote-clean.yaml:26: \"12.1\"))"), std::string::npos)
      << all_evidence(c);
  in.facts->driver = probe::DriverVersion{"535.104.05", "NVRM version: 535.104.05"};
  c = versions_of(in);
  EXPECT_NE(std::find_if(c.notes.begin(), c.notes.end(),
                         [](const Phrase& p) { return p.key == "accept.versions.contract_driver_same"; }),
            c.notes.end());
  in.facts->driver = probe::DriverVersion{"535.129.03", "NVRM version: 535.129.03"};
  c = versions_of(in);
  EXPECT_NE(c.severity, Severity::kFail);
  EXPECT_NE(std::find_if(c.notes.begin(), c.notes.end(),
                         [](const Phrase& p) { return p.key == "accept.versions.contract_driver_newer"; }),
            c.notes.end());
  EXPECT_EQ(c.severity, Severity::kWarn);
}

// The soak log's peak: per second, the GPUs' power summed, a GPU sampled twice counting once at its higher reading.
TEST(ContractDelivery, LogSummaryPeakPowerSumsGpusPerSecond) {
  LogSummariser s("soak.csv", 95, 85);
  auto sample = [&](int64_t ms, uint32_t gpu, float w) {
    telemetry::Sample x;
    x.time_ms = ms;
    x.gpu = gpu;
    x.power_w = w;
    s.add(x);
  };
  sample(0, 0, 400);
  sample(0, 1, 410);  // second 0: 810 W
  sample(1000, 0, 390);
  sample(1000, 1, 420);
  sample(1500, 0, 450);  // second 1: max(390, 450) + 420 = 870 W
  sample(2000, 0, 300);  // second 2: 300 W
  telemetry::GpuRegistry reg;
  const LogSummary out = s.finish(reg, {});
  ASSERT_TRUE(out.peak_power);
  EXPECT_DOUBLE_EQ(out.peak_power->watts, 870);
  EXPECT_EQ(out.peak_power->gpus, 2);
  EXPECT_EQ(out.peak_power->time_ms, 1000);
}

// Issue 13 review: a quote for several servers is judged by this server's share of each line,
// the quote's lines divided by its platform lines' quantity (as the audit divides them).
TEST(ContractDelivery, SeveralServersAreJudgedByThisServersShare) {
  AcceptInputs in = delivered(clean_host());
  for (auto& l : in.contract->lines) l.qty *= 2;  // hgx-a100-8gpu × 2: two servers, 8 GPUs each
  Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kPass);
  EXPECT_EQ(notes_en(c)[0],
            "\"NVIDIA A100 80GB SXM4\" × 16 (vendor-quote-clean.yaml:10; 8 for each of the 2 servers the quote "
            "prices): delivered 8 × a100-80gb-sxm");
  // Five 3.84 TB disks where this server's share is four: the fifth is an extra.
  in.facts->inventory.disks.push_back(nvme(4, k384Bytes));
  c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_EQ(notes_en(c)[5],
            "nvme4n1 (SAMSUNG MZWLJ3T8HBLS-00007, 3.84 TB) is on no line of the contract: an extra part, confirm it "
            "was agreed");
  in.facts->inventory.disks.pop_back();
  // 15 GPUs for 2 servers: 7.5 each is no share a server can have; the split is not known.
  in.contract->lines[0].qty = 15;
  c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_EQ(notes_en(c)[0],
            "\"NVIDIA A100 80GB SXM4\" × 15 (vendor-quote-clean.yaml:10; 7.50 for each of the 2 servers the quote "
            "prices): delivered 8 × a100-80gb-sxm; the line's quantity does not divide evenly among the servers, so "
            "this server's share is not known: confirm the split with the vendor");
}

TEST(ContractDelivery, WithoutAPlatformLineFewerPartsWarnNamingTheOneServerAssumption) {
  AcceptInputs in = delivered(clean_host());
  auto& lines = in.contract->lines;
  lines.erase(lines.begin() + 1);    // no hgx-a100-8gpu line: the server count is not priced
  for (auto& l : lines) l.qty *= 2;  // 16 GPUs, 4 CPUs, 32 DIMMs, 8 disks, 4 NICs: maybe two servers
  Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kWarn);
  const auto notes = notes_en(c);
  ASSERT_EQ(notes.size(), 6u);
  EXPECT_EQ(notes[0],
            "\"NVIDIA A100 80GB SXM4\" × 16 (vendor-quote-clean.yaml:10): delivered 8 × a100-80gb-sxm, fewer than the "
            "line; the quote prices no platform (server) line, so it is read as one server: if it buys several, each "
            "has only its share; confirm how many servers it covers");
  for (int i : {1, 2, 3, 4})
    EXPECT_NE(notes[i].find("fewer than the line; the quote prices no platform"), std::string::npos) << notes[i];
  // A CPU the catalog ranks lower is below the contract whatever the server count.
  in.facts->inventory.cpu = {"AMD EPYC 7453 28-Core Processor", 4, 224};
  EXPECT_EQ(delivery(in).severity, Severity::kFail);
}

// A ConnectX-5 (15b3:1017, listed by the catalog under eth-25g-dual) is sold as 25 and 100 GbE:
// its link says which. The contract's NIC line here is eth-100g (one port per card).
TEST(ContractDelivery, NicSpeedIsTheLinksNotThePciIds) {
  AcceptInputs in = delivered(clean_host());
  in.contract->lines[5] = {"Single-port 100GbE adapter", "eth-100g", 2, {}, false, false, 15, false, ""};
  // Two ConnectX-5 ports linked at 100 Gb/s and the board's 1 GbE port (8086:1521, I350).
  in.facts->inventory.nics = {nic("eno1", "0000:02:00.0", "8086:1521", 1000),
                              nic("ens1np0", "0000:31:00.0", "15b3:1017", 100000),
                              nic("ens2np0", "0000:b1:00.0", "15b3:1017", 100000)};
  Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_EQ(notes_en(c)[4],
            "\"Single-port 100GbE adapter\" × 2 (vendor-quote-clean.yaml:15): delivered no port of an id the part "
            "allows (15b3:101d), eno1 (8086:1521, 1,000 Mb/s) in its place, ens1np0 (15b3:1017, 100,000 Mb/s) in its "
            "place, ens2np0 (15b3:1017, 100,000 Mb/s) in its place, not the contract's part but no less: confirm the "
            "change was agreed in writing");
  // One of them without link: its speed is unknown, the id alone does not fail it.
  in.facts->inventory.nics[2].speed_mbps.reset();
  in.facts->inventory.nics[2].operstate = "down";
  c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  EXPECT_EQ(notes_en(c)[4],
            "\"Single-port 100GbE adapter\" × 2 (vendor-quote-clean.yaml:15): delivered no port of an id the part "
            "allows (15b3:101d), eno1 (8086:1521, 1,000 Mb/s) in its place, ens1np0 (15b3:1017, 100,000 Mb/s) in its "
            "place, ens2np0 (15b3:1017, ? Mb/s) in its place; the speed of the ports in its place cannot be read from "
            "their links (no link, or a card sold at several speeds): connect them to the switch and run accept again");
  // The same ports when the quote also has a 25 GbE line, whose part lists 15b3:1017 too: linked at
  // 100 Gb/s they may be this line's cards; a person confirms, the line does not fail.
  in.facts->inventory.nics[2] = nic("ens2np0", "0000:b1:00.0", "15b3:1017", 100000);
  in.contract->lines.push_back({"Dual-port 25GbE adapter", "eth-25g-dual", 1, {}, false, false, 41, false, ""});
  EXPECT_EQ(delivery(in).severity, Severity::kWarn);
  in.contract->lines.pop_back();
  // Linked at 25 Gb/s, and no catalog part of 15b3:1017 is faster: below the 100 Gb/s line.
  in.facts->inventory.nics[2] = nic("ens2np0", "0000:b1:00.0", "15b3:1017", 25000);
  EXPECT_EQ(delivery(in).severity, Severity::kFail);
}

// IDEMA sizes as above: 480 GB = 97,696,368 + 1,953,504 × 430 = 937,703,088 sectors; 7,680 GB =
// 97,696,368 + 1,953,504 × 7,630 = 15,002,931,888 sectors.
constexpr double k048Bytes = 937'703'088.0 * 512;
constexpr double k768Bytes = 15'002'931'888.0 * 512;

TEST(ContractDelivery, DisksFillALineWithItsCapacityThenLargerOnesAndLeaveASmallBootDiskExtra) {
  probe::HostFacts h = clean_host();
  h.inventory.disks = {nvme(0, k048Bytes, "SAMSUNG MZ1L2480HCHQ"), nvme(1, k384Bytes), nvme(2, k384Bytes),
                       nvme(3, k768Bytes, "SAMSUNG MZWLJ7T6HALA"), nvme(4, k768Bytes, "SAMSUNG MZWLJ7T6HALA")};
  Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kWarn);
  auto notes = notes_en(c);
  ASSERT_EQ(notes.size(), 7u);
  EXPECT_EQ(notes[3],
            "\"3.84 TB U.2 NVMe\" × 4 (vendor-quote-clean.yaml:14): delivered 2 × nvme of 3.84 TB, nvme3n1 (SAMSUNG "
            "MZWLJ7T6HALA) of 7.68 TB, larger, nvme4n1 (SAMSUNG MZWLJ7T6HALA) of 7.68 TB, larger, not the contract's "
            "part but no less: confirm the change was agreed in writing");
  EXPECT_EQ(notes[5],
            "nvme0n1 (SAMSUNG MZ1L2480HCHQ, 0.48 TB) is on no line of the contract: an extra part, confirm it was "
            "agreed");
  // One 7.68 TB disk fewer: 3 disks of 3.84 TB or more for 4, the line is short and fails.
  h.inventory.disks.pop_back();
  c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_EQ(notes_en(c)[3],
            "\"3.84 TB U.2 NVMe\" × 4 (vendor-quote-clean.yaml:14): delivered 2 × nvme of 3.84 TB, nvme3n1 (SAMSUNG "
            "MZWLJ7T6HALA) of 7.68 TB, larger, nvme0n1 (SAMSUNG MZ1L2480HCHQ) of 0.48 TB, smaller, below the contract: "
            "the vendor delivers the contracted part");
}

// A RAID controller's volume shows as one disk of unknown transport (no ata or end_device in its
// sysfs path): the disks behind it cannot be counted, so a short line needs evidence, not a fail.
TEST(ContractDelivery, DisksHiddenBehindARaidVolumeNeedEvidence) {
  probe::HostFacts h = clean_host();
  h.inventory.disks.resize(2);
  probe::BlockDevice volume = nvme(0, 2 * k384Bytes, "MR9361-8i");
  volume.name = "sda";
  volume.transport = "";
  h.inventory.disks.push_back(volume);
  const Finding c = delivery(delivered(h));
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  EXPECT_EQ(notes_en(c)[3],
            "\"3.84 TB U.2 NVMe\" × 4 (vendor-quote-clean.yaml:14): delivered 2 × nvme of 3.84 TB, sda of unknown "
            "transport not counted: a RAID controller's volume may hold the missing disks; list the physical disks "
            "with the controller's tool (storcli /c0 /eall /sall show, or its BIOS setup) and compare them with the "
            "line");
}

TEST(ContractDelivery, ALargerDiskStandsInOnlyWhenNoLaterLineWasBoughtWithIt) {
  AcceptInputs in = delivered(clean_host());
  in.contract->lines.push_back({"7.68 TB U.2 NVMe", "nvme-u2-7.68tb", 2, {}, false, false, 40, false, ""});
  // 3 × 3.84 TB and 2 × 7.68 TB: the 7.68 TB line takes its own two; the 3.84 TB line is one short.
  in.facts->inventory.disks = {nvme(0, k384Bytes), nvme(1, k384Bytes), nvme(2, k384Bytes),
                               nvme(3, k768Bytes, "SAMSUNG MZWLJ7T6HALA"), nvme(4, k768Bytes, "SAMSUNG MZWLJ7T6HALA")};
  const Finding c = delivery(in);
  EXPECT_EQ(c.severity, Severity::kFail);
  const auto notes = notes_en(c);
  EXPECT_EQ(notes[3],
            "\"3.84 TB U.2 NVMe\" × 4 (vendor-quote-clean.yaml:14): delivered 3 × nvme of 3.84 TB, below the contract: "
            "the vendor delivers the contracted part");
  EXPECT_EQ(notes[5], "\"7.68 TB U.2 NVMe\" × 2 (vendor-quote-clean.yaml:40): delivered 2 × nvme of 7.68 TB");
}

TEST(ContractDelivery, CliReadsTheContractAndRejectsABadOne) {
  const std::string dir = testing::temp_dir();
  const std::string bad = testing::write_file(
      dir, "bad-quote.yaml",
      "vendor: X\ngpus: 8\nlines:\n  - {item: \"Mystery\", part: no-such-part, qty: 1, unit_price: 1}\n");
  const auto r =
      run_gpuplan("accept --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") + " --contract " + bad);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("bad-quote.yaml"), std::string::npos) << r.err;
  const auto ok = run_gpuplan("accept --format json --root " + source_path("tests/fixtures/hosts/hgx-a100-8gpu") +
                              " --contract " + source_path("examples/vendor-quote-clean.yaml"));
  EXPECT_NE(ok.out.find("\"contract.delivery\""), std::string::npos) << ok.out << ok.err;
}

}  // namespace
}  // namespace gpuplan::accept
