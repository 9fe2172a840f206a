// Pins what `gpuplan watch` reads through src/nvml (Nvml::read_watch) against the fake
// libnvidia-ml and tests/fixtures/nvml/watch-two-gpus.yaml: the extra facts, the NVLink error
// counters summed over links, and a GPU that falls off the bus and comes back. Every expected
// value is read off the scenario by hand (the sums: 12 links × the per-link count).
#include <gtest/gtest.h>

#include <string>

#include "nvml/fake_env.h"
#include "nvml/nvml.h"
#include "test_support.h"

namespace gpuplan::nvml {
namespace {

using gpuplan::testing::FakeNvmlEnv;
using gpuplan::testing::nvml_fixture;
using gpuplan::testing::open_fake_nvml;
using gpuplan::testing::set_fake_clock;
using gpuplan::testing::temp_dir;

TEST(NvmlWatch, ReadsTheWatchFactsAndSumsNvLinkCountersOverLinks) {
  const std::string clock = temp_dir() + "/clock";
  set_fake_clock(clock, 3600);  // one hour since init
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), clock);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  WatchReading r = nvml->read_watch(0, false);
  EXPECT_FALSE(r.lost);
  const GpuDynamic& d = r.values;
  EXPECT_EQ(d.utilization_pct, 98);
  EXPECT_EQ(d.memory_copy_utilization_pct, 61);
  EXPECT_EQ(d.memory_used_mib, 20480);
  EXPECT_EQ(d.memory_free_mib, 81920 - 20480);
  EXPECT_EQ(d.memory_temperature_c, 71);
  EXPECT_EQ(d.memory_clock_mhz, 1593);
  EXPECT_EQ(d.energy_mj, 1000000u + 1125000000u);  // start + one hour at 1.125e9 mJ/h
  EXPECT_EQ(d.ecc_volatile_corrected, 3600u);      // 3600 an hour, one hour
  EXPECT_EQ(d.ecc_aggregate_corrected, 3700u);     // 100 + 3600
  EXPECT_EQ(d.link_gen, 4u);
  EXPECT_EQ(d.pcie_replays, 0u);
  EXPECT_EQ(d.nvlink_active.size(), 12u);
  EXPECT_EQ(d.nvlink_replay_errors, 24u);  // 2 on each of 12 links
  EXPECT_EQ(d.nvlink_recovery_errors, 0u);
  EXPECT_EQ(d.nvlink_crc_flit_errors, 60u);  // 5 × 12
  EXPECT_EQ(d.nvlink_crc_data_errors, 12u);  // 1 × 12
  // The per-interval read leaves the costly ones out; the full one has them.
  EXPECT_FALSE(d.processes.has_value());
  EXPECT_FALSE(d.retired_pages_sbe.has_value());
  WatchReading full = nvml->read_watch(0, true);
  ASSERT_TRUE(full.values.processes.has_value());
  ASSERT_EQ(full.values.processes->size(), 1u);
  EXPECT_EQ(full.values.processes->front().pid, 4242u);
  EXPECT_EQ(full.values.retired_pages_sbe, 0u);
  EXPECT_EQ(full.values.nvlink_crc_flit_errors, 60u);
}

TEST(NvmlWatch, ALostGpuReadsAsLostNotAsUnsupportedAndIsSeenWhenItReturns) {
  const std::string clock = temp_dir() + "/clock";
  set_fake_clock(clock, 5);
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), clock);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  EXPECT_FALSE(nvml->read_watch(1, false).lost);
  const size_t notes_before = nvml->unsupported().size();

  set_fake_clock(clock, 12);  // inside GPU 1's window [10 s, 20 s)
  WatchReading lost = nvml->read_watch(1, false);
  EXPECT_TRUE(lost.lost);
  EXPECT_FALSE(lost.values.utilization_pct.has_value());
  EXPECT_FALSE(lost.values.temperature_c.has_value());
  EXPECT_EQ(nvml->unsupported().size(), notes_before);  // lost is not "unsupported"
  EXPECT_FALSE(nvml->read_watch(0, false).lost);        // the other GPU still answers
  EXPECT_TRUE(nvml->read_watch(1, true).lost);

  set_fake_clock(clock, 20);  // the window ends: back, with every fact asked again
  WatchReading back = nvml->read_watch(1, false);
  EXPECT_FALSE(back.lost);
  EXPECT_EQ(back.values.utilization_pct, 98);
  EXPECT_EQ(back.values.memory_temperature_c, 71);
  EXPECT_EQ(back.values.nvlink_crc_data_errors, 12u);
}

TEST(NvmlWatch, AGpuLostAtStartIsOpenedWhenItReturns) {
  const std::string clock = temp_dir() + "/clock";
  set_fake_clock(clock, 15);  // GPU 1 is lost when NVML opens it: no handle
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), clock);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  ASSERT_EQ(nvml->count(), 2u);
  EXPECT_TRUE(nvml->read_watch(1, false).lost);
  set_fake_clock(clock, 25);
  WatchReading back = nvml->read_watch(1, false);
  EXPECT_FALSE(back.lost);
  EXPECT_EQ(back.values.power_w, 312.5);
}

}  // namespace
}  // namespace gpuplan::nvml
