// Hourly rollups and raw retention (Archive::maintain), with figures worked by hand.
#include <gtest/gtest.h>

#include "archive/archive.h"
#include "archive/archive_fixture.h"
#include "test_support.h"

namespace gpuplan::archive {
namespace {

using testing::kArchiveT0;
constexpr int64_t kMin = 60'000;
constexpr int64_t kHour = 60 * kMin;

Reading at(int64_t t, double util, std::optional<uint64_t> corrected, std::optional<uint64_t> energy) {
  Reading r;
  r.time_ms = t;
  r.gpu = 0;
  r.values.utilization_pct = util;
  r.values.ecc_aggregate_corrected = corrected;
  r.values.energy_mj = energy;
  return r;
}

int64_t raw_count(const std::string& path) {
  int64_t n = 0;
  EXPECT_TRUE(read_readings(path, INT64_MIN, INT64_MAX, [&](const Reading&) { return ++n > 0; }).ok());
  return n;
}

TEST(ArchiveRollup, GaugesCountersResetsAndRetentionByHand) {
  const std::string path = testing::temp_dir() + "/rollup.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  const int64_t h0 = kArchiveT0, h1 = h0 + kHour, h2 = h1 + kHour, h3 = h2 + kHour;
  // Hour 0: utilization 10, 20, 60; corrected ECC 5, 5, 8; energy 1000, 2000, then 500 (a driver reload).
  (*a)->add(at(h0, 10, 5, 1000));
  (*a)->add(at(h0 + 20 * kMin, 20, 5, 2000));
  (*a)->add(at(h0 + 40 * kMin, 60, 8, 500));
  // Hour 1: corrected 10, a lost reading, 10; utilization 50, 70.
  (*a)->add(at(h1, 50, 10, std::nullopt));
  Reading lost;
  lost.time_ms = h1 + 30 * kMin;
  lost.lost = true;
  (*a)->add(lost);
  (*a)->add(at(h1 + 50 * kMin, 70, 10, std::nullopt));
  // Hour 2, not whole yet at the first maintain.
  (*a)->add(at(h2 + 10 * kMin, 40, 11, std::nullopt));
  (*a)->add(Event{h0 + kMin, EventKind::kXid, 0u, "0000:17:00.0", 48, "Xid 48"});
  ASSERT_TRUE((*a)->commit().ok());

  ASSERT_TRUE((*a)->maintain(h2 + 30 * kMin, kHour).ok());
  auto rollups = read_rollups(path);
  ASSERT_TRUE(rollups.ok()) << rollups.error().str();
  ASSERT_EQ(rollups->size(), 2u);  // hours 0 and 1; hour 2 is not over
  const HourlyRollup& r0 = (*rollups)[0];
  EXPECT_EQ(r0.hour_ms, h0);
  EXPECT_EQ(r0.readings, 3);
  EXPECT_EQ(r0.utilization_pct.mean, 30.0);  // (10 + 20 + 60) / 3
  EXPECT_EQ(r0.utilization_pct.min, 10.0);
  EXPECT_EQ(r0.utilization_pct.max, 60.0);
  EXPECT_EQ(r0.ecc_aggregate_corrected_rise, 3u);  // no hour before: 5→5 is 0, 5→8 is 3
  EXPECT_EQ(r0.ecc_aggregate_corrected_last, 8u);
  EXPECT_EQ(r0.energy_mj_rise, 1500u);        // 1000→2000 is 1000, then the reset counts from 500
  EXPECT_FALSE(r0.power_w.mean.has_value());  // never read
  const HourlyRollup& r1 = (*rollups)[1];
  EXPECT_EQ(r1.hour_ms, h1);
  EXPECT_EQ(r1.readings, 3);
  EXPECT_EQ(r1.lost_readings, 1);
  EXPECT_EQ(r1.utilization_pct.mean, 60.0);        // (50 + 70) / 2, the lost reading has none
  EXPECT_EQ(r1.ecc_aggregate_corrected_rise, 2u);  // from hour 0's last 8 to 10, then 10→10
  EXPECT_FALSE(r1.energy_mj_rise.has_value());     // no energy read in hour 1
  // Raw kept for an hour: deleted below min(now − 1 h, rolled up to) = h1 + 30 min, so hour 0's
  // three and h1's first go; the lost one at h1 + 30 min, h1 + 50 min and h2 + 10 min stay.
  EXPECT_EQ(raw_count(path), 3);

  // The next maintain rolls hour 2 from where the first stopped: 10 (hour 1's last) → 11 is 1.
  (*a)->add(at(h3 + 30'000, 45, 11, std::nullopt));
  ASSERT_TRUE((*a)->commit().ok());
  ASSERT_TRUE((*a)->maintain(h3 + kMin, 0).ok());
  rollups = read_rollups(path);
  ASSERT_TRUE(rollups.ok());
  ASSERT_EQ(rollups->size(), 3u);
  EXPECT_EQ((*rollups)[2].hour_ms, h2);
  EXPECT_EQ((*rollups)[2].ecc_aggregate_corrected_rise, 1u);
  // keep_raw 0 deletes every rolled-up hour but keeps the reading of hour 3, not rolled up yet.
  EXPECT_EQ(raw_count(path), 1);
  auto events = read_events(path);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);  // events are never deleted
  EXPECT_EQ((*events)[0].code, 48);
}

TEST(ArchiveRollup, AnHourWithReadingsStillPendingIsNotRolledUpYet) {
  const std::string path = testing::temp_dir() + "/pending.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  const int64_t h0 = kArchiveT0, h1 = h0 + kHour;
  (*a)->add(at(h0, 10, 0, std::nullopt));
  ASSERT_TRUE((*a)->commit().ok());
  // A reading of hour 0 taken but not committed when maintain runs just after the hour.
  (*a)->add(at(h0 + 59 * kMin, 30, 0, std::nullopt));
  ASSERT_TRUE((*a)->maintain(h1 + 10'000, kHour).ok());
  auto rollups = read_rollups(path);
  ASSERT_TRUE(rollups.ok());
  EXPECT_EQ(rollups->size(), 0u);  // hour 0 is not whole in the file yet
  ASSERT_TRUE((*a)->commit().ok());
  ASSERT_TRUE((*a)->maintain(h1 + 40'000, kHour).ok());
  rollups = read_rollups(path);
  ASSERT_TRUE(rollups.ok());
  ASSERT_EQ(rollups->size(), 1u);
  EXPECT_EQ((*rollups)[0].readings, 2);
  EXPECT_EQ((*rollups)[0].utilization_pct.mean, 20.0);  // (10 + 30) / 2: the late reading counted
}

TEST(ArchiveRollup, MaintainOnAnEmptyArchiveDoesNothing) {
  const std::string path = testing::temp_dir() + "/empty.db";
  auto a = Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->maintain(kArchiveT0, kHour).ok());
  auto rollups = read_rollups(path);
  ASSERT_TRUE(rollups.ok());
  EXPECT_TRUE(rollups->empty());
}

}  // namespace
}  // namespace gpuplan::archive
