// Diagnosis from logs alone (no NVML): SPEC H3's starved GPUs, H1's heat with the clock drop and
// H4's near-full memory found in nvidia-smi CSV and dmon logs (tests/fixtures/diagnose-logs, whose
// generate.py gives the formulas the expected values below are computed from), each finding naming
// the log lines and hours it rests on, and the report titled with the log's host.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "diagnose/diagnose.h"
#include "report/messages.h"
#include "telemetry/smi_table.h"
#include "test_support.h"

namespace gpuplan::diagnose {
namespace {

using nlohmann::json;
using testing::default_catalog;
using testing::findings_with_id;
using testing::run_gpuplan;
using testing::source_path;
using testing::temp_dir;
using testing::write_file;

std::string log_path(const std::string& name) {
  return source_path("tests/fixtures/diagnose-logs/" + name);
}

// `gpuplan diagnose LOG --nvml off` as JSON in English.
json diagnose_json(const std::string& args, int expected_exit = 0) {
  auto r = run_gpuplan("diagnose --nvml off --format json --lang en " + args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
  return json::parse(r.out);
}

std::vector<json> with_id(const json& report, const std::string& id) {
  std::vector<json> out;
  for (const json& f : report.at("findings"))
    if (f.at("id") == id) out.push_back(f);
  return out;
}

TEST(DiagnoseLogsTest, DataStarvedCsvIsInputBoundWithItsLinesAndHours) {
  const std::string log = log_path("gpu-node-17.csv");
  const json j = diagnose_json(log);
  EXPECT_EQ(j.at("host"), "gpu-node-17");  // the log's name, not this machine's
  auto f = with_id(j, "diagnose.input_bound");
  ASSERT_EQ(f.size(), 1u) << j.dump(1);
  const json& e = f[0].at("evidence");
  // generate.py: rows every minute from 00:50 (4 GPUs a minute, line 2 first); the busy warm-up
  // ends at 00:59, so the starved span is 01:00 (minute 10: line 2 + 4 × 10 = 42, GPU 0) to 04:00
  // (minute 190: line 2 + 4 × 190 + 3 = 765, GPU 3): three hours.
  EXPECT_EQ(e.at("lines"), log + ":42–765");
  EXPECT_EQ(e.at("hours"), "3.0");
  EXPECT_EQ(e.at("range"), "2024-05-06 01:00–04:00");
  EXPECT_EQ(e.at("gpus"), "4");
  // Hottest 48 + 7 = 55 °C; most power 110 + 2 × 21 = 152 W, of the log's own 400 W limit.
  EXPECT_EQ(e.at("temperature"), "55 °C");
  EXPECT_EQ(e.at("power"), "152 W of 400 W");
  EXPECT_EQ(e.at("limit_source"), report::say(Phrase("diagnose.limit_from.log"), report::Lang::kEn));
}

TEST(DiagnoseLogsTest, NothingExaminedIsAnErrorNotNoFindings) {
  // No log, NVML off, an empty --root (no PCI bus): it printed "No findings" and exit 0, as if a
  // healthy server had been looked at. Now exit 2, saying what was not read, in both languages.
  const std::string empty = temp_dir();
  auto r = run_gpuplan("diagnose --nvml off --lang en --root " + empty);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("Nothing was examined"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(empty), std::string::npos) << r.err;
  auto zh = run_gpuplan("diagnose --nvml off --lang zh --root " + empty);
  EXPECT_EQ(zh.exit_code, 2);
  EXPECT_NE(zh.err.find("没有检查任何数据"), std::string::npos) << zh.err;
  // A log none of whose lines could be read (a dcgm-exporter scrape without timestamps) is no
  // evidence either: exit 2, naming the file.
  const std::string scrape = write_file(empty, "scrape.prom",
                                        "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
                                        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"gpu-node-42\"} 37\n");
  auto held_nothing = run_gpuplan("diagnose --nvml off --lang en " + scrape);
  EXPECT_EQ(held_nothing.exit_code, 2) << held_nothing.out << held_nothing.err;
  EXPECT_NE(held_nothing.err.find(scrape + " held no sample"), std::string::npos) << held_nothing.err;
  // One log is something examined: a healthy one gives no findings and exit 0.
  diagnose_json(log_path("gpu-node-09.csv"));
}

TEST(DiagnoseLogsTest, HealthyBusyCsvIsNotInputBound) {
  const json j = diagnose_json(log_path("gpu-node-09.csv"));
  EXPECT_TRUE(with_id(j, "diagnose.input_bound").empty()) << j.dump(1);
  EXPECT_TRUE(with_id(j, "diagnose.thermal").empty()) << j.dump(1);
  EXPECT_TRUE(with_id(j, "diagnose.memory").empty()) << j.dump(1);
  EXPECT_EQ(j.at("host"), "gpu-node-09");
}

TEST(DiagnoseLogsTest, HotDmonLogFailsWithTheClockDropAndItsLines) {
  const std::string log = log_path("gpu-node-23.log");
  const json j = diagnose_json(log, 1);
  EXPECT_EQ(j.at("host"), "gpu-node-23");
  auto f = with_id(j, "diagnose.thermal");
  ASSERT_EQ(f.size(), 1u) << j.dump(1);
  EXPECT_EQ(f[0].at("severity"), "fail");
  const report::MessageText* words = report::find_message("diagnose.thermal/airflow_clock");
  ASSERT_NE(words, nullptr);
  EXPECT_EQ(f[0].at("title"), words->en_title);
  const json& e = f[0].at("evidence");
  EXPECT_EQ(e.at("gpu"), "gpu-node-23/1");
  // Two header lines, then a line per GPU every 30 s from 01:00:00: 01:30:00 is step 60, GPU 1 on
  // line 3 + 2 × 60 + 1 = 124; 02:10:00 is step 140, line 3 + 280 + 1 = 284. 40 min = 0.7 h.
  EXPECT_EQ(e.at("lines"), log + ":124–284");
  EXPECT_EQ(e.at("hours"), "0.7");
  EXPECT_EQ(e.at("ranges"), "2024-05-06 01:30–02:10");
  EXPECT_EQ(e.at("clock"), "1,095 MHz");
  EXPECT_EQ(e.at("max_clock"), "1,410 MHz");
}

TEST(DiagnoseLogsTest, NearFullMemoryCsvNamesItsLines) {
  const std::string log = log_path("gpu-node-31.csv");
  const json j = diagnose_json(log);
  auto f = with_id(j, "diagnose.memory");
  ASSERT_EQ(f.size(), 1u) << j.dump(1);
  const json& e = f[0].at("evidence");
  EXPECT_EQ(e.at("gpu"), "gpu-node-31/1");
  // 79,600 / 81,920 = 97.17%; 01:20 is minute 20 of the log: line 2 + 2 × 20 + 1 = 43; 01:50,
  // line 2 + 2 × 50 + 1 = 103; 30 min = 0.5 h.
  EXPECT_EQ(e.at("peak"), "97.2%");
  EXPECT_EQ(e.at("lines"), log + ":43–103");
  EXPECT_EQ(e.at("hours"), "0.5");
}

TEST(DiagnoseLogsTest, CapturedNvidiaSmiNamesTheProcessesHoldingMemory) {
  const std::string capture = log_path("gpu-node-31-nvidia-smi.txt");
  const json j = diagnose_json(capture);
  EXPECT_EQ(j.at("host"), "gpu-node-31-nvidia-smi");  // no log names a host: the file's name
  auto f = with_id(j, "diagnose.memory");
  ASSERT_EQ(f.size(), 2u) << j.dump(1);
  // GPU 0 (line 9) idle at 0% with 20,993 MiB in use (line 10), pid 41877 holding 20,480 MiB (line 23).
  EXPECT_EQ(f[0].at("title"), report::find_message("diagnose.memory/leftover")->en_title);
  const json& idle = f[0].at("evidence");
  EXPECT_EQ(idle.at("gpu"), "GPU 0 (00000000:07:00.0)");
  EXPECT_EQ(idle.at("used"), "20,993 MiB");
  EXPECT_EQ(idle.at("processes"), "41877 python (20,480 MiB)");
  EXPECT_EQ(idle.at("lines"), capture + ":9–23");
  // GPU 1 (line 13) at 79,600 of 81,920 MiB = 97.17% ≥ 95%, pid 52310 on line 24.
  EXPECT_EQ(f[1].at("title"), report::find_message("diagnose.memory/held")->en_title);
  const json& full = f[1].at("evidence");
  EXPECT_EQ(full.at("peak"), "97.2%");
  EXPECT_EQ(full.at("processes"), "52310 ...vllm/bin/python3 (79,590 MiB)");
  EXPECT_EQ(full.at("lines"), capture + ":13–24");
}

TEST(DiagnoseLogsTest, NvidiaSmiTableOfAnOlderDriverWithNoProcesses) {
  // R470's layout (no GI/CI before R450 is read too), from a public capture of a K80.
  const auto t = telemetry::parse_smi_table(
      "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
      "|   0  Tesla K80           Off  | 00000000:00:04.0 Off |                    0 |\n"
      "| N/A   39C    P0    67W / 149W |      0MiB / 11441MiB |    100%      Default |\n"
      "| Processes:                                                                  |\n"
      "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
      "|        ID   ID                                                   Usage      |\n"
      "|=============================================================================|\n"
      "|  No running processes found                                                 |\n");
  ASSERT_EQ(t.gpus.size(), 1u);
  EXPECT_EQ(t.gpus[0].bus_id, "00000000:00:04.0");
  EXPECT_EQ(t.gpus[0].utilization_pct, 100.0f);
  EXPECT_EQ(t.gpus[0].memory_total_mib, 11441.0f);
  EXPECT_EQ(t.gpus[0].line, 2);
  EXPECT_TRUE(t.processes.empty());
  // Without GI/CI columns: gpu, pid, type, name, memory.
  const auto old = telemetry::parse_smi_table(
      "| Processes:                                                       GPU Memory |\n"
      "|  GPU       PID   Type   Process name                             Usage      |\n"
      "|=============================================================================|\n"
      "|    0      2345      C   python                                   10719MiB |\n");
  ASSERT_EQ(old.processes.size(), 1u);
  EXPECT_EQ(old.processes[0].pid, "2345");
  EXPECT_EQ(old.processes[0].name, "python");
  EXPECT_EQ(old.processes[0].used_mib, 10719.0f);
}

TEST(DiagnoseLogsTest, HostFlagNamesTheReportAndTwoLogsNameBoth) {
  EXPECT_EQ(diagnose_json("--host rack4-node2 " + log_path("gpu-node-09.csv")).at("host"), "rack4-node2");
  EXPECT_EQ(diagnose_json(log_path("gpu-node-09.csv") + " " + log_path("gpu-node-31.csv")).at("host"),
            "gpu-node-09, gpu-node-31");
}

// Logs alone may come from any server: the machine gpuplan runs on is not gathered (it says so),
// so none of its own PCIe or NVML findings can land in the log's report. `--root /` says the logs
// are this machine's: it is gathered and names the report.
TEST(DiagnoseLogsTest, LogsAloneLeaveThisMachineOutUnlessRootNamesIt) {
  const std::string log = log_path("gpu-node-17.csv");
  auto alone = run_gpuplan("diagnose --format json --lang en " + log);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(json::parse(alone.out).at("host"), "gpu-node-17");
  EXPECT_NE(alone.err.find(report::say(Phrase("cli.diagnose.logs_only"), report::Lang::kEn)), std::string::npos)
      << alone.err;

  auto here = run_gpuplan("diagnose --root / --nvml off --format json --lang en " + log);
  ASSERT_EQ(here.exit_code, 0) << here.err;
  EXPECT_NE(json::parse(here.out).at("host"), "gpu-node-17");
  EXPECT_EQ(here.err.find(report::say(Phrase("cli.diagnose.logs_only"), report::Lang::kEn)), std::string::npos)
      << here.err;
}

TEST(DiagnoseLogsTest, StarvedDmonLogIsJudgedAgainstTheLowestCatalogTdp) {
  // dmon gives no power limit: 140 W is under 0.6 × 250 W = 150 W (a100-40gb-pcie, the lowest
  // catalog TDP).
  // Two GPUs at 50% and 55%, 52 °C, every 30 s from 01:00:00 to 01:40:00 (81 rounds).
  std::string text =
      "#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n"
      "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   MHz\n";
  for (int step = 0; step <= 80; ++step)
    for (int g = 0; g < 2; ++g)
      text +=
          fmt::format(" 20240506   01:{:02d}:{:02d}   {:4d}   140    52     -    {}    20     0     0  1593  1410\n",
                      step / 2, step % 2 * 30, g, g == 0 ? 50 : 55);
  const std::string log = write_file(temp_dir(), "dgx-07.log", text);
  const json j = diagnose_json(log);
  EXPECT_EQ(j.at("host"), "dgx-07");
  auto f = with_id(j, "diagnose.input_bound");
  ASSERT_EQ(f.size(), 1u) << j.dump(1);
  const json& e = f[0].at("evidence");
  EXPECT_EQ(e.at("power"), "140 W of 250 W");
  EXPECT_EQ(e.at("limit_source"),
            report::say(Phrase("diagnose.limit_from.catalog").fact("gpu", "a100-40gb-pcie"), report::Lang::kEn));
  EXPECT_EQ(e.at("utilization"), "dgx-07/0 50%, dgx-07/1 55%");
  // Lines 3 (step 0, GPU 0) to 3 + 2 × 80 + 1 = 164; 40 min = 0.7 h.
  EXPECT_EQ(e.at("lines"), log + ":3–164");
  EXPECT_EQ(e.at("hours"), "0.7");
}

TEST(DiagnoseLogsTest, LogFindingsAreWordedInBothLanguages) {
  for (const char* name : {"gpu-node-17.csv", "gpu-node-23.log", "gpu-node-31.csv"})
    for (const char* lang : {"en", "zh"}) {
      auto r = run_gpuplan(std::string("diagnose --nvml off --format json --lang ") + lang + " " + log_path(name));
      const json j = json::parse(r.out);
      ASSERT_FALSE(j.at("findings").empty()) << name;
      for (const json& f : j.at("findings")) {
        const std::string detail = f.at("detail");
        EXPECT_EQ(detail.find('{'), std::string::npos) << name << " " << lang << ": " << detail;
      }
    }
}

// --- The rule on samples built by hand -----------------------------------------------------------

constexpr int64_t kMinute = 60'000;
constexpr int64_t kMay6One = 19'849LL * 86'400'000 + 60 * kMinute;  // 2024-05-06 01:00

// Two GPUs, one sample a minute for `minutes` minutes: 50% busy, 55 °C, 150 W of a 400 W limit.
DiagnoseInputs starved_gpus(int minutes) {
  DiagnoseInputs in;
  in.gpu_names = {"n/0", "n/1"};
  for (int m = 0; m <= minutes; ++m)
    for (uint32_t g = 0; g < 2; ++g) {
      telemetry::Sample s;
      s.gpu = g;
      s.time_ms = kMay6One + m * kMinute;
      s.utilization_pct = 50;
      s.temperature_c = 55;
      s.power_w = 150;
      s.power_limit_w = 400;
      in.samples.push_back(s);
    }
  return in;
}

size_t starved(const DiagnoseInputs& in) {
  return findings_with_id(diagnose(in, default_catalog()), "diagnose.input_bound").size();
}

TEST(DiagnoseLogsTest, StarvedSpanMustLastTheCatalogsThirtyMinutes) {
  EXPECT_EQ(starved(starved_gpus(30)), 1u);  // 01:00–01:30: exactly diagnose.input.sustained_minutes
  EXPECT_EQ(starved(starved_gpus(29)), 0u);
}

TEST(DiagnoseLogsTest, AThrottleReasonOrOneBusyGpuBreaksTheSpan) {
  // SW power cap (0x4) at 01:15 on GPU 1: 01:00–01:14 and 01:16–01:40, both under 30 min.
  DiagnoseInputs capped = starved_gpus(40);
  for (auto& s : capped.samples)
    if (s.gpu == 1 && s.time_ms == kMay6One + 15 * kMinute) s.clock_event_reasons = 0x4;
  EXPECT_EQ(starved(capped), 0u);
  // GPU idle (0x1) is not a throttle: the span stays whole.
  DiagnoseInputs idle_bit = starved_gpus(40);
  for (auto& s : idle_bit.samples) s.clock_event_reasons = 0x1;
  EXPECT_EQ(starved(idle_bit), 1u);
  // GPU 0 at 90% from 01:15 on: the span common to both GPUs is 01:00–01:14.
  DiagnoseInputs busy = starved_gpus(40);
  for (auto& s : busy.samples)
    if (s.gpu == 0 && s.time_ms >= kMay6One + 15 * kMinute) s.utilization_pct = 90;
  EXPECT_EQ(starved(busy), 0u);
}

TEST(DiagnoseLogsTest, AnIdleGpuIsLeftOutNotCountedAsStarved) {
  // GPU 1 at 2% for the whole log (under diagnose.input.idle_below_pct = 10%): no job to starve;
  // GPU 0 alone carries the finding.
  DiagnoseInputs in = starved_gpus(40);
  for (auto& s : in.samples)
    if (s.gpu == 1) s.utilization_pct = 2;
  auto f = findings_with_id(diagnose(in, default_catalog()), "diagnose.input_bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(*f[0].find_fact("gpus"), "1");
  EXPECT_EQ(*f[0].find_fact("utilization"), "n/0 50%");
  EXPECT_EQ(f[0].find_fact("lines"), nullptr);  // samples without a file: no lines to name
  EXPECT_EQ(*f[0].find_fact("hours"), "0.7");
}

}  // namespace
}  // namespace gpuplan::diagnose
