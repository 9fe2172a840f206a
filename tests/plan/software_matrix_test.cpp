// The one software-matrix judgement of quote and accept (plan/software_matrix.h): below a row's
// minimum fails for every component, outside a row's allowed releases warns, and a CUDA toolkit
// fails with a driver older than its major release needs (catalog cuda_driver) or newer than the
// CUDA the installed driver reports.
#include "plan/software_matrix.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;

std::vector<std::string> variants(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.variant + ":" + severity_name(f.severity));
  return out;
}

TEST(SoftwareMatrixTest, VersionsInsideTheMatrixAreQuiet) {
  // driver-min 525.85.05, cuda 11.8|12.1, cudnn 8.8|8.9, pytorch >= 2.0, tensorflow >= 2.12.
  EXPECT_TRUE(judge_versions({{"driver", "535.104.05"},
                              {"cuda", "12.1.105"},
                              {"cudnn", "8.9"},
                              {"pytorch", "2.1"},
                              {"tensorflow", "2.13"}},
                             default_catalog())
                  .empty());
}

TEST(SoftwareMatrixTest, BelowTheMinimumFailsForEveryComponent) {
  // One severity rule: a framework below its row's minimum fails as a driver does.
  auto fs = judge_versions({{"pytorch", "1.13"}}, default_catalog());
  ASSERT_EQ(variants(fs), std::vector<std::string>{"below_min:fail"});
  EXPECT_EQ(*fs[0].find_fact("min"), "2.0");
  EXPECT_EQ(*fs[0].find_fact("row"), "pytorch");
  EXPECT_EQ(variants(judge_versions({{"driver", "470.199.02"}}, default_catalog())),
            std::vector<std::string>{"below_min:fail"});
}

TEST(SoftwareMatrixTest, AReleaseOutsideTheAllowedOnesWarns) {
  auto fs = judge_versions({{"cuda", "12.2"}}, default_catalog());
  ASSERT_EQ(variants(fs), std::vector<std::string>{"not_listed:warn"});
  EXPECT_EQ(*fs[0].find_fact("allowed"), "11.8, 12.1");
}

TEST(SoftwareMatrixTest, EachCudaMajorReleaseNeedsItsDriver) {
  // cuda_driver rows: 11.x >= 450.80.02, 12.x >= 525, 13.x >= 580 (NVIDIA minor version compatibility).
  auto twelve = judge_versions({{"cuda", "12.1"}, {"driver", "520.61.05"}}, default_catalog());
  EXPECT_EQ(variants(twelve), (std::vector<std::string>{"below_min:fail", "cuda_driver:fail"}));
  EXPECT_EQ(*twelve[1].find_fact("min_driver"), "525");
  EXPECT_EQ(*twelve[1].find_fact("row"), "cuda-12-driver");
  auto eleven = judge_versions({{"cuda", "11.8"}, {"driver", "450.80.01"}}, default_catalog());
  EXPECT_EQ(*eleven.back().find_fact("min_driver"), "450.80.02");
  EXPECT_EQ(eleven.back().variant, "cuda_driver");
  auto thirteen = judge_versions({{"cuda", "13.0"}, {"driver", "575.51.03"}}, default_catalog());
  EXPECT_EQ(thirteen.back().variant, "cuda_driver");
  EXPECT_EQ(*thirteen.back().find_fact("min_driver"), "580");
  // 12.x on a 525-series driver: minor version compatibility holds.
  for (const auto& f : judge_versions({{"cuda", "12.1"}, {"driver", "525.85.12"}}, default_catalog()))
    EXPECT_NE(f.variant, "cuda_driver");
}

TEST(SoftwareMatrixTest, AToolkitNewerThanTheDriversCudaFails) {
  auto fs = judge_versions({{"cuda", "12.4"}, {"cuda-driver", "12.2"}}, default_catalog());
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs.back().variant, "cuda_newer_than_driver");
  EXPECT_EQ(fs.back().severity, Severity::kFail);
  EXPECT_EQ(*fs.back().find_fact("driver_cuda"), "12.2");
}

}  // namespace
}  // namespace gpuplan::plan
