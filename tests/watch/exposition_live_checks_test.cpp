// The live acceptance statuses watch exports, each case judged by hand from the default
// catalog: accept.ecc.max_corrected 0, accept.pcie.min_gen 4 / min_width 16, Xid 79 fail-class
// and Xid 13 warn-class in catalog/xid.yaml.
#include <gtest/gtest.h>

#include "test_support.h"
#include "watch/live_checks.h"

namespace gpuplan::watch {
namespace {

GpuState healthy() {
  GpuState g;
  g.info.max_link_gen = 4;
  g.info.max_link_width = 16;
  nvml::GpuDynamic d;
  d.link_gen = 4;
  d.link_width = 16;
  d.utilization_pct = 90;
  d.ecc_aggregate_corrected = 0;
  g.now = d;
  return g;
}

int status_of(const WatchState& s, const std::string& id) {
  for (const LiveCheck& c : live_checks(s, testing::default_catalog()))
    if (c.id == id) return c.status;
  return -1;
}

TEST(LiveChecks, HealthyGpusPassEveryCheck) {
  WatchState s;
  s.gpus = {healthy(), healthy()};
  auto checks = live_checks(s, testing::default_catalog());
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].id, "ecc");
  EXPECT_EQ(checks[1].id, "xid");
  EXPECT_EQ(checks[2].id, "gpu.count");
  EXPECT_EQ(checks[3].id, "pcie.link");
  for (const LiveCheck& c : checks) EXPECT_EQ(c.status, kLivePass) << c.id;
}

TEST(LiveChecks, EccCorrectedWarnsUncorrectedFails) {
  WatchState s;
  s.gpus = {healthy()};
  s.gpus[0].now->ecc_aggregate_corrected = 1;  // above max_corrected 0
  EXPECT_EQ(status_of(s, "ecc"), kLiveWarn);
  s.gpus[0].now->ecc_volatile_uncorrected = 1;
  EXPECT_EQ(status_of(s, "ecc"), kLiveFail);
}

TEST(LiveChecks, XidSeverityComesFromTheCatalog) {
  WatchState s;
  s.gpus = {healthy()};
  s.gpus[0].xid_counts = {{13, 1}};
  EXPECT_EQ(status_of(s, "xid"), kLiveWarn);
  s.gpus[0].xid_counts[79] = 1;  // fallen off the bus: fail-class
  EXPECT_EQ(status_of(s, "xid"), kLiveFail);
}

TEST(LiveChecks, LostGpuFailsTheCount) {
  WatchState s;
  s.gpus = {healthy(), healthy()};
  s.gpus[1].lost = true;
  EXPECT_EQ(status_of(s, "gpu.count"), kLiveFail);
}

TEST(LiveChecks, SlowLinkWarnsIdleOrBusyNarrowAlwaysFails) {
  WatchState s;
  s.gpus = {healthy()};
  s.gpus[0].now->link_gen = 1;
  s.gpus[0].now->utilization_pct = 0;
  EXPECT_EQ(status_of(s, "pcie.link"), kLiveWarn);
  // One busy reading at a low speed may be the moment it leaves power saving: the alert rule,
  // which waits, says whether it lasts.
  s.gpus[0].now->utilization_pct = 50;
  EXPECT_EQ(status_of(s, "pcie.link"), kLiveWarn);
  s.gpus[0].now->link_gen = 4;
  s.gpus[0].now->link_width = 8;
  s.gpus[0].now->utilization_pct = 0;
  EXPECT_EQ(status_of(s, "pcie.link"), kLiveFail);
}

TEST(LiveChecks, UnknownLinkIsNotJudged) {
  WatchState s;
  s.gpus = {healthy()};
  s.gpus[0].now->link_gen.reset();
  EXPECT_EQ(status_of(s, "pcie.link"), kLivePass);
}

}  // namespace
}  // namespace gpuplan::watch
