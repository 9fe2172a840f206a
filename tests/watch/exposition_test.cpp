// /metrics text for a hand-built WatchState: the exact text (written out by hand from the
// dcgm-exporter names and the state's figures, not by running the renderer), escaping, absent
// values, a lost GPU, and promtool's verdict on it.
#include "watch/exposition.h"

#include <gtest/gtest.h>

#include <sstream>

#include "test_support.h"
#include "watch/exporter_shell.h"

namespace gpuplan::watch {
namespace {

WatchState sample_state() {
  WatchState s;
  s.host = "node\"7";  // a quote, to be escaped in every label
  s.samples_taken = 12;
  GpuState g0;
  g0.info.index = 0;
  g0.info.uuid = "GPU-aaaa";
  g0.info.pci_bus_id = "00000000:17:00.0";
  g0.info.name = "NVIDIA A100-SXM4-80GB";
  g0.info.max_link_gen = 4;
  g0.info.max_link_width = 16;
  nvml::GpuDynamic d;
  d.sm_clock_mhz = 1410;
  d.temperature_c = 61.5;
  d.memory_used_mib = 1024;
  d.ecc_aggregate_corrected = 3;
  d.clock_event_reasons = 0x24;  // SwPowerCap | SwThermalSlowdown
  d.link_gen = 4;
  d.link_width = 16;
  g0.now = d;
  g0.xid_counts = {{79, 2}};
  g0.last_xid = 79;
  GpuState g1;
  g1.info.index = 1;
  g1.info.uuid = "GPU-bbbb";
  g1.info.pci_bus_id = "00000000:31:00.0";
  g1.info.name = "NVIDIA A100-SXM4-80GB";
  nvml::GpuDynamic stale;
  stale.temperature_c = 99;  // read before it fell off the bus: must not be shown
  g1.now = stale;
  g1.lost = true;
  s.gpus = {g0, g1};
  s.sxid_counts = {{20034, 1}};
  s.aer_events = 5;
  s.checks = {{"ecc", 1}, {"gpu.count", 2}};
  s.archive.readings_committed = 24;
  s.archive.pending = 2;
  s.archive.commit_errors = 1;
  s.archive.writable = false;
  s.archive.last_commit_ms = 1700000000500;
  return s;
}

TEST(Exposition, ExactTextForAHandBuiltState) {
  const std::string dcgm0 =
      R"({gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:17:00.0",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="node\"7"})";
  const std::string own0 =
      R"({gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:17:00.0",device="nvidia0",Hostname="node\"7")";
  const std::string own1 =
      R"({gpu="1",UUID="GPU-bbbb",pci_bus_id="00000000:31:00.0",device="nvidia1",Hostname="node\"7"})";
  const std::string host = R"({Hostname="node\"7"})";
  std::string reasons;
  for (auto [name, on] : std::vector<std::pair<const char*, int>>{{"GpuIdle", 0},
                                                                  {"ApplicationsClocksSetting", 0},
                                                                  {"SwPowerCap", 1},
                                                                  {"HwSlowdown", 0},
                                                                  {"SyncBoost", 0},
                                                                  {"SwThermalSlowdown", 1},
                                                                  {"HwThermalSlowdown", 0},
                                                                  {"HwPowerBrakeSlowdown", 0},
                                                                  {"DisplayClockSetting", 0}})
    reasons += "gpuplan_clock_event_reason" + own0 + ",reason=\"" + name + "\"} " + std::to_string(on) + "\n";
  const std::string expected =
      "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"
      "DCGM_FI_DEV_SM_CLOCK" +
      dcgm0 +
      " 1410\n"
      "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
      "DCGM_FI_DEV_GPU_TEMP" +
      dcgm0 +
      " 61.5\n"
      "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
      "DCGM_FI_DEV_XID_ERRORS" +
      dcgm0 +
      " 79\n"
      "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n# TYPE DCGM_FI_DEV_FB_USED gauge\n"
      "DCGM_FI_DEV_FB_USED" +
      dcgm0 +
      " 1024\n"
      "# HELP DCGM_FI_DEV_ECC_SBE_AGG_TOTAL Total number of single-bit persistent ECC errors.\n"
      "# TYPE DCGM_FI_DEV_ECC_SBE_AGG_TOTAL counter\n"
      "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL" +
      dcgm0 +
      " 3\n"
      "# HELP gpuplan_pcie_link_gen Current PCIe link generation of the GPU.\n# TYPE gpuplan_pcie_link_gen gauge\n"
      "gpuplan_pcie_link_gen" +
      own0 +
      "} 4\n"
      "# HELP gpuplan_pcie_link_gen_max Highest PCIe link generation the GPU and its slot support.\n"
      "# TYPE gpuplan_pcie_link_gen_max gauge\n"
      "gpuplan_pcie_link_gen_max" +
      own0 +
      "} 4\n"
      "# HELP gpuplan_pcie_link_width Current PCIe link width of the GPU (lanes).\n"
      "# TYPE gpuplan_pcie_link_width gauge\n"
      "gpuplan_pcie_link_width" +
      own0 +
      "} 16\n"
      "# HELP gpuplan_pcie_link_width_max Widest PCIe link the GPU and its slot support (lanes).\n"
      "# TYPE gpuplan_pcie_link_width_max gauge\n"
      "gpuplan_pcie_link_width_max" +
      own0 +
      "} 16\n"
      "# HELP gpuplan_clock_event_reason 1 while NVML reports this clock-event (throttle) reason for the GPU, else 0.\n"
      "# TYPE gpuplan_clock_event_reason gauge\n" +
      reasons +
      "# HELP gpuplan_xid_errors_total Xid errors the kernel logged for the GPU since watch started, by code.\n"
      "# TYPE gpuplan_xid_errors_total counter\n"
      "gpuplan_xid_errors_total" +
      own0 +
      ",xid=\"79\"} 2\n"
      "# HELP gpuplan_gpu_lost 1 while NVML reports the GPU lost (fallen off the bus), else 0.\n"
      "# TYPE gpuplan_gpu_lost gauge\n"
      "gpuplan_gpu_lost" +
      own0 +
      "} 0\n"
      "gpuplan_gpu_lost" +
      own1 +
      " 1\n"
      "# HELP gpuplan_sxid_errors_total NVSwitch SXid errors the kernel logged since watch started, by code.\n"
      "# TYPE gpuplan_sxid_errors_total counter\n"
      "gpuplan_sxid_errors_total{Hostname=\"node\\\"7\",sxid=\"20034\"} 1\n"
      "# HELP gpuplan_pcie_aer_events_total PCIe AER events the kernel logged since watch started.\n"
      "# TYPE gpuplan_pcie_aer_events_total counter\n"
      "gpuplan_pcie_aer_events_total" +
      host +
      " 5\n"
      "# HELP gpuplan_acceptance_check_status Live status of an acceptance check: 0 pass, 1 warn, 2 fail.\n"
      "# TYPE gpuplan_acceptance_check_status gauge\n"
      "gpuplan_acceptance_check_status{Hostname=\"node\\\"7\",check=\"ecc\"} 1\n"
      "gpuplan_acceptance_check_status{Hostname=\"node\\\"7\",check=\"gpu.count\"} 2\n"
      "# HELP gpuplan_samples_total Sampling rounds (one reading of every GPU) since watch started.\n"
      "# TYPE gpuplan_samples_total counter\n"
      "gpuplan_samples_total" +
      host +
      " 12\n"
      "# HELP gpuplan_archive_readings_committed_total Readings committed to the archive since watch started.\n"
      "# TYPE gpuplan_archive_readings_committed_total counter\n"
      "gpuplan_archive_readings_committed_total" +
      host +
      " 24\n"
      "# HELP gpuplan_archive_pending_rows Readings and events waiting for the next archive commit.\n"
      "# TYPE gpuplan_archive_pending_rows gauge\n"
      "gpuplan_archive_pending_rows" +
      host +
      " 2\n"
      "# HELP gpuplan_archive_dropped_rows_total Readings and events dropped because the archive could not take them in "
      "time.\n"
      "# TYPE gpuplan_archive_dropped_rows_total counter\n"
      "gpuplan_archive_dropped_rows_total" +
      host +
      " 0\n"
      "# HELP gpuplan_archive_commit_errors_total Archive commits that failed (disk full, read-only).\n"
      "# TYPE gpuplan_archive_commit_errors_total counter\n"
      "gpuplan_archive_commit_errors_total" +
      host +
      " 1\n"
      "# HELP gpuplan_archive_writable 1 when the last archive commit succeeded, else 0.\n"
      "# TYPE gpuplan_archive_writable gauge\n"
      "gpuplan_archive_writable" +
      host +
      " 0\n"
      "# HELP gpuplan_archive_last_commit_timestamp_seconds When the archive last committed (Unix time).\n"
      "# TYPE gpuplan_archive_last_commit_timestamp_seconds gauge\n"
      "gpuplan_archive_last_commit_timestamp_seconds" +
      host + " 1700000000.5\n";
  EXPECT_EQ(render_metrics(sample_state()), expected);
}

TEST(Exposition, EscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_label_value("plain"), "plain");
}

TEST(Exposition, ValueNvmlDidNotGiveIsAbsentNotZero) {
  WatchState s;
  s.host = "h";
  GpuState g;
  g.info.uuid = "GPU-x";
  g.now = nvml::GpuDynamic{};  // a reading with nothing in it
  s.gpus = {g};
  const std::string text = render_metrics(s);
  EXPECT_EQ(text.find("DCGM_FI_"), std::string::npos) << text;
  EXPECT_EQ(text.find("gpuplan_pcie_link"), std::string::npos) << text;
  EXPECT_EQ(text.find("gpuplan_archive_last_commit"), std::string::npos) << text;  // never committed
  EXPECT_NE(text.find("gpuplan_gpu_lost{gpu=\"0\""), std::string::npos) << text;
}

// promtool lints dcgm-exporter's own names (no _total on its counters, the camelCase modelName
// label): those complaints are the price of drop-in dashboards. Every other complaint, and any
// about a gpuplan_* series, is a defect.
TEST(Exposition, PromtoolFindsNothingButDcgmExportersOwnNaming) {
  const std::string file = testing::write_file(testing::temp_dir(), "metrics.prom", render_metrics(sample_state()));
  auto [rc, out] = testing::shell("/usr/bin/promtool check metrics < " + file);
  ASSERT_NE(rc, 1) << out;  // 1: promtool could not parse the text at all
  std::istringstream lines(out);
  std::string line;
  int problems = 0;
  while (std::getline(lines, line)) {
    ++problems;
    EXPECT_EQ(line.rfind("DCGM_FI_DEV_", 0), 0u) << line;
    const bool known = line.find("counter metrics should have \"_total\" suffix") != std::string::npos ||
                       line.find("label names should be written in 'snake_case' not 'camelCase'") != std::string::npos;
    EXPECT_TRUE(known) << line;
  }
  // The five DCGM families in the state, each camelCase; the one counter (SBE_AGG) lacks _total.
  EXPECT_EQ(problems, 6) << out;
}

}  // namespace
}  // namespace gpuplan::watch
