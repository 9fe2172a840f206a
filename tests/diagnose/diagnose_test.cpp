// Each SPEC §H rule fires on samples or facts built to trigger it, with the evidence that fired
// it as facts, stays quiet on ones built not to, and every finding it raises has words.
#include "diagnose/diagnose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::diagnose {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;

constexpr int64_t kMinute = 60'000;
// 2024-05-06 10:00:00: days_from_civil(2024, 5, 6) = 19,849.
constexpr int64_t kMay6Ten = 19'849LL * 86'400'000 + 10 * 60 * kMinute;

std::string fact(const Finding& f, const std::string& key) {
  const std::string* v = f.find_fact(key);
  return v ? *v : "<missing " + key + ">";
}

// The phrases a fact lists, worded in the reader's language.
std::vector<Phrase> phrases(const Finding& f, const std::string& key) {
  const Fact* fact = find_fact(f.facts, key);
  return fact ? fact->phrases : std::vector<Phrase>{};
}

telemetry::Sample sample(uint32_t gpu, int64_t t, float util, float temp, float power = 350) {
  telemetry::Sample s;
  s.gpu = gpu;
  s.time_ms = t;
  s.utilization_pct = util;
  s.temperature_c = temp;
  s.power_w = power;
  return s;
}

DiagnoseInputs one_gpu() {
  DiagnoseInputs in;
  in.gpu_names = {"gpu01/0"};
  return in;
}

nvml::NvmlFacts nvml_gpus(int n) {
  nvml::NvmlFacts f;
  for (int i = 0; i < n; ++i) {
    nvml::GpuFacts g;
    g.info.index = i;
    g.info.name = "NVIDIA A100-SXM4-80GB";
    g.info.serial = "132400000" + std::to_string(i);
    g.info.board_part_number = "692-2G506-0210-002";
    g.info.vbios = "92.00.45.00.05";
    g.info.pci_bus_id = fmt::format("00000000:{:02x}:00.0", i + 1);
    g.info.max_link_gen = 4;
    g.info.max_link_width = 16;
    g.now.utilization_pct = 100;
    g.now.link_gen = 4;
    g.now.link_width = 16;
    g.now.nvlink_active = std::vector<bool>(12, true);
    f.gpus.push_back(g);
  }
  return f;
}

// --- H1 -------------------------------------------------------------------------------------------

TEST(DiagnoseTest, FortyMinutesAtNinetyTwoDegreesIsAnAirflowProblem) {
  // Samples every minute 09:50–11:00; 10:00–10:40 at 92 °C (> 90 for 40 min ≥ 10), else 80 °C.
  DiagnoseInputs in = one_gpu();
  for (int m = -10; m <= 60; ++m)
    in.samples.push_back(sample(0, kMay6Ten + m * kMinute, 99, m >= 0 && m <= 40 ? 92 : 80));
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.thermal");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(f[0].variant, "airflow");
  EXPECT_EQ(fact(f[0], "gpu"), "gpu01/0");
  EXPECT_EQ(fact(f[0], "ranges"), "2024-05-06 10:00–10:40");
  EXPECT_EQ(fact(f[0], "minutes"), "40");
  EXPECT_EQ(fact(f[0], "normal"), "70–85 °C");
  EXPECT_EQ(fact(f[0], "slowdown"), "10–30%");
}

TEST(DiagnoseTest, FiveHotMinutesOrEightyEightDegreesAreNotSustained) {
  DiagnoseInputs in = one_gpu();
  // 10:00–10:05 at 95 °C is 5 min < 10; the rest at 88 °C ≤ 90.
  for (int m = 0; m <= 60; ++m) in.samples.push_back(sample(0, kMay6Ten + m * kMinute, 99, m <= 5 ? 95 : 88));
  EXPECT_TRUE(findings_with_id(diagnose(in, default_catalog()), "diagnose.thermal").empty());
}

TEST(DiagnoseTest, HwThermalSlowdownBitsWarnWithTheirRange) {
  DiagnoseInputs in = one_gpu();
  for (int m = 0; m <= 30; ++m) {
    auto s = sample(0, kMay6Ten + m * kMinute, 99, 84);
    s.clock_event_reasons = m >= 10 && m <= 20 ? 0x40 : 0x0;
    in.samples.push_back(s);
  }
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.thermal");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].variant, "throttle");
  EXPECT_EQ(fact(f[0], "ranges"), "2024-05-06 10:10–10:20");
  EXPECT_EQ(phrases(f[0], "reasons"), std::vector<Phrase>{Phrase("diagnose.reason.hw_thermal")});  // bit 0x40
}

TEST(DiagnoseTest, AGpuAtItsPowerLimitIsPowerCappedNotThermal) {
  // 10:05–10:25 at 400 W of a 400 W limit with SW power cap (0x4) set, at 72 °C: the clocks are
  // held by the power budget. It used to give no finding (0x4 is no thermal bit); now it is
  // diagnose.power_cap, and diagnose.thermal stays quiet.
  DiagnoseInputs in = one_gpu();
  for (int m = 0; m <= 30; ++m) {
    const bool capped = m >= 5 && m <= 25;
    auto s = sample(0, kMay6Ten + m * kMinute, 99, 72, capped ? 400 : 300);
    s.power_limit_w = 400;
    s.clock_event_reasons = capped ? 0x4 : 0x0;
    in.samples.push_back(s);
  }
  const auto all = diagnose(in, default_catalog());
  EXPECT_TRUE(findings_with_id(all, "diagnose.thermal").empty());
  auto f = findings_with_id(all, "diagnose.power_cap");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].variant, "samples");
  EXPECT_EQ(fact(f[0], "gpu"), "gpu01/0");
  EXPECT_EQ(fact(f[0], "ranges"), "2024-05-06 10:05–10:25");
  EXPECT_EQ(fact(f[0], "power"), "400 W");
  EXPECT_EQ(fact(f[0], "limit"), "400 W");
  EXPECT_EQ(phrases(f[0], "reasons"), std::vector<Phrase>{Phrase("diagnose.reason.sw_power_cap")});
  // NVML now: HW power brake (0x80) is the power budget too, not heat.
  DiagnoseInputs live;
  live.nvml = nvml_gpus(1);
  live.nvml->gpus[0].now.clock_event_reasons = 0x80;
  live.nvml->gpus[0].now.power_w = 250;
  live.nvml->gpus[0].info.power_limit_w = 400;
  const auto now = diagnose(live, default_catalog());
  EXPECT_TRUE(findings_with_id(now, "diagnose.thermal").empty());
  auto g = findings_with_id(now, "diagnose.power_cap");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].variant, "now");
  EXPECT_EQ(fact(g[0], "power"), "250 W");
  EXPECT_EQ(phrases(g[0], "reasons"), std::vector<Phrase>{Phrase("diagnose.reason.hw_power_brake")});
}

// --- H2 -------------------------------------------------------------------------------------------

TEST(DiagnoseTest, GpuAtGen3x16IsADowngradedLink) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[1].now.link_gen = 3;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.pcie_link");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(f[0].variant, "downgraded");
  EXPECT_EQ(fact(f[0], "gpu"), "GPU 1 (00000000:02:00.0)");
  EXPECT_EQ(fact(f[0], "link"), "Gen3 x16");
  EXPECT_EQ(fact(f[0], "expected"), "Gen4 x16");
}

TEST(DiagnoseTest, IdleGpuAtLowSpeedIsOnlyNotedAndGen4x16IsQuiet) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[0].now.link_gen = 1;
  in.nvml->gpus[0].now.utilization_pct = 0;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.pcie_link");
  ASSERT_EQ(f.size(), 1u);  // GPU 1 at Gen4 x16 raises nothing
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_EQ(f[0].variant, "idle_speed");
}

// --- H3 -------------------------------------------------------------------------------------------

DiagnoseInputs four_gpus(float util, float temp, float power) {
  DiagnoseInputs in;
  in.gpu_names = {"n/0", "n/1", "n/2", "n/3"};
  for (uint32_t g = 0; g < 4; ++g)
    for (int m = 0; m <= 30; ++m) in.samples.push_back(sample(g, kMay6Ten + m * kMinute, util + g, temp, power));
  return in;
}

TEST(DiagnoseTest, EveryGpuHalfBusyAndCoolIsInputBound) {
  // Means 50, 51, 52, 53% < 80; 60 °C < 70 (the normal band's low end); 150 W < 0.6 × 400 W.
  DiagnoseInputs in = four_gpus(50, 60, 150);
  in.nvml = nvml_gpus(4);
  for (auto& g : in.nvml->gpus) g.info.power_limit_w = 400;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.input_bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].variant, "starved");
  EXPECT_EQ(fact(f[0], "utilization"), "n/0 50%, n/1 51%, n/2 52%, n/3 53%");
  EXPECT_EQ(phrases(f[0], "power"),
            std::vector<Phrase>{Phrase("diagnose.power_of").fact("power", "150").fact("limit", "400")});
  EXPECT_EQ(fact(f[0], "range"), "2024-05-06 10:00–10:30");
}

// The four GPUs above with NVML's 400 W power limit, so power can be judged low.
DiagnoseInputs four_gpus_with_limit(float util, float temp, float power) {
  DiagnoseInputs in = four_gpus(util, temp, power);
  in.nvml = nvml_gpus(4);
  for (auto& g : in.nvml->gpus) g.info.power_limit_w = 400;
  return in;
}

TEST(DiagnoseTest, EachHostIsJudgedAloneSoABusyHostHidesNoStarvedOne) {
  // Host a: four GPUs at 50–53%, cool, 150 W of 400 (starved, as above). Host b: one GPU at 99%
  // over the same half hour. Across hosts "every GPU starved" was false and a's finding was
  // lost; judged per host, a is input-bound and b is not.
  DiagnoseInputs in = four_gpus_with_limit(50, 60, 150);
  in.gpu_names = {"a/0", "a/1", "a/2", "a/3", "b/0"};
  for (int m = 0; m <= 30; ++m) in.samples.push_back(sample(4, kMay6Ten + m * kMinute, 99, 60, 150));
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.input_bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(fact(f[0], "gpus"), "4");
  EXPECT_EQ(fact(f[0], "utilization"), "a/0 50%, a/1 51%, a/2 52%, a/3 53%");
}

TEST(DiagnoseTest, BusyHotOrIdleGpusAreNotInputBound) {
  auto quiet = [](const DiagnoseInputs& in) {
    return findings_with_id(diagnose(in, default_catalog()), "diagnose.input_bound").empty();
  };
  EXPECT_TRUE(quiet(four_gpus_with_limit(95, 75, 380)));  // busy
  EXPECT_TRUE(quiet(four_gpus_with_limit(50, 78, 150)));  // warm: 78 °C ≥ 70
  EXPECT_TRUE(quiet(four_gpus_with_limit(50, 60, 300)));  // power: 300 W ≥ 0.6 × 400 = 240 W
  EXPECT_TRUE(quiet(four_gpus_with_limit(2, 35, 60)));    // idle
}

TEST(DiagnoseTest, StarvationIsNotClaimedWithoutTemperatureAndPowerEvidence) {
  // The half-busy, cool case that is input-bound above (50–53%, 60 °C, 150 W of 400 W), with one
  // of the two pieces of SPEC H3's evidence taken away each time: no "starved" finding.
  // No power limit in the samples or from NVML: power is judged against the lowest TDP in the
  // catalog (300 W, a100-80gb-pcie), and 200 W ≥ 0.6 × 300 W = 180 W cannot be called low.
  EXPECT_TRUE(findings_with_id(diagnose(four_gpus(50, 60, 200), default_catalog()), "diagnose.input_bound").empty());
  // No temperature in the samples (a dmon -s u log).
  DiagnoseInputs no_temp = four_gpus_with_limit(50, 60, 150);
  for (auto& x : no_temp.samples) x.temperature_c.reset();
  EXPECT_TRUE(findings_with_id(diagnose(no_temp, default_catalog()), "diagnose.input_bound").empty());
  // No power in the samples.
  DiagnoseInputs no_power = four_gpus_with_limit(50, 60, 150);
  for (auto& x : no_power.samples) x.power_w.reset();
  EXPECT_TRUE(findings_with_id(diagnose(no_power, default_catalog()), "diagnose.input_bound").empty());
  // One GPU (n/3) without temperature is enough to withhold the claim about all four.
  DiagnoseInputs one_missing = four_gpus_with_limit(50, 60, 150);
  for (auto& x : one_missing.samples)
    if (x.gpu == 3) x.temperature_c.reset();
  EXPECT_TRUE(findings_with_id(diagnose(one_missing, default_catalog()), "diagnose.input_bound").empty());
}

TEST(DiagnoseTest, UtilizationDroppingEveryMinuteIsPeriodic) {
  // 10-second samples at 98%, every sixth one (each minute) at 20%: 10 drops, 60 s apart.
  DiagnoseInputs in = one_gpu();
  for (int i = 1; i <= 60; ++i) in.samples.push_back(sample(0, kMay6Ten + i * 10'000, i % 6 == 0 ? 20 : 98, 80));
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.input_bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].variant, "periodic");
  EXPECT_EQ(fact(f[0], "drops"), "10");
  EXPECT_EQ(fact(f[0], "period"), "60 s");
}

// --- H4 -------------------------------------------------------------------------------------------

TEST(DiagnoseTest, MemoryAboveNinetyFivePercentIsNearFull) {
  // 79,000 / 81,920 MiB = 96.4% ≥ 95% from 10:05 to 10:10.
  DiagnoseInputs in = one_gpu();
  for (int m = 0; m <= 15; ++m) {
    auto s = sample(0, kMay6Ten + m * kMinute, 99, 80);
    s.memory_total_mib = 81920;
    s.memory_used_mib = m >= 5 && m <= 10 ? 79000 : 60000;
    in.samples.push_back(s);
  }
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.memory");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].variant, "near_full");
  EXPECT_EQ(fact(f[0], "peak"), "96.4%");
  EXPECT_EQ(fact(f[0], "ranges"), "2024-05-06 10:05–10:10");
}

TEST(DiagnoseTest, IdleGpuHoldingTwentyGibIsALeftoverProcess) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[0].now.utilization_pct = 0;
  in.nvml->gpus[0].now.memory_used_mib = 20480 + 512;
  in.nvml->gpus[0].now.processes = std::vector<nvml::GpuProcess>{{4242, 20480.0}};
  in.nvml->gpus[1].now.utilization_pct = 0;
  in.nvml->gpus[1].now.memory_used_mib = 0;  // idle and empty: fine
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.memory");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].variant, "leftover");
  EXPECT_EQ(fact(f[0], "processes"), "4242 (20,480 MiB)");
  EXPECT_EQ(fact(f[0], "used"), "20,992 MiB");
}

// --- H5 -------------------------------------------------------------------------------------------

TEST(DiagnoseTest, SxmGpusTalkingOverPcieWarn) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(2);
  probe::GpuTopology topo;
  topo.gpus = {"GPU0", "GPU1", "GPU2"};
  topo.link = {{{"GPU0", "GPU1"}, "NV12"}, {{"GPU1", "GPU0"}, "NV12"}, {{"GPU0", "GPU2"}, "PHB"},
               {{"GPU2", "GPU0"}, "PHB"},  {{"GPU1", "GPU2"}, "SYS"},  {{"GPU2", "GPU1"}, "SYS"}};
  in.topo = topo;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(fact(f[0], "count"), "2");
  EXPECT_EQ(fact(f[0], "pairs"), "GPU0–GPU2 PHB, GPU1–GPU2 SYS");
}

TEST(DiagnoseTest, NvmlHostBridgePairWithoutActiveNvlinkWarnsAndAllNvlinkIsQuiet) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(2);
  in.nvml->topology[{0, 1}] = 30;
  EXPECT_TRUE(findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p").empty());  // links active
  in.nvml->gpus[1].now.nvlink_active = std::vector<bool>(12, false);
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.p2p");
  ASSERT_EQ(f.size(), 2u);  // the 12 links down (tests/diagnose/nvlink_test.cpp), then the pair
  EXPECT_EQ(f[0].message_key(), "diagnose.p2p/nvlink_inactive");
  EXPECT_EQ(f[1].message_key(), "diagnose.p2p/pcie_pairs");
  EXPECT_EQ(fact(f[1], "pairs"), "GPU0–GPU1 PHB");  // NVML topology level 30: across a host bridge
}

// --- H6 -------------------------------------------------------------------------------------------

TEST(DiagnoseTest, MissingDuplicateSerialsEngineeringSampleAndRepairedMemoryWarn) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(4);
  in.nvml->gpus[0].info.serial = "";
  in.nvml->gpus[2].info.serial = in.nvml->gpus[1].info.serial;
  in.nvml->gpus[3].info.name = "NVIDIA Graphics Device";
  in.nvml->gpus[3].now.remapped_rows_correctable = 3;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.used_card");
  std::vector<std::string> variants;
  for (const auto& x : f) variants.push_back(x.variant);
  EXPECT_EQ(variants,
            (std::vector<std::string>{"serial_missing", "serial_duplicate", "engineering_sample", "repaired_memory"}));
  EXPECT_EQ(fact(f[0], "gpus"), "GPU 0 (00000000:01:00.0)");
  EXPECT_EQ(fact(f[1], "gpus"), "GPU 1 (00000000:02:00.0), GPU 2 (00000000:03:00.0)");
  EXPECT_EQ(fact(f[2], "marker"), "marker.generic-device-name");
  EXPECT_EQ(fact(f[3], "remapped"), "3");
}

TEST(DiagnoseTest, RepairedMemoryCountsAreSummedWithoutWrapping) {
  // 4,294,967,295 (UINT_MAX) single-bit + 1 double-bit retired pages = 4,294,967,296 = 2^32: in
  // 32-bit unsigned the sum wrapped to 0 and the card looked unrepaired.
  DiagnoseInputs in;
  in.nvml = nvml_gpus(1);
  in.nvml->gpus[0].now.retired_pages_sbe = 4'294'967'295u;
  in.nvml->gpus[0].now.retired_pages_dbe = 1;
  in.nvml->gpus[0].now.remapped_rows_correctable = 4'294'967'295u;
  in.nvml->gpus[0].now.remapped_rows_uncorrectable = 2;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.used_card");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].variant, "repaired_memory");
  EXPECT_EQ(fact(f[0], "retired"), "4294967296");   // 2^32
  EXPECT_EQ(fact(f[0], "remapped"), "4294967297");  // 2^32 + 1
}

TEST(DiagnoseTest, NvmlGpuInDomainZeroIsNotTheVmdGpuOnTheSameBus) {
  // sysfs shows one GPU behind VMD, 10000:02:00.0, at Gen4 x16; NVML's GPU 1 is 0000:02:00.0 at
  // Gen3 x16. The last 12 characters of both read "0000:02:00.0", so the old match counted NVML's
  // GPU as judged from sysfs and never looked at its Gen3 link.
  DiagnoseInputs in;
  in.facts = probe::HostFacts{};
  probe::PciDevice vmd;
  vmd.address = "10000:02:00.0";
  vmd.kind = probe::PciKind::kGpu;
  vmd.current = {16.0, 16};
  vmd.max = {16.0, 16};
  in.facts->pci.devices = {vmd};
  in.nvml = nvml_gpus(2);
  in.nvml->gpus[0].info.pci_bus_id = "00010000:02:00.0";  // the VMD GPU, as NVML writes it
  in.nvml->gpus[1].now.link_gen = 3;                      // 00000000:02:00.0
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.pcie_link");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].variant, "downgraded");
  EXPECT_EQ(fact(f[0], "gpu"), "GPU 1 (00000000:02:00.0)");
}

TEST(DiagnoseTest, RetailCardsWithSerialsAreQuiet) {
  DiagnoseInputs in;
  in.nvml = nvml_gpus(8);
  EXPECT_TRUE(diagnose(in, default_catalog()).empty());
}

// --- Words ----------------------------------------------------------------------------------------

TEST(DiagnoseTest, EveryFindingItRaisesHasAMessage) {
  std::vector<std::string> keys = {"diagnose.thermal/airflow",
                                   "diagnose.thermal/airflow_clock",
                                   "diagnose.thermal/throttle",
                                   "diagnose.thermal/throttle_now",
                                   "diagnose.power_cap/samples",
                                   "diagnose.power_cap/now",
                                   "diagnose.pcie_link/downgraded",
                                   "diagnose.pcie_link/below_max",
                                   "diagnose.pcie_link/idle_speed",
                                   "diagnose.input_bound/starved",
                                   "diagnose.input_bound/periodic",
                                   "diagnose.memory/near_full",
                                   "diagnose.memory/leftover",
                                   "diagnose.p2p/nvlink_inactive",
                                   "diagnose.p2p/pcie_pairs",
                                   "diagnose.used_card/serial_missing",
                                   "diagnose.used_card/serial_duplicate",
                                   "diagnose.used_card/engineering_sample",
                                   "diagnose.used_card/repaired_memory"};
  for (const auto& k : keys) EXPECT_TRUE(report::has_message(k)) << k;
  // And the words fill from the facts: no placeholder left in either language.
  DiagnoseInputs in = one_gpu();
  for (int m = 0; m <= 40; ++m) in.samples.push_back(sample(0, kMay6Ten + m * kMinute, 99, 92));
  const std::vector<Finding> findings = diagnose(in, default_catalog());
  ASSERT_FALSE(findings.empty());  // 41 min at 92 °C: diagnose.thermal/airflow
  for (const Finding& f : findings)
    for (auto lang : {report::Lang::kEn, report::Lang::kZh}) {
      auto words = report::localize(f, lang);
      EXPECT_EQ(words.detail.find('{'), std::string::npos) << words.detail;
    }
}

}  // namespace
}  // namespace gpuplan::diagnose
