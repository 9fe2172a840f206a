// The paths that differ between gpuplan_tests and gpuplan_tests_asan, which share every other
// test object (CMakeLists.txt): this file alone is compiled for each, with its own definitions.
#include "test_support.h"

namespace gpuplan::testing {

const char* gpuplan_binary() {
  return GPUPLAN_BINARY;
}
const char* build_dir() {
  return GPUPLAN_BUILD_DIR;
}
bool binary_is_sanitized() {
  return GPUPLAN_BINARY_SANITIZED;
}

}  // namespace gpuplan::testing
