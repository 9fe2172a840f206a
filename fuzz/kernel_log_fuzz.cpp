// `accept` / `diagnose --kernel-log FILE`: a kernel log in any form (dmesg, journalctl short or
// JSON, /dev/kmsg, syslog files, gzip-rotated), read from a file as the verbs do and parsed; the
// same bytes also as two logs merged (a live host gives dmesg and gpuplan's own capture).
#include "fuzz_support.h"
#include "probe/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  auto text = probe::read_kernel_log_file(fuzz::input_file(data, size, "kern.log"));
  if (!text) return 0;
  (void)probe::parse_kernel_log(*text);
  size_t half = text->size() / 2;
  (void)probe::parse_kernel_logs({{text->substr(0, half), "dmesg"}, {text->substr(half), "/dev/kmsg"}});
  return 0;
}
