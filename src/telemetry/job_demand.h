// Job accounting → hourly GPU demand: how many GPUs a cluster's jobs held in each wall-clock hour,
// as fractions of the hour (2 GPUs held for 30 minutes = 1.0), from what the scheduler recorded
// rather than from what the GPUs measured. Two sources:
//   - Slurm `sacct` parsable output (`sacct -a -X -P --format=JobID,Start,End,AllocTRES`, with its
//     header; -p or -P; columns in any order). A job's GPUs come from AllocTRES (`gres/gpu=N`, else
//     the sum of typed `gres/gpu:TYPE=N` entries: Slurm lists both, counted once), else AllocGRES,
//     ReqTRES or ReqGRES (`gpu:N`, `gpu:TYPE:N`; a GRES count is per node, multiplied by NNodes
//     when that column is there). Step lines (a JobID with '.') are never counted: the job's own
//     line holds its allocation. A job still running (End Unknown/None) is held until the latest
//     Start or End of the jobs its file shows; a job that never started (Start Unknown/None, a
//     pending or cancelled one) held nothing and bounds nothing. The same
//     job (Cluster, JobID, Start) read twice, in one file or two overlapping exports, counts once.
//   - kube-state-metrics text (`kube_pod_container_resource_requests{resource="nvidia_com_gpu"}`,
//     or the older `kube_pod_container_resource_requests_nvidia_com_gpu` and
//     `..._nvidia_gpu_devices`), several scrapes concatenated or one series of timestamped
//     samples, over one file or several. Timestamps are milliseconds (Prometheus text) unless the
//     file holds a `# EOF` line, OpenMetrics' end marker, whose timestamps are seconds (fractions
//     allowed); a sample without a timestamp takes the time in the file's name (10 or 13 digits).
//     The scrapes are the distinct times of the kube_pod_container_resource_requests* and
//     kube_pod_status_phase samples; each scrape's GPUs are held until the next, the last one for
//     the median interval between scrapes. When kube_pod_status_phase{phase="Running"} samples are
//     there, a pod's request counts only while its latest Running sample (at or before the scrape)
//     is 1. A pod is its cluster, namespace and pod labels; its containers' requests add up.
// Times are the wall clock as written (sacct's local time, a zone suffix ignored), bucketed into
// hours as if UTC, as every usage reader does. Malformed lines are skipped and counted with
// file:line (ReadStats); a read fails only when nothing usable is left, a file cannot be read, its
// format is unknown, or the records would take more than core/limits.h allows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "telemetry/readers.h"

namespace gpuplan::telemetry {

enum class JobFormat { kAuto, kSacct, kKubeRequests };

// The most GPUs one job or pod may hold, and the most held at one instant: a larger count is no
// cluster's (a line claiming one is skipped; records holding more at once are refused).
inline constexpr int64_t kMaxJobGpus = limits::kMaxGpus;

struct JobDemand {
  int64_t first_hour = 0;      // hours since 1970-01-01 UTC of demand[0]
  std::vector<double> demand;  // GPUs held in each hour, fractions of the hour (2 GPUs for 30 min = 1.0)
  int jobs = 0;                // jobs (sacct) or pods (kube) that held at least one GPU
  int peak_gpus = 0;           // most GPUs held at one instant
  std::string format;          // "sacct" | "kube"
  ReadStats stats;             // lines, skipped (file:line + "skip.*"), duplicates (records read twice)
  int still_running = 0;       // sacct GPU jobs with End Unknown/None, held until the latest time of their file
  int scrapes = 0;             // kube: distinct scrape times read
};

// Reads every file (plain or gzip) as one history: all of `format`, or each detected (kAuto) and
// all of one kind. The demand spans the first to the last time the records show (the Start and
// End of every job that ran, GPU or not; the first scrape to the last plus its hold), at most
// limits::kMaxSpanHours.
// Errors: no file given, a file missing or unreadable (error.file.*), an unknown or mixed format
// (error.jobs.unknown_format / mixed_formats, naming the file), a sacct file without its header,
// no record holding a GPU (error.jobs.no_gpu_records, with lines, jobs and skipped read), one
// scrape only (error.jobs.single_scrape), too long a span or too many GPUs at once.
Result<JobDemand> read_job_demand(const std::vector<std::string>& paths, JobFormat format = JobFormat::kAuto);

// The same for the text of one file, named `file` in errors and skips.
Result<JobDemand> parse_sacct(std::string_view text, const std::string& file);
Result<JobDemand> parse_kube_requests(std::string_view text, const std::string& file);

}  // namespace gpuplan::telemetry
