// An Archive in memory for the watch unit tests: what was added, what each commit wrote, and a
// switch that makes commit() fail as a full disk does (the batch stays pending).
#pragma once

#include <vector>

#include "archive/archive.h"

namespace gpuplan::testing {

class MemoryArchive : public archive::Archive {
 public:
  std::vector<archive::ArchivedGpu> gpus;
  int registrations = 0;
  std::vector<archive::Reading> pending_readings, readings;  // pending, and committed
  std::vector<archive::Event> pending_events, events;
  std::vector<archive::CommitResult> commits;
  std::vector<int64_t> maintained;  // now_ms of each maintain()
  bool fail_commits = false;

  Result<void> register_gpus(const std::vector<archive::ArchivedGpu>& g) override {
    gpus = g;
    ++registrations;
    return {};
  }
  void add(const archive::Reading& r) override { pending_readings.push_back(r); }
  void add(const archive::Event& e) override { pending_events.push_back(e); }
  int64_t pending() const override { return static_cast<int64_t>(pending_readings.size() + pending_events.size()); }
  int64_t dropped() const override { return 0; }
  Result<archive::CommitResult> commit() override {
    if (fail_commits)
      return Error{"memory.db", 0, "", Phrase("error.watch.kernel_log_open").fact("reason", "disk full")};
    archive::CommitResult c;
    c.batch = static_cast<int64_t>(commits.size()) + 1;
    c.readings = static_cast<int64_t>(pending_readings.size());
    c.events = static_cast<int64_t>(pending_events.size());
    for (const auto& r : pending_readings) c.last_time_ms = std::max(c.last_time_ms, r.time_ms);
    readings.insert(readings.end(), pending_readings.begin(), pending_readings.end());
    events.insert(events.end(), pending_events.begin(), pending_events.end());
    pending_readings.clear();
    pending_events.clear();
    commits.push_back(c);
    return c;
  }
  Result<void> maintain(int64_t now_ms, int64_t) override {
    maintained.push_back(now_ms);
    return {};
  }
};

}  // namespace gpuplan::testing
