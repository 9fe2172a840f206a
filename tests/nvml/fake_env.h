// The fake NVML's settings for one test (tests/fake_nvml): its scenario and clock file set on
// construction and cleared, with GPUPLAN_NVML_LIBRARY, before and after, so no test sees
// another's settings. Shared by the NVML and watch tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "nvml/nvml.h"
#include "test_support.h"

namespace gpuplan::testing {

class FakeNvmlEnv {
 public:
  explicit FakeNvmlEnv(const std::string& scenario = "", const std::string& clock_file = "") {
    clear();
    if (!scenario.empty()) setenv("GPUPLAN_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
    if (!clock_file.empty()) setenv("GPUPLAN_FAKE_NVML_CLOCK_FILE", clock_file.c_str(), 1);
  }
  ~FakeNvmlEnv() { clear(); }
  FakeNvmlEnv(const FakeNvmlEnv&) = delete;
  FakeNvmlEnv& operator=(const FakeNvmlEnv&) = delete;

 private:
  static void clear() {
    unsetenv("GPUPLAN_FAKE_NVML_SCENARIO");
    unsetenv("GPUPLAN_FAKE_NVML_CLOCK_FILE");
    unsetenv("GPUPLAN_NVML_LIBRARY");
  }
};

inline std::string nvml_fixture(const std::string& name) {
  return source_path("tests/fixtures/nvml/" + name);
}

// Writes the fake's clock: `seconds` since nvmlInit.
inline void set_fake_clock(const std::string& file, double seconds) {
  std::ofstream(file) << seconds << "\n";
}

inline std::unique_ptr<nvml::Nvml> open_fake_nvml() {
  auto nvml = nvml::Nvml::open(GPUPLAN_FAKE_NVML);
  if (!nvml) {
    ADD_FAILURE() << nvml.error().str();
    return nullptr;
  }
  return std::move(*nvml);
}

}  // namespace gpuplan::testing
