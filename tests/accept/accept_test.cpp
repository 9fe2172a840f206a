// Each acceptance check passes on inputs built to pass, fails (or warns) on inputs built to
// fail, and asks for evidence when its input is missing. Inputs are hand-made structs, as the
// probes and NVML would fill them; the figures in the asserts are worked out in the comments.
#include "accept/accept.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "accept/pci_address.h"
#include "test_support.h"

namespace gpuplan::accept {
namespace {

using gpuplan::testing::catalog_with;
using gpuplan::testing::default_catalog;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;
using probe::PciDevice;
using probe::PciKind;

constexpr int64_t kHour = 3'600'000;
// 2024-05-06 10:00:00 as the readers store it: days_from_civil(2024, 5, 6) = 19,849 days.
constexpr int64_t kMay6Ten = 19'849LL * 86'400'000 + 10 * kHour;

const Check& check(const AcceptReport& r, const std::string& id) {
  for (const auto& c : r.checks)
    if (c.id == id) return c;
  static Check none;
  ADD_FAILURE() << "no check " << id;
  return none;
}

Check run(const AcceptInputs& in, const std::string& id, const catalog::Catalog& cat = default_catalog()) {
  return check(run_acceptance(in, cat), id);
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}
bool any_has(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines)
    if (has(l, needle)) return true;
  return false;
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
           std::optional<float> mem = {}, std::optional<float> ecc_c = {}, std::optional<float> ecc_u = {},
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
  for (const auto& c : r.checks) {
    EXPECT_EQ(c.status, Status::kNeedsEvidence) << c.id;
    EXPECT_FALSE(c.title.empty()) << c.id;
    EXPECT_FALSE(c.detail.empty()) << c.id;
    EXPECT_FALSE(c.source.empty()) << c.id;
  }
  EXPECT_TRUE(r.passed);  // nothing failed: nothing was judged
  EXPECT_STREQ(status_name(Status::kNeedsEvidence), "needs-evidence");
}

// --- G1 soak ------------------------------------------------------------------------------------

TEST(AcceptTest, SeventyTwoHoursCoolAndBusyPassesTheSoak) {
  // 73 hourly samples, 0 h … 72 h: span 72 h, 80 °C ≤ 85, 99% ≥ 95.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
  EXPECT_DOUBLE_EQ(in.soak->hours(), 72.0);
  EXPECT_TRUE(has(c.detail, "72.0 h")) << c.detail;
}

TEST(AcceptTest, OneSampleAtEightySixDegreesFailsTheSoakNamingGpuValueAndTime) {
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("3", kMay6Ten + h * kHour, 99, h == 30 ? 86 : 80);
  AcceptInputs in;
  in.soak = b.finish();
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kFail);
  // 10:00 on May 6 + 30 h = 16:00 on May 7.
  EXPECT_TRUE(has(c.detail, "gpu01/3 reached 86 °C at 2024-05-07 16:00:00")) << c.detail;
}

TEST(AcceptTest, UtilizationBelowFloorInOneSampleInTenFailsTheSoak) {
  // Every tenth of 73 samples (h = 0, 10, …, 70: 8 samples) at 60%: 8 / 73 = 11.0% > 5%.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("0", kMay6Ten + h * kHour, h % 10 == 0 ? 60 : 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "in 8 of 73 samples (11.0%, allowed 5.0%)")) << c.detail;
}

TEST(AcceptTest, FortyEightHourSoakWarnsNotLongEnough) {
  LogBuilder b;
  for (int h = 0; h <= 48; ++h) b.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kWarn);
  EXPECT_TRUE(has(c.detail, "spans 48.0 h, not the 72 h soak")) << c.detail;
}

TEST(AcceptTest, NoSoakLogNeedsTheFile) {
  Check c = run({}, "soak");
  EXPECT_EQ(c.status, Status::kNeedsEvidence);
  EXPECT_TRUE(has(c.detail, "pass --soak FILE: an nvidia-smi -l 1 CSV or dmon log of the 72 h run")) << c.detail;
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
  EXPECT_DOUBLE_EQ(s->hours(), 2.0);
}

// --- G2 PCIe topology ----------------------------------------------------------------------------

TEST(AcceptTest, CpuDirectGen4x16GpusPassTopologyAndRecordTheNumaMap) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
  EXPECT_TRUE(any_has(c.evidence, "0000:01:00.0 Gen4 x16 → root port 0000:00:01.0 → NUMA node 0")) << c.evidence[0];
}

TEST(AcceptTest, PlxUplinkAtGen3x8FailsTopologyWithThePath) {
  // GPU 05:00.0 (Gen3 x16) sits below switch downstream port 04:08.0, whose upstream port
  // 03:00.0 trained at Gen3 x8 to root port 00:01.1: half the GPU's lanes.
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.1", 8, 8, {}), bridge("0000:03:00.0", 8, 8, {"0000:00:01.1"}),
                         bridge("0000:04:08.0", 8, 16, {"0000:03:00.0", "0000:00:01.1"}),
                         gpu("0000:05:00.0", 8, 16, {"0000:04:08.0", "0000:03:00.0", "0000:00:01.1"})});
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "0000:05:00.0 (Gen3 x16) ← 0000:04:08.0 ← 0000:03:00.0 uplink Gen3 x8 ← root 0000:00:01.1"))
      << c.detail;
  EXPECT_TRUE(has(c.detail, "0000:05:00.0 trained at Gen3 x16, below Gen4 x16, below its own max Gen4 x16"))
      << c.detail;
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

TEST(AcceptTest, TwoGpusSharingAnUnknownSwitchUplinkFailTopology) {
  AcceptInputs in;
  in.facts = facts_with(two_gpus_behind_one_switch(0x10b5, 0x8747));
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(
      has(c.detail,
          "shared: 2 GPUs × Gen4 x16 behind one Gen4 x16 uplink 0000:03:00.0 (10b5:8747) halves each GPU's bandwidth"))
      << c.detail;
}

TEST(AcceptTest, SameSharingOnAnHgxPex88096IsTheDesignedLayout) {
  AcceptInputs in;
  in.facts = facts_with(two_gpus_behind_one_switch(0x1000, 0xc010));
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
  EXPECT_TRUE(has(c.detail, "designed layout")) << c.detail;
  EXPECT_TRUE(has(c.detail, "broadcom-pex88096")) << c.detail;
}

TEST(AcceptTest, IdleGpuAtLowSpeedButFullWidthOnlyWarns) {
  // An idle A100 drops to 2.5 GT/s (Gen1) at x16; NVML says it is at 0% utilization.
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 2.5, 16, {"0000:00:01.0"})});
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].now.utilization_pct = 0;
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kWarn) << c.detail;
  EXPECT_TRUE(has(c.detail, "re-check under load")) << c.detail;
}

TEST(AcceptTest, NoHostFactsLeavesTopologyNeedingEvidence) {
  AcceptInputs in;
  in.facts_error = "no such directory";
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kNeedsEvidence);
  EXPECT_TRUE(has(c.detail, "no such directory"));
}

// --- G3 AER ---------------------------------------------------------------------------------------

TEST(AcceptTest, NonFatalAerCounterFailsAndCorrectedLogLineWarns) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->pci.devices[1].aer = probe::AerCounters{0, 2, 0};  // 0000:01:00.0: 2 non-fatal
  Check failed = run(in, "pcie.aer");
  EXPECT_EQ(failed.status, Status::kFail);
  EXPECT_TRUE(any_has(failed.evidence, "0000:01:00.0 (gpu): fatal 0, non-fatal 2, correctable 0")) << failed.detail;

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
  Check warned = run(log, "pcie.aer");
  EXPECT_EQ(warned.status, Status::kWarn);
  EXPECT_TRUE(any_has(warned.evidence, "kernel.log:1234: 0000:c1:00.0: nvme 0000:c1:00.0: PCIe Bus Error"))
      << warned.evidence[0];
}

TEST(AcceptTest, CleanAerCountersPassAndNoSourceNeedsEvidence) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  for (auto& d : in.facts->pci.devices) d.aer = probe::AerCounters{};
  EXPECT_EQ(run(in, "pcie.aer").status, Status::kPass);
  EXPECT_EQ(run({}, "pcie.aer").status, Status::kNeedsEvidence);
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
  Check c = run(in, "infiniband");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "mlx5_1 port 1: 1: DOWN, 3: Disabled")) << c.detail;
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
  Check c = run(in, "infiniband");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "no subnet manager answers")) << c.detail;
}

TEST(AcceptTest, ActiveInfiniBandNeedsSmAndAdaptiveRoutingEvidenceUntilAttached) {
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  in.facts->ib_ports = {ib_port("mlx5_0", "4: ACTIVE", "5: LinkUp")};
  Check c = run(in, "infiniband");
  EXPECT_EQ(c.status, Status::kNeedsEvidence);
  EXPECT_TRUE(has(c.detail, "`sminfo`") && has(c.detail, "`ibdiagnet`") && has(c.detail, "adaptive routing"))
      << c.detail;
  in.attached["infiniband"] = "ibdiagnet.txt";
  Check attached = run(in, "infiniband");
  EXPECT_EQ(attached.status, Status::kPass);
  EXPECT_TRUE(any_has(attached.evidence, "attached: ibdiagnet.txt"));
}

TEST(AcceptTest, HostWithoutInfiniBandPasses) {
  AcceptInputs in;
  in.facts = probe::HostFacts{};
  Check c = run(in, "infiniband");
  EXPECT_EQ(c.status, Status::kPass);
  EXPECT_EQ(c.detail, "No InfiniBand on this host.");
}

// --- G5 versions ----------------------------------------------------------------------------------

TEST(AcceptTest, DriverComparedNumericallyAndCudaInTheMatrixPass) {
  // 525.105.17 ≥ 525.85.05 (105 > 85; a string compare would say '1' < '8'); CUDA 12.1 is listed.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "525.105.17";
  in.versions["nccl"] = "2.18.3";
  Check c = run(in, "versions");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
  EXPECT_TRUE(any_has(c.evidence, "nccl 2.18.3")) << c.detail;
}

TEST(AcceptTest, OldDriverFailsAndUnlistedCudaWarnsWithTheMatrixDate) {
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "470.199.02";
  Check old = run(in, "versions");
  EXPECT_EQ(old.status, Status::kFail);
  EXPECT_TRUE(has(old.detail, "driver 470.199.02 is below the minimum 525.85.05")) << old.detail;

  in.nvml->driver_version = "535.129.03";
  in.nvml->cuda_driver_version = "12.2";  // driver 535 runs toolkits up to 12.2
  in.versions["cuda"] = "12.2";            // declared; the matrix lists 11.8 and 12.1 (as of 2024)
  Check cuda = run(in, "versions");
  EXPECT_EQ(cuda.status, Status::kWarn);
  EXPECT_TRUE(has(cuda.detail, "cuda 12.2 is not in the matrix's 11.8, 12.1 (cuda, as of 2024)")) << cuda.detail;
}

TEST(AcceptTest, DriverCudaVersionIsRecordedNotJudgedAgainstTheToolkitMatrix) {
  // NVML's 12.2 is the newest CUDA driver 535 runs, not an installed toolkit: 12.2 is not in the
  // toolkit list (11.8, 12.1), yet nothing is wrong.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "535.129.03";
  in.nvml->cuda_driver_version = "12.2";
  Check c = run(in, "versions");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
  EXPECT_EQ(c.detail, "Recorded cuda-driver 12.2, driver 535.129.03; all within the compatibility matrix.");
}

TEST(AcceptTest, ToolkitNewerThanTheDriverSupportsFails) {
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->driver_version = "535.129.03";
  in.nvml->cuda_driver_version = "12.2";
  in.versions["cuda"] = "12.4";  // 12.4 > 12.2: the driver cannot run it (and 12.4 is not in the matrix)
  Check c = run(in, "versions");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "CUDA toolkit 12.4 is newer than the 12.2 the driver supports")) << c.detail;
}

TEST(AcceptTest, NoVersionKnownNeedsEvidence) {
  EXPECT_EQ(run({}, "versions").status, Status::kNeedsEvidence);
}

// --- G6 load --------------------------------------------------------------------------------------

LogSummary load_log(double mib_per_h, int hours) {
  LogBuilder b;
  for (int h = 0; h <= hours; ++h) b.add("0", kMay6Ten + h * kHour, 99, 75, static_cast<float>(20000 + mib_per_h * h));
  return b.finish();
}

TEST(AcceptTest, MemoryGrowingTwoHundredMibAnHourFailsTheLoadTest) {
  // 200 MiB/h × 1.048576 MB/MiB = 209.7 MB/h > 50 MB/h.
  AcceptInputs in;
  in.load = load_log(200, 24);
  Check c = run(in, "load");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "gpu01/0 memory grew 209.7 MB/h, above 50 MB/h")) << c.detail;
  EXPECT_TRUE(any_has(c.evidence, "200.0 MiB/h = 209.7 MB/h (least squares; 1 MiB = 1.048576 MB)"));
}

TEST(AcceptTest, SteadyMemoryOverADayPassesAndShortRunWarns) {
  // 40 MiB/h = 41.9 MB/h ≤ 50 over 24 h: pass; the same over 12 h is not long enough.
  AcceptInputs in;
  in.load = load_log(40, 24);
  EXPECT_EQ(run(in, "load").status, Status::kPass) << run(in, "load").detail;
  in.load = load_log(40, 12);
  Check short_run = run(in, "load");
  EXPECT_EQ(short_run.status, Status::kWarn);
  EXPECT_TRUE(has(short_run.detail, "gpu01/0 spans 12.0 h of the load log, not the 24 h test")) << short_run.detail;
}

TEST(AcceptTest, LoadJudgesEachGpusOwnSpan) {
  // gpu01/0 ran 0–24 h, gpu01/1 only 18–24 h: the log spans 24 h, gpu01/1 only 6 h. Both steady.
  LogBuilder b;
  for (int h = 0; h <= 24; ++h) {
    b.add("0", kMay6Ten + h * kHour, 99, 75, 20000);
    if (h >= 18) b.add("1", kMay6Ten + h * kHour, 99, 75, 20000);
  }
  AcceptInputs in;
  in.load = b.finish();
  Check c = run(in, "load");
  EXPECT_EQ(c.status, Status::kWarn) << c.detail;
  EXPECT_TRUE(has(c.detail, "gpu01/1 spans 6.0 h of the load log, not the 24 h test")) << c.detail;
  EXPECT_FALSE(has(c.detail, "gpu01/0 spans")) << c.detail;
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
  Check c = run(in, "load");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "/dev/nvme0 wear 12% (Percentage Used), above 5%")) << c.detail;
  EXPECT_TRUE(has(c.detail, "/dev/nvme1 reports 3 media errors")) << c.detail;
}

TEST(AcceptTest, NoLoadLogNeedsEvidence) {
  EXPECT_EQ(run({}, "load").status, Status::kNeedsEvidence);
}

// --- G7 ASPM --------------------------------------------------------------------------------------

TEST(AcceptTest, AspmPerformancePassesAndL1OnAGpuLinkFails) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->aspm_policy = "performance";
  EXPECT_EQ(run(in, "pcie.aspm").status, Status::kPass);
  in.facts->pci.devices[1].aspm = "L1";
  Check c = run(in, "pcie.aspm");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "0000:01:00.0 (L1)") && has(c.detail, "20 ms")) << c.detail;
}

TEST(AcceptTest, AspmPowersaveFailsAndDefaultWithoutLinkStatesWarns) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->aspm_policy = "powersave";
  EXPECT_EQ(run(in, "pcie.aspm").status, Status::kFail);
  in.facts->aspm_policy = "default";
  EXPECT_EQ(run(in, "pcie.aspm").status, Status::kWarn);
  for (auto& d : in.facts->pci.devices) d.aspm = "";  // every link exposed and off
  EXPECT_EQ(run(in, "pcie.aspm").status, Status::kPass);
}

// --- G8 IOMMU -------------------------------------------------------------------------------------

TEST(AcceptTest, GpuAloneInItsGroupWithItsOwnAudioFunctionPasses) {
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 16, 16, {"0000:00:01.0"})});
  in.facts->iommu_groups = {{12, {"0000:01:00.0", "0000:01:00.1"}}};
  in.facts->pci.devices[1].iommu_group = 12;
  Check c = run(in, "iommu");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
}

TEST(AcceptTest, GpuSharingItsGroupWithANicFailsNamingTheGroup) {
  AcceptInputs in;
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 16, 16, {"0000:00:01.0"})});
  in.facts->iommu_groups = {{12, {"0000:01:00.0", "0000:02:00.0"}}};
  in.facts->pci.devices[1].iommu_group = 12;
  Check c = run(in, "iommu");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "0000:01:00.0 shares IOMMU group 12 with 0000:02:00.0")) << c.detail;
}

TEST(AcceptTest, IommuOffFails) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->kernel_cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro";
  EXPECT_EQ(run(in, "iommu").status, Status::kFail);
  EXPECT_EQ(run({}, "iommu").status, Status::kNeedsEvidence);
}

// --- G9 firmware versions -------------------------------------------------------------------------

TEST(AcceptTest, FirmwareVersionsNeedBmcEvidenceThenPass) {
  AcceptInputs in;
  in.nvml = nvml_gpus(2);
  Check c = run(in, "firmware.versions");
  EXPECT_EQ(c.status, Status::kNeedsEvidence);
  EXPECT_TRUE(has(c.detail, "`ipmitool mc info`") && has(c.detail, "update path")) << c.detail;
  EXPECT_TRUE(any_has(c.evidence, "VBIOS 92.00.45.00.05"));
  in.attached["firmware.versions"] = "bmc.txt";
  EXPECT_EQ(run(in, "firmware.versions").status, Status::kPass);
}

TEST(AcceptTest, DifferentVbiosOnIdenticalGpusWarns) {
  AcceptInputs in;
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[1].info.vbios = "92.00.36.00.02";
  in.attached["firmware.versions"] = "bmc.txt";
  Check c = run(in, "firmware.versions");
  EXPECT_EQ(c.status, Status::kWarn);
  EXPECT_TRUE(has(c.detail, "92.00.36.00.02, 92.00.45.00.05")) << c.detail;
}

// --- G10 performance ------------------------------------------------------------------------------

TEST(AcceptTest, FourteenThousandFourHundredOnEightGpusFailsTheClause) {
  // 14,400 ÷ 8 = 1,800 images/s per GPU < 1,850.
  AcceptInputs in;
  in.nvml = nvml_gpus(8);
  in.images_per_s = 14400;
  Check c = run(in, "performance");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "14,400 images/s ÷ 8 GPUs = 1,800 images/s per GPU, below the clause's 1,850")) << c.detail;
}

TEST(AcceptTest, FifteenThousandTwoHundredOnEightGpusPasses) {
  // 15,200 ÷ 8 = 1,900 ≥ 1,850.
  AcceptInputs in;
  in.nvml = nvml_gpus(8);
  in.images_per_s = 15200;
  EXPECT_EQ(run(in, "performance").status, Status::kPass);
  EXPECT_EQ(run({}, "performance").status, Status::kNeedsEvidence);
}

// --- G11 firmware hashes --------------------------------------------------------------------------

TEST(AcceptTest, FirmwareHashMismatchFailsShowingBothHashes) {
  const std::string good(64, 'a'), bad(64, 'b');
  AcceptInputs in;
  in.firmware = {{"/tmp/fw/vbios.rom", good}, {"/tmp/fw/bmc.bin", bad}, {"/tmp/fw/raid.bin", good}};
  in.expected_sha256 = {{"vbios.rom", good}, {"bmc.bin", good}};
  in.checksum_file = "SHA256SUMS";
  Check c = run(in, "firmware.hashes");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "bmc.bin sha256 " + bad + " does not match the vendor's " + good)) << c.detail;
  EXPECT_TRUE(has(c.detail, "raid.bin has no vendor checksum in SHA256SUMS")) << c.detail;
  in.firmware.pop_back();
  in.firmware[1].sha256 = good;
  EXPECT_EQ(run(in, "firmware.hashes").status, Status::kPass);
  EXPECT_EQ(run({}, "firmware.hashes").status, Status::kNeedsEvidence);
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
  Check c = run(in, "health.archive");
  EXPECT_EQ(c.status, Status::kWarn);
  EXPECT_TRUE(has(c.detail, "the archive lacks power samples for some GPUs")) << c.detail;
}

TEST(AcceptTest, FiveSecondArchiveWithSteadyEccPasses) {
  AcceptInputs in;
  in.archive = archive(5, 0, 0);
  Check c = run(in, "health.archive");
  EXPECT_EQ(c.status, Status::kPass) << c.detail;
}

TEST(AcceptTest, RisingUncorrectedEccFailsWithWhenItFirstRose) {
  AcceptInputs in;
  in.archive = archive(5, 0, 2);
  Check c = run(in, "health.archive");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "gpu01/0 uncorrected ECC rose from 0 to 2, first at 2024-05-06 10:30:00")) << c.detail;
  in.archive = archive(5, 4, 0);
  Check corrected = run(in, "health.archive");
  EXPECT_EQ(corrected.status, Status::kWarn);
  EXPECT_TRUE(has(corrected.detail, "corrected ECC rose from 0 to 4, first at 2024-05-06 10:30:00"))
      << corrected.detail;
}

TEST(AcceptTest, TenSecondArchiveWarnsAndMissingNeedsEvidence) {
  AcceptInputs in;
  in.archive = archive(10, 0, 0);
  Check c = run(in, "health.archive");
  EXPECT_EQ(c.status, Status::kWarn);
  EXPECT_TRUE(has(c.detail, "sampled every 10.0 s on average, not every 5 s")) << c.detail;
  EXPECT_EQ(run({}, "health.archive").status, Status::kNeedsEvidence);
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

TEST(AcceptTest, XidSeverityComesFromTheCatalog) {
  auto cat = catalog_with({{"zz_xid.yaml", kXidCatalog}});
  AcceptInputs in;
  in.kernel_log = probe::KernelLog{};
  in.kernel_log_source = "kernel.log";
  in.kernel_log->events = {xid(40, 13)};
  Check warn = run(in, "xid", cat);
  EXPECT_EQ(warn.status, Status::kWarn);
  in.kernel_log->events.push_back(xid(41, 79));
  Check fail = run(in, "xid", cat);
  EXPECT_EQ(fail.status, Status::kFail);
  EXPECT_TRUE(any_has(fail.evidence,
                      "kernel.log:41: 0000:17:00.0 Xid 79: GPU has fallen off the bus → action inspect-hardware"));
}

TEST(AcceptTest, UnknownXidWarnsCleanLogPassesNoLogNeedsEvidence) {
  auto cat = catalog_with({{"zz_xid.yaml", kXidCatalog}});
  AcceptInputs in;
  in.kernel_log = probe::KernelLog{};
  in.kernel_log->format = probe::KernelLogFormat::kDmesg;  // a default KernelLog is in no known form
  in.kernel_log->lines = 2000;
  EXPECT_EQ(run(in, "xid", cat).status, Status::kPass);
  in.kernel_log->events = {xid(7, 999)};
  Check c = run(in, "xid", cat);
  EXPECT_EQ(c.status, Status::kWarn);
  EXPECT_TRUE(has(c.detail, "1 × Xid 999 (unknown code)")) << c.detail;
  EXPECT_EQ(run({}, "xid", cat).status, Status::kNeedsEvidence);
}

// --- ECC ------------------------------------------------------------------------------------------

TEST(AcceptTest, CleanEccPassesAndADoubleBitRetirementFails) {
  AcceptInputs in;
  in.nvml = nvml_gpus(2);
  EXPECT_EQ(run(in, "ecc").status, Status::kPass);
  in.nvml->gpus[1].now.retired_pages_dbe = 2;
  Check c = run(in, "ecc");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "GPU 1 (00000000:11:00.0) retired 2 pages for double-bit errors")) << c.detail;
}

TEST(AcceptTest, PendingRemapWarnsAndNoNvmlNeedsEvidence) {
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].now.remapping_pending = true;
  EXPECT_EQ(run(in, "ecc").status, Status::kWarn);
  EXPECT_EQ(run({}, "ecc").status, Status::kNeedsEvidence);
}

// --- GPU count ------------------------------------------------------------------------------------

TEST(AcceptTest, GpuCountsAgreePassAndAMissingGpuFailsWithTheThreeNumbers) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.nvml = nvml_gpus(8);
  in.expected_gpus = 8;
  EXPECT_EQ(run(in, "gpu.count").status, Status::kPass);
  in.nvml = nvml_gpus(7);
  Check c = run(in, "gpu.count");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_EQ(c.detail, "GPU counts disagree: 8 on the PCI bus, 7 seen by NVML, 8 expected.");
  EXPECT_FALSE(run_acceptance(in, default_catalog()).passed);
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
    Check c = run(in, id);
    EXPECT_EQ(c.status, Status::kNeedsEvidence) << id << ": " << c.detail;
    EXPECT_TRUE(has(c.detail, "kernel.log is in no form gpuplan reads (50 of 50 lines unreadable)")) << c.detail;
    EXPECT_TRUE(has(c.detail, "plain `dmesg`, `dmesg --ctime` or `dmesg --time-format=iso`")) << c.detail;
  }
  // A failure it did read still fails: an unreadable log cannot clear sysfs's counters.
  in.facts = eight_direct_gpus();
  in.facts->pci.devices[1].aer = probe::AerCounters{0, 2, 0};
  EXPECT_EQ(run(in, "pcie.aer").status, Status::kFail);
}

TEST(AcceptTest, KernelLogWithManyMalformedLinesWarns) {
  // 20 malformed of 1,000 lines = 2.0% > 1% (accept.kernel_log.max_malformed_share); 10 of
  // 1,000 = 1.0% is not above it and passes.
  AcceptInputs in;
  in.kernel_log = kernel_log(probe::KernelLogFormat::kDmesg, 1000, 20);
  in.kernel_log_source = "kernel.log";
  for (const char* id : {"pcie.aer", "xid"}) {
    Check c = run(in, id);
    EXPECT_EQ(c.status, Status::kWarn) << id << ": " << c.detail;
    EXPECT_TRUE(has(c.detail, "kernel.log has 20 malformed lines of 1000 (2.0%, allowed 1.0%), read as dmesg"))
        << c.detail;
  }
  in.kernel_log = kernel_log(probe::KernelLogFormat::kDmesg, 1000, 10);
  EXPECT_EQ(run(in, "pcie.aer").status, Status::kPass) << run(in, "pcie.aer").detail;
  EXPECT_EQ(run(in, "xid").status, Status::kPass) << run(in, "xid").detail;
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
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kNeedsEvidence) << c.detail;
  EXPECT_EQ(c.detail, "gpu01/1 has no temperature samples: its temperature cannot be judged.");

  LogBuilder u;
  for (int h = 0; h <= 72; ++h) u.add("0", kMay6Ten + h * kHour, std::nullopt, 80);
  in.soak = u.finish();
  Check no_util = run(in, "soak");
  EXPECT_EQ(no_util.status, Status::kNeedsEvidence) << no_util.detail;
  EXPECT_EQ(no_util.detail, "gpu01/0 has no utilization samples: its utilization cannot be judged.");
}

TEST(AcceptTest, SoakJudgesEachGpusOwnSpan) {
  // gpu01/0 logged 0–72 h, gpu01/1 only 48–72 h: the log spans 72 h, gpu01/1 only 24 h.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) {
    b.add("0", kMay6Ten + h * kHour, 99, 80);
    if (h >= 48) b.add("1", kMay6Ten + h * kHour, 99, 80);
  }
  AcceptInputs in;
  in.soak = b.finish();
  EXPECT_DOUBLE_EQ(in.soak->hours(), 72.0);
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kWarn) << c.detail;
  EXPECT_EQ(c.detail, "gpu01/1 spans 24.0 h, not the 72 h soak (not long enough to accept).");
}

TEST(AcceptTest, SoakLogMissingGpusTheServerShowsWarns) {
  // One GPU soaked for 72 h; NVML and the PCI bus both show 8.
  LogBuilder b;
  for (int h = 0; h <= 72; ++h) b.add("0", kMay6Ten + h * kHour, 99, 80);
  AcceptInputs in;
  in.soak = b.finish();
  in.nvml = nvml_gpus(8);
  in.facts = eight_direct_gpus();
  Check c = run(in, "soak");
  EXPECT_EQ(c.status, Status::kWarn) << c.detail;
  EXPECT_EQ(c.detail,
            "the soak log covers 1 GPU(s) but NVML shows 8 and the PCI bus shows 8: the others were not soaked.");
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
  Check c = run(in, "load");
  EXPECT_EQ(c.status, Status::kNeedsEvidence) << c.detail;
  EXPECT_TRUE(has(c.detail, "gpu01/1 has no memory samples: its memory growth cannot be judged")) << c.detail;
  EXPECT_FALSE(has(c.detail, "at most 50 MB/h")) << c.detail;
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
    Check c = run(in, id);
    EXPECT_EQ(c.status, Status::kWarn) << id << ": " << c.detail;
    EXPECT_TRUE(has(c.detail, "soak.csv had 20 of 1,000 lines skipped as malformed (2.0%, allowed 1.0%)"))
        << id << ": " << c.detail;
  }
  in.soak->stats.skipped_count = 10;  // 1.0%: not above the share
  EXPECT_EQ(run(in, "soak").status, Status::kPass) << run(in, "soak").detail;
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
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kFail) << c.detail;
  EXPECT_TRUE(
      has(c.detail,
          "shared: 2 GPUs × Gen4 x16 behind one Gen4 x16 uplink 0000:03:00.0 (10b5:8747) halves each GPU's bandwidth"))
      << c.detail;
  EXPECT_TRUE(has(c.detail, "0000:05:00.0 trained at Gen1 x16, below Gen4 x16, below its own max Gen4 x16 while idle"))
      << c.detail;
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
  Check c = run(in, "pcie.topology");
  EXPECT_EQ(c.status, Status::kFail) << c.detail;
  EXPECT_TRUE(
      has(c.detail,
          "slower hop: 0000:05:00.0 (Gen1 x16) ← 0000:04:00.0 ← 0000:03:00.0 uplink Gen3 x16 ← root 0000:00:01.1"))
      << c.detail;
}

// --- One PCI address key ---------------------------------------------------------------------------

TEST(AcceptTest, PciAddressKeyKeepsVmdDomainsApart) {
  EXPECT_EQ(pci_address_key("00000000:17:00.0"), "0000:17:00.0");  // NVML's 8-digit domain
  EXPECT_EQ(pci_address_key("0000:17:00.0"), "0000:17:00.0");      // sysfs
  EXPECT_EQ(pci_address_key("0000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(pci_address_key("10000:01:00.0"), "10000:01:00.0");     // VMD domain 0x10000
  EXPECT_EQ(pci_address_key("00010000:01:00.0"), "10000:01:00.0");  // the same, as NVML writes it
  EXPECT_NE(pci_address_key("10000:01:00.0"), pci_address_key("00000000:01:00.0"));
}

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
  EXPECT_EQ(run(in, "pcie.topology").status, Status::kFail);
  in.nvml->gpus[0].info.pci_bus_id = "00010000:01:00.0";  // now NVML names the VMD GPU itself
  EXPECT_EQ(run(in, "pcie.topology").status, Status::kWarn);
}

// --- IOMMU asked for is not IOMMU on ---------------------------------------------------------------

TEST(AcceptTest, IommuAskedForOnTheCommandLineButNotActiveFails) {
  AcceptInputs in;
  in.facts = eight_direct_gpus();
  in.facts->kernel_cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro intel_iommu=on";
  Check c = run(in, "iommu");
  EXPECT_EQ(c.status, Status::kFail) << c.detail;
  EXPECT_TRUE(has(c.detail, "IOMMU asked for (intel_iommu=on on the kernel command line) but not active")) << c.detail;
  EXPECT_TRUE(any_has(c.evidence, "/proc/cmdline: intel_iommu=on (asked for)"));
  // With groups the IOMMU is on; the command line stays in the evidence.
  in.facts = facts_with({bridge("0000:00:01.0", 16, 16, {}), gpu("0000:01:00.0", 16, 16, {"0000:00:01.0"})});
  in.facts->kernel_cmdline = "ro intel_iommu=on";
  in.facts->iommu_groups = {{12, {"0000:01:00.0"}}};
  in.facts->pci.devices[1].iommu_group = 12;
  Check on = run(in, "iommu");
  EXPECT_EQ(on.status, Status::kPass) << on.detail;
  EXPECT_TRUE(any_has(on.evidence, "/proc/cmdline: intel_iommu=on (asked for)"));
}

// --- Versions, benchmark parsing --------------------------------------------------------------------

TEST(AcceptTest, HugeVersionComponentComparesWithoutOverflow) {
  // 9223372036854775808 = 2^63, one above LONG_MAX: `n * 10 + d` on long overflowed (it wrapped
  // to −2^63 and sorted the toolkit below 12.2). As a digit string it is 19 digits > 1: newer.
  AcceptInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->cuda_driver_version = "12.2";
  in.versions["cuda"] = "12.9223372036854775808";
  Check c = run(in, "versions");
  EXPECT_EQ(c.status, Status::kFail) << c.detail;
  EXPECT_TRUE(has(c.detail, "CUDA toolkit 12.9223372036854775808 is newer than the 12.2 the driver supports"))
      << c.detail;
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
  Check c = run(in, "load");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_TRUE(has(c.detail, "nvml/0 memory grew 209.7 MB/h, above 50 MB/h")) << c.detail;
  EXPECT_TRUE(has(c.detail, "nvml/7 memory grew 209.7 MB/h")) << c.detail;
}

}  // namespace
}  // namespace gpuplan::accept
