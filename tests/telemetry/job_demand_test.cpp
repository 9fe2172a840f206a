// Job accounting → hourly GPU demand: sacct and kube-state-metrics records on real lines
// (tests/fixtures/jobs/README.md names their sources) and hand-made ones, each figure worked out
// by hand in a comment; every malformed and hostile case a skip or an error, never a number.
#include "telemetry/job_demand.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "core/dates.h"
#include "test_support.h"

namespace gpuplan::telemetry {
namespace {

using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

// Hours since 1970 of a UTC wall-clock hour.
int64_t hour_of(int64_t year, unsigned month, unsigned day, int hour) {
  return days_from_civil(year, month, day) * 24 + hour;
}

std::string fixture(const std::string& name) {
  return source_path("tests/fixtures/jobs/" + name);
}

JobDemand ok(Result<JobDemand> r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : JobDemand{};
}

// --- sacct ---------------------------------------------------------------------------------------

TEST(JobDemandTest, SacctFixtureSpreadsEachJobOverItsHours) {
  // Real Hábrók lines (-p, steps included). The jobs that ran: 7920721 (CPU only) 2024-04-03
  // 13:03:10 → 14:03:47 opens the span at hour 13 of 04-03; 7965768 (1 v100) 04-04 21:45:17 →
  // 04-05 13:13:39 closes it at hour 13 of 04-05: 49 hours, index = hours since 04-03 13:00.
  // 7939708, 1 a100, 04-03 20:32:21 → 20:32:25: 4 s in hour 20 (index 7).
  // 7965768: hour 21 of 04-04 (index 32) from 21:45:17, 883 s; 22:00 … 12:59 on 04-05 whole
  //   (indexes 33 … 47); 13:00 → 13:13:39, 819 s (index 48). 883 + 15 × 3600 + 819 = 55,702 s,
  //   its Elapsed 15:28:22.
  // 7946767, 1 v100, 04-05 00:18:37 → 11:42:00: 2,483 s in index 35, 01:00 … 10:59 whole
  //   (36 … 45), 2,520 s in index 46; 41,003 s, its Elapsed 11:23:23.
  // Steps repeat their job's gres/gpu and count nothing; 7951810 (pending, Unknown) and 4047445
  // (Start None) held nothing and bound nothing (4047445's End is 2023-09-01).
  const JobDemand d = ok(read_job_demand({fixture("sacct-hb-jobinfo.txt")}));
  EXPECT_EQ(d.format, "sacct");
  EXPECT_EQ(d.first_hour, hour_of(2024, 4, 3, 13));
  ASSERT_EQ(d.demand.size(), 49u);
  std::vector<double> want(49, 0.0);
  want[7] = 4.0 / 3600;
  want[32] = 883.0 / 3600;
  for (int i = 33; i <= 47; ++i) want[i] = 1;
  want[35] += 2483.0 / 3600;
  for (int i = 36; i <= 45; ++i) want[i] += 1;
  want[46] += 2520.0 / 3600;
  want[48] = 819.0 / 3600;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(d.demand[i], want[i]) << "hour index " << i;
  EXPECT_EQ(d.jobs, 3);
  EXPECT_EQ(d.peak_gpus, 2);
  EXPECT_EQ(d.still_running, 0);
  EXPECT_EQ(d.stats.lines, 15);  // the header and 14 lines
  EXPECT_EQ(d.stats.skipped_count, 0);
}

TEST(JobDemandTest, TwoGpusFromHalfPastTenToNoonAreOneThenTwoGpuHours) {
  // 10:30 → 12:00 with 2 GPUs: hour 10 holds 2 × 30 min = 1.0, hour 11 holds 2 × 60 min = 2.0.
  // AllocTRES lists the typed and the untyped entry, as Slurm does: 2 GPUs, not 4.
  const JobDemand d =
      ok(parse_sacct("JobID|Start|End|AllocTRES\n"
                     "1|2023-05-01T10:30:00|2023-05-01T12:00:00|"
                     "billing=8,cpu=8,gres/gpu:a100=2,gres/gpu=2,mem=64G,node=1\n",
                     "jobs.txt"));
  EXPECT_EQ(d.first_hour, hour_of(2023, 5, 1, 10));
  EXPECT_EQ(d.demand, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(d.peak_gpus, 2);
  EXPECT_EQ(d.jobs, 1);
}

TEST(JobDemandTest, TypedTresEntriesAloneAreSummed) {
  // No untyped total: gres/gpu:a100=1 + gres/gpu:v100=2 = 3 GPUs for the hour 10:00 → 11:00.
  // gres/gpumem and gres/gpuutil are other TRES, not GPUs.
  const JobDemand d =
      ok(parse_sacct("JobID|Start|End|AllocTRES\n"
                     "2|2023-05-01T10:00:00|2023-05-01T11:00:00|"
                     "cpu=2,gres/gpu:a100=1,gres/gpu:v100=2,gres/gpumem=40G,gres/gpuutil=90\n",
                     "jobs.txt"));
  EXPECT_EQ(d.demand, (std::vector<double>{3.0}));
}

TEST(JobDemandTest, StepLinesDoNotCountTheirJobAgain) {
  // Without -X sacct prints the job and its steps, each with the job's 4 GPUs: 4 GPUs 10:00 → 11:00.
  const JobDemand d =
      ok(parse_sacct("JobID|Start|End|AllocTRES\n"
                     "5|2023-05-01T10:00:00|2023-05-01T11:00:00|cpu=8,gres/gpu=4\n"
                     "5.batch|2023-05-01T10:00:00|2023-05-01T11:00:00|cpu=8,gres/gpu=4\n"
                     "5.extern|2023-05-01T10:00:00|2023-05-01T11:00:00|cpu=8,gres/gpu=4\n"
                     "5.0|2023-05-01T10:00:05|2023-05-01T10:59:00|cpu=8,gres/gpu=4\n",
                     "jobs.txt"));
  EXPECT_EQ(d.demand, (std::vector<double>{4.0}));
  EXPECT_EQ(d.peak_gpus, 4);
  EXPECT_EQ(d.jobs, 1);
}

TEST(JobDemandTest, ARunningJobIsHeldUntilTheLatestTimeOfItsFile) {
  // Job 1, 1 GPU, 10:00 → 11:30 ends latest; job 2, 2 GPUs, from 10:15 with End Unknown, is held
  // to 11:30: hour 10 = 1 + 2 × 45/60 = 2.5; hour 11 = 1 × 30/60 + 2 × 30/60 = 1.5. Job 3 (End
  // None, 1 GPU) started at 11:30 itself: held for no time.
  const JobDemand d =
      ok(parse_sacct("JobID|Start|End|AllocTRES\n"
                     "1|2023-05-01T10:00:00|2023-05-01T11:30:00|gres/gpu=1\n"
                     "2|2023-05-01T10:15:00|Unknown|gres/gpu=2\n"
                     "3|2023-05-01T11:30:00|None|gres/gpu=1\n",
                     "jobs.txt"));
  EXPECT_EQ(d.demand, (std::vector<double>{2.5, 1.5}));
  EXPECT_EQ(d.still_running, 2);
  EXPECT_EQ(d.jobs, 2);
  EXPECT_EQ(d.peak_gpus, 3);
}

TEST(JobDemandTest, ParsableTwoColumnsInAnyOrder) {
  // --parsable2 (no trailing '|'), columns named in another order, names in any case; a
  // trailing empty field of the last column stays a field. 1 GPU 10:00 → 10:30 = 0.5.
  const JobDemand d =
      ok(parse_sacct("AllocTRES|end|JOBID|Start|Comment\n"
                     "gres/gpu=1|2023-05-01T10:30:00|9|2023-05-01T10:00:00|\n",
                     "jobs.txt"));
  EXPECT_EQ(d.demand, (std::vector<double>{0.5}));
}

TEST(JobDemandTest, AllocGresCountsArePerNode) {
  // AllocGRES (older Slurm) "gpu:a100:4(IDX:0-3)" on each of 2 nodes: 8 GPUs; "gpu:2" on one: 2;
  // a line whose AllocGRES is empty falls back to ReqGRES "gpu:1". 10:00 → 11:00 each: 11.0.
  const JobDemand d =
      ok(parse_sacct("JobID|Start|End|NNodes|AllocGRES|ReqGRES\n"
                     "7|2023-05-01T10:00:00|2023-05-01T11:00:00|2|gpu:a100:4(IDX:0-3)|gpu:a100:4\n"
                     "8|2023-05-01T10:00:00|2023-05-01T11:00:00|1|gpu:2|gpu:2\n"
                     "9|2023-05-01T10:00:00|2023-05-01T11:00:00|1||gpu:1\n",
                     "jobs.txt"));
  EXPECT_EQ(d.demand, (std::vector<double>{11.0}));
  EXPECT_EQ(d.jobs, 3);
}

TEST(JobDemandTest, TheSameJobInTwoExportsCountsOnce) {
  // Two overlapping exports both hold job 4 (2 GPUs, 10:00 → 11:00); the second adds job 5
  // (1 GPU, 10:30 → 11:00). Hour 10 = 2 + 0.5 = 2.5, job 4 once.
  const std::string dir = temp_dir();
  const std::string a = write_file(dir, "a.txt",
                                   "JobID|Start|End|AllocTRES\n"
                                   "4|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=2\n");
  const std::string b = write_file(dir, "b.txt",
                                   "JobID|Start|End|AllocTRES\n"
                                   "4|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=2\n"
                                   "5|2023-05-01T10:30:00|2023-05-01T11:00:00|gres/gpu=1\n");
  const JobDemand d = ok(read_job_demand({a, b}));
  EXPECT_EQ(d.demand, (std::vector<double>{2.5}));
  EXPECT_EQ(d.stats.duplicates, 1);
  EXPECT_EQ(d.jobs, 2);
}

TEST(JobDemandTest, HostileSacctLinesAreSkippedWithTheirFileAndLine) {
  // Only line 2 is a job: 1 GPU 10:00 → 11:00. Every other line is skipped and says why.
  const JobDemand d =
      ok(parse_sacct("JobID|Start|End|AllocTRES\n"
                     "1|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=1\n"
                     "2|2023-05-01T11:00:00|2023-05-01T10:00:00|gres/gpu=1\n"
                     "3|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=1000000000\n"
                     "4|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=99999999999999999999999999\n"
                     "5|2023-13-01T10:00:00|2023-05-01T11:00:00|gres/gpu=1\n"
                     "6|2023-05-01T10:00:00|2023-05-01T11:00:00\n"
                     "7|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=two\n"
                     "8|2000-01-01T00:00:00|2023-05-01T11:00:00|gres/gpu=1\n"
                     "|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=1\n"
                     "10|2023-02-30T10:00:00|2023-05-01T11:00:00|gres/gpu=-1\n",
                     "hostile.txt"));
  EXPECT_EQ(d.demand, (std::vector<double>{1.0}));
  EXPECT_EQ(d.jobs, 1);
  ASSERT_EQ(d.stats.skipped_count, 9);
  const std::vector<std::string> why = {
      "skip.jobs.end_before_start", "skip.jobs.too_many_gpus", "skip.jobs.too_many_gpus",
      "skip.bad_timestamp",         "skip.field_count",        "skip.jobs.bad_gpu_count",
      "skip.jobs.too_long",         "skip.jobs.no_job_id",     "skip.bad_timestamp"};
  for (size_t i = 0; i < why.size(); ++i) {
    EXPECT_EQ(d.stats.skipped[i].file, "hostile.txt");
    EXPECT_EQ(d.stats.skipped[i].line, static_cast<int64_t>(i) + 3);
    EXPECT_EQ(d.stats.skipped[i].reason.key, why[i]) << "line " << i + 3;
  }
  EXPECT_EQ(*d.stats.skipped[1].reason.value("gpus"), "1000000000");
  EXPECT_EQ(*d.stats.skipped[1].reason.value("limit"), "100000");
  EXPECT_EQ(*d.stats.skipped[5].reason.value("text"), "gres/gpu=two");
  // 2000-01-01 → 2023-05-01 11:00 is 8,521 days and 11 hours: 204,515 hours, more than the 87,660 kept.
  EXPECT_EQ(*d.stats.skipped[6].reason.value("hours"), "204515");
}

TEST(JobDemandTest, SacctWithoutItsHeaderIsAnError) {
  // sacct -n prints no header: the columns cannot be told apart.
  auto r = parse_sacct("1|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=1\n", "noheader.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "error.jobs.sacct_no_header");
  EXPECT_EQ(r.error().file, "noheader.txt");
  EXPECT_EQ(r.error().line, 1);
}

TEST(JobDemandTest, AHeaderWithoutStartAndEndNamesTheMissingColumn) {
  // Real AllocTRES lines (a MIG type beside gres/gpu) without the times a demand needs.
  auto r = read_job_demand({fixture("sacct-slurm-mail-alloctres.txt")}, JobFormat::kSacct);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "error.jobs.sacct_missing_column");
  EXPECT_EQ(*r.error().message.value("column"), "Start");
  EXPECT_EQ(*r.error().message.value("columns"), "JobID, AllocTRES");
  EXPECT_EQ(r.error().line, 1);
}

TEST(JobDemandTest, NoJobHoldingAGpuIsAnErrorSayingWhatWasRead) {
  // Two CPU-only jobs and a pending GPU job: 3 lines, 3 jobs read, none held a GPU.
  auto r = parse_sacct(
      "JobID|Start|End|AllocTRES\n"
      "1|2023-05-01T10:00:00|2023-05-01T11:00:00|cpu=4,mem=8G\n"
      "2|2023-05-01T10:00:00|2023-05-01T11:00:00|cpu=4,mem=8G\n"
      "3|Unknown|Unknown|gres/gpu=8\n",
      "cpu.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "cpu.txt");
  EXPECT_EQ(r.error().message.key, "error.jobs.no_gpu_records");
  EXPECT_EQ(*r.error().message.value("lines"), "4");
  EXPECT_EQ(*r.error().message.value("jobs"), "3");
  EXPECT_EQ(*r.error().message.value("skipped"), "0");
}

TEST(JobDemandTest, RecordsYearsApartAreRefusedNotAHugeVector) {
  // Each job is an hour, but 1990 and 2024 lie 34 years apart: more than the 10 years kept.
  auto r = parse_sacct(
      "JobID|Start|End|AllocTRES\n"
      "1|1990-05-01T10:00:00|1990-05-01T11:00:00|gres/gpu=1\n"
      "2|2024-05-01T10:00:00|2024-05-01T11:00:00|gres/gpu=1\n",
      "span.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "error.jobs.span_too_long");
  EXPECT_EQ(*r.error().message.value("first"), "1990-05-01 10:00:00");
  EXPECT_EQ(*r.error().message.value("last"), "2024-05-01 11:00:00");
}

TEST(JobDemandTest, MoreGpusAtOnceThanAnyClusterIsAnError) {
  // Two jobs of 60,000 GPUs each overlap from 10:30: 120,000 at once, more than the 100,000 limit.
  auto r = parse_sacct(
      "JobID|Start|End|AllocTRES\n"
      "1|2023-05-01T10:00:00|2023-05-01T11:00:00|gres/gpu=60000\n"
      "2|2023-05-01T10:30:00|2023-05-01T11:30:00|gres/gpu=60000\n",
      "big.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "error.jobs.too_many_gpus_at_once");
  EXPECT_EQ(*r.error().message.value("gpus"), "120000");
  EXPECT_EQ(*r.error().message.value("time"), "2023-05-01 10:30:00");
}

TEST(JobDemandTest, AGzipExportIsReadLikeAPlainOne) {
  const std::string path = temp_dir() + "/jobs.txt.gz";
  const std::string text =
      "JobID|Start|End|AllocTRES\n"
      "1|2023-05-01T10:30:00|2023-05-01T12:00:00|gres/gpu=2\n";
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  EXPECT_EQ(ok(read_job_demand({path})).demand, (std::vector<double>{1.0, 2.0}));
}

// --- kube-state-metrics --------------------------------------------------------------------------

// A kube_pod_container_resource_requests line of `pod` asking for `gpus` GPUs at `ts`.
std::string gpu_request(const std::string& pod, const std::string& gpus, const std::string& ts) {
  return "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"" + pod + "\",container=\"main\",node=\"n1\"," +
         "resource=\"nvidia_com_gpu\",unit=\"integer\"} " + gpus + " " + ts + "\n";
}

std::string phase_running(const std::string& pod, const std::string& value, const std::string& ts) {
  return "kube_pod_status_phase{namespace=\"ml\",pod=\"" + pod + "\",phase=\"Running\"} " + value + " " + ts + "\n";
}

TEST(JobDemandTest, KubeFixtureHoldsEachScrapeUntilTheNext) {
  // Scrapes at 12:00, 12:15, 12:30, 12:45 and 13:00 (2024-05-01) 15 minutes apart; pod0 asks for
  // 1 nvidia_com_gpu and is Running in the first four: 4 × 15 min = hour 12 holds 1.0. At 13:00
  // it has Succeeded: the last scrape, held for the median 15 minutes, holds 0 in hour 13.
  const JobDemand d = ok(read_job_demand({fixture("ksm-pod0-scrapes.prom")}));
  EXPECT_EQ(d.format, "kube");
  EXPECT_EQ(d.first_hour, hour_of(2024, 5, 1, 12));
  EXPECT_EQ(d.demand, (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(d.jobs, 1);
  EXPECT_EQ(d.peak_gpus, 1);
  EXPECT_EQ(d.scrapes, 5);
  EXPECT_EQ(d.stats.lines, 65);
  EXPECT_EQ(d.stats.skipped_count, 0);
}

TEST(JobDemandTest, OpenMetricsFixtureReadsItsSecondsAsTheSameScrapes) {
  // The same scrapes with timestamps in seconds and a # EOF after each: the same demand.
  const JobDemand d = ok(read_job_demand({fixture("ksm-pod0-scrapes.om")}));
  EXPECT_EQ(d.first_hour, hour_of(2024, 5, 1, 12));
  EXPECT_EQ(d.demand, (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(d.scrapes, 5);
}

TEST(JobDemandTest, TheEofMarkerDecidesSecondsOrMilliseconds) {
  // Timestamps 1714564800 and 1714566600, 2 GPUs in each scrape.
  const std::string scrapes = gpu_request("a", "2", "1714564800") + gpu_request("a", "2", "1714566600");
  // OpenMetrics (# EOF): seconds, 2024-05-01 12:00 and 12:30; each held 30 minutes: hour 12 = 2.0.
  const JobDemand om = ok(parse_kube_requests(scrapes + "# EOF\n", "om.txt"));
  EXPECT_EQ(om.first_hour, hour_of(2024, 5, 1, 12));
  EXPECT_EQ(om.demand, (std::vector<double>{2.0}));
  // Prometheus text: milliseconds, 1970-01-20 20:16:04.8 and 1.8 s later, each held 1.8 s:
  // 2 GPUs × 3.6 s = 0.002 GPU-hours in hour 476 since 1970.
  const JobDemand prom = ok(parse_kube_requests(scrapes, "prom.txt"));
  EXPECT_EQ(prom.first_hour, 476);
  ASSERT_EQ(prom.demand.size(), 1u);
  EXPECT_DOUBLE_EQ(prom.demand[0], 0.002);
  // OpenMetrics seconds may have a fraction: 12:00:00.5 and 12:30:00.5, each held 30 minutes,
  // end 13:00:00.5: hour 12 = 2 × 3599.5 / 3600, hour 13 = 2 × 0.5 / 3600.
  const JobDemand frac = ok(parse_kube_requests(
      gpu_request("a", "2", "1714564800.5") + gpu_request("a", "2", "1714566600.5") + "# EOF\n", "frac.txt"));
  ASSERT_EQ(frac.demand.size(), 2u);
  EXPECT_DOUBLE_EQ(frac.demand[0], 2 * 3599.5 / 3600);
  EXPECT_DOUBLE_EQ(frac.demand[1], 2 * 0.5 / 3600);
}

TEST(JobDemandTest, OneScrapeIsAnErrorAskingForAHistory) {
  auto r = parse_kube_requests(gpu_request("a", "1", "1714564800000") + gpu_request("b", "2", "1714564800000"),
                               "one-scrape.prom");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "one-scrape.prom");
  EXPECT_EQ(r.error().message.key, "error.jobs.single_scrape");
  EXPECT_EQ(*r.error().message.value("time"), "2024-05-01 12:00:00");
}

TEST(JobDemandTest, PhaseSeriesCountOnlyRunningPods) {
  // Scrapes at 12:00 and 12:30: pod a (1 GPU) Running, pod b (2 GPUs) Pending (Running 0).
  const std::string requests = gpu_request("a", "1", "1714564800000") + gpu_request("b", "2", "1714564800000") +
                               gpu_request("a", "1", "1714566600000") + gpu_request("b", "2", "1714566600000");
  const std::string phases = phase_running("a", "1", "1714564800000") + phase_running("b", "0", "1714564800000") +
                             phase_running("a", "1", "1714566600000") + phase_running("b", "0", "1714566600000");
  // With the phases, only a: 1 GPU the whole hour = 1.0.
  const JobDemand running = ok(parse_kube_requests(requests + phases, "phase.prom"));
  EXPECT_EQ(running.demand, (std::vector<double>{1.0}));
  EXPECT_EQ(running.jobs, 1);
  // Without them every pod's request counts: 3 GPUs = 3.0.
  const JobDemand all = ok(parse_kube_requests(requests, "nophase.prom"));
  EXPECT_EQ(all.demand, (std::vector<double>{3.0}));
  EXPECT_EQ(all.jobs, 2);
  EXPECT_EQ(all.peak_gpus, 3);
}

TEST(JobDemandTest, OlderMetricNamesAndResourceSpellingsAreGpus) {
  // kube-state-metrics 1.x named the resource in the metric; "nvidia.com/gpu" as written in a
  // pod spec is the same resource. cpu requests are not GPUs. 12:00 and 12:30: 1 + 2 + 4 = 7 GPUs.
  std::string text;
  for (const std::string ts : {"1714564800000", "1714566600000"}) {
    text += "kube_pod_container_resource_requests_nvidia_com_gpu{namespace=\"ml\",pod=\"old\",container=\"c\"} 1 " +
            ts + "\n";
    text +=
        "kube_pod_container_resource_requests_nvidia_gpu_devices{namespace=\"ml\",pod=\"older\",container=\"c\"} 2 " +
        ts + "\n";
    text +=
        "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"spec\",container=\"c\",resource=\"nvidia.com/"
        "gpu\"} 4 " +
        ts + "\n";
    text +=
        "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"spec\",container=\"c\",resource=\"cpu\",unit="
        "\"core\"} 8 " +
        ts + "\n";
    text +=
        "kube_pod_container_resource_limits{namespace=\"ml\",pod=\"spec\",container=\"c\",resource=\"nvidia_com_gpu\"} "
        "16 " +
        ts + "\n";
  }
  const JobDemand d = ok(parse_kube_requests(text, "old.prom"));
  EXPECT_EQ(d.demand, (std::vector<double>{7.0}));
  EXPECT_EQ(d.jobs, 3);
}

TEST(JobDemandTest, HostileKubeLinesAreSkippedWithTheirLine) {
  // Lines 1 and 2 are the scrapes (12:00, 12:30, 1 GPU each: hour 12 = 1.0); lines 3 … 9 skipped.
  const std::string text =
      gpu_request("a", "1", "1714564800000") + gpu_request("a", "1", "1714566600000") +
      gpu_request("b", "1e9", "1714566600000") + gpu_request("c", "1.5", "1714566600000") +
      gpu_request("d", "NaN", "1714566600000") + "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"e\n" +
      gpu_request("f", "1", "12abc") + gpu_request("g", "1", "99999999999999999") +
      "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"h\",resource=\"nvidia_com_gpu\"}\n";
  const JobDemand d = ok(parse_kube_requests(text, "hostile.prom"));
  EXPECT_EQ(d.demand, (std::vector<double>{1.0}));
  ASSERT_EQ(d.stats.skipped_count, 7);
  const std::vector<std::string> why = {"skip.jobs.too_many_gpus",
                                        "skip.jobs.bad_gpu_count",
                                        "skip.jobs.bad_gpu_count",
                                        "skip.unclosed_labels",
                                        "skip.bad_prom_timestamp",
                                        "skip.bad_prom_timestamp",
                                        "skip.no_value"};
  for (size_t i = 0; i < why.size(); ++i) {
    EXPECT_EQ(d.stats.skipped[i].file, "hostile.prom");
    EXPECT_EQ(d.stats.skipped[i].line, static_cast<int64_t>(i) + 3);
    EXPECT_EQ(d.stats.skipped[i].reason.key, why[i]) << "line " << i + 3;
  }
}

TEST(JobDemandTest, ScrapeFilesWithoutTimestampsTakeTheTimeInTheirNames) {
  // One scrape a file, as a directory of dcgm-style scrape files holds them: 12:00 and 12:20,
  // 3 GPUs; the last is held for the median 20 minutes: 3 × 40/60 = 2.0 in hour 12.
  const std::string dir = temp_dir();
  const std::string line =
      "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"a\",container=\"c\",resource=\"nvidia_com_gpu\"} "
      "3\n";
  const std::string a = write_file(dir, "ksm-1714564800.prom", line);
  const std::string b = write_file(dir, "ksm-1714566000.prom", line);
  const JobDemand d = ok(read_job_demand({a, b}));
  EXPECT_EQ(d.first_hour, hour_of(2024, 5, 1, 12));
  EXPECT_EQ(d.demand, (std::vector<double>{2.0}));
  EXPECT_EQ(d.scrapes, 2);
}

// --- files ---------------------------------------------------------------------------------------

TEST(JobDemandTest, AnUnknownFormatNamesTheFile) {
  const std::string path = write_file(temp_dir(), "notes.txt", "hello\nworld\n");
  auto r = read_job_demand({path});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, path);
  EXPECT_EQ(r.error().message.key, "error.jobs.unknown_format");
}

TEST(JobDemandTest, AMissingFileIsAnErrorNamingIt) {
  const std::string path = temp_dir() + "/absent.txt";
  auto r = read_job_demand({path});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, path);
  EXPECT_EQ(r.error().message.key, "error.file.cannot_open");
}

TEST(JobDemandTest, SacctAndKubeFilesAreNotMixed) {
  auto r = read_job_demand({fixture("sacct-hb-jobinfo.txt"), fixture("ksm-pod0-scrapes.prom")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, fixture("ksm-pod0-scrapes.prom"));
  EXPECT_EQ(r.error().message.key, "error.jobs.mixed_formats");
  EXPECT_EQ(*r.error().message.value("format"), "kube");
  EXPECT_EQ(*r.error().message.value("first_format"), "sacct");
}

TEST(JobDemandTest, NoFileIsAnError) {
  auto r = read_job_demand({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "error.jobs.no_files");
}

}  // namespace
}  // namespace gpuplan::telemetry
