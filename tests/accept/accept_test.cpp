// Each acceptance check passes on inputs built to pass, fails (or warns) on inputs built to
// fail, and asks for evidence when its input is missing. Inputs are hand-made structs, as the
// probes and NVML would fill them; the figures in the asserts are worked out in the comments.
// A check says what it saw as phrases: the asserts name the phrase's key and its facts, never
// its words (report/messages/accept.cpp holds those; one test pins that they read in Chinese).
#include "accept/accept.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using gpuplan::testing::catalog_with;
using gpuplan::testing::default_catalog;
using gpuplan::testing::fact_in;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;
using probe::PciDevice;
using probe::PciKind;

constexpr int64_t kHour = 3'600'000;
// 2024-05-06 10:00:00 as the readers store it: days_from_civil(2024, 5, 6) = 19,849 days.
constexpr int64_t kMay6Ten = 19'849LL * 86'400'000 + 10 * kHour;

const Finding& check(const AcceptReport& r, const std::string& id) {
  for (const auto& c : r.checks)
    if (c.id == id) return c;
  static Finding none;
  ADD_FAILURE() << "no check " << id;
  return none;
}

Finding run(const AcceptInputs& in, const std::string& id, const catalog::Catalog& cat = default_catalog()) {
  return check(run_acceptance(in, cat), id);
}

// Facts a phrase must hold, by name and value as every language shows them.
using Want = std::vector<std::pair<std::string, std::string>>;

// The first of `phrases` with `key` whose facts (its own or those of a phrase nested in them)
// include every one of `want`; nullptr when none does.
const Phrase* find_phrase(const std::vector<Phrase>& phrases, const std::string& key, const Want& want) {
  for (const Phrase& p : phrases) {
    if (p.key != key) continue;
    bool all = true;
    for (const auto& [name, value] : want) {
      const std::string* got = fact_in(p, name);
      all = all && got && *got == value;
    }
    if (all) return &p;
  }
  return nullptr;
}
const Phrase* note(const Finding& c, const std::string& key, const Want& want = {}) {
  return find_phrase(c.notes, key, want);
}
const Phrase* evidence_with(const Finding& c, const std::string& key, const Want& want = {}) {
  return find_phrase(c.evidence, key, want);
}

// The phrases nested in fact `key` of `p` (a list or a path); empty when there are none.
std::vector<Phrase> nested(const Phrase& p, const std::string& key) {
  const Fact* f = find_fact(p.facts, key);
  return f ? f->phrases : std::vector<Phrase>{};
}

// What a check said, for a failing assert: its verdict, notes and evidence as keys and facts.
std::string shown(const Finding& c) {
  return fmt::format("{} {}\n  notes: {}\n  evidence: {}", c.id, severity_name(c.severity),
                     ::testing::PrintToString(c.notes), ::testing::PrintToString(c.evidence));
}

// --- PCI builders: speeds in GT/s as sysfs writes them (Gen3 = 8, Gen4 = 16).
PciDevice device(const std::string& address, PciKind kind, double gts, int width, std::vector<std::string> upstream) {
  PciDevice d;
  d.address = address;
  d.sysfs_path = "/sys/devices/pci0000:00/" + address;
  d.kind = kind;
  d.vendor = kind == PciKind::kGpu ? 0x10de : 0x8086;
  d.device = kind == PciKind::kGpu ? 0x20b5 : 0x1234;
  d.class_code = kind == PciKind::kGpu ? 0x030200 : 0x060400;
  d.current = {gts, width};
  d.max = {kind == PciKind::kGpu ? 16.0 : gts, kind == PciKind::kGpu ? 16 : width};
  d.upstream = std::move(upstream);
  d.root_port = kind == PciKind::kBridge && d.upstream.empty();
  d.numa_node = 0;
  return d;
}
PciDevice gpu(const std::string& address, double gts, int width, std::vector<std::string> upstream) {
  return device(address, PciKind::kGpu, gts, width, std::move(upstream));
}
PciDevice bridge(const std::string& address, double gts, int width, std::vector<std::string> upstream) {
  return device(address, PciKind::kBridge, gts, width, std::move(upstream));
}

probe::HostFacts facts_with(std::vector<PciDevice> devices) {
  probe::HostFacts f;
  f.hostname = "gpu01";
  std::sort(devices.begin(), devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  f.pci.devices = std::move(devices);
  return f;
}

// Eight CPU-direct Gen4 x16 GPUs, each below its own root port.
probe::HostFacts eight_direct_gpus() {
  std::vector<PciDevice> d;
  for (int i = 0; i < 8; ++i) {
    std::string root = fmt::format("0000:{:02x}:01.0", i * 0x10), addr = fmt::format("0000:{:02x}:00.0", i * 0x10 + 1);
    d.push_back(bridge(root, 16, 16, {}));
    d.push_back(gpu(addr, 16, 16, {root}));
  }
  return facts_with(d);
}

nvml::NvmlFacts nvml_gpus(int n) {
  nvml::NvmlFacts f;
  f.driver_version = "535.129.03";
  f.cuda_driver_version = "12.1";
  for (int i = 0; i < n; ++i) {
    nvml::GpuFacts g;
    g.info.index = i;
    g.info.name = "NVIDIA A100-SXM4-80GB";
    g.info.serial = "13240000" + std::to_string(i);
    g.info.vbios = "92.00.45.00.05";
    g.info.pci_bus_id = fmt::format("00000000:{:02x}:00.0", i * 0x10 + 1);
    g.now.utilization_pct = 100;
    g.now.ecc_enabled = true;
    g.now.ecc_volatile_uncorrected = g.now.ecc_aggregate_uncorrected = 0;
    g.now.ecc_volatile_corrected = g.now.ecc_aggregate_corrected = 0;
    g.now.retired_pages_dbe = g.now.retired_pages_sbe = 0;
    g.now.retired_pages_pending = false;
    g.now.remapping_pending = g.now.remapping_failed = false;
    f.gpus.push_back(g);
  }
  return f;
}

// A log summary built the way summarise_log builds one: samples through a LogSummariser.
struct LogBuilder {
  telemetry::GpuRegistry registry;
  LogSummariser summariser{"soak.csv", 95, 85};
  telemetry::ReadStats stats;
  void add(const std::string& gpu, int64_t t, std::optional<float> util, std::optional<float> temp,
           std::optional<float> mem = {}, std::optional<uint64_t> ecc_c = {}, std::optional<uint64_t> ecc_u = {},
           std::optional<float> power = {}) {
    telemetry::Sample s;
    s.time_ms = t;
    s.gpu = registry.id("gpu01", gpu);
    s.utilization_pct = util;
    s.temperature_c = temp;
    s.memory_used_mib = mem;
    s.ecc_corrected = ecc_c;
    s.ecc_uncorrected = ecc_u;
    s.power_w = power;
    summariser.add(s);
    ++stats.samples;
  }
  LogSummary finish() { return summariser.finish(registry, stats); }
};

// ================================================================================================

TEST(AcceptTest, ReportHasTheFifteenChecksInOrderAndAsksForEvidence) {
  AcceptReport r = run_acceptance({}, default_catalog());
  std::vector<std::string> ids;
  for (const auto& c : r.checks) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"soak", "pcie.topology", "pcie.aer", "infiniband", "versions", "load",
                                           "pcie.aspm", "iommu", "firmware.versions", "performance", "firmware.hashes",
                                           "health.archive", "xid", "ecc", "gpu.count"}));
  // The note each check leaves when nothing was given: what would let it run.
  const std::map<std::string, std::string> asks = {
      {"soak", "accept.soak.no_log"},
      {"pcie.topology", "accept.needs.host_facts"},
      {"pcie.aer", "accept.needs.aer_input"},
      {"infiniband", "accept.needs.ib_input"},
      {"versions", "accept.needs.versions"},
      {"load", "accept.load.no_log"},
      {"pcie.aspm", "accept.needs.host_facts"},
      {"iommu", "accept.needs.iommu_input"},
      {"firmware.versions", "accept.firmware.needs_attachment"},
      {"performance", "accept.performance.no_figure"},
      {"firmware.hashes", "accept.hashes.no_images"},
      {"health.archive", "accept.archive.no_archive"},
      {"xid", "accept.needs.kernel_log"},
      {"ecc", "accept.needs.nvml"},
      {"gpu.count", "accept.needs.gpu_count"},
  };
  for (const auto& c : r.checks) {
    EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << shown(c);
    ASSERT_TRUE(asks.count(c.id)) << c.id;
    EXPECT_TRUE(note(c, asks.at(c.id))) << shown(c);
    for (const Phrase& n : c.notes) EXPECT_TRUE(report::has_message(n.key)) << c.id << ": " << n;
    EXPECT_FALSE(c.source.empty()) << c.id;
    for (report::Lang lang : {report::Lang::kEn, report::Lang::kZh}) {
      const report::LocalizedFinding words = report::localize(c, lang);
      EXPECT_FALSE(words.title.empty()) << c.id;
      EXPECT_NE(words.title, c.id) << "no title in the message table";
      EXPECT_FALSE(words.detail.empty()) << c.id;
    }
  }
  EXPECT_EQ(r.verdict, Verdict::kIncomplete);  // nothing failed, but nothing was judged either
  EXPECT_STREQ(severity_name(Severity::kNeedsEvidence), "needs-evidence");
}

// --- G1 soak ------------------------------------------------------------------------------------

TEST(AcceptTest, SeventyTwoHoursCoolAndBusyPassesTheSoak) {
  // 73 hourly samples, 0 h … 72 h: span 72 h, 80 °C ≤ 85, 99% ≥ 95.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  // Hourly samples 0–72 h: 72 h from first to last, plus the 1 h the last sample stands for.
  EXPECT_DOUBLE_EQ(in.soak->hours(), 73.0);
  EXPECT_TRUE(note(c, "accept.soak.ok",
                   {{"gpus", "1"}, {"hours", "73.0"}, {"max_temp", "85"}, {"allowed", "5.0%"}, {"min_util", "95"}}))
      << shown(c);
}

TEST(AcceptTest, OneSampleAtEightySixDegreesFailsTheSoakNamingGpuValueAndTime) {
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("3", kMay6Ten + h * kHour, 99, h == 30 ? 86 : 80);
  AcceptInputs in;
  in.soak = b.finish();
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kFail);
  // 10:00 on May 6 + 30 h = 16:00 on May 7.
  EXPECT_TRUE(
      note(c, "accept.soak.hot",
           {{"gpu", "gpu01/3"}, {"peak", "86"}, {"at", "2024-05-07 16:00:00"}, {"samples", "1"}, {"limit", "85"}}))
      << shown(c);
}

TEST(AcceptTest, UtilizationBelowFloorInOneSampleInTenFailsTheSoak) {
  // Every tenth of 73 samples (h = 0, 10, …, 70: 8 samples) at 60%: 8 / 73 = 11.0% > 5%. The
  // first of them, at 10:00 on May 6, is the lowest.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("0", kMay6Ten + h * kHour, h % 10 == 0 ? 60 : 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.soak.low_utilization",
                   {{"gpu", "gpu01/0"},
                    {"limit", "95"},
                    {"below", "8"},
                    {"samples", "73"},
                    {"share", "11.0%"},
                    {"allowed", "5.0%"},
                    {"lowest", "60"},
                    {"at", "2024-05-06 10:00:00"}}))
      << shown(c);
}

TEST(AcceptTest, FortyEightHourSoakWarnsNotLongEnough) {
  LogBuilder b;
  for (int h = 0; h <= 48; ++h) b.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kWarn);
  // Hourly samples 0–48 h cover 48 h + 1 h = 49 h, 23 h short of 72.
  const Phrase* short_note = note(c, "accept.soak.short", {{"gpu", "gpu01/0"}, {"needed", "72"}});
  ASSERT_TRUE(short_note) << shown(c);
  EXPECT_EQ(report::say(*short_note, report::Lang::kEn),
            "gpu01/0 covers 49 h (first to last sample plus one 1 h sampling interval), 23 h short of the 72 h soak "
            "(not long enough to accept)");
}

TEST(AcceptTest, SoakStampsJitteringByMillisecondsStillCoverSeventyTwoHours) {
  // `nvidia-smi -l 1` stamps drift by milliseconds. Sample i at i s − (i mod 7) ms, i = 0 …
  // 259,199 (72 h of seconds): the last is at 259,199 s − 3 ms (259,199 mod 7 = 3), the median
  // interval 1 s (999 ms to 10 ms), so the samples cover 259,198.997 s + 1 s = 72 h − 3 ms. Three
  // milliseconds is jitter, not a missing sample: the soak passes (it warned "0.0 s short").
  LogBuilder b;
  for (int64_t i = 0; i < 259'200; ++i) b.add("0", kMay6Ten + i * 1000 - i % 7, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  ASSERT_EQ(in.soak->gpus.front().covered_ms(), 259'200'000 - 3);
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  EXPECT_TRUE(note(c, "accept.soak.ok", {{"hours", "72.0"}})) << shown(c);
  // 600 ms short is more than half the 1 s interval: a sample is missing, and it warns.
  LogBuilder late;
  for (int64_t i = 0; i < 259'200; ++i) late.add("0", kMay6Ten + i * 1000 - (i + 1 == 259'200 ? 600 : 0), 99, 80);
  in.soak = late.finish();
  Finding short_soak = run(in, "soak");
  EXPECT_EQ(short_soak.severity, Severity::kWarn) << shown(short_soak);
  EXPECT_TRUE(note(short_soak, "accept.soak.short")) << shown(short_soak);
}

TEST(AcceptTest, NoSoakLogNeedsTheFile) {
  Finding c = run({}, "soak");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  EXPECT_TRUE(note(c, "accept.soak.no_log", {{"hours", "72"}})) << shown(c);
}

TEST(AcceptTest, SummariseLogReadsAnSmiCsv) {
  std::string path = write_file(temp_dir(), "soak.csv",
                                "timestamp, index, utilization.gpu [%], memory.used [MiB], temperature.gpu\n"
                                "2024/05/06 10:00:00.000, 0, 99 %, 1000 MiB, 80\n"
                                "2024/05/06 11:00:00.000, 0, 90 %, 1100 MiB, 87\n"
                                "2024/05/06 12:00:00.000, 0, 99 %, 1200 MiB, 81\n");
  auto s = summarise_log(path, default_catalog());
  ASSERT_TRUE(s.ok()) << s.error().str();
  ASSERT_EQ(s->gpus.size(), 1u);
  const GpuLogSummary& g = s->gpus[0];
  EXPECT_EQ(g.samples, 3);
  EXPECT_EQ(g.samples_above_temperature, 1);  // 87 > 85
  EXPECT_EQ(g.samples_below_utilization, 1);  // 90 < 95
  EXPECT_EQ(*g.max_temperature_c, 87);
  EXPECT_EQ(g.max_temperature_ms, kMay6Ten + kHour);
  EXPECT_NEAR(*g.memory_growth_mib_per_h, 100.0, 1e-9);  // 1000 → 1200 MiB over 2 h, on a line
  EXPECT_DOUBLE_EQ(s->hours(), 3.0);                     // 10:00 to 12:00, plus the 1 h interval of the last sample
}

// --- G2 PCIe topology ----------------------------------------------------------------------------

TEST(AcceptTest, CpuDirectGen4x16GpusPassTopologyAndRecordTheNumaMap) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  EXPECT_TRUE(
      evidence_with(c, "accept.ev.pcie_map",
                    {{"address", "0000:01:00.0"}, {"link", "Gen4 x16"}, {"root", "0000:00:01.0"}, {"numa", "0"}}))
      << shown(c);
  EXPECT_TRUE(note(c, "accept.pcie.ok", {{"gpus", "8"}, {"gen", "4"}, {"width", "16"}})) << shown(c);
}

// Hops of a path from a GPU up to its root port, as the topology check names them.
Phrase hop_gpu(const std::string& address, const std::string& link) {
  return Phrase("accept.pcie.hop_gpu").fact("address", address).fact("link", link);
}
Phrase hop(const std::string& address) {
  return Phrase("accept.pcie.hop").fact("address", address);
}
Phrase hop_uplink(const std::string& address, const std::string& link) {
  return Phrase("accept.pcie.hop_uplink").fact("address", address).fact("link", link);
}
Phrase hop_root(const std::string& address) {
  return Phrase("accept.pcie.hop_root").fact("address", address);
}

// "below Gen4 x16, below its own max Gen4 x16": both reasons a GPU link trained low.
std::vector<Phrase> below_gen4_x16_and_its_max() {
  return {Phrase("accept.pcie.below_min").fact("gen", "4").fact("width", "16"),
          Phrase("accept.pcie.below_max").fact("max", "Gen4 x16")};
}

TEST(AcceptTest, PlxUplinkAtGen3x8FailsTopologyWithThePath) {
  // GPU 05:00.0 (Gen3 x16) sits below switch downstream port 04:08.0, whose upstream port
  // 03:00.0 trained at Gen3 x8 to root port 00:01.1: half the GPU's lanes.
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.1", 8, 8, {}), bridge("0000:03:00.0", 8, 8, {"0000:00:01.1"}),
                         bridge("0000:04:08.0", 8, 16, {"0000:03:00.0", "0000:00:01.1"}),
                         gpu("0000:05:00.0", 8, 16, {"0000:04:08.0", "0000:03:00.0", "0000:00:01.1"})});
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kFail);
  // 0000:05:00.0 (Gen3 x16) ← 0000:04:08.0 ← 0000:03:00.0 uplink Gen3 x8 ← root 0000:00:01.1
  const Phrase* slower = note(c, "accept.pcie.slower_hop");
  ASSERT_TRUE(slower) << shown(c);
  EXPECT_EQ(nested(*slower, "path"),
            (std::vector<Phrase>{hop_gpu("0000:05:00.0", "Gen3 x16"), hop("0000:04:08.0"),
                                 hop_uplink("0000:03:00.0", "Gen3 x8"), hop_root("0000:00:01.1")}));
  EXPECT_EQ(find_fact(slower->facts, "path")->separator, " ← ");
  // 0000:05:00.0 trained at Gen3 x16, below Gen4 x16, below its own max Gen4 x16
  const Phrase* low = note(c, "accept.pcie.trained_low", {{"address", "0000:05:00.0"}, {"link", "Gen3 x16"}});
  ASSERT_TRUE(low) << shown(c);
  EXPECT_EQ(nested(*low, "below"), below_gen4_x16_and_its_max());
}

// Two Gen4 x16 GPUs behind one switch whose upstream port is Gen4 x16: 2 × 31.5 GB/s of GPU
// links share 31.5 GB/s of uplink.
std::vector<PciDevice> two_gpus_behind_one_switch(uint16_t vendor, uint16_t device_id) {
  PciDevice up = bridge("0000:03:00.0", 16, 16, {"0000:00:01.1"});
  up.vendor = vendor;
  up.device = device_id;
  return {bridge("0000:00:01.1", 16, 16, {}),
          up,
          bridge("0000:04:00.0", 16, 16, {"0000:03:00.0", "0000:00:01.1"}),
          bridge("0000:04:04.0", 16, 16, {"0000:03:00.0", "0000:00:01.1"}),
          gpu("0000:05:00.0", 16, 16, {"0000:04:00.0", "0000:03:00.0", "0000:00:01.1"}),
          gpu("0000:06:00.0", 16, 16, {"0000:04:04.0", "0000:03:00.0", "0000:00:01.1"})};
}

// "shared: 2 GPUs × Gen4 x16 behind one Gen4 x16 uplink 0000:03:00.0 (10b5:8747) halves each
// GPU's bandwidth"
Phrase two_gpus_share_the_plx_uplink() {
  return Phrase("accept.pcie.shared")
      .fact("who", {Phrase("accept.pcie.gpus_alike").fact("count", "2").fact("link", "Gen4 x16")})
      .fact("uplink", "Gen4 x16")
      .fact("address", "0000:03:00.0")
      .fact("vendor", "10b5")
      .fact("device", "8747")
      .fact("effect", {Phrase("accept.pcie.halves")});
}

TEST(AcceptTest, TwoGpusSharingAnUnknownSwitchUplinkFailTopology) {
  AcceptInputs in;
  in.facts = facts_with(two_gpus_behind_one_switch(0x10b5, 0x8747));
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kFail);
  const Phrase* shared = note(c, "accept.pcie.shared");
  ASSERT_TRUE(shared) << shown(c);
  EXPECT_EQ(*shared, two_gpus_share_the_plx_uplink());
}

TEST(AcceptTest, SameSharingOnAnHgxPex88096IsTheDesignedLayout) {
  // A100 SXM4 modules (10de:20b2): PCIe cards behind the same switch fail (tests/accept/topology_test.cpp).
  AcceptInputs in;
  auto devices = two_gpus_behind_one_switch(0x1000, 0xc010);
  for (auto& d : devices)
    if (d.kind == PciKind::kGpu) d.device = 0x20b2;
  in.facts = facts_with(devices);
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  EXPECT_TRUE(note(c, "accept.pcie.designed",
                   {{"address", "0000:03:00.0"}, {"uplink", "Gen4 x16"}, {"id", "broadcom-pex88096"}}))
      << shown(c);
  EXPECT_FALSE(note(c, "accept.pcie.shared")) << shown(c);
}

TEST(AcceptTest, IdleGpuAtLowSpeedButFullWidthOnlyWarns) {
  // An idle A100 drops to 2.5 GT/s (Gen1) at x16; NVML says it is at 0% utilization.
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 2.5, 16, {"0000:00:01.0"})});
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].now.utilization_pct = 0;
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  // "… while idle (0% utilization): … re-check under load"
  EXPECT_TRUE(note(c, "accept.pcie.trained_low_idle", {{"address", "0000:01:00.0"}, {"link", "Gen1 x16"}})) << shown(c);
}

TEST(AcceptTest, NoHostFactsLeavesTopologyNeedingEvidence) {
  AcceptInputs in;
  in.facts_error =
      Error{"/snapshot", 0, "", Phrase("error.file.cannot_open").fact("why", "no such directory")}.phrase();
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  EXPECT_TRUE(note(c, "accept.needs.host_facts", {{"why", "no such directory"}})) << shown(c);
}

// --- G3 AER ---------------------------------------------------------------------------------------

TEST(AcceptTest, NonFatalAerCounterFailsAndCorrectedLogLineWarns) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->pci.devices[1].aer = probe::AerCounters{0, 2, 0};  // 0000:01:00.0: 2 non-fatal
  Finding failed = run(in, "pcie.aer");
  EXPECT_EQ(failed.severity, Severity::kFail);
  EXPECT_TRUE(evidence_with(
      failed, "accept.ev.aer_counters",
      {{"address", "0000:01:00.0"}, {"kind", "gpu"}, {"fatal", "0"}, {"nonfatal", "2"}, {"correctable", "0"}}))
      << shown(failed);

  AcceptInputs log;
  log.kernel_log = probe::KernelLog{};
  log.kernel_log_source = "kernel.log";
  probe::KernelEvent e;
  e.kind = probe::KernelEventKind::kAer;
  e.line = 1234;
  e.device = "0000:c1:00.0";
  e.severity = "Corrected";
  e.text = "nvme 0000:c1:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)";
  log.kernel_log->events.push_back(e);
  Finding warned = run(log, "pcie.aer");
  EXPECT_EQ(warned.severity, Severity::kWarn);
  EXPECT_TRUE(evidence_with(warned, "accept.ev.line",
                            {{"file", "kernel.log"}, {"line", "1234"}, {"text", "0000:c1:00.0: " + e.text}}))
      << shown(warned);
}

TEST(AcceptTest, CleanAerCountersPassAndNoSourceNeedsEvidence) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  for (auto& d : in.facts->pci.devices) d.aer = probe::AerCounters{};
  EXPECT_EQ(run(in, "pcie.aer").severity, Severity::kPass);
  EXPECT_EQ(run({}, "pcie.aer").severity, Severity::kNeedsEvidence);
}

// --- G4 InfiniBand --------------------------------------------------------------------------------

probe::IbPort ib_port(const std::string& dev, const std::string& state, const std::string& phys) {
  probe::IbPort p;
  p.device = dev;
  p.state = state;
  p.phys_state = phys;
  p.rate = "200 Gb/sec (4X HDR)";
  p.link_layer = "InfiniBand";
  return p;
}

TEST(AcceptTest, InfiniBandPortDownFails) {
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  in.facts->ib_ports = {ib_port("mlx5_0", "4: ACTIVE", "5: LinkUp"), ib_port("mlx5_1", "1: DOWN", "3: Disabled")};
  Finding c = run(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kFail);
  // "mlx5_1 port 1: 1: DOWN, 3: Disabled, …"
  EXPECT_TRUE(note(c, "accept.ib.sysfs_down",
                   {{"device", "mlx5_1"}, {"port", "1"}, {"state", "1: DOWN"}, {"phys", "3: Disabled"}}))
      << shown(c);
  EXPECT_FALSE(note(c, "accept.ib.sysfs_down", {{"device", "mlx5_0"}})) << shown(c);
}

TEST(AcceptTest, IbstatWithSmLidZeroFailsNoSubnetManager) {
  AcceptInputs in;
  probe::IbstatPort p;
  p.ca = "mlx5_0";
  p.state = "Active";
  p.physical_state = "LinkUp";
  p.link_layer = "InfiniBand";
  p.sm_lid = 0;
  in.ibstat = std::vector<probe::IbstatPort>{p};
  Finding c = run(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.ib.no_subnet_manager", {{"ca", "mlx5_0"}, {"sm", "0"}})) << shown(c);
}

TEST(AcceptTest, ActiveInfiniBandNeedsSmAndAdaptiveRoutingEvidenceUntilAttached) {
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  in.facts->ib_ports = {ib_port("mlx5_0", "4: ACTIVE", "5: LinkUp")};
  Finding c = run(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  // Asks for `sminfo` and `ibdiagnet` output showing adaptive routing.
  EXPECT_TRUE(note(c, "accept.ib.needs_attachment", {{"ports", "1"}})) << shown(c);
  // An attachment passes only once read (more in attachments_test.cpp): here `sminfo` output.
  Attachment sminfo;
  sminfo.check = "infiniband";
  sminfo.file = "sminfo.txt";
  sminfo.sha256 = "0";
  sminfo.ib = probe::read_ib_evidence(
      "sminfo: sm lid 1 sm guid 0x100001, activity count 506 priority 14 state 3 SMINFO_MASTER\n");
  in.attachments = {sminfo};
  Finding attached = run(in, "infiniband");
  // The subnet manager answers; adaptive routing is still unseen (ibdiagnet --routing).
  EXPECT_EQ(attached.severity, Severity::kNeedsEvidence);
  EXPECT_TRUE(note(attached, "accept.ib.ar_not_shown")) << shown(attached);
  EXPECT_TRUE(
      evidence_with(attached, "accept.ev.attached_read", {{"file", "sminfo.txt (sha256 0)"}, {"forms", "sminfo"}}))
      << shown(attached);
  EXPECT_TRUE(note(attached, "accept.ib.ok", {{"ports", "1"}, {"files", "sminfo.txt"}})) << shown(attached);
}

TEST(AcceptTest, HostWithoutInfiniBandPasses) {
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  Finding c = run(in, "infiniband");
  EXPECT_EQ(c.severity, Severity::kPass);
  EXPECT_EQ(c.notes, std::vector<Phrase>{Phrase("accept.ib.none")});
}

// --- G5 versions ----------------------------------------------------------------------------------

Phrase version(const std::string& component, const std::string& v) {
  return Phrase("accept.versions.one").fact("component", component).fact("version", v);
}

TEST(AcceptTest, DriverComparedNumericallyAndCudaInTheMatrixPass) {
  // 525.105.17 ≥ 525.85.05 (105 > 85; a string compare would say '1' < '8'); CUDA 12.1 is listed.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "525.105.17";
  in.versions["nccl"] = "2.18.3";
  Finding c = run(in, "versions");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  const Phrase* nccl = evidence_with(c, "accept.ev.version", {{"component", "nccl"}, {"version", "2.18.3"}});
  ASSERT_TRUE(nccl) << shown(c);
  EXPECT_EQ(nested(*nccl, "from"),
            std::vector<Phrase>{Phrase("accept.from.declared").fact("flag", "nccl").fact("version", "2.18.3")});
  EXPECT_TRUE(note(c, "accept.versions.ok")) << shown(c);
}

TEST(AcceptTest, OldDriverFailsAndUnlistedCudaWarnsWithTheMatrixDate) {
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "470.199.02";
  Finding old = run(in, "versions");
  EXPECT_EQ(old.severity, Severity::kFail);
  EXPECT_TRUE(note(old, "software.matrix/below_min",
                   {{"component", "driver"}, {"version", "470.199.02"}, {"min", "525.85.05"}}))
      << shown(old);

  in.nvml->driver_version = "535.129.03";
  in.nvml->cuda_driver_version = "12.2";  // driver 535 runs toolkits up to 12.2
  in.versions["cuda"] = "12.2";           // declared; the matrix lists 11.8 and 12.1 (as of 2024)
  Finding cuda = run(in, "versions");
  EXPECT_EQ(cuda.severity, Severity::kWarn);
  EXPECT_TRUE(
      note(cuda, "software.matrix/not_listed",
           {{"component", "cuda"}, {"version", "12.2"}, {"allowed", "11.8, 12.1"}, {"row", "cuda"}, {"as_of", "2024"}}))
      << shown(cuda);
}

TEST(AcceptTest, DriverCudaVersionIsRecordedNotJudgedAgainstTheToolkitMatrix) {
  // NVML's 12.2 is the newest CUDA driver 535 runs, not an installed toolkit: 12.2 is not in the
  // toolkit list (11.8, 12.1), yet nothing is wrong.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "535.129.03";
  in.nvml->cuda_driver_version = "12.2";
  Finding c = run(in, "versions");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  // "Recorded cuda-driver 12.2, driver 535.129.03; all within the compatibility matrix"
  EXPECT_EQ(c.notes,
            std::vector<Phrase>{Phrase("accept.versions.ok")
                                    .fact("seen", {version("cuda-driver", "12.2"), version("driver", "535.129.03")})});
}

TEST(AcceptTest, ToolkitNewerThanTheDriverSupportsFails) {
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "535.129.03";
  in.nvml->cuda_driver_version = "12.2";
  in.versions["cuda"] = "12.4";  // 12.4 > 12.2: the driver cannot run it (and 12.4 is not in the matrix)
  Finding c = run(in, "versions");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "software.matrix/cuda_newer_than_driver", {{"cuda", "12.4"}, {"driver_cuda", "12.2"}}))
      << shown(c);
  EXPECT_TRUE(note(c, "software.matrix/not_listed", {{"component", "cuda"}, {"version", "12.4"}})) << shown(c);
}

TEST(AcceptTest, ToolkitNeedingANewerDriverFailsAndEveryMatrixJudgementIsAClause) {
  // CUDA 12.x needs a 525-series driver (catalog cuda-12-driver); 470.199.02 is older, and below
  // the matrix's minimum 525.85.05 too.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "470.199.02";
  in.versions["cuda"] = "12.1";
  Finding c = run(in, "versions");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(
      c, "software.matrix/cuda_driver",
      {{"cuda", "12.1"}, {"driver", "470.199.02"}, {"major", "12"}, {"min_driver", "525"}, {"row", "cuda-12-driver"}}))
      << shown(c);
  EXPECT_TRUE(note(c, "software.matrix/below_min", {{"component", "driver"}})) << shown(c);
  // The notes reuse the quote's sentences (software.matrix/<variant>); joined as clauses, each
  // keeps one full stop.
  for (report::Lang lang : {report::Lang::kEn, report::Lang::kZh}) {
    const std::string detail = report::localize(c, lang).detail;
    EXPECT_EQ(detail.find(".."), std::string::npos) << detail;
    EXPECT_EQ(detail.find(".;"), std::string::npos) << detail;
    EXPECT_EQ(detail.find("。。"), std::string::npos) << detail;
    EXPECT_EQ(detail.find("。；"), std::string::npos) << detail;
  }
}

TEST(AcceptTest, NoVersionKnownNeedsEvidence) {
  EXPECT_EQ(run({}, "versions").severity, Severity::kNeedsEvidence);
}

// --- G6 load --------------------------------------------------------------------------------------

LogSummary load_log(double mib_per_h, int hours) {
  LogBuilder b;
  for (int h = 0; h <= hours; ++h) b.add("0", kMay6Ten + h * kHour, 99, 75, static_cast<float>(20000 + mib_per_h * h));
  return b.finish();
}

TEST(AcceptTest, MemoryGrowingTwoHundredMibAnHourFailsTheLoadTest) {
  // 200 MiB/h × 1.048576 MB/MiB = 209.7 MB/h > 50 MB/h; 20,000 + 200 × 24 = 24,800 MiB at the end.
  AcceptInputs in;
  in.load = load_log(200, 24);
  Finding c = run(in, "load");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.load.memory_growth", {{"gpu", "gpu01/0"}, {"mb", "209.7"}, {"limit", "50"}})) << shown(c);
  EXPECT_TRUE(
      evidence_with(c, "accept.ev.memory_growth",
                    {{"gpu", "gpu01/0"}, {"mib", "200.0"}, {"mb", "209.7"}, {"first", "20,000"}, {"last", "24,800"}}))
      << shown(c);
}

// A healthy NVMe (1% used, no media errors) and one GPU with no PCIe replays: what G6 reads
// beside the memory growth.
void add_wear_and_replay_evidence(AcceptInputs& in) {
  probe::SmartNvme drive;
  drive.device = "/dev/nvme0";
  drive.percentage_used = 1;
  drive.media_errors = 0;
  in.smart = {{"nvme0.json", drive}};
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].now.pcie_replays = 0;
}

TEST(AcceptTest, SteadyMemoryOverADayPassesAndShortRunWarns) {
  // 40 MiB/h = 41.9 MB/h ≤ 50 over 24 h: pass; the same over 12 h is not long enough.
  AcceptInputs in;
  in.load = load_log(40, 24);
  Finding unread = run(in, "load");
  // Memory is judged; NVMe wear and PCIe replays were not read, so the test is not passed yet.
  EXPECT_EQ(unread.severity, Severity::kNeedsEvidence) << shown(unread);
  EXPECT_TRUE(note(unread, "accept.load.no_smartctl")) << shown(unread);
  EXPECT_TRUE(note(unread, "accept.load.no_replays")) << shown(unread);
  add_wear_and_replay_evidence(in);
  Finding day = run(in, "load");
  EXPECT_EQ(day.severity, Severity::kPass) << shown(day);
  EXPECT_TRUE(note(day, "accept.load.nvme_ok", {{"count", "1"}, {"limit", "5%"}})) << shown(day);
  EXPECT_TRUE(note(day, "accept.load.replays_ok", {{"gpus", "1"}, {"limit", "0"}})) << shown(day);
  // Hourly samples 0–24 h cover 25 h (the last sample stands for its hour too).
  EXPECT_TRUE(note(day, "accept.load.ok", {{"gpus", "1"}, {"hours", "25.0"}, {"limit", "50"}})) << shown(day);
  in.load = load_log(40, 12);
  Finding short_run = run(in, "load");
  EXPECT_EQ(short_run.severity, Severity::kWarn);
  // 0–12 h hourly covers 13 h, 11 h short of 24.
  const Phrase* short_note = note(short_run, "accept.load.short", {{"gpu", "gpu01/0"}, {"needed", "24"}});
  ASSERT_TRUE(short_note) << shown(short_run);
  EXPECT_EQ(report::say(*short_note, report::Lang::kEn),
            "gpu01/0 covers 13 h of the load log (first to last sample plus one 1 h sampling interval), 11 h short of "
            "the 24 h test (not long enough)");
}

TEST(AcceptTest, LoadJudgesEachGpusOwnSpan) {
  // gpu01/0 ran 0–24 h, gpu01/1 only 18–24 h: the log covers 25 h, gpu01/1 only 7 h. Both steady.
  LogBuilder b;
  for (int h = 0; h <= 24; ++h) {
    b.add("0", kMay6Ten + h * kHour, 99, 75, 20000);
    if (h >= 18) b.add("1", kMay6Ten + h * kHour, 99, 75, 20000);
  }
  AcceptInputs in;
  in.load = b.finish();
  Finding c = run(in, "load");
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  const Phrase* short_note = note(c, "accept.load.short", {{"gpu", "gpu01/1"}, {"needed", "24"}});
  ASSERT_TRUE(short_note) << shown(c);
  EXPECT_NE(report::say(*short_note, report::Lang::kEn).find("covers 7 h of the load log"), std::string::npos);
  EXPECT_FALSE(note(c, "accept.load.short", {{"gpu", "gpu01/0"}})) << shown(c);
}

TEST(AcceptTest, WornOrErroringNvmeFailsTheLoadTest) {
  AcceptInputs in;
  in.load = load_log(0, 24);
  probe::SmartNvme worn;
  worn.device = "/dev/nvme0";
  worn.percentage_used = 12;  // > 5%
  worn.media_errors = 0;
  probe::SmartNvme bad;
  bad.device = "/dev/nvme1";
  bad.percentage_used = 0;
  bad.media_errors = 3;
  in.smart = {{"nvme0.json", worn}, {"nvme1.json", bad}};
  Finding c = run(in, "load");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.load.nvme_wear", {{"device", "/dev/nvme0"}, {"used", "12%"}, {"limit", "5%"}}))
      << shown(c);
  EXPECT_TRUE(note(c, "accept.load.media_errors", {{"device", "/dev/nvme1"}, {"count", "3"}})) << shown(c);
  EXPECT_FALSE(note(c, "accept.load.nvme_wear", {{"device", "/dev/nvme1"}})) << shown(c);
}

TEST(AcceptTest, AnNvmeCriticalWarningFailsTheLoadTestButHeatAloneWarns) {
  // smartmontools issue 537's drive: Critical Warning 0x04 (reliability degraded), as parsed.
  AcceptInputs in;
  add_wear_and_replay_evidence(in);
  in.load = load_log(0, 24);
  in.smart[0].second.critical_warning = 0x04;
  Finding c = run(in, "load");
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  const Phrase* warned = note(c, "accept.load.critical_warning", {{"device", "/dev/nvme0"}, {"value", "0x04"}});
  ASSERT_TRUE(warned) << shown(c);
  EXPECT_EQ(report::say(*warned, report::Lang::kEn),
            "/dev/nvme0 reports NVMe Critical Warning 0x04: reliability degraded");
  EXPECT_FALSE(note(c, "accept.load.nvme_ok")) << shown(c);
  // 0x02 alone: the drive is too warm, which cooling may settle.
  in.smart[0].second.critical_warning = 0x02;
  EXPECT_EQ(run(in, "load").severity, Severity::kWarn);
  // 0x03: spare below threshold as well: fail.
  in.smart[0].second.critical_warning = 0x03;
  EXPECT_EQ(run(in, "load").severity, Severity::kFail);
  in.smart[0].second.critical_warning = 0;
  in.smart[0].second.smart_passed = false;
  Finding failed = run(in, "load");
  EXPECT_EQ(failed.severity, Severity::kFail);
  EXPECT_TRUE(note(failed, "accept.load.smart_failed", {{"device", "/dev/nvme0"}})) << shown(failed);
}

TEST(AcceptTest, NoLoadLogNeedsEvidence) {
  EXPECT_EQ(run({}, "load").severity, Severity::kNeedsEvidence);
}

// --- G7 ASPM --------------------------------------------------------------------------------------

TEST(AcceptTest, AspmPerformancePassesAndL1OnAGpuLinkFails) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->aspm_policy = "performance";
  EXPECT_EQ(run(in, "pcie.aspm").severity, Severity::kPass);
  in.facts->pci.devices[1].aspm = "L1";
  Finding c = run(in, "pcie.aspm");
  EXPECT_EQ(c.severity, Severity::kFail);
  // "… an ASPM link wakes in up to 20 ms"
  EXPECT_TRUE(note(c, "accept.aspm.on", {{"links", "0000:01:00.0 (L1)"}})) << shown(c);
}

TEST(AcceptTest, AspmPowersaveFailsAndDefaultWithoutLinkStatesWarns) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->aspm_policy = "powersave";
  EXPECT_EQ(run(in, "pcie.aspm").severity, Severity::kFail);
  in.facts->aspm_policy = "default";
  EXPECT_EQ(run(in, "pcie.aspm").severity, Severity::kWarn);
  for (auto& d : in.facts->pci.devices) d.aspm = "";  // every link exposed and off
  EXPECT_EQ(run(in, "pcie.aspm").severity, Severity::kPass);
}

// --- G8 IOMMU -------------------------------------------------------------------------------------

TEST(AcceptTest, GpuAloneInItsGroupWithItsOwnAudioFunctionPasses) {
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 16, 16, {"0000:00:01.0"})});
  in.facts->iommu_groups = {{12, {"0000:01:00.0", "0000:01:00.1"}}};
  in.facts->pci.devices[1].iommu_group = 12;
  Finding c = run(in, "iommu");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  EXPECT_TRUE(note(c, "accept.iommu.ok", {{"gpus", "1"}})) << shown(c);
}

TEST(AcceptTest, GpuSharingItsGroupWithANicFailsNamingTheGroup) {
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 16, 16, {"0000:00:01.0"})});
  in.facts->iommu_groups = {{12, {"0000:01:00.0", "0000:02:00.0"}}};
  in.facts->pci.devices[1].iommu_group = 12;
  Finding c = run(in, "iommu");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(
      note(c, "accept.iommu.shared", {{"address", "0000:01:00.0"}, {"group", "12"}, {"others", "0000:02:00.0"}}))
      << shown(c);
}

TEST(AcceptTest, IommuOffFails) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->kernel_cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro";
  in.facts->iommu_groups_dir = true;  // /sys/kernel/iommu_groups is there, and empty
  EXPECT_EQ(run(in, "iommu").severity, Severity::kFail);
  EXPECT_EQ(run({}, "iommu").severity, Severity::kNeedsEvidence);
}

TEST(AcceptTest, NoIommuGroupsDirectoryAndASilentKernelLogNeedEvidenceNotAFail) {
  // An empty --root (no /sys) and a kernel log excerpt without IOMMU lines: nothing shows the
  // IOMMU off, so the check asks for /sys/kernel/iommu_groups instead of failing.
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  in.kernel_log = probe::KernelLog{};
  in.kernel_log_source = "dmesg.txt";
  Finding c = run(in, "iommu");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << shown(c);
  EXPECT_TRUE(note(c, "accept.needs.iommu_groups")) << shown(c);
  // The command line only asks: without the directory it is still no proof either way.
  in.facts->kernel_cmdline = "ro intel_iommu=on";
  EXPECT_EQ(run(in, "iommu").severity, Severity::kNeedsEvidence);
  in.facts->iommu_groups_dir = true;
  EXPECT_EQ(run(in, "iommu").severity, Severity::kFail);
}

// --- G9 firmware versions -------------------------------------------------------------------------

// `ipmitool mc info | grep Firmware`, attached for firmware.versions.
Attachment bmc_attachment() {
  Attachment a;
  a.check = "firmware.versions";
  a.file = "bmc.txt";
  a.sha256 = "0";
  a.firmware = probe::read_firmware_evidence("Firmware Revision         : 1.23\n");
  return a;
}

TEST(AcceptTest, FirmwareVersionsNeedBmcEvidenceThenPass) {
  AcceptInputs in;
  in.nvml = nvml_gpus(2);
  Finding c = run(in, "firmware.versions");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence);
  // Asks for `ipmitool mc info`, the ME version and the update path.
  EXPECT_TRUE(note(c, "accept.firmware.needs_attachment")) << shown(c);
  EXPECT_TRUE(evidence_with(c, "accept.ev.vbios", {{"gpu", "GPU 0 (00000000:01:00.0)"}, {"vbios", "92.00.45.00.05"}}))
      << shown(c);
  // With the BMC's version read, what no input shows (the ME version, the update path) is left
  // for a person: it warns, naming both, and never passes.
  in.attachments = {bmc_attachment()};
  Finding read = run(in, "firmware.versions");
  EXPECT_EQ(read.severity, Severity::kWarn);
  EXPECT_TRUE(note(read, "accept.firmware.me_and_update_path")) << shown(read);
}

TEST(AcceptTest, DifferentVbiosOnIdenticalGpusWarns) {
  AcceptInputs in;
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[1].info.vbios = "92.00.36.00.02";
  in.attachments = {bmc_attachment()};
  Finding c = run(in, "firmware.versions");
  EXPECT_EQ(c.severity, Severity::kWarn);
  const Phrase* differ = nullptr;
  for (const Phrase& p : c.notes)
    if (p.key == "accept.firmware.vbios_differ") differ = &p;
  ASSERT_NE(differ, nullptr) << shown(c);
  EXPECT_EQ(gpuplan::testing::english(*differ),
            "NVIDIA A100-SXM4-80GB GPUs carry different VBIOS versions (92.00.36.00.02 (GPU 1 (00000000:11:00.0)), "
            "92.00.45.00.05 (GPU 0 (00000000:01:00.0))): ask the vendor why");
}

// --- G10 performance ------------------------------------------------------------------------------

// A figure whose output also says it ran the clause's benchmark: ResNet-50 training, batch 256
// per GPU, on lines 1 and 2.
BenchmarkFigure clause_run(double images, BenchmarkScope scope, int gpus, int line, std::string text) {
  BenchmarkFigure f;
  f.images_per_s = images;
  f.scope = scope;
  f.gpus = gpus;
  f.line = line;
  f.text = std::move(text);
  f.model = Stated<std::string>{"resnet50", 1};
  f.mode = Stated<BenchmarkMode>{BenchmarkMode::kTraining, 1};
  f.batch = StatedBatch{256, false, 2};
  return f;
}

TEST(AcceptTest, FourteenThousandFourHundredOnEightGpusFailsTheClause) {
  // 14,400 ÷ 8 = 1,800 images/s per GPU < 1,850; the output says both "total" and 8 GPUs.
  AcceptInputs in;
  in.nvml = nvml_gpus(8);
  in.benchmark = clause_run(14400, BenchmarkScope::kTotal, 8, 3, "total images/sec: 14400.00");
  Finding c = run(in, "performance");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.performance.below", {{"per_gpu", "1,800"}, {"min", "1,850"}})) << shown(c);
}

TEST(AcceptTest, FifteenThousandTwoHundredOnEightGpusPasses) {
  // 15,200 ÷ 8 = 1,900 ≥ 1,850.
  AcceptInputs in;
  in.nvml = nvml_gpus(8);
  in.benchmark = clause_run(15200, BenchmarkScope::kTotal, 8, 3, "total images/sec: 15200.00");
  Finding c = run(in, "performance");
  EXPECT_EQ(c.severity, Severity::kPass);
  EXPECT_TRUE(note(c, "accept.performance.ok", {{"per_gpu", "1,900"}})) << shown(c);
  EXPECT_EQ(run({}, "performance").severity, Severity::kNeedsEvidence);
}

// --- G11 firmware hashes --------------------------------------------------------------------------

TEST(AcceptTest, FirmwareHashMismatchFailsShowingBothHashes) {
  const std::string good(64, 'a'), bad(64, 'b');
  AcceptInputs in;
  in.firmware = {{"/tmp/fw/vbios.rom", good}, {"/tmp/fw/bmc.bin", bad}, {"/tmp/fw/raid.bin", good}};
  in.expected_sha256 = {{"vbios.rom", good}, {"bmc.bin", good}};
  in.checksum_file = "SHA256SUMS";
  Finding c = run(in, "firmware.hashes");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.hashes.differs", {{"name", "bmc.bin"}, {"sha256", bad}, {"vendor", good}})) << shown(c);
  EXPECT_TRUE(note(c, "accept.hashes.not_listed", {{"name", "raid.bin"}, {"list", "SHA256SUMS"}})) << shown(c);
  EXPECT_TRUE(note(c, "accept.hashes.matched", {{"matched", "1"}, {"images", "3"}})) << shown(c);
  in.firmware.pop_back();
  in.firmware[1].sha256 = good;
  EXPECT_EQ(run(in, "firmware.hashes").severity, Severity::kPass);
  EXPECT_EQ(run({}, "firmware.hashes").severity, Severity::kNeedsEvidence);
}

TEST(AcceptTest, ChecksumFileInBothSha256sumFormsAndItsErrors) {
  const std::string h(64, 'A');
  auto sums = parse_checksums(h + "  firmware/vbios.rom\n# comment\n\n" + std::string(64, 'c') +
                                  " *bmc.bin\nSHA256 (raid.bin) = " + std::string(64, 'd') + "\n",
                              "SHA256SUMS");
  ASSERT_TRUE(sums.ok()) << sums.error().str();
  EXPECT_EQ(sums->at("vbios.rom"), std::string(64, 'a'));
  EXPECT_EQ(sums->at("bmc.bin"), std::string(64, 'c'));
  EXPECT_EQ(sums->at("raid.bin"), std::string(64, 'd'));
  auto bad = parse_checksums(h + "  ok.bin\nnot-a-hash  x.bin\n", "SHA256SUMS");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().line, 2);
  EXPECT_EQ(bad.error().file, "SHA256SUMS");
  EXPECT_EQ(bad.error().message.key, "error.checksums.malformed");
}

TEST(AcceptTest, ImagesPerSecondIsTheLastFigureTheBenchmarkPrinted) {
  // tf_cnn_benchmarks: step lines "100\timages/sec: 1870.1 …", then the total.
  EXPECT_EQ(parse_images_per_second("Step\tImg/sec\ttotal_loss\n1\timages/sec: 1870.1 +/- 0.0 (jitter = 0.0)\t7.8\n"
                                    "100\timages/sec: 1872.4 +/- 1.2 (jitter = 3.1)\t7.6\n"
                                    "----\ntotal images/sec: 1875.30\n"),
            1875.30);
  EXPECT_EQ(parse_images_per_second("epoch 1: 1875 img/s\n"), 1875);
  EXPECT_EQ(parse_images_per_second("throughput: 14,800 images/s on 8 GPUs"), 14800);
  EXPECT_FALSE(parse_images_per_second("loss 0.5, lr 0.1").has_value());
}

// --- G12 health archive ---------------------------------------------------------------------------

LogSummary archive(int step_s, float corrected_after, float uncorrected_after, std::optional<float> power = 310) {
  // An hour of samples; the counts rise at 10:30.
  LogBuilder b;
  for (int t = 0; t <= 3600; t += step_s) {
    bool late = t >= 1800;
    b.add("0", kMay6Ten + t * 1000LL, 99, 70, 1000, late ? corrected_after : 0, late ? uncorrected_after : 0, power);
  }
  return b.finish();
}

TEST(AcceptTest, ArchiveWithoutPowerWarnsNamingTheMissingMetric) {
  // SPEC G12's own `dmon -s mu` gives no power: the archive cannot show a power problem.
  AcceptInputs in;
  in.archive = archive(5, 0, 0, std::nullopt);
  Finding c = run(in, "health.archive");
  EXPECT_EQ(c.severity, Severity::kWarn);
  // "the archive lacks power samples for some GPUs"
  const Phrase* lacks = note(c, "accept.archive.lacks");
  ASSERT_TRUE(lacks) << shown(c);
  EXPECT_EQ(nested(*lacks, "metrics"), std::vector<Phrase>{Phrase("accept.metric.power")});
}

TEST(AcceptTest, FiveSecondArchiveWithSteadyEccPasses) {
  // 721 samples over an hour, every 5 s.
  AcceptInputs in;
  in.archive = archive(5, 0, 0);
  Finding c = run(in, "health.archive");
  EXPECT_EQ(c.severity, Severity::kPass) << shown(c);
  EXPECT_TRUE(note(c, "accept.archive.ok", {{"gpus", "1"}, {"hours", "1.0"}, {"max", "5"}})) << shown(c);
  EXPECT_TRUE(evidence_with(
      c, "accept.ev.gpu_span",
      {{"gpu", "gpu01/0"}, {"samples", "721"}, {"first", "2024-05-06 10:00:00"}, {"last", "2024-05-06 11:00:00"}}))
      << shown(c);
}

TEST(AcceptTest, RisingUncorrectedEccFailsWithWhenItFirstRose) {
  AcceptInputs in;
  in.archive = archive(5, 0, 2);
  Finding c = run(in, "health.archive");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.archive.uncorrected_rose",
                   {{"gpu", "gpu01/0"}, {"from", "0"}, {"to", "2"}, {"at", "2024-05-06 10:30:00"}}))
      << shown(c);
  in.archive = archive(5, 4, 0);
  Finding corrected = run(in, "health.archive");
  EXPECT_EQ(corrected.severity, Severity::kWarn);
  EXPECT_TRUE(note(corrected, "accept.archive.corrected_rose",
                   {{"gpu", "gpu01/0"}, {"from", "0"}, {"to", "4"}, {"at", "2024-05-06 10:30:00"}}))
      << shown(corrected);
  EXPECT_FALSE(note(corrected, "accept.archive.uncorrected_rose")) << shown(corrected);
}

TEST(AcceptTest, TenSecondArchiveWarnsAndMissingNeedsEvidence) {
  AcceptInputs in;
  in.archive = archive(10, 0, 0);
  Finding c = run(in, "health.archive");
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_TRUE(note(c, "accept.archive.sparse", {{"gpu", "gpu01/0"}, {"interval", "10.0"}, {"max", "5"}})) << shown(c);
  EXPECT_EQ(run({}, "health.archive").severity, Severity::kNeedsEvidence);
}

// --- Xid ------------------------------------------------------------------------------------------

const char* kXidCatalog = R"(kind: xid
entries:
  - id: test-xid-79
    name: GPU has fallen off the bus
    code: 79
    scope: gpu
    severity: fail
    action: inspect-hardware
    meaning: GPU has fallen off the bus
    source: "NVIDIA Xid catalog"
    as_of: "2024-06"
  - id: test-xid-13
    name: Graphics engine exception
    code: 13
    scope: gpu
    severity: warn
    action: restart-app
    meaning: Graphics engine exception
    source: "NVIDIA Xid catalog"
    as_of: "2024-06"
)";

probe::KernelEvent xid(int line, int code) {
  probe::KernelEvent e;
  e.kind = probe::KernelEventKind::kXid;
  e.line = line;
  e.device = "0000:17:00.0";
  e.code = code;
  e.text = fmt::format("NVRM: Xid (PCI:0000:17:00): {}, pid=1234", code);
  return e;
}

TEST(AcceptTest, AnXidIsAsGraveAsTheXidThatCausedIt) {
  // Xid 45 alone is info in the default catalog (pass); "caused by previous Xid 79" (79: fail)
  // fails, and "caused by" an Xid the catalog does not list warns.
  AcceptInputs in;
  in.kernel_log = probe::KernelLog{};
  in.kernel_log->format = probe::KernelLogFormat::kDmesg;  // a default KernelLog is in no known form
  in.kernel_log->lines = 100;
  in.kernel_log_source = "kernel.log";
  in.kernel_log->events = {xid(40, 45)};
  EXPECT_EQ(run(in, "xid").severity, Severity::kPass);
  in.kernel_log->events[0].cause_code = 79;
  Finding fail = run(in, "xid");
  EXPECT_EQ(fail.severity, Severity::kFail) << shown(fail);
  const Phrase* found = note(fail, "accept.xid.found");
  ASSERT_TRUE(found) << shown(fail);
  EXPECT_EQ(nested(*found, "counts"),
            (std::vector<Phrase>{Phrase("accept.xid.times")
                                     .fact("times", "1")
                                     .fact("what", {Phrase("accept.xid.caused")
                                                        .fact("label", "Xid")
                                                        .fact("code", "45")
                                                        .fact("severity", {Phrase("accept.xid.severity.fail")})
                                                        .fact("cause", "79")})}));
  in.kernel_log->events[0].cause_code = 149;
  EXPECT_EQ(run(in, "xid").severity, Severity::kWarn);
}

TEST(AcceptTest, XidSeverityComesFromTheCatalog) {
  auto cat = catalog_with({{"zz_xid.yaml", kXidCatalog}});
  AcceptInputs in;
  in.kernel_log = probe::KernelLog{};
  in.kernel_log_source = "kernel.log";
  in.kernel_log->events = {xid(40, 13)};
  Finding warn = run(in, "xid", cat);
  EXPECT_EQ(warn.severity, Severity::kWarn);
  in.kernel_log->events.push_back(xid(41, 79));
  Finding fail = run(in, "xid", cat);
  EXPECT_EQ(fail.severity, Severity::kFail);
  // "1 × Xid 13 (warn), 1 × Xid 79 (fail) in kernel.log": the catalog's severity, as a verdict tag.
  const Phrase* found = note(fail, "accept.xid.found", {{"log", "kernel.log"}});
  ASSERT_TRUE(found) << shown(fail);
  auto times = [](const std::string& code, const std::string& severity) {
    return Phrase("accept.xid.times")
        .fact("times", "1")
        .fact("what", {Phrase("accept.xid.code")
                           .fact("label", "Xid")
                           .fact("code", code)
                           .fact("severity", {Phrase("accept.xid.severity." + severity)})});
  };
  EXPECT_EQ(nested(*found, "counts"), (std::vector<Phrase>{times("13", "warn"), times("79", "fail")}));
  for (const char* severity : {"info", "warn", "fail"})  // every one the catalog's schema allows
    EXPECT_TRUE(report::has_message(std::string("accept.xid.severity.") + severity)) << severity;
  // "kernel.log:41: 0000:17:00.0 Xid 79: GPU has fallen off the bus → action inspect-hardware"
  EXPECT_TRUE(evidence_with(fail, "accept.ev.xid",
                            {{"log", "kernel.log"},
                             {"line", "41"},
                             {"device", "0000:17:00.0"},
                             {"label", "Xid"},
                             {"code", "79"},
                             {"meaning", "GPU has fallen off the bus"},
                             {"action", "inspect-hardware"}}))
      << shown(fail);
}

TEST(AcceptTest, UnknownXidWarnsCleanLogPassesNoLogNeedsEvidence) {
  auto cat = catalog_with({{"zz_xid.yaml", kXidCatalog}});
  AcceptInputs in;
  in.kernel_log = probe::KernelLog{};
  in.kernel_log->format = probe::KernelLogFormat::kDmesg;  // a default KernelLog is in no known form
  in.kernel_log->lines = 2000;
  Finding clean = run(in, "xid", cat);
  EXPECT_EQ(clean.severity, Severity::kPass);
  EXPECT_TRUE(note(clean, "accept.xid.none", {{"lines", "2000"}})) << shown(clean);
  in.kernel_log->events = {xid(7, 999)};
  Finding c = run(in, "xid", cat);
  EXPECT_EQ(c.severity, Severity::kWarn);
  // "1 × Xid 999 (unknown code)"
  const Phrase* found = note(c, "accept.xid.found");
  ASSERT_TRUE(found) << shown(c);
  EXPECT_EQ(nested(*found, "counts"),
            std::vector<Phrase>{Phrase("accept.xid.times")
                                    .fact("times", "1")
                                    .fact("what", {Phrase("accept.xid.unknown_code")
                                                       .fact("label", "Xid")
                                                       .fact("code", "999")
                                                       .fact("severity", {Phrase("accept.xid.severity.warn")})})});
  EXPECT_EQ(run({}, "xid", cat).severity, Severity::kNeedsEvidence);
}

// --- ECC ------------------------------------------------------------------------------------------

TEST(AcceptTest, CleanEccPassesAndADoubleBitRetirementFails) {
  AcceptInputs in;
  in.nvml = nvml_gpus(2);
  EXPECT_EQ(run(in, "ecc").severity, Severity::kPass);
  in.nvml->gpus[1].now.retired_pages_dbe = 2;
  Finding c = run(in, "ecc");
  EXPECT_EQ(c.severity, Severity::kFail);
  EXPECT_TRUE(note(c, "accept.ecc.dbe_retired", {{"gpu", "GPU 1 (00000000:11:00.0)"}, {"count", "2"}})) << shown(c);
}

TEST(AcceptTest, PendingRemapWarnsAndNoNvmlNeedsEvidence) {
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].now.remapping_pending = true;
  Finding c = run(in, "ecc");
  EXPECT_EQ(c.severity, Severity::kWarn);
  EXPECT_TRUE(note(c, "accept.ecc.remap_pending", {{"gpu", "GPU 0 (00000000:01:00.0)"}})) << shown(c);
  EXPECT_EQ(run({}, "ecc").severity, Severity::kNeedsEvidence);
  // Without NVML the note names why it was not read.
  in.nvml.reset();
  in.nvml_error = Phrase("accept.nvml.off");
  Finding none = run(in, "ecc");
  EXPECT_EQ(none.severity, Severity::kNeedsEvidence);
  const Phrase* needs = note(none, "accept.needs.nvml");
  ASSERT_TRUE(needs) << shown(none);
  EXPECT_EQ(nested(*needs, "why"), std::vector<Phrase>{Phrase("accept.nvml.off")});
}

// --- GPU count ------------------------------------------------------------------------------------

TEST(AcceptTest, GpuCountsAgreePassAndAMissingGpuFailsWithTheThreeNumbers) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.nvml = nvml_gpus(8);
  in.expected_gpus = 8;
  EXPECT_EQ(run(in, "gpu.count").severity, Severity::kPass);
  in.nvml = nvml_gpus(7);
  Finding c = run(in, "gpu.count");
  EXPECT_EQ(c.severity, Severity::kFail);
  // "GPU counts disagree: 8 on the PCI bus, 7 seen by NVML, 8 expected"
  EXPECT_EQ(c.notes, std::vector<Phrase>{Phrase("accept.gpus.disagree")
                                             .fact("counts", {Phrase("accept.gpus.on_pci").fact("count", "8"),
                                                              Phrase("accept.gpus.in_nvml").fact("count", "7"),
                                                              Phrase("accept.gpus.expected").fact("count", "8")})});
  EXPECT_TRUE(evidence_with(c, "accept.ev.gpu_counts", {{"pci", "8"}, {"nvml", "7"}, {"expected", "8"}})) << shown(c);
  EXPECT_EQ(run_acceptance(in, default_catalog()).verdict, Verdict::kFail);
}

// --- Partial and unreadable inputs never pass -------------------------------------------------------

probe::KernelLog kernel_log(probe::KernelLogFormat format, int lines, int malformed) {
  probe::KernelLog log;
  log.format = format;
  log.lines = lines;
  for (int i = 1; i <= malformed; ++i) log.malformed_lines.push_back(i);
  return log;
}

TEST(AcceptTest, KernelLogInNoKnownFormLeavesAerAndXidNeedingEvidence) {
  // 50 lines, none in a form the parser reads: no event could be read, so "no AER errors" and
  // "no Xid" would be claims about lines never read.
  AcceptInputs in;
  in.kernel_log = kernel_log(probe::KernelLogFormat::kUnknown, 50, 50);
  in.kernel_log_source = "kernel.log";
  for (const char* id : {"pcie.aer", "xid"}) {
    Finding c = run(in, id);
    EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << shown(c);
    // "kernel.log is in no form gpuplan reads (50 of 50 lines unreadable) …: give raw /dev/kmsg
    // records, plain `dmesg`, `dmesg --ctime` or `dmesg --time-format=iso` output"
    EXPECT_TRUE(note(c, "accept.klog.unreadable", {{"log", "kernel.log"}, {"malformed", "50"}, {"lines", "50"}}))
        << shown(c);
  }
  // A failure it did read still fails: an unreadable log cannot clear sysfs's counters.
  in.facts = eight_direct_gpus();
  in.facts->pci.devices[1].aer = probe::AerCounters{0, 2, 0};
  EXPECT_EQ(run(in, "pcie.aer").severity, Severity::kFail);
}

TEST(AcceptTest, KernelLogWithManyMalformedLinesWarns) {
  // 20 malformed of 1,000 lines = 2.0% > 1% (accept.kernel_log.max_malformed_share); 10 of
  // 1,000 = 1.0% is not above it and passes.
  AcceptInputs in;
  in.kernel_log = kernel_log(probe::KernelLogFormat::kDmesg, 1000, 20);
  in.kernel_log_source = "kernel.log";
  for (const char* id : {"pcie.aer", "xid"}) {
    Finding c = run(in, id);
    EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
    EXPECT_TRUE(note(c, "accept.klog.malformed",
                     {{"log", "kernel.log"},
                      {"malformed", "20"},
                      {"lines", "1000"},
                      {"share", "2.0%"},
                      {"allowed", "1.0%"},
                      {"format", "dmesg"}}))
        << shown(c);
  }
  in.kernel_log = kernel_log(probe::KernelLogFormat::kDmesg, 1000, 10);
  EXPECT_EQ(run(in, "pcie.aer").severity, Severity::kPass) << shown(run(in, "pcie.aer"));
  EXPECT_EQ(run(in, "xid").severity, Severity::kPass) << shown(run(in, "xid"));
}

TEST(AcceptTest, SoakGpuWithoutTemperatureSamplesNeedsEvidence) {
  // gpu01/1 logged 73 utilization samples and no temperature: "every sample at or below 85 °C"
  // would be said of no sample at all.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) {
    b.add("0", kMay6Ten + h * kHour, 99, 80);
    b.add("1", kMay6Ten + h * kHour, 99, std::nullopt);
  }
  AcceptInputs in;
  in.soak = b.finish();
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << shown(c);
  EXPECT_EQ(c.notes, std::vector<Phrase>{Phrase("accept.log.no_temperature").fact("gpu", "gpu01/1")});

  LogBuilder u;
  for (int h = 0; h <= 72; ++h) u.add("0", kMay6Ten + h * kHour, std::nullopt, 80);
  in.soak = u.finish();
  Finding no_util = run(in, "soak");
  EXPECT_EQ(no_util.severity, Severity::kNeedsEvidence) << shown(no_util);
  EXPECT_EQ(no_util.notes, std::vector<Phrase>{Phrase("accept.log.no_utilization").fact("gpu", "gpu01/0")});
}

TEST(AcceptTest, SoakJudgesEachGpusOwnSpan) {
  // gpu01/0 logged 0–72 h, gpu01/1 only 48–72 h, hourly: the log covers 73 h, gpu01/1 only 25 h.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) {
    b.add("0", kMay6Ten + h * kHour, 99, 80);
    if (h >= 48) b.add("1", kMay6Ten + h * kHour, 99, 80);
  }
  AcceptInputs in;
  in.soak = b.finish();
  EXPECT_DOUBLE_EQ(in.soak->hours(), 73.0);
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  ASSERT_EQ(c.notes.size(), 1u) << shown(c);
  EXPECT_EQ(report::say(c.notes[0], report::Lang::kEn),
            "gpu01/1 covers 25 h (first to last sample plus one 1 h sampling interval), 47 h short of the 72 h soak "
            "(not long enough to accept)");
}

TEST(AcceptTest, SoakLogMissingGpusTheServerShowsWarns) {
  // One GPU soaked for 72 h; NVML and the PCI bus both show 8.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  in.nvml = nvml_gpus(8);
  in.facts = eight_direct_gpus();
  Finding c = run(in, "soak");
  EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
  // "the soak log covers 1 GPU(s) but NVML shows 8, the PCI bus shows 8: the others were not soaked"
  EXPECT_EQ(c.notes, std::vector<Phrase>{Phrase("accept.soak.gpus_missing")
                                             .fact("logged", "1")
                                             .fact("shown", {Phrase("accept.shown.nvml").fact("count", "8"),
                                                             Phrase("accept.shown.pci").fact("count", "8")})});
}

TEST(AcceptTest, LoadGpuWithoutMemorySamplesIsNotCalledSteady) {
  // gpu01/0 grows 40 MiB/h = 41.9 MB/h (≤ 50) over 24 h; gpu01/1 has no memory samples.
  LogBuilder b;
  for (int h = 0; h <= 24; ++h) {
    b.add("0", kMay6Ten + h * kHour, 99, 75, static_cast<float>(20000 + 40 * h));
    b.add("1", kMay6Ten + h * kHour, 99, 75);
  }
  AcceptInputs in;
  in.load = b.finish();
  Finding c = run(in, "load");
  EXPECT_EQ(c.severity, Severity::kNeedsEvidence) << shown(c);
  EXPECT_TRUE(note(c, "accept.log.no_memory", {{"gpu", "gpu01/1"}})) << shown(c);
  EXPECT_TRUE(evidence_with(c, "accept.ev.memory_growth", {{"gpu", "gpu01/0"}, {"mib", "40.0"}, {"mb", "41.9"}}))
      << shown(c);
  // Not "memory growth at most 50 MB/h": gpu01/1's was never judged.
  EXPECT_FALSE(note(c, "accept.load.ok")) << shown(c);
}

TEST(AcceptTest, SampleLogsWithManySkippedLinesWarn) {
  // 20 of 1,000 lines skipped = 2.0% > 1% (accept.logs.max_skipped_share); otherwise each log
  // passes: a 72 h soak, a 24 h load at 0 MiB/h, a 5-second archive with steady ECC. (LogBuilder
  // names every log soak.csv.)
  auto with_skips = [](LogSummary log) {
    log.stats.lines = 1000;
    log.stats.skipped_count = 20;
    return log;
  };
  LogBuilder soak;
  for (int h = 0; h <= 72; ++h) soak.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = with_skips(soak.finish());
  in.load = with_skips(load_log(0, 24));
  in.archive = with_skips(archive(5, 0, 0));
  for (const char* id : {"soak", "load", "health.archive"}) {
    Finding c = run(in, id);
    EXPECT_EQ(c.severity, Severity::kWarn) << shown(c);
    EXPECT_TRUE(
        note(c, "accept.log.skipped",
             {{"file", "soak.csv"}, {"skipped", "20"}, {"lines", "1,000"}, {"share", "2.0%"}, {"allowed", "1.0%"}}))
        << shown(c);
  }
  in.soak->stats.skipped_count = 10;  // 1.0%: not above the share
  EXPECT_EQ(run(in, "soak").severity, Severity::kPass) << shown(run(in, "soak"));
}

// --- Capability, not the idle link, sizes the topology -------------------------------------------

TEST(AcceptTest, IdleGpusBehindASharedUplinkStillFailTopology) {
  // The two GPUs behind one switch idle at 2.5 GT/s (Gen1) x16 = 4 GB/s each: 8 GB/s fit the
  // Gen4 x16 uplink's 31.5 GB/s. Under load each wants its max Gen4 x16, 2 × 31.5 = 63 GB/s on
  // 31.5: half each. The idle links themselves only warn.
  auto devices = two_gpus_behind_one_switch(0x10b5, 0x8747);
  for (auto& d : devices)
    if (d.kind == PciKind::kGpu || d.address == "0000:04:00.0" || d.address == "0000:04:04.0") d.current = {2.5, 16};
  AcceptInputs in;
  in.facts = facts_with(devices);
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[0].info.pci_bus_id = "00000000:05:00.0";
  in.nvml->gpus[1].info.pci_bus_id = "00000000:06:00.0";
  for (auto& g : in.nvml->gpus) g.now.utilization_pct = 0;
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  const Phrase* shared = note(c, "accept.pcie.shared");
  ASSERT_TRUE(shared) << shown(c);
  EXPECT_EQ(*shared, two_gpus_share_the_plx_uplink());
  // "0000:05:00.0 trained at Gen1 x16, below Gen4 x16, below its own max Gen4 x16 while idle"
  const Phrase* idle = note(c, "accept.pcie.trained_low_idle", {{"address", "0000:05:00.0"}, {"link", "Gen1 x16"}});
  ASSERT_TRUE(idle) << shown(c);
  EXPECT_EQ(nested(*idle, "below"), below_gen4_x16_and_its_max());
}

TEST(AcceptTest, IdleGpuBelowAGen3UplinkHasASlowerHop) {
  // GPU 05:00.0 (max Gen4 x16) idles at Gen1 x16, as does its switch port 04:00.0; the switch's
  // uplink 03:00.0 is Gen3 x16. Against the idle Gen1 link every hop looked fast enough; against
  // the GPU's Gen4 x16 the Gen3 uplink is slower.
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.1", 8, 16, {}), bridge("0000:03:00.0", 8, 16, {"0000:00:01.1"}),
                         bridge("0000:04:00.0", 2.5, 16, {"0000:03:00.0", "0000:00:01.1"}),
                         gpu("0000:05:00.0", 2.5, 16, {"0000:04:00.0", "0000:03:00.0", "0000:00:01.1"})});
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].info.pci_bus_id = "00000000:05:00.0";
  in.nvml->gpus[0].now.utilization_pct = 0;
  Finding c = run(in, "pcie.topology");
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  // "slower hop: 0000:05:00.0 (Gen1 x16) ← 0000:04:00.0 ← 0000:03:00.0 uplink Gen3 x16 ← root 0000:00:01.1"
  const Phrase* slower = note(c, "accept.pcie.slower_hop");
  ASSERT_TRUE(slower) << shown(c);
  EXPECT_EQ(nested(*slower, "path"),
            (std::vector<Phrase>{hop_gpu("0000:05:00.0", "Gen1 x16"), hop("0000:04:00.0"),
                                 hop_uplink("0000:03:00.0", "Gen3 x16"), hop_root("0000:00:01.1")}));
}

// --- One PCI address key ---------------------------------------------------------------------------

TEST(AcceptTest, IdleNvmlGpuInDomainZeroIsNotTheVmdGpuOnTheSameBus) {
  // PCI shows one GPU, behind VMD at 10000:01:00.0, trained at Gen1 x16; NVML's only GPU is
  // 0000:01:00.0, idle. The last 12 characters of both are "0000:01:00.0": the old match took
  // NVML's 0% for the VMD GPU and only warned. They are different GPUs: nothing says the VMD
  // GPU is idle, so Gen1 fails.
  AcceptInputs in;
  in.facts = facts_with({bridge("10000:00:01.0", 16, 16, {}), gpu("10000:01:00.0", 2.5, 16, {"10000:00:01.0"})});
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].info.pci_bus_id = "00000000:01:00.0";
  in.nvml->gpus[0].now.utilization_pct = 0;
  EXPECT_EQ(run(in, "pcie.topology").severity, Severity::kFail);
  in.nvml->gpus[0].info.pci_bus_id = "00010000:01:00.0";  // now NVML names the VMD GPU itself
  EXPECT_EQ(run(in, "pcie.topology").severity, Severity::kWarn);
}

// --- IOMMU asked for is not IOMMU on ---------------------------------------------------------------

TEST(AcceptTest, IommuAskedForOnTheCommandLineButNotActiveFails) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->kernel_cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro intel_iommu=on";
  in.facts->iommu_groups_dir = true;
  Finding c = run(in, "iommu");
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  // "IOMMU asked for (intel_iommu=on on the kernel command line) but not active"
  EXPECT_TRUE(note(c, "accept.iommu.asked_not_active", {{"flags", "intel_iommu=on"}})) << shown(c);
  EXPECT_TRUE(evidence_with(c, "accept.ev.iommu_asked", {{"flag", "intel_iommu=on"}})) << shown(c);
  // With groups the IOMMU is on; the command line stays in the evidence.
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 16, 16, {"0000:00:01.0"})});
  in.facts->kernel_cmdline = "ro intel_iommu=on";
  in.facts->iommu_groups = {{12, {"0000:01:00.0"}}};
  in.facts->pci.devices[1].iommu_group = 12;
  Finding on = run(in, "iommu");
  EXPECT_EQ(on.severity, Severity::kPass) << shown(on);
  EXPECT_TRUE(evidence_with(on, "accept.ev.iommu_asked", {{"flag", "intel_iommu=on"}})) << shown(on);
}

// --- Versions, benchmark parsing --------------------------------------------------------------------

TEST(AcceptTest, HugeVersionComponentComparesWithoutOverflow) {
  // 9223372036854775808 = 2^63, one above LONG_MAX: `n * 10 + d` on long overflowed (it wrapped
  // to −2^63 and sorted the toolkit below 12.2). As a digit string it is 19 digits > 1: newer.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->cuda_driver_version = "12.2";
  in.versions["cuda"] = "12.9223372036854775808";
  Finding c = run(in, "versions");
  EXPECT_EQ(c.severity, Severity::kFail) << shown(c);
  EXPECT_TRUE(
      note(c, "software.matrix/cuda_newer_than_driver", {{"cuda", "12.9223372036854775808"}, {"driver_cuda", "12.2"}}))
      << shown(c);
}

TEST(AcceptTest, ImagesPerSecondSurvivesHugeNumbersAndVeryLongLines) {
  // A 400-digit figure is past any double (DBL_MAX ≈ 1.8e308): std::stod threw; now it is no
  // figure, and the earlier 1875.3 stays the answer.
  const std::string huge(400, '9');
  EXPECT_EQ(parse_images_per_second("total images/sec: 1875.3\nimages/sec: " + huge + "\n"), 1875.3);
  EXPECT_FALSE(parse_images_per_second(huge + " img/s").has_value());
  // A 300,000-character line (std::regex recursed once per digit and overflowed the stack) is
  // skipped; the short line after it is read.
  const std::string long_line = "images/sec: " + std::string(300'000, '1');
  EXPECT_EQ(parse_images_per_second(long_line + "\ntotal images/sec: 1875.30\n"), 1875.30);
  EXPECT_FALSE(parse_images_per_second(long_line).has_value());
}

// --- from NVML samples -----------------------------------------------------------------------

TEST(AcceptTest, FakeNvmlMemoryGrowthSampledForADayFailsTheLoadCheck) {
  // tests/fixtures/nvml/memory-growth.yaml: every GPU's memory grows 200 MiB/h from 20,000 MiB.
  // Sampled hourly for 24 h of fake time (the fake reads elapsed seconds from the clock file):
  // 200 × 1.048576 = 209.7 MB/h > 50 MB/h on each of the 8 GPUs.
  const std::string clock_file = temp_dir() + "/clock";
  std::ofstream(clock_file) << 0 << "\n";
  setenv("GPUPLAN_FAKE_NVML_SCENARIO", testing::source_path("tests/fixtures/nvml/memory-growth.yaml").c_str(), 1);
  setenv("GPUPLAN_FAKE_NVML_CLOCK_FILE", clock_file.c_str(), 1);
  auto nvml = nvml::Nvml::open(GPUPLAN_FAKE_NVML);
  ASSERT_TRUE(nvml) << nvml.error().str();
  const auto start = std::chrono::system_clock::time_point(std::chrono::milliseconds(1714953600000));  // 2024-05-06
  std::chrono::milliseconds elapsed{0};
  auto samples = nvml::sample_gpus(
      **nvml, std::chrono::hours(24), std::chrono::hours(1), [&] { return start + elapsed; },
      [&](std::chrono::milliseconds d) {
        elapsed += d;
        std::ofstream(clock_file) << elapsed.count() / 1000 << "\n";
      });
  nvml->reset();
  unsetenv("GPUPLAN_FAKE_NVML_SCENARIO");
  unsetenv("GPUPLAN_FAKE_NVML_CLOCK_FILE");
  ASSERT_EQ(samples.size(), 25u * 8u);

  LogSummariser summariser("nvml", 95, 85);
  telemetry::GpuRegistry gpus;
  for (int i = 0; i < 8; ++i) gpus.id("nvml", std::to_string(i));
  for (const auto& sample : samples) summariser.add(sample);
  AcceptInputs in;
  in.load = summariser.finish(gpus, {});
  Finding c = run(in, "load");
  EXPECT_EQ(c.severity, Severity::kFail);
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(
        note(c, "accept.load.memory_growth", {{"gpu", "nvml/" + std::to_string(i)}, {"mb", "209.7"}, {"limit", "50"}}))
        << shown(c);
}

// --- The words: every note of a failing check reads in Chinese -------------------------------------

// A server on which every check that judges something fails: the soak ran hot, the GPU sits
// behind a Gen3 x8 switch uplink with AER errors, ASPM L1 and a shared IOMMU group, an
// InfiniBand port is down, the driver is below the matrix, memory grows 200 MiB/h, the benchmark
// is short, a firmware hash differs, uncorrected ECC rose in the archive, the kernel logged Xid 79,
// a GPU retired pages for double-bit errors and NVML shows 2 GPUs where the PCI bus shows 1.
AcceptInputs failing_server() {
  AcceptInputs in;
  LogBuilder soak;
  for (int h = 0; h <= 72; ++h) soak.add("0", kMay6Ten + h * kHour, 99, h == 30 ? 86 : 80);
  in.soak = soak.finish();
  in.facts = facts_with({bridge("0000:00:01.1", 8, 8, {}), bridge("0000:03:00.0", 8, 8, {"0000:00:01.1"}),
                         bridge("0000:04:08.0", 8, 16, {"0000:03:00.0", "0000:00:01.1"}),
                         gpu("0000:05:00.0", 8, 16, {"0000:04:08.0", "0000:03:00.0", "0000:00:01.1"})});
  PciDevice& g = in.facts->pci.devices.back();  // 0000:05:00.0, last in address order
  g.aer = probe::AerCounters{0, 2, 0};
  g.aspm = "L1";
  g.iommu_group = 12;
  in.facts->iommu_groups = {{12, {"0000:05:00.0", "0000:02:00.0"}}};
  in.facts->ib_ports = {ib_port("mlx5_1", "1: DOWN", "3: Disabled")};
  in.nvml = nvml_gpus(2);
  in.nvml->driver_version = "470.199.02";
  in.nvml->gpus[1].now.retired_pages_dbe = 2;
  in.load = load_log(200, 24);
  in.benchmark = clause_run(2000, BenchmarkScope::kTotal, 2, 3, "total images/sec: 2000");  // 1,000 per GPU
  in.firmware = {{"/tmp/fw/bmc.bin", std::string(64, 'b')}};
  in.expected_sha256 = {{"bmc.bin", std::string(64, 'a')}};
  in.checksum_file = "SHA256SUMS";
  in.archive = archive(5, 0, 2);
  in.kernel_log = probe::KernelLog{};
  in.kernel_log->format = probe::KernelLogFormat::kDmesg;
  in.kernel_log->lines = 2000;
  in.kernel_log->events = {xid(41, 79)};
  in.kernel_log_source = "kernel.log";
  return in;
}

// Whether `s` holds a CJK ideograph (U+4E00–U+9FFF, three bytes in UTF-8).
bool has_cjk(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(s[i]), b1 = static_cast<unsigned char>(s[i + 1]),
               b2 = static_cast<unsigned char>(s[i + 2]);
    if ((b0 & 0xF0) != 0xE0 || (b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) continue;
    const unsigned cp = (b0 & 0x0Fu) << 12 | (b1 & 0x3Fu) << 6 | (b2 & 0x3Fu);
    if (cp >= 0x4E00 && cp <= 0x9FFF) return true;
  }
  return false;
}

// A "{fact}" placeholder the message table left unfilled.
bool has_placeholder(const std::string& s) {
  static const std::regex placeholder(R"(\{[a-z_]+\})");
  return std::regex_search(s, placeholder);
}

TEST(AcceptTest, FailingChecksReadFullyInChinese) {
  const AcceptReport r = run_acceptance(failing_server(), default_catalog());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<std::string> failed;
  for (const auto& c : r.checks)
    if (c.severity == Severity::kFail) failed.push_back(c.id);
  // All but firmware.versions, which asks for the BMC evidence no input can fail.
  EXPECT_EQ(failed, (std::vector<std::string>{"soak", "pcie.topology", "pcie.aer", "infiniband", "versions", "load",
                                              "pcie.aspm", "iommu", "performance", "firmware.hashes", "health.archive",
                                              "xid", "ecc", "gpu.count"}));
  for (const auto& c : r.checks) {
    if (c.severity != Severity::kFail) continue;
    ASSERT_FALSE(c.notes.empty()) << c.id;
    for (const Phrase& n : c.notes) {
      const std::string zh = report::say(n, report::Lang::kZh);
      EXPECT_TRUE(report::has_message(n.key)) << c.id << ": " << n;
      EXPECT_FALSE(has_placeholder(zh)) << c.id << ": " << zh;
      EXPECT_TRUE(has_cjk(zh)) << c.id << ": " << zh;
      EXPECT_NE(zh, report::say(n, report::Lang::kEn)) << c.id << ": " << zh;
    }
    const report::LocalizedFinding words = report::localize(c, report::Lang::kZh);
    EXPECT_TRUE(has_cjk(words.title)) << c.id << ": " << words.title;
    EXPECT_FALSE(has_placeholder(words.detail)) << c.id << ": " << words.detail;
    EXPECT_EQ(words.detail.find("。。"), std::string::npos) << c.id << ": " << words.detail;
    for (const std::string& line : report::evidence_lines(c, report::Lang::kZh))
      EXPECT_FALSE(has_placeholder(line)) << c.id << ": " << line;
  }
  // Two in full: the GPU count's nested counts joined the Chinese way, and the Xid's catalog
  // severity worded, not shown as the catalog's "fail".
  EXPECT_EQ(report::say(check(r, "gpu.count").notes.at(0), report::Lang::kZh),
            "GPU 数量不一致：PCI 总线上 1 块、NVML 看到 2 块");
  EXPECT_EQ(report::say(check(r, "xid").notes.at(0), report::Lang::kZh), "kernel.log 中有 1 × Xid 79（失败）");
}

}  // namespace
}  // namespace gpuplan::accept
