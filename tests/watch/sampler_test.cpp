// The sampling round (src/watch/sampling.h) against the fake NVML and
// tests/fixtures/nvml/watch-two-gpus.yaml, and its change events on hand-made readings.
// Expected values are read off the fixture by hand: GPU 1 is lost while 10 s <= t < 20 s.
#include <gtest/gtest.h>

#include "nvml/fake_env.h"
#include "test_support.h"
#include "watch/daemon_memory_archive.h"
#include "watch/sampling.h"

namespace gpuplan::watch {
namespace {

using gpuplan::testing::FakeNvmlEnv;
using gpuplan::testing::MemoryArchive;
using gpuplan::testing::nvml_fixture;
using gpuplan::testing::open_fake_nvml;
using gpuplan::testing::set_fake_clock;
using gpuplan::testing::temp_dir;

int count_kind(const std::vector<archive::Event>& events, archive::EventKind kind) {
  int n = 0;
  for (const auto& e : events) n += e.kind == kind;
  return n;
}

// Two GPUs lost from start to 5 s; GPU 1 reports no UUID (NOT_SUPPORTED) when it is back. GPU
// 0's identity, learnt when both return, must still ask for the GPUs to be registered again.
TEST(SamplerRound, AGpuBackFromLostAtStartAsksForRegistrationWhateverTheGpusAfterIt) {
  const std::string dir = temp_dir();
  const std::string clock = dir + "/clock";
  set_fake_clock(clock, 0);
  const std::string scenario = gpuplan::testing::write_file(dir, "two-lost.yaml",
                                                            "driver_version: \"535.129.03\"\n"
                                                            "defaults: {name: NVIDIA A100-SXM4-80GB, "
                                                            "utilization_gpu_pct: 50, lost: {from_s: 0, to_s: 5}}\n"
                                                            "gpus:\n"
                                                            "  - {uuid: GPU-aaaa, pci_bus_id: \"00000000:17:00.0\"}\n"
                                                            "  - {pci_bus_id: \"00000000:31:00.0\"}\n");
  FakeNvmlEnv env(scenario, clock);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  Sampling sampling(*nvml, 1);
  WatchState state;
  MemoryArchive archive;
  auto gpus = sampling.start(state);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].uuid, "");  // lost at start: no identity yet
  EXPECT_FALSE(sampling.apply(sampling.read(0), state, archive));
  set_fake_clock(clock, 6);
  EXPECT_TRUE(sampling.apply(sampling.read(6000), state, archive));
  EXPECT_EQ(state.gpus[0].info.uuid, "GPU-aaaa");
  EXPECT_EQ(state.gpus[1].info.uuid, "");
}

TEST(SamplerRound, ALostGpuIsALostReadingEveryRoundWithOneLostAndOneBackEvent) {
  const std::string clock = temp_dir() + "/clock";
  set_fake_clock(clock, 0);
  FakeNvmlEnv env(nvml_fixture("watch-two-gpus.yaml"), clock);
  auto nvml = open_fake_nvml();
  ASSERT_TRUE(nvml);
  Sampling sampling(*nvml, 5);
  WatchState state;
  MemoryArchive archive;
  auto gpus = sampling.start(state);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[1].uuid, "GPU-b0a41c5e-2f73-4d8e-a6c1-93e0d5f2b712");
  EXPECT_EQ(gpus[1].pci_bus_id, "00000000:31:00.0");

  for (int t = 0; t < 30; ++t) {  // one round a second, 30 rounds
    set_fake_clock(clock, t);
    sampling.apply(sampling.read(1000LL * t), state, archive);
    if (t == 15) {
      EXPECT_TRUE(state.gpus[1].lost);
      EXPECT_EQ(state.gpus[1].lost_since_ms, 10000);
    }
  }
  EXPECT_FALSE(state.gpus[1].lost);
  EXPECT_EQ(state.samples_taken, 30);
  ASSERT_EQ(archive.pending_readings.size(), 60u);  // 30 rounds × 2 GPUs
  int lost_rows = 0;
  for (const auto& r : archive.pending_readings) lost_rows += r.lost;
  EXPECT_EQ(lost_rows, 10);  // GPU 1 at t = 10 … 19
  EXPECT_EQ(count_kind(archive.pending_events, archive::EventKind::kGpuLost), 1);
  EXPECT_EQ(count_kind(archive.pending_events, archive::EventKind::kGpuBack), 1);
  for (const auto& e : archive.pending_events) {
    if (e.kind == archive::EventKind::kGpuLost) {
      EXPECT_EQ(e.time_ms, 10000);
      EXPECT_EQ(e.gpu, 1u);
    }
    if (e.kind == archive::EventKind::kGpuBack) {
      EXPECT_EQ(e.time_ms, 20000);
    }
  }
  // GPU 0's aggregate corrected count rises (3600 an hour): one ECC event per round it rose,
  // counted here from the readings themselves.
  int rises = 0;
  std::optional<uint64_t> last;
  for (const auto& r : archive.pending_readings) {
    if (r.gpu != 0) continue;
    if (last && r.values.ecc_aggregate_corrected > last) ++rises;
    last = r.values.ecc_aggregate_corrected;
  }
  EXPECT_GE(rises, 25);
  EXPECT_EQ(count_kind(archive.pending_events, archive::EventKind::kEccRise), rises);
  // The costly reads every 5th round; the state carries processes between them.
  int with_processes = 0;
  for (const auto& r : archive.pending_readings) with_processes += r.values.processes.has_value();
  EXPECT_EQ(with_processes, 6 + 4);  // GPU 0: rounds 0,5,…,25; GPU 1: 0,5,20,25 (lost at 10, 15)
  ASSERT_TRUE(state.gpus[0].now->processes.has_value());
  EXPECT_EQ(state.gpus[0].now->processes->front().pid, 4242u);
}

TEST(SamplerChanges, ALinkThatDroppedAndNvLinksDownAreEvents) {
  nvml::GpuDynamic before, after;
  before.link_gen = 4;
  before.link_width = 16;
  after.link_gen = 3;
  after.link_width = 16;
  before.nvlink_active.assign(12, true);
  after.nvlink_active.assign(12, true);
  after.nvlink_active[5] = false;
  auto events = change_events(2, 5000, before, after);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, archive::EventKind::kLinkChange);
  EXPECT_EQ(events[0].code, 3);
  EXPECT_EQ(events[0].detail, "gen 4 x16 -> gen 3 x16");
  EXPECT_EQ(events[0].gpu, 2u);
  EXPECT_EQ(events[1].detail, "nvlink 12 -> 11 active");
  EXPECT_TRUE(change_events(2, 5000, after, after).empty());
}

TEST(SamplerChanges, EccRisesUseAggregateCountsWhenReadAndIgnoreAReset) {
  nvml::GpuDynamic before, after;
  before.ecc_aggregate_uncorrected = 0;
  after.ecc_aggregate_uncorrected = 2;
  before.ecc_volatile_uncorrected = 0;
  after.ecc_volatile_uncorrected = 2;  // the same errors: not counted twice
  auto events = change_events(0, 1, before, after);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, archive::EventKind::kEccRise);
  EXPECT_EQ(events[0].code, 2);
  EXPECT_EQ(events[0].detail, "aggregate uncorrected 0 -> 2");
  // Volatile counts only (no aggregate read), and a reset (driver reload) is no rise.
  nvml::GpuDynamic v0, v1;
  v0.ecc_volatile_corrected = 7;
  v1.ecc_volatile_corrected = 0;
  EXPECT_TRUE(change_events(0, 1, v0, v1).empty());
  EXPECT_EQ(change_events(0, 1, v1, v0).size(), 1u);
}

}  // namespace
}  // namespace gpuplan::watch
