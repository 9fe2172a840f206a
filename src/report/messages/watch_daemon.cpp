// Words of gpuplan watch itself: sampling NVML, following the kernel log, its own log lines and errors.
#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  {"cli.help.watch", "keep the health archive (G12), serve /metrics, raise alerts", "保存健康档案（G12），提供 /metrics 指标并产生告警"},
  {"cli.help.watch.interval", "Sampling interval: 5s (default, as G12 says), 1s, 500ms; at least 100ms", "采样间隔：5s（默认，按 G12）、1s、500ms；最少 100ms"},
  {"cli.help.watch.commit_every", "Write the archive every this long (default 30s)", "每隔多久写入档案一次（默认 30s）"},
  {"cli.help.watch.keep_raw", "Keep raw readings this long (default 14d); hourly rollups and events are kept for ever", "原始读数保留多久（默认 14d）；每小时汇总和事件永久保留"},
  {"cli.help.watch.archive", "The archive file (default /var/lib/gpuplan/archive.db)", "档案文件（默认 /var/lib/gpuplan/archive.db）"},
  {"cli.help.watch.kernel_log", "Kernel log to follow: auto (default), kmsg, journal, a FILE, or off", "跟踪的内核日志：auto（默认）、kmsg、journal、文件路径或 off"},
  {"cli.help.watch.log", "Write watch's own log here (default standard error); SIGHUP reopens it", "watch 自身日志写到此文件（默认标准错误）；收到 SIGHUP 时重新打开"},
  {"cli.help.watch.listen", "Serve /metrics and /healthz at ADDR:PORT (loopback unless you name another address; off: no exporter)", "在 ADDR:PORT 提供 /metrics 与 /healthz（除非指定其他地址，只监听本机回环；off：不提供）"},
  {"cli.help.watch.host", "The host name the archive and the Hostname label carry (default: this machine's)", "档案与 Hostname 标签使用的主机名（默认：本机主机名）"},
  {"cli.help.watch.web_config", "TLS and basic-auth settings, in the Prometheus exporters' web-config form", "TLS 与基本认证设置，采用 Prometheus exporter 的 web-config 格式"},
  {"cli.help.watch.duration", "Stop after this long (e.g. 10s); default: run until SIGTERM", "运行这么久后停止（如 10s）；默认一直运行到 SIGTERM"},
  {"cli.value.watch_duration", "must be a whole number with ms, s, m, h or d, at least {min} (got {got})", "须为整数加单位 ms、s、m、h 或 d，且不少于 {min}（实际为 {got}）"},
  {"watch.started", "watching {gpus} GPU(s) [{ids}] every {interval}; archive {archive}; kernel log {kernel_log}", "开始监视 {gpus} 块 GPU [{ids}]，每 {interval} 采样一次；档案 {archive}；内核日志 {kernel_log}"},
  {"watch.kernel_log_off", "off", "关闭"},
  {"watch.serving", "serving /metrics and /healthz on {address}", "在 {address} 提供 /metrics 与 /healthz"},
  {"watch.kernel_log_unavailable", "kernel log not followed: {why}", "未跟踪内核日志：{why}"},
  {"watch.batch_committed", "batch {batch} committed: {readings} readings, {events} events, up to {time}", "第 {batch} 批已提交：{readings} 条读数，{events} 个事件，截至 {time}"},
  {"watch.commit_failed", "commit failed, {pending} readings and events kept for the next try: {why}", "提交失败，{pending} 条读数和事件留待下次重试：{why}"},
  {"watch.register_failed", "could not record the GPUs in the archive: {why}", "无法在档案中登记 GPU：{why}"},
  {"watch.maintain_failed", "hourly rollup or retention failed: {why}", "每小时汇总或过期清理失败：{why}"},
  {"watch.stopped", "stopped after {rounds} rounds", "已停止，共采样 {rounds} 轮"},
  {"error.watch.log_open", "cannot open watch's log file: {reason}", "无法打开 watch 的日志文件：{reason}"},
  {"error.watch.kernel_log_open", "cannot follow this kernel log: {reason}", "无法跟踪此内核日志：{reason}"},
};
// clang-format on

}  // namespace

std::span<const Words> watch_daemon_words() { return kWords; }

}  // namespace gpuplan::report::messages
