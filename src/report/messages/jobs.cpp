#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  // Job accounting → GPU demand (telemetry/job_demand)
  {"error.jobs.no_files", "no job accounting file given", "没有给出作业记账文件"},
  {"error.jobs.unknown_format", "unknown job accounting format: expected Slurm sacct output with its header (sacct -P --format=JobID,Start,End,AllocTRES) or kube-state-metrics text (kube_pod_container_resource_requests)",
                                "无法识别的作业记账格式：应为带表头的 Slurm sacct 输出（sacct -P --format=JobID,Start,End,AllocTRES）或 kube-state-metrics 文本（kube_pod_container_resource_requests）"},
  {"error.jobs.mixed_formats", "holds {format} records while {first} holds {first_format} records: read one kind of job records at a time",
                               "是 {format} 记录，而 {first} 是 {first_format} 记录：请每次只读取一种作业记录"},
  {"error.jobs.sacct_no_header", "not sacct output with its header: expected a first line naming the columns (JobID|Start|End|AllocTRES); run sacct with -P (or -p) and without -n/--noheader",
                                 "不是带表头的 sacct 输出：第一行应列出各列名称（JobID|Start|End|AllocTRES）；请用 -P（或 -p）运行 sacct，且不要加 -n/--noheader"},
  {"error.jobs.sacct_missing_column", "the sacct header has no {column} column (it has {columns}): ask sacct for --format=JobID,Start,End,AllocTRES",
                                      "sacct 表头中没有 {column} 列（现有的列：{columns}）：请让 sacct 输出 --format=JobID,Start,End,AllocTRES"},
  {"error.jobs.no_gpu_records", "no job held a GPU: read {lines} lines, {jobs} jobs or pods, {skipped} lines skipped{hint}",
                                "没有任何作业占用过 GPU：共读取 {lines} 行、{jobs} 个作业或 Pod，跳过 {skipped} 行{hint}"},
  {"error.jobs.hint_sacct", " (a job's GPUs are read from AllocTRES gres/gpu=N, or AllocGRES gpu:N)", "（作业的 GPU 数取自 AllocTRES 的 gres/gpu=N，或 AllocGRES 的 gpu:N）"},
  {"error.jobs.hint_kube", " (a pod's GPUs are read from kube_pod_container_resource_requests with resource nvidia_com_gpu, while its kube_pod_status_phase says Running)",
                           "（Pod 的 GPU 数取自 resource 为 nvidia_com_gpu 的 kube_pod_container_resource_requests，且只计 kube_pod_status_phase 为 Running 的时段）"},
  {"error.jobs.single_scrape", "holds one scrape only (at {time}): GPU demand over hours needs a history of scrapes; export a range of them from Prometheus or concatenate timestamped scrapes",
                               "只有一次抓取（时间 {time}）：按小时统计 GPU 需求需要一段抓取历史；请从 Prometheus 导出一段时间的数据，或拼接多次带时间戳的抓取"},
  {"error.jobs.span_too_long", "the records span {first} to {last}, more than {years} years: is a date or a clock wrong?",
                               "记录跨度从 {first} 到 {last}，超过 {years} 年：日期或时钟是否有误？"},
  {"error.jobs.too_many_gpus_at_once", "at {time} the records hold {gpus} GPUs at once, more than {limit}: are records repeated or a count wrong?",
                                       "在 {time} 记录同时占用 {gpus} 块 GPU，超过 {limit}：记录是否重复或数量有误？"},
  {"error.jobs.too_many_samples", "holds more than {limit} GPU request and pod phase samples: read a shorter range at a time",
                                  "GPU 请求和 Pod 状态样本超过 {limit} 个：请每次读取较短的时间段"},
  // Lines the job readers skipped
  {"skip.jobs.no_job_id", "no JobID", "没有 JobID"},
  {"skip.jobs.end_before_start", "ends ({end}) before it starts ({start})", "结束时间（{end}）早于开始时间（{start}）"},
  {"skip.jobs.too_long", "runs {hours} hours, more than the {limit} hours kept", "运行 {hours} 小时，超过可保留的 {limit} 小时"},
  {"skip.jobs.bad_gpu_count", "GPU count '{text}' is not a whole number", "GPU 数“{text}”不是整数"},
  {"skip.jobs.too_many_gpus", "{gpus} GPUs in one job or pod, more than {limit}", "单个作业或 Pod 占用 {gpus} 块 GPU，超过 {limit}"},
};
// clang-format on

}  // namespace

std::span<const Words> jobs_words() {
  return kWords;
}

}  // namespace gpuplan::report::messages
