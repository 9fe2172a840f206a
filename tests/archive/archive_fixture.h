// Builds health archives for tests through the real writer (archive::Archive), so that the
// readers, usage, accept and diagnose are tested on files the daemon would write. Header only:
// only *_test.cpp files are compiled into the test binary.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "archive/archive.h"

namespace gpuplan::testing {

// 2026-03-02 00:00:00 UTC, in Unix ms: a whole hour, so that hour arithmetic in tests is plain.
inline constexpr int64_t kArchiveT0 = 1772409600000;

// `n` GPUs at indexes 0..n-1, "A100-SXM4-80GB" with 81920 MiB.
inline std::vector<archive::ArchivedGpu> archive_gpus(unsigned n) {
  std::vector<archive::ArchivedGpu> gpus;
  for (unsigned i = 0; i < n; ++i) {
    gpus.push_back({i, "GPU-0000000" + std::to_string(i), "00000000:" + std::to_string(10 + i) + ":00.0",
                    "NVIDIA A100-SXM4-80GB", 81920.0});
  }
  return gpus;
}

// A reading with the values usage and G12 look at.
inline archive::Reading archive_reading(int64_t time_ms, unsigned gpu, double util, double mem_used, double temp,
                                        double power, uint64_t ecc_corrected, uint64_t ecc_uncorrected) {
  archive::Reading r;
  r.time_ms = time_ms;
  r.gpu = gpu;
  r.values.utilization_pct = util;
  r.values.memory_used_mib = mem_used;
  r.values.memory_free_mib = 81920.0 - mem_used;
  r.values.temperature_c = temp;
  r.values.power_w = power;
  r.values.sm_clock_mhz = 1410;
  r.values.clock_event_reasons = 0;
  r.values.ecc_volatile_corrected = ecc_corrected;
  r.values.ecc_volatile_uncorrected = ecc_uncorrected;
  r.values.ecc_aggregate_corrected = ecc_corrected;
  r.values.ecc_aggregate_uncorrected = ecc_uncorrected;
  return r;
}

// Writes `readings` and `events` to a new archive at `path` in one commit; the test fails on an error.
inline void write_archive(const std::string& path, unsigned gpus, const std::vector<archive::Reading>& readings,
                          const std::vector<archive::Event>& events = {}) {
  auto a = archive::Archive::open(path, "node-a");
  ASSERT_TRUE(a.ok()) << a.error().str();
  ASSERT_TRUE((*a)->register_gpus(archive_gpus(gpus)).ok());
  for (const auto& r : readings) (*a)->add(r);
  for (const auto& e : events) (*a)->add(e);
  auto c = (*a)->commit();
  ASSERT_TRUE(c.ok()) << c.error().str();
}

}  // namespace gpuplan::testing
