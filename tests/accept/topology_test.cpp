// pcie.topology judged from the fabric as well as the switch list (issue 12 item 2): GPUs sharing
// a switch uplink are an NVLink board's design when they are SXM modules (catalog gpu pci_ids) or
// the host shows an NVLink/NVSwitch fabric (NVSwitch functions, NVML NVLink state, topo -m NV#).
// A listed switch there passes, an unlisted one warns naming its id; PCIe cards behind a shared
// or narrowed uplink fail whatever the switch. Fixture hosts: tests/fixtures/hosts/README.md.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "accept/accept.h"
#include "probe/host.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::fact_in;
using gpuplan::testing::source_path;
using probe::PciDevice;
using probe::PciKind;

Finding topology(const AcceptInputs& in) {
  for (const auto& c : run_acceptance(in, default_catalog()).checks)
    if (c.id == "pcie.topology") return c;
  ADD_FAILURE() << "no pcie.topology check";
  return {};
}

std::vector<const Phrase*> with_key(const std::vector<Phrase>& phrases, const std::string& key) {
  std::vector<const Phrase*> out;
  for (const auto& p : phrases)
    if (p.key == key) out.push_back(&p);
  return out;
}

std::string shown(const Finding& c) {
  return fmt::format("{} {}\n  notes: {}\n  evidence: {}", c.id, severity_name(c.severity),
                     ::testing::PrintToString(c.notes), ::testing::PrintToString(c.evidence));
}

AcceptInputs fixture_host(const std::string& name) {
  AcceptInputs in;
  auto facts = probe::probe_host(probe::HostFs(source_path("tests/fixtures/hosts/" + name)));
  EXPECT_TRUE(facts.ok()) << facts.error().str();
  if (facts) in.facts = *facts;
  return in;
}

// --- Fixture hosts ---------------------------------------------------------------------------------

TEST(TopologyTest, HgxBoardWithUnlistedSwitchesWarnsNamingTheSwitchNeverFails) {
  // hgx-a100-oem-switch: four Switchtec 11f8:4000 switches, two A100 SXM4 (10de:20b2, Gen4 x16)
  // behind each Gen4 x16 uplink, six NVSwitch functions on the bus.
  Finding c = topology(fixture_host("hgx-a100-oem-switch"));
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  // One note for the one unlisted part, naming its four shared uplinks.
  auto unlisted = with_key(c.notes, "accept.pcie.unlisted_switch");
  ASSERT_EQ(unlisted.size(), 1u) << shown(c);
  EXPECT_EQ(*fact_in(*unlisted[0], "vendor"), "11f8");
  EXPECT_EQ(*fact_in(*unlisted[0], "device"), "4000");
  // The fabric it rests on: 0000:46-48:00.0 and 0000:c6-c8:00.0.
  EXPECT_EQ(find_fact(unlisted[0]->facts, "fabric")->phrases,
            std::vector<Phrase>{Phrase("accept.ev.fabric_nvswitch").fact("count", "6")});
  const std::vector<Phrase>& shared = find_fact(unlisted[0]->facts, "uplinks")->phrases;
  ASSERT_EQ(shared.size(), 4u) << shown(c);
  const char* uplinks[] = {"0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(*fact_in(shared[i], "address"), uplinks[i]);
    EXPECT_EQ(*fact_in(shared[i], "uplink"), "Gen4 x16");
    EXPECT_EQ(*fact_in(shared[i], "count"), "2");  // "2 GPUs × Gen4 x16"
  }
  EXPECT_TRUE(with_key(c.notes, "accept.pcie.shared").empty()) << shown(c);
  EXPECT_EQ(with_key(c.evidence, "accept.ev.fabric_nvswitch").size(), 1u) << shown(c);
}

TEST(TopologyTest, SameBoardWithCataloguedSwitchesPasses) {
  Finding c = topology(fixture_host("hgx-a100-8gpu"));
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  auto designed = with_key(c.notes, "accept.pcie.designed");
  ASSERT_EQ(designed.size(), 4u) << shown(c);
  for (const Phrase* d : designed) EXPECT_EQ(*fact_in(*d, "id"), "broadcom-pex88096");
  EXPECT_TRUE(with_key(c.notes, "accept.pcie.unlisted_switch").empty()) << shown(c);
}

TEST(TopologyTest, PcieCardsBehindAGen3x8SwitchUplinkStillFail) {
  // pcie-a100-4gpu-plx: A100 PCIe (10de:20b5) 0000:4d:00.0 and 0000:4e:00.0 behind PEX 8747
  // 0000:4b:00.0, whose uplink trained Gen3 x8.
  Finding c = topology(fixture_host("pcie-a100-4gpu-plx"));
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  auto shared = with_key(c.notes, "accept.pcie.shared");
  ASSERT_EQ(shared.size(), 1u) << shown(c);
  EXPECT_EQ(*fact_in(*shared[0], "address"), "0000:4b:00.0");
  EXPECT_EQ(*fact_in(*shared[0], "uplink"), "Gen3 x8");
  EXPECT_EQ(*fact_in(*shared[0], "vendor"), "10b5");
  EXPECT_EQ(*fact_in(*shared[0], "device"), "8747");
  EXPECT_FALSE(with_key(c.notes, "accept.pcie.slower_hop").empty()) << shown(c);
}

// --- Hand-made boards ------------------------------------------------------------------------------

PciDevice port(const std::string& address, std::vector<std::string> upstream, uint16_t vendor, uint16_t device,
               int width = 16) {
  PciDevice d;
  d.address = address;
  d.kind = PciKind::kBridge;
  d.vendor = vendor;
  d.device = device;
  d.class_code = 0x060400;
  d.current = d.max = {16.0, width};
  d.upstream = std::move(upstream);
  d.root_port = d.upstream.empty();
  return d;
}

// Two GPUs of PCI device `gpu_id` (Gen4 x16) behind switch `vendor:device`, whose upstream port
// 0000:03:00.0 is trained Gen4 x`uplink_width` to root port 0000:00:01.1.
probe::HostFacts two_gpus(uint16_t gpu_id, uint16_t vendor, uint16_t device, int uplink_width = 16) {
  probe::HostFacts f;
  f.hostname = "gpu01";
  f.pci.devices = {port("0000:00:01.1", {}, 0x1022, 0x1483),
                   port("0000:03:00.0", {"0000:00:01.1"}, vendor, device, uplink_width),
                   port("0000:04:00.0", {"0000:03:00.0", "0000:00:01.1"}, vendor, device),
                   port("0000:04:04.0", {"0000:03:00.0", "0000:00:01.1"}, vendor, device)};
  for (const char* a : {"0000:05:00.0", "0000:06:00.0"}) {
    PciDevice g =
        port(a, {a[6] == '5' ? "0000:04:00.0" : "0000:04:04.0", "0000:03:00.0", "0000:00:01.1"}, 0x10de, gpu_id);
    g.kind = PciKind::kGpu;
    g.class_code = 0x030200;
    f.pci.devices.push_back(g);
  }
  return f;
}

nvml::NvmlFacts nvlinks_up(size_t links_per_gpu) {
  nvml::NvmlFacts n;
  for (unsigned i = 0; i < 2; ++i) {
    nvml::GpuFacts g;
    g.info.index = i;
    g.info.pci_bus_id = fmt::format("00000000:0{}:00.0", 5 + i);
    g.now.nvlink_active.assign(12, false);
    for (size_t l = 0; l < links_per_gpu; ++l) g.now.nvlink_active[l] = true;
    n.gpus.push_back(g);
  }
  return n;
}

constexpr uint16_t kSxm80 = 0x20b2, kPcie80 = 0x20b5,
                   kUnknownGpu = 0x1db5;  // pci.ids "GV100GL [Tesla V100 SXM2 32GB]": not catalogued
constexpr uint16_t kMicrochip = 0x11f8, kPfx100 = 0x4000, kBroadcom = 0x1000, kPex88096 = 0xc010;

TEST(TopologyTest, SxmModulesBehindAnUnlistedSwitchWarnEvenWithoutFabricEvidence) {
  AcceptInputs in;
  in.facts = two_gpus(kSxm80, kMicrochip, kPfx100);
  Finding c = topology(in);
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  auto unlisted = with_key(c.notes, "accept.pcie.unlisted_switch");
  ASSERT_EQ(unlisted.size(), 1u) << shown(c);
  EXPECT_EQ(find_fact(unlisted[0]->facts, "fabric")->phrases, std::vector<Phrase>{Phrase("accept.pcie.sxm_only")});
}

TEST(TopologyTest, UncataloguedGpusOnAnNvlinkFabricWarnFromNvmlAndFromTopo) {
  // NVML: 12 active links on each of the 2 GPUs = 24.
  AcceptInputs in;
  in.facts = two_gpus(kUnknownGpu, kMicrochip, kPfx100);
  in.nvml = nvlinks_up(12);
  Finding c = topology(in);
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  auto unlisted = with_key(c.notes, "accept.pcie.unlisted_switch");
  ASSERT_EQ(unlisted.size(), 1u) << shown(c);
  EXPECT_EQ(find_fact(unlisted[0]->facts, "fabric")->phrases,
            std::vector<Phrase>{Phrase("accept.ev.fabric_nvml").fact("gpus", "2").fact("links", "24")});

  // topo -m writes each pair both ways; one pair joined by NV12.
  in.nvml.reset();
  in.topo = probe::GpuTopology{};
  in.topo->link[{"GPU0", "GPU1"}] = in.topo->link[{"GPU1", "GPU0"}] = "NV12";
  c = topology(in);
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  unlisted = with_key(c.notes, "accept.pcie.unlisted_switch");
  ASSERT_EQ(unlisted.size(), 1u) << shown(c);
  EXPECT_EQ(find_fact(unlisted[0]->facts, "fabric")->phrases,
            std::vector<Phrase>{Phrase("accept.ev.fabric_topo").fact("pairs", "1")});
}

TEST(TopologyTest, UncataloguedGpusBehindAnUnlistedSwitchWithNoFabricFail) {
  AcceptInputs in;
  in.facts = two_gpus(kUnknownGpu, kMicrochip, kPfx100);
  in.topo = probe::GpuTopology{};
  in.topo->link[{"GPU0", "GPU1"}] = in.topo->link[{"GPU1", "GPU0"}] = "PIX";  // PCIe only
  Finding c = topology(in);
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  EXPECT_EQ(with_key(c.notes, "accept.pcie.shared").size(), 1u) << shown(c);
}

TEST(TopologyTest, PcieCardsBehindTheHgxSwitchFailEvenWithNvlinkBridges) {
  // A100 PCIe cards with NVLink bridges up (NVML shows active links) behind a listed PEX88096:
  // the bridges do not carry host traffic, the shared uplink still halves it.
  AcceptInputs in;
  in.facts = two_gpus(kPcie80, kBroadcom, kPex88096);
  in.nvml = nvlinks_up(4);
  Finding c = topology(in);
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  auto shared = with_key(c.notes, "accept.pcie.shared");
  ASSERT_EQ(shared.size(), 1u) << shown(c);
  EXPECT_EQ(*fact_in(*shared[0], "device"), "c010");
  EXPECT_TRUE(with_key(c.notes, "accept.pcie.designed").empty()) << shown(c);
}

TEST(TopologyTest, SxmBoardWithANarrowedUplinkFailsWhateverTheSwitch) {
  // Listed switch, SXM modules, NVSwitch fabric: the uplink trained x8 is still slower than
  // each GPU's Gen4 x16.
  AcceptInputs in;
  in.facts = two_gpus(kSxm80, kBroadcom, kPex88096, 8);
  in.nvml = nvlinks_up(12);
  Finding c = topology(in);
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  EXPECT_EQ(with_key(c.notes, "accept.pcie.slower_hop").size(), 2u) << shown(c);  // one per GPU
}

}  // namespace
}  // namespace gpuplan::accept
