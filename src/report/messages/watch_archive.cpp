// Words of the health archive: its errors, the readers that take it as a source, watch export.
#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  {"cli.help.watch.export", "write the archive back as an nvidia-smi CSV or dmon log", "把档案导出为 nvidia-smi CSV 或 dmon 日志"},
};
// clang-format on

}  // namespace

std::span<const Words> watch_archive_words() { return kWords; }

}  // namespace gpuplan::report::messages
