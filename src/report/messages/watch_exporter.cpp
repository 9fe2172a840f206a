// Words of the exporter (/metrics, web config) and the alerting rules watch writes.
#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  {"cli.help.watch.rules", "print Prometheus alerting rules from the catalog thresholds", "根据目录阈值输出 Prometheus 告警规则"},
};
// clang-format on

}  // namespace

std::span<const Words> watch_exporter_words() { return kWords; }

}  // namespace gpuplan::report::messages
