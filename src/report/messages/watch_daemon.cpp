// Words of gpuplan watch itself: sampling NVML, following the kernel log, its own log lines and errors.
#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  {"cli.help.watch", "keep the health archive (G12), serve /metrics, raise alerts", "保存健康档案（G12），提供 /metrics 指标并产生告警"},
};
// clang-format on

}  // namespace

std::span<const Words> watch_daemon_words() { return kWords; }

}  // namespace gpuplan::report::messages
