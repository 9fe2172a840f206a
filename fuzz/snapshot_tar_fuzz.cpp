// `accept --root SNAPSHOT.tar.gz`: a host snapshot's entries unpacked into a scratch directory,
// under limits small enough for a fuzzer (the checks are the same at any limit).
#include "fuzz_support.h"
#include "probe/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  probe::UnpackLimits limits;
  limits.max_entries = 2'000;
  limits.max_file_bytes = uint64_t{4} << 20;
  limits.max_total_bytes = uint64_t{16} << 20;
  (void)probe::unpack_snapshot(fuzz::input_file(data, size, "snapshot.tar.gz"), fuzz::scratch_dir(), limits);
  return 0;
}
