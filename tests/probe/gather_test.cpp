// Gathering a host through the FakeHost: the kernel log, optional tools with their timeouts,
// NVML and the clock, with no process spawned and no file of this machine read. The files come
// from the fixture hosts (tests/fixtures/hosts/README.md).
#include "probe/gather.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/dates.h"
#include "probe/fake_host.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::source_path;
using namespace std::chrono_literals;

std::string fixture(const std::string& name) {
  return source_path("tests/fixtures/hosts/" + name);
}

// Two lines of /dev/kmsg records: one Xid 79, one unrelated.
const std::string kKmsg =
    "4,1001,5000000,-;NVRM: Xid (PCI:0000:17:00): 79, pid=0, GPU has fallen off the bus.\n"
    "6,1002,5000100,-;usb 1-1: new high-speed USB device number 2 using xhci_hcd\n";

ToolRun printed(std::string out, int exit_code = 0) {
  ToolRun r;
  r.started = true;
  r.exit_code = exit_code;
  r.out = std::move(out);
  return r;
}

nvml::NvmlFacts one_gpu() {
  nvml::NvmlFacts f;
  f.library = "libnvidia-ml.so.1";
  f.driver_version = "535.129.03";
  nvml::GpuFacts g;
  g.info.index = 0;
  g.info.name = "NVIDIA A100-SXM4-80GB";
  g.info.uuid = "GPU-1";
  g.info.pci_bus_id = "00000000:17:00.0";
  f.gpus.push_back(g);
  return f;
}

HostView gathered(FakeHost& host, GatherOptions options = {}) {
  auto view = gather_host(host, options);
  EXPECT_TRUE(view.ok()) << (view.ok() ? "" : view.error().str());
  return view.ok() ? *view : HostView{};
}

TEST(GatherTest, LiveKernelLogIsReadAndParsed) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.kernel_log = KernelLogText{kKmsg, "/dev/kmsg"};
  HostView view = gathered(host);
  EXPECT_EQ(view.kernel_log_source, "/dev/kmsg");
  ASSERT_TRUE(view.kernel_log.has_value());
  EXPECT_EQ(view.kernel_log->format, KernelLogFormat::kKmsg);
  ASSERT_EQ(view.kernel_log->events.size(), 1u);  // the Xid; the USB line is unrelated
  EXPECT_EQ(view.kernel_log->events[0].code, 79);
  EXPECT_EQ(view.kernel_log->events[0].device, "0000:17:00.0");
}

TEST(GatherTest, NoKernelLogLeavesTheSourceEmpty) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  HostView view = gathered(host);
  EXPECT_EQ(view.kernel_log_source, "");
  EXPECT_FALSE(view.kernel_log.has_value());
}

TEST(GatherTest, ANamedKernelLogWinsAndAMissingOneIsBadInput) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.kernel_log = KernelLogText{kKmsg, "/dev/kmsg"};
  GatherOptions options;
  options.kernel_log_files = {fixture("aer-xid-a100") + "/gpuplan/kernel.log"};
  HostView view = gathered(host, options);
  EXPECT_EQ(view.kernel_log_source, options.kernel_log_files[0]);
  ASSERT_TRUE(view.kernel_log.has_value());
  EXPECT_EQ(view.kernel_log->format, KernelLogFormat::kDmesg);

  options.kernel_log_files = {fixture("aer-xid-a100") + "/gpuplan/no-such.log"};
  auto missing = gather_host(host, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().file, options.kernel_log_files[0]);
  EXPECT_EQ(missing.error().field, "--kernel-log");
  EXPECT_EQ(missing.error().message.key, "cli.file.cannot_read");
}

TEST(GatherTest, ToolsRunWithTheirTimeoutAndOnlySuccessfulOutputIsKept) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.installed = {"ibstat", "nvidia-smi", "smartctl"};
  host.tools["ibstat"] = printed("CA 'mlx5_0'\n");
  ToolRun hung = printed("GPU0\tX\n");  // what topo printed before it was stopped
  hung.exit_code = 124;
  hung.timed_out = true;
  host.tools["nvidia-smi topo -m"] = hung;
  host.tools["nvidia-smi nvlink --status"] = printed("NVML: Unable to determine the device handle\n", 15);
  // smartctl's exit status is a bit mask of health findings: its JSON is kept anyway.
  host.tools["smartctl --json -a /dev/nvme0"] = printed("{\"smartctl\": {}}\n", 4);
  host.tools["smartctl --json -a /dev/nvme1"] = printed("Smartctl open device: /dev/nvme1 failed\n", 2);
  HostView view = gathered(host);

  std::vector<std::string> kept;
  for (const auto& [name, text] : view.tool_outputs) kept.push_back(name);
  EXPECT_EQ(kept, (std::vector<std::string>{"ibstat.txt", "smartctl-nvme0.json"}));
  const std::vector<std::pair<std::string, std::chrono::seconds>> ran = {{"ibstat", 120s},
                                                                         {"nvidia-smi topo -m", 120s},
                                                                         {"nvidia-smi nvlink --status", 120s},
                                                                         {"smartctl --json -a /dev/nvme0", 120s},
                                                                         {"smartctl --json -a /dev/nvme1", 120s}};
  EXPECT_EQ(host.ran, ran);
}

TEST(GatherTest, ToolsThatAreNotInstalledAreNotRun) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.tools["ibstat"] = printed("CA 'mlx5_0'\n");
  HostView view = gathered(host);
  EXPECT_TRUE(view.tool_outputs.empty());
  EXPECT_TRUE(host.ran.empty());
}

TEST(GatherTest, ASnapshotIsReadFromItsCapturesAndNothingRuns) {
  FakeHost host(fixture("aer-xid-a100"), /*live=*/false);
  host.installed = {"ibstat"};
  host.tools["ibstat"] = printed("CA 'mlx5_0'\n");
  host.kernel_log = KernelLogText{kKmsg, "/dev/kmsg"};
  HostView view = gathered(host);
  EXPECT_EQ(view.kernel_log_source, "gpuplan/kernel.log");
  EXPECT_TRUE(host.ran.empty());
  EXPECT_TRUE(view.tool_outputs.empty());
  // auto on a snapshot: its nvml.json, which this fixture does not have.
  EXPECT_FALSE(view.nvml.has_value());
  EXPECT_EQ(view.nvml_error.key, "accept.nvml.not_in_snapshot");
}

TEST(GatherTest, NvmlFollowsItsSource) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.nvml = one_gpu();
  HostView live = gathered(host);
  ASSERT_TRUE(live.nvml.has_value());
  EXPECT_EQ(live.nvml->driver_version, "535.129.03");
  // What a snapshot keeps reads back as the same facts.
  auto back = nvml::facts_from_json(nlohmann::json::parse(live.nvml_json), "nvml.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->gpus.size(), 1u);
  EXPECT_EQ(back->gpus[0].info.uuid, "GPU-1");

  GatherOptions off;
  off.nvml = NvmlSource::kOff;
  HostView none = gathered(host, off);
  EXPECT_FALSE(none.nvml.has_value());
  EXPECT_EQ(none.nvml_error.key, "accept.nvml.off");

  FakeHost snapshot(fixture("aer-xid-a100"), /*live=*/false);
  snapshot.nvml = one_gpu();
  GatherOptions live_nvml;
  live_nvml.nvml = NvmlSource::kLive;  // this machine's NVML beside a snapshot's files
  EXPECT_TRUE(gathered(snapshot, live_nvml).nvml.has_value());
}

TEST(GatherTest, NvmlThatCannotLoadIsAReasonNotAnError) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  HostView view = gathered(host);
  EXPECT_FALSE(view.nvml.has_value());
  EXPECT_EQ(view.nvml_error, FakeHost::no_nvml().phrase());
}

TEST(GatherTest, ClockReadingsAreWrittenInUtc) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  // 2024-05-06T10:00:01Z: 19,849 days after 1970-01-01 (1,714,953,600 s) plus 36,001 s.
  host.clock = std::chrono::system_clock::time_point(std::chrono::seconds(1'714'989'601));
  EXPECT_EQ(iso_utc(host.now()), "2024-05-06T10:00:01Z");
}

TEST(GatherTest, EvidenceHoldsTheCapturesAndTheHostFilesTheChecksRead) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.kernel_log = KernelLogText{kKmsg, "/dev/kmsg"};
  host.nvml = one_gpu();
  host.installed = {"ibstat"};
  host.tools["ibstat"] = printed("CA 'mlx5_0'\n");
  HostView view = gathered(host);
  std::vector<BundleFile> files = host_evidence(host, view, {});
  auto has = [&](const std::string& name) {
    return std::any_of(files.begin(), files.end(), [&](const BundleFile& f) { return f.name == name; });
  };
  EXPECT_TRUE(has("captures/kernel.log"));
  EXPECT_TRUE(has("captures/nvml.json"));
  EXPECT_TRUE(has("captures/tools/ibstat.txt"));
  EXPECT_TRUE(has("host/etc/hostname"));
  EXPECT_EQ(files.size(), 3 + host.fs().files_read().size());
}

TEST(GatherTest, SnapshotContentKeepsTheLinkDirectoriesAndCaptures) {
  FakeHost host(fixture("hgx-a100-8gpu"));
  host.kernel_log = KernelLogText{kKmsg, "/dev/kmsg"};
  HostView view = gathered(host);
  SnapshotContent content = snapshot_content(host, view);
  EXPECT_EQ(content.link_dirs.front(), "/sys/bus/pci/devices");
  EXPECT_NE(std::find(content.link_dirs.begin(), content.link_dirs.end(), "/sys/class/nvme"), content.link_dirs.end());
  EXPECT_EQ(content.captures.at("kernel.log"), kKmsg);
  EXPECT_EQ(content.captures.count("nvml.json"), 0u);
}

}  // namespace
}  // namespace gpuplan::probe
