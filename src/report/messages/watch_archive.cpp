// Words of the health archive: its errors, the readers that take it as a source, watch export.
#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  {"archive.error.open", "cannot open the health archive {file}: {reason}", "无法打开健康档案 {file}：{reason}"},
  {"archive.error.not_archive", "{file} is not a gpuplan health archive", "{file} 不是 gpuplan 健康档案"},
  {"archive.error.newer_schema", "{file} has archive schema version {found}; this gpuplan reads up to version {supported} (update gpuplan)",
                                 "{file} 的档案结构版本是 {found}，本版 gpuplan 最高只能读取版本 {supported}（请升级 gpuplan）"},
  {"archive.error.migrate", "cannot upgrade the health archive {file}: {reason}", "无法升级健康档案 {file}：{reason}"},
  {"archive.error.write", "cannot write to the health archive {file}: {reason}; the readings are kept in memory and written at the next try",
                          "无法写入健康档案 {file}：{reason}；读数暂存在内存中，下次重试时写入"},
  {"archive.error.maintain", "cannot roll up the health archive {file}: {reason}; the raw readings are kept and the next maintenance tries again",
                             "无法汇总健康档案 {file}：{reason}；原始读数保留，下次维护时重试"},
  {"archive.error.read", "cannot read the health archive {file}: {reason}", "无法读取健康档案 {file}：{reason}"},
  {"cli.help.watch.export", "write the archive back as an nvidia-smi CSV or dmon log", "把档案导出为 nvidia-smi CSV 或 dmon 日志"},
  {"cli.help.watch.export.archive", "the health archive gpuplan watch keeps", "gpuplan watch 保存的健康档案"},
  {"cli.help.watch.export.format", "smi-csv: an nvidia-smi --query-gpu CSV log; dmon: an nvidia-smi dmon -s pucm -o DT log",
                                   "smi-csv：nvidia-smi --query-gpu 的 CSV 日志；dmon：nvidia-smi dmon -s pucm -o DT 的日志"},
  {"cli.help.watch.export.from", "first instant to write (UTC: 2026-03-01, 2026-03-01T12:00:00 or Unix seconds)",
                                 "导出的起始时刻（UTC：2026-03-01、2026-03-01T12:00:00 或 Unix 秒数）"},
  {"cli.help.watch.export.to", "instant to stop before (UTC, as --from)", "导出的截止时刻，不含该时刻（UTC，格式同 --from）"},
};
// clang-format on

}  // namespace

std::span<const Words> watch_archive_words() { return kWords; }

}  // namespace gpuplan::report::messages
