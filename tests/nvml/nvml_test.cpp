// Pins src/nvml against the fake libnvidia-ml.so.1 (tests/fake_nvml) and the scenarios in
// tests/fixtures/nvml. Every expected value below is read off the scenario file by hand.
#include "nvml/nvml.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace gpuplan::nvml {
namespace {

using gpuplan::testing::fact_in;
using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;
using nlohmann::json;

constexpr const char* kFake = GPUPLAN_FAKE_NVML;

std::string fixture(const std::string& name) {
  return source_path("tests/fixtures/nvml/" + name);
}

// Sets the fake's scenario (and clock file) for this test and clears both, and
// GPUPLAN_NVML_LIBRARY, before and after, so no test sees another's settings.
class FakeEnv {
 public:
  explicit FakeEnv(const std::string& scenario = "", const std::string& clock_file = "") {
    clear();
    if (!scenario.empty()) setenv("GPUPLAN_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
    if (!clock_file.empty()) setenv("GPUPLAN_FAKE_NVML_CLOCK_FILE", clock_file.c_str(), 1);
  }
  ~FakeEnv() { clear(); }
  FakeEnv(const FakeEnv&) = delete;
  FakeEnv& operator=(const FakeEnv&) = delete;

 private:
  static void clear() {
    unsetenv("GPUPLAN_FAKE_NVML_SCENARIO");
    unsetenv("GPUPLAN_FAKE_NVML_CLOCK_FILE");
    unsetenv("GPUPLAN_NVML_LIBRARY");
  }
};

std::unique_ptr<Nvml> open_fake() {
  auto nvml = Nvml::open(kFake);
  if (!nvml) {
    ADD_FAILURE() << nvml.error().str();
    return nullptr;
  }
  return std::move(*nvml);
}

void set_clock(const std::string& file, double seconds) {
  std::ofstream(file) << seconds << "\n";
}

// The GPUs of tests/fixtures/hosts/hgx-a100-8gpu, so a snapshot of that host with this NVML agrees.
const std::vector<std::string> kBusIds = {"00000000:03:00.0", "00000000:04:00.0", "00000000:43:00.0",
                                          "00000000:44:00.0", "00000000:83:00.0", "00000000:84:00.0",
                                          "00000000:C3:00.0", "00000000:C4:00.0"};
const std::vector<std::string> kUuids = {
    "GPU-6d2e3f41-8c7a-4b19-9e05-2a7f1c3d4e01", "GPU-b0a41c5e-2f73-4d8e-a6c1-93e0d5f2b712",
    "GPU-1f9c8d2a-7e64-4a3b-b5d0-c8e2f1a09423", "GPU-e4b7a913-5c2d-4f08-9a6e-71d3c0b8f534",
    "GPU-8a3d6e0f-1b95-4c72-8d4a-5e9f2c1b7645", "GPU-c59e0b7d-3a18-4e6f-b2c9-0d4a8f3e6756",
    "GPU-27f1d4c8-9e0b-4a5d-8c3f-6b2e7a1d9867", "GPU-d3c6f2a0-4b7e-4d91-a8f5-9c0e3b6a2978"};
const std::vector<std::string> kSerials = {"1323221004711", "1323221004728", "1323221004735", "1323221004742",
                                           "1323221004759", "1323221004766", "1323221004773", "1323221004780"};
const std::vector<double> kTemps = {58, 61, 60, 62, 59, 60, 63, 61};

// --- opening --------------------------------------------------------------------------------

// The fake library's nvmlInit_v2 failed with `code` and nvmlErrorString's `text` for it.
void expect_call_failed(const Error& e, const std::string& code, const std::string& text) {
  EXPECT_EQ(e.file, kFake);
  EXPECT_EQ(e.message.key, "error.nvml.call_failed") << e.str();
  ASSERT_TRUE(fact_in(e.message, "call") && fact_in(e.message, "code") && fact_in(e.message, "why")) << e.str();
  EXPECT_EQ(*fact_in(e.message, "call"), "nvmlInit_v2");
  EXPECT_EQ(*fact_in(e.message, "code"), code);
  EXPECT_EQ(*fact_in(e.message, "why"), text);
}

TEST(NvmlTest, OpenFailureNamesTheFileAndDlerrorReason) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = Nvml::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(nvml);
  EXPECT_EQ(nvml.error().file, "/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(nvml.error().message.key, "error.nvml.cannot_load") << nvml.error().str();
  const Fact* why = find_fact(nvml.error().message.facts, "why");
  ASSERT_TRUE(why && why->phrases.size() == 1u) << nvml.error().str();  // one file tried
  EXPECT_EQ(why->phrases[0].key, "error.nvml.dlerror");
  ASSERT_TRUE(fact_in(nvml.error().message, "reason")) << nvml.error().str();
  EXPECT_NE(
      fact_in(nvml.error().message, "reason")->find("/nonexistent/libnvidia-ml.so.1: cannot open shared object file"),
      std::string::npos)
      << nvml.error().str();
}

TEST(NvmlTest, OpenWithoutPathUsesGpuplanNvmlLibrary) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  setenv("GPUPLAN_NVML_LIBRARY", kFake, 1);
  auto nvml = Nvml::open();
  ASSERT_TRUE(nvml) << nvml.error().str();
  EXPECT_EQ((*nvml)->read_facts().library, kFake);

  setenv("GPUPLAN_NVML_LIBRARY", "/nonexistent/nvml.so", 1);
  auto bad = Nvml::open();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().file, "/nonexistent/nvml.so");
  EXPECT_EQ(bad.error().message.key, "error.nvml.cannot_load");
}

TEST(NvmlTest, OpenRejectsALibraryWithoutNvmlSymbols) {
  FakeEnv env;
  auto nvml = Nvml::open("libz.so.1");  // loadable, but not NVML
  ASSERT_FALSE(nvml);
  EXPECT_EQ(nvml.error().file, "libz.so.1");
  EXPECT_EQ(nvml.error().message.key, "error.nvml.missing_symbol");
  EXPECT_EQ(*fact_in(nvml.error().message, "symbol"), "nvmlInit_v2 / nvmlInit");
}

TEST(NvmlTest, UnsetScenarioIsDriverNotLoaded) {
  FakeEnv env;
  auto nvml = Nvml::open(kFake);
  ASSERT_FALSE(nvml);
  expect_call_failed(nvml.error(), "9", "Driver Not Loaded");
}

TEST(NvmlTest, MissingScenarioFileIsUnknownError) {
  FakeEnv env("/nonexistent/scenario.yaml");
  auto nvml = Nvml::open(kFake);
  ASSERT_FALSE(nvml);
  expect_call_failed(nvml.error(), "999", "Unknown Error");
}

TEST(NvmlTest, ScenarioWithUnknownKeyFailsInit) {
  std::string file = write_file(temp_dir(), "typo.yaml", "gpuz: []\n");
  FakeEnv env(file);
  auto nvml = Nvml::open(kFake);
  ASSERT_FALSE(nvml);
  expect_call_failed(nvml.error(), "999", "Unknown Error");
}

TEST(NvmlTest, InitResultOfTheScenarioIsReportedWithItsText) {
  std::string file = write_file(temp_dir(), "init.yaml", "init_result: 9\ngpus: []\n");
  FakeEnv env(file);
  auto nvml = Nvml::open(kFake);
  ASSERT_FALSE(nvml);
  expect_call_failed(nvml.error(), "9", "Driver Not Loaded");
}

TEST(NvmlTest, EachOpenReadsItsOwnScenario) {
  {
    FakeEnv env(fixture("healthy-8xa100.yaml"));
    auto nvml = open_fake();
    ASSERT_TRUE(nvml);
    EXPECT_EQ(nvml->count(), 8u);
  }
  std::string file =
      write_file(temp_dir(), "one.yaml", "gpus: [{name: X, uuid: GPU-1, pci_bus_id: '00000000:01:00.0'}]\n");
  FakeEnv env(file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  EXPECT_EQ(nvml->count(), 1u);
}

// --- the healthy server ---------------------------------------------------------------------

TEST(NvmlTest, HealthyScenarioReportsEveryStaticFactExactly) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  EXPECT_EQ(f.library, kFake);
  EXPECT_EQ(f.driver_version, "535.129.03");
  EXPECT_EQ(f.cuda_driver_version, "12.2");
  EXPECT_EQ(f.nvml_version, "12.535.129.03");
  EXPECT_TRUE(f.unsupported.empty()) << f.unsupported.front();
  ASSERT_EQ(f.gpus.size(), 8u);
  for (unsigned i = 0; i < 8; ++i) {
    SCOPED_TRACE("GPU " + std::to_string(i));
    const GpuStatic& s = f.gpus[i].info;
    EXPECT_EQ(s.index, i);
    EXPECT_EQ(s.name, "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(s.uuid, kUuids[i]);
    EXPECT_EQ(s.serial, kSerials[i]);
    EXPECT_EQ(s.board_part_number, "692-2G506-0210-002");
    EXPECT_EQ(s.vbios, "92.00.45.00.05");
    EXPECT_EQ(s.pci_bus_id, kBusIds[i]);
    EXPECT_EQ(s.max_link_gen, 4u);
    EXPECT_EQ(s.max_link_width, 16u);
    EXPECT_EQ(s.memory_total_mib, 81920.0);
    EXPECT_EQ(s.power_limit_w, 400.0);
    EXPECT_EQ(s.slowdown_temp_c, 92);
    EXPECT_EQ(s.shutdown_temp_c, 97);
    EXPECT_EQ(s.max_sm_clock_mhz, 1410.0);
  }
}

TEST(NvmlTest, HealthyScenarioReportsEveryDynamicFactExactly) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  for (unsigned i = 0; i < 8; ++i) {
    SCOPED_TRACE("GPU " + std::to_string(i));
    GpuDynamic d = nvml->read_dynamic(i);
    EXPECT_EQ(d.utilization_pct, 98.0);
    EXPECT_EQ(d.memory_used_mib, 20000.0);
    EXPECT_EQ(d.temperature_c, kTemps[i]);
    EXPECT_EQ(d.power_w, 312.5);  // 312500 mW
    EXPECT_EQ(d.sm_clock_mhz, 1410.0);
    EXPECT_EQ(d.clock_event_reasons, 0u);
    EXPECT_EQ(d.link_gen, 4u);
    EXPECT_EQ(d.link_width, 16u);
    EXPECT_EQ(d.pcie_replays, 0u);
    EXPECT_EQ(d.ecc_enabled, true);
    EXPECT_EQ(d.ecc_volatile_corrected, 0u);
    EXPECT_EQ(d.ecc_volatile_uncorrected, 0u);
    EXPECT_EQ(d.ecc_aggregate_corrected, 0u);
    EXPECT_EQ(d.ecc_aggregate_uncorrected, 0u);
    EXPECT_EQ(d.retired_pages_sbe, 0u);
    EXPECT_EQ(d.retired_pages_dbe, 0u);
    EXPECT_EQ(d.retired_pages_pending, false);
    EXPECT_EQ(d.remapped_rows_correctable, 0u);
    EXPECT_EQ(d.remapped_rows_uncorrectable, 0u);
    EXPECT_EQ(d.remapping_pending, false);
    EXPECT_EQ(d.remapping_failed, false);
    EXPECT_EQ(d.nvlink_active, std::vector<bool>(12, true));
    ASSERT_TRUE(d.processes);
    ASSERT_EQ(d.processes->size(), 1u);
    EXPECT_EQ((*d.processes)[0].pid, 51200 + i);
    EXPECT_EQ((*d.processes)[0].used_mib, 19968.0);
  }
  EXPECT_TRUE(nvml->unsupported().empty());
}

TEST(NvmlTest, HealthyScenarioTopologyPairsGpusOnPcieSwitches) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  EXPECT_EQ(f.topology.size(), 28u);     // 8 choose 2
  EXPECT_EQ(f.topology.at({0, 1}), 10);  // SINGLE: one PCIe switch
  EXPECT_EQ(f.topology.at({6, 7}), 10);
  EXPECT_EQ(f.topology.at({0, 3}), 40);  // NODE: same socket
  EXPECT_EQ(f.topology.at({5, 7}), 40);
  EXPECT_EQ(f.topology.at({0, 4}), 50);  // SYSTEM: across sockets
  EXPECT_EQ(f.topology.at({3, 7}), 50);
  int single = 0;
  for (const auto& [pair, level] : f.topology) single += level == 10;
  EXPECT_EQ(single, 4);
}

// --- missing facts and fallbacks ------------------------------------------------------------

// Two GPUs with a few facts; `extra` adds top-level keys. GPU 1 has no serial number.
std::string two_gpu_scenario(const std::string& extra) {
  return write_file(temp_dir(), "two.yaml",
                    "driver_version: \"535.129.03\"\ncuda_driver_version: 12020\n" + extra +
                        "defaults: {name: NVIDIA A100-SXM4-80GB, serial: \"1323221004711\", memory_total_mib: 81920,\n"
                        "           memory_used_mib: 1024, temperature_c: 40, clock_event_reasons: 0x4,\n"
                        "           remapped_rows_correctable: 0, nvlinks: 12}\n"
                        "gpus:\n  - {uuid: GPU-0, pci_bus_id: '00000000:07:00.0'}\n"
                        "  - {uuid: GPU-1, pci_bus_id: '00000000:0F:00.0', unsupported: [nvmlDeviceGetSerial]}\n");
}

TEST(NvmlTest, NotSupportedLeavesTheFactEmptyWithOneLineEach) {
  FakeEnv env(two_gpu_scenario("topology: {default: 20}\nunsupported: [nvmlDeviceGetRemappedRows]\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  EXPECT_EQ(f.gpus[0].info.serial, "1323221004711");
  EXPECT_EQ(f.gpus[1].info.serial, std::nullopt);
  EXPECT_EQ(f.gpus[0].now.remapped_rows_correctable, std::nullopt);
  EXPECT_EQ(f.gpus[0].now.remapping_pending, std::nullopt);
  EXPECT_EQ(f.gpus[1].now.remapped_rows_uncorrectable, std::nullopt);
  EXPECT_EQ(f.topology.at({0, 1}), 20);
  // Facts the scenario leaves out answer NOT_SUPPORTED too; only the named ones are asserted.
  auto has = [&](const std::string& line) {
    return std::find(f.unsupported.begin(), f.unsupported.end(), line) != f.unsupported.end();
  };
  EXPECT_TRUE(has("nvmlDeviceGetRemappedRows (GPU 0): Not Supported"));
  EXPECT_TRUE(has("nvmlDeviceGetRemappedRows (GPU 1): Not Supported"));
  EXPECT_TRUE(has("nvmlDeviceGetSerial (GPU 1): Not Supported"));
  EXPECT_FALSE(has("nvmlDeviceGetSerial (GPU 0): Not Supported"));

  // Asked again, a refused call adds no line: each is probed once.
  size_t lines = f.unsupported.size();
  nvml->read_dynamic(0);
  nvml->read_dynamic(1);
  EXPECT_EQ(nvml->read_facts().unsupported.size(), lines);
}

TEST(NvmlTest, MinimalScenarioLeavesEveryOptionalFactEmpty) {
  std::string file = write_file(temp_dir(), "minimal.yaml",
                                "gpus:\n  - {name: X, uuid: GPU-0, pci_bus_id: '00000000:07:00.0'}\n"
                                "  - {name: X, uuid: GPU-1, pci_bus_id: '00000000:0F:00.0'}\n");
  FakeEnv env(file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  EXPECT_EQ(f.driver_version, "");
  EXPECT_EQ(f.cuda_driver_version, std::nullopt);
  EXPECT_EQ(f.nvml_version, std::nullopt);
  EXPECT_TRUE(f.topology.empty());
  const GpuFacts& g = f.gpus[0];
  EXPECT_EQ(g.info.name, "X");
  EXPECT_EQ(g.info.pci_bus_id, "00000000:07:00.0");
  EXPECT_EQ(g.info.serial, std::nullopt);
  EXPECT_EQ(g.info.memory_total_mib, std::nullopt);
  EXPECT_EQ(g.info.slowdown_temp_c, std::nullopt);
  EXPECT_EQ(g.now.temperature_c, std::nullopt);
  EXPECT_EQ(g.now.clock_event_reasons, std::nullopt);
  EXPECT_EQ(g.now.ecc_volatile_corrected, std::nullopt);
  EXPECT_TRUE(g.now.nvlink_active.empty());
  EXPECT_EQ(g.now.processes, std::nullopt);
  auto has = [&](const std::string& line) {
    return std::find(f.unsupported.begin(), f.unsupported.end(), line) != f.unsupported.end();
  };
  EXPECT_TRUE(has("nvmlSystemGetDriverVersion: Not Supported"));
  // No libcuda: the _v2 call answers LIBRARY_NOT_FOUND, which is not a reason to try the older one.
  EXPECT_TRUE(has("nvmlSystemGetCudaDriverVersion_v2: NVML Shared Library Not Found"));
  EXPECT_TRUE(has("nvmlDeviceGetTopologyCommonAncestor: Not Supported"));
  EXPECT_TRUE(has("nvmlDeviceGetNvLinkState (GPU 1): Not Supported"));
  // Both temperature calls refused: the line names the last one tried.
  EXPECT_TRUE(has("nvmlDeviceGetTemperatureV (GPU 0): Not Supported"));
  EXPECT_TRUE(has("nvmlDeviceGetComputeRunningProcesses (GPU 0): Not Supported"));
}

TEST(NvmlTest, FunctionNotFoundFallsBackToTheOlderSymbol) {
  FakeEnv env(two_gpu_scenario(
      "function_not_found: [nvmlDeviceGetCurrentClocksEventReasons, nvmlDeviceGetPciInfo_v3,\n"
      "  nvmlDeviceGetComputeRunningProcesses_v2, nvmlDeviceGetTemperature, nvmlSystemGetCudaDriverVersion_v2]\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  EXPECT_EQ(f.cuda_driver_version, "12.2");                  // nvmlSystemGetCudaDriverVersion
  EXPECT_EQ(f.gpus[1].info.pci_bus_id, "00000000:0F:00.0");  // nvmlDeviceGetPciInfo_v2
  EXPECT_EQ(f.gpus[0].now.clock_event_reasons, 0x4u);        // ...ThrottleReasons
  EXPECT_EQ(f.gpus[0].now.temperature_c, 40.0);              // nvmlDeviceGetTemperatureV
  for (const auto& line : f.unsupported) {
    EXPECT_EQ(line.find("ClocksEventReasons"), std::string::npos) << line;
    EXPECT_EQ(line.find("PciInfo"), std::string::npos) << line;
    EXPECT_EQ(line.find("Temperature "), std::string::npos) << line;
    EXPECT_EQ(line.find("Cuda"), std::string::npos) << line;
  }
}

TEST(NvmlTest, WhenEveryFallbackIsRefusedOneLineNamesTheLast) {
  FakeEnv env(two_gpu_scenario(
      "function_not_found: [nvmlDeviceGetCurrentClocksEventReasons, nvmlDeviceGetCurrentClocksThrottleReasons]\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  EXPECT_EQ(nvml->read_sample(0).clock_event_reasons, std::nullopt);
  EXPECT_EQ(nvml->read_sample(0).clock_event_reasons, std::nullopt);
  std::vector<std::string> reasons_lines;
  for (const auto& line : nvml->unsupported()) {
    if (line.find("Clocks") != std::string::npos) reasons_lines.push_back(line);
  }
  EXPECT_EQ(reasons_lines,
            std::vector<std::string>{"nvmlDeviceGetCurrentClocksThrottleReasons (GPU 0): Function Not Found"});
}

TEST(NvmlTest, LegacyPciInfoGivesTheBusIdOfTheOlderLayout) {
  // Only nvmlDeviceGetPciInfo answers; like a real one it fills busIdLegacy ("%04X:%02X:%02X.0":
  // domain 0x00000000 as 0000, bus 0x0F as 0F) and leaves busId empty.
  FakeEnv env(two_gpu_scenario("function_not_found: [nvmlDeviceGetPciInfo_v3, nvmlDeviceGetPciInfo_v2]\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  EXPECT_EQ(nvml->read_static(0).pci_bus_id, "0000:07:00.0");
  EXPECT_EQ(nvml->read_static(1).pci_bus_id, "0000:0F:00.0");
  for (const auto& line : nvml->unsupported()) {
    EXPECT_EQ(line.find("PciInfo"), std::string::npos) << line;
  }
}

// --- processes ------------------------------------------------------------------------------

std::string process_scenario(const std::string& extra) {
  return write_file(temp_dir(), "procs.yaml",
                    extra +
                        "gpus:\n  - uuid: GPU-0\n    processes: [{pid: 4242, used_mib: 1536}, {pid: 4243}]\n"
                        "  - {uuid: GPU-1, processes: []}\n");
}

void expect_two_processes(Nvml& nvml) {
  GpuDynamic d = nvml.read_dynamic(0);
  ASSERT_TRUE(d.processes);
  ASSERT_EQ(d.processes->size(), 2u);
  EXPECT_EQ((*d.processes)[0].pid, 4242u);
  EXPECT_EQ((*d.processes)[0].used_mib, 1536.0);
  EXPECT_EQ((*d.processes)[1].pid, 4243u);
  EXPECT_EQ((*d.processes)[1].used_mib, std::nullopt);  // NVML_VALUE_NOT_AVAILABLE
  GpuDynamic idle = nvml.read_dynamic(1);
  ASSERT_TRUE(idle.processes);
  EXPECT_TRUE(idle.processes->empty());
}

TEST(NvmlTest, ProcessesPreferV2OverV3WhoseEntrySizeVariesByDriver) {
  // A 535.43-style driver whose _v3 writes 32-byte entries: read with _v3's usual 24-byte
  // stride, the second entry would be garbage; _v2 is asked first and gets them right.
  FakeEnv env(process_scenario("processes_v3_entry_bytes: 32\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  expect_two_processes(*nvml);
}

TEST(NvmlTest, ProcessesFallBackToV3WithTheV2Layout) {
  FakeEnv env(process_scenario("function_not_found: [nvmlDeviceGetComputeRunningProcesses_v2]\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  expect_two_processes(*nvml);
}

TEST(NvmlTest, ProcessesFallBackToTheLegacySixteenByteLayout) {
  FakeEnv env(process_scenario(
      "function_not_found: [nvmlDeviceGetComputeRunningProcesses_v2, nvmlDeviceGetComputeRunningProcesses_v3]\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  expect_two_processes(*nvml);
}

TEST(NvmlTest, ProcessCountAboveTheBufferIsClampedToItAndZeroedSlotsAreNoProcesses) {
  // _v2 asked with 0: INSUFFICIENT_SIZE, 2. Asked again with room for 2 + 8 = 10 entries, it
  // writes 2 and claims 2 + 100 = 102. Only the 10 entries the buffer holds are read: the two
  // written and eight still zero (pid 0, 0 bytes), which are unused slots, not processes.
  FakeEnv env(process_scenario("processes_count_extra: 100\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  expect_two_processes(*nvml);
}

TEST(NvmlTest, ZeroedSlotBetweenProcessesIsDropped) {
  // A driver that leaves a zeroed entry between two filled ones: 4242 and 4243 are the processes.
  FakeEnv env(write_file(temp_dir(), "procs.yaml",
                         "gpus:\n  - uuid: GPU-0\n"
                         "    processes: [{pid: 4242, used_mib: 1536}, {pid: 0, used_mib: 0}, {pid: 4243}]\n"
                         "  - {uuid: GPU-1, processes: []}\n"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  expect_two_processes(*nvml);
}

TEST(NvmlTest, GpuWithoutHandleIsCountedWithEmptyFacts) {
  std::string file = write_file(temp_dir(), "lost.yaml",
                                "topology: {default: 10}\n"
                                "gpus:\n  - {name: X, uuid: GPU-0, pci_bus_id: '00000000:07:00.0'}\n"
                                "  - {name: X, uuid: GPU-1, pci_bus_id: '00000000:0F:00.0', handle_error: 4}\n");
  FakeEnv env(file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[1].info.index, 1u);
  EXPECT_EQ(f.gpus[1].info.uuid, "");
  EXPECT_TRUE(f.topology.empty());
  EXPECT_EQ(f.unsupported.front(), "nvmlDeviceGetHandleByIndex_v2 (GPU 1): Insufficient Permissions");
}

// --- JSON -----------------------------------------------------------------------------------

NvmlFacts rising_ecc_facts() {
  std::string clock = temp_dir() + "/clock";
  set_clock(clock, 7200);
  FakeEnv env(fixture("rising-ecc.yaml"), clock);
  auto nvml = open_fake();
  return nvml ? nvml->read_facts() : NvmlFacts{};
}

TEST(NvmlTest, JsonRoundTripKeepsEveryFact) {
  NvmlFacts facts = rising_ecc_facts();
  facts.unsupported = {"nvmlDeviceGetSerial (GPU 9): Not Supported"};
  facts.gpus[1].info.serial.reset();  // a null among values
  facts.gpus[2].now.processes.reset();
  json j = facts_to_json(facts);
  EXPECT_EQ(j["gpus"][5]["info"]["uuid"], kUuids[5]);
  EXPECT_EQ(j["gpus"][5]["now"]["ecc_volatile_corrected"], 24);
  EXPECT_EQ(j["gpus"][1]["info"]["serial"], nullptr);
  EXPECT_EQ(j["gpus"][2]["now"]["processes"], nullptr);
  EXPECT_EQ(j["topology"][0], json::parse(R"({"gpus": [0, 1], "level": 10})"));

  auto back = facts_from_json(json::parse(j.dump()), "nvml.json");
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(facts_to_json(*back), j);
  EXPECT_EQ(back->gpus[5].now.ecc_aggregate_uncorrected, 2u);
  EXPECT_EQ(back->gpus[1].info.serial, std::nullopt);
  EXPECT_EQ(back->gpus[0].now.nvlink_active, std::vector<bool>(12, true));
  EXPECT_EQ(back->topology, facts.topology);
  EXPECT_EQ(back->unsupported, facts.unsupported);
}

TEST(NvmlTest, JsonReadsAbsentOptionalFieldsAsEmpty) {
  auto f = facts_from_json(json::parse(R"({"driver_version": "535.129.03", "gpus": [
      {"info": {"index": 0, "name": "X", "uuid": "GPU-0", "pci_bus_id": "00000000:07:00.0"}}]})"),
                           "nvml.json");
  ASSERT_TRUE(f) << f.error().str();
  EXPECT_EQ(f->gpus[0].info.vbios, std::nullopt);
  EXPECT_EQ(f->gpus[0].now.temperature_c, std::nullopt);
  EXPECT_EQ(f->cuda_driver_version, std::nullopt);
  EXPECT_TRUE(f->unsupported.empty());
}

TEST(NvmlTest, JsonErrorsNameTheFileAndFieldPath) {
  json good = facts_to_json(rising_ecc_facts());
  struct Case {
    std::function<void(json&)> spoil;
    std::string field, key;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j = json::array(); }, "", "error.json.not_object"},
      {[](json& j) { j.erase("driver_version"); }, "driver_version", "error.json.missing"},
      {[](json& j) { j["driver_version"] = 535; }, "driver_version", "error.json.not_string"},
      {[](json& j) { j["gpus"] = json::object(); }, "gpus", "error.json.not_array"},
      {[](json& j) { j["gpus"][0].erase("info"); }, "gpus[0].info", "error.json.missing"},
      {[](json& j) { j["gpus"][2]["info"]["uuid"] = 5; }, "gpus[2].info.uuid", "error.json.not_string"},
      {[](json& j) { j["gpus"][0]["info"]["max_link_gen"] = -1; }, "gpus[0].info.max_link_gen",
       "error.json.not_unsigned"},
      {[](json& j) { j["gpus"][0]["info"]["max_link_width"] = 5000000000ull; }, "gpus[0].info.max_link_width",
       "error.json.not_uint32"},
      {[](json& j) { j["gpus"][3]["info"]["slowdown_temp_c"] = 91.5; }, "gpus[3].info.slowdown_temp_c",
       "error.json.not_integer"},
      {[](json& j) { j["gpus"][3]["info"]["slowdown_temp_c"] = 3000000000ull; }, "gpus[3].info.slowdown_temp_c",
       "error.json.int_out_of_range"},
      {[](json& j) { j["gpus"][0]["now"]["memory_used_mib"] = "20000"; }, "gpus[0].now.memory_used_mib",
       "error.json.not_number"},
      {[](json& j) { j["gpus"][1]["now"]["ecc_enabled"] = "yes"; }, "gpus[1].now.ecc_enabled", "error.json.not_bool"},
      {[](json& j) { j["gpus"][0]["now"]["nvlink_active"][3] = 1; }, "gpus[0].now.nvlink_active[3]",
       "error.json.not_bool"},
      {[](json& j) { j["gpus"][0]["now"]["processes"][0]["pid"] = "x"; }, "gpus[0].now.processes[0].pid",
       "error.json.not_unsigned"},
      {[](json& j) { j["gpus"][4]["now"] = 7; }, "gpus[4].now", "error.json.not_object"},
      {[](json& j) { j["topology"][0]["gpus"] = {0}; }, "topology[0].gpus", "error.nvml.not_gpu_pair"},
      {[](json& j) { j["topology"][1]["level"] = 1.5; }, "topology[1].level", "error.json.not_integer"},
      {[](json& j) { j["unsupported"] = {3}; }, "unsupported[0]", "error.json.not_string"},
  };
  for (const auto& c : cases) {
    json j = good;
    c.spoil(j);
    auto f = facts_from_json(j, "nvml.json");
    ASSERT_FALSE(f) << c.field << ": " << c.key;
    EXPECT_EQ(f.error().file, "nvml.json") << f.error().str();
    EXPECT_EQ(f.error().field, c.field) << f.error().str();
    EXPECT_EQ(f.error().message.key, c.key) << f.error().str();
  }
}

// --- sampling and fake time -----------------------------------------------------------------

// An injected clock whose sleep also moves the fake NVML's clock file, so 1.5 hours pass at once.
struct FakeTime {
  std::string clock_file;
  int64_t start_ms = 1'700'000'000'000;
  int64_t now_ms = start_ms;
  std::vector<int64_t> slept_ms;

  Clock clock() {
    return [this] { return std::chrono::system_clock::time_point(std::chrono::milliseconds(now_ms)); };
  }
  Sleep sleeper() {
    return [this](std::chrono::milliseconds ms) {
      slept_ms.push_back(ms.count());
      now_ms += ms.count();
      set_clock(clock_file, static_cast<double>(now_ms - start_ms) / 1000.0);
    };
  }
};

TEST(NvmlTest, MemoryGrowthScenarioGrowsExactly300MibIn90Minutes) {
  FakeTime t;
  t.clock_file = temp_dir() + "/clock";
  set_clock(t.clock_file, 0);
  FakeEnv env(fixture("memory-growth.yaml"), t.clock_file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  std::vector<std::pair<int, int>> rounds_seen;
  auto samples = sample_gpus(*nvml, std::chrono::minutes(90), std::chrono::minutes(30), t.clock(), t.sleeper(),
                             [&](int round, int rounds) { rounds_seen.emplace_back(round, rounds); });
  ASSERT_EQ(samples.size(), 4u * 8u);  // rounds at 0, 30, 60, 90 minutes
  EXPECT_EQ(rounds_seen, (std::vector<std::pair<int, int>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}}));
  EXPECT_EQ(t.slept_ms, (std::vector<int64_t>{1'800'000, 1'800'000, 1'800'000}));
  for (size_t k = 0; k < samples.size(); ++k) {
    const telemetry::Sample& s = samples[k];
    size_t round = k / 8;
    SCOPED_TRACE("sample " + std::to_string(k));
    EXPECT_EQ(s.gpu, k % 8);
    EXPECT_EQ(s.time_ms, t.start_ms + static_cast<int64_t>(round) * 1'800'000);
    EXPECT_EQ(s.memory_used_mib, 20000.0f + 100.0f * static_cast<float>(round));
    EXPECT_EQ(s.memory_total_mib, 81920.0f);
    EXPECT_EQ(s.utilization_pct, 98.0f);
    EXPECT_EQ(s.temperature_c, static_cast<float>(kTemps[k % 8]));
    EXPECT_EQ(s.power_w, 312.5f);
    EXPECT_EQ(s.sm_clock_mhz, 1410.0f);
    EXPECT_EQ(s.ecc_corrected, 0u);
    EXPECT_EQ(s.ecc_uncorrected, 0u);
    EXPECT_EQ(s.clock_event_reasons, 0u);
  }
  EXPECT_EQ(samples.back().memory_used_mib, 20300.0f);
  // The processes grow with it: 19968 + 300.
  EXPECT_EQ((*nvml->read_dynamic(0).processes)[0].used_mib, 20268.0);
}

TEST(NvmlTest, SampleGpusWithoutDurationTakesOneRound) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  FakeTime t;
  t.clock_file = temp_dir() + "/unused";
  auto samples = sample_gpus(*nvml, std::chrono::milliseconds(0), std::chrono::seconds(1), t.clock(), t.sleeper());
  EXPECT_EQ(samples.size(), 8u);
  EXPECT_TRUE(t.slept_ms.empty());
}

// Stops sample_gpus from on_sample once the round count is known, so a bound of ten million
// rounds can be checked without taking them.
struct StopSampling {};

int rounds_announced(Nvml& nvml, std::chrono::milliseconds duration, std::chrono::milliseconds interval) {
  FakeTime t;
  t.clock_file = temp_dir() + "/unused";
  int announced = -1;
  try {
    sample_gpus(nvml, duration, interval, t.clock(), t.sleeper(), [&](int, int rounds) {
      announced = rounds;
      throw StopSampling{};
    });
  } catch (const StopSampling&) {
  }
  return announced;
}

TEST(NvmlTest, SampleGpusBoundsHugeRoundCounts) {
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  // 3,000,000,000 ms at 1 ms is 3,000,000,001 rounds: past an int (it wrapped negative and
  // made reserve throw) and past the bound, so 10,000,000.
  EXPECT_EQ(rounds_announced(*nvml, std::chrono::milliseconds(3'000'000'000), std::chrono::milliseconds(1)),
            kMaxSampleRounds);
  // The largest duration at 1 ms (2^63 - 1 rounds, which wrapped to 0): the bound again.
  EXPECT_EQ(rounds_announced(*nvml, std::chrono::milliseconds::max(), std::chrono::milliseconds(1)), kMaxSampleRounds);
  // 72 hours at 1 s: 259,200 + 1, under the bound, as asked.
  EXPECT_EQ(rounds_announced(*nvml, std::chrono::hours(72), std::chrono::seconds(1)), 259'201);
}

TEST(NvmlTest, SampleGpusWaitsWithoutOverflowForAHugeInterval) {
  // An interval of 10^16 ms (about 317,000 years; 10^22 ns is past what a nanosecond
  // time_point holds) over three of them: the first wait, with no time passed, is exactly one
  // interval. The sleeper stops the run there, before the test's own clock would overflow.
  FakeEnv env(fixture("healthy-8xa100.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  FakeTime t;
  const std::chrono::milliseconds interval(10'000'000'000'000'000);
  std::vector<int64_t> waits;
  try {
    sample_gpus(*nvml, 3 * interval, interval, t.clock(), [&](std::chrono::milliseconds ms) {
      waits.push_back(ms.count());
      throw StopSampling{};
    });
  } catch (const StopSampling&) {
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{10'000'000'000'000'000}));
}

TEST(NvmlTest, ClockFileKeyOfTheScenarioMovesFakeTime) {
  std::string dir = temp_dir();
  std::string clock = dir + "/clock";
  set_clock(clock, 9000);  // 2.5 h
  std::string file = write_file(dir, "clocked.yaml",
                                "clock_file: " + clock +
                                    "\ngpus:\n  - {uuid: GPU-0, ecc_enabled: true,"
                                    " ecc_volatile_corrected: {start: 3, per_hour: 12}}\n");
  FakeEnv env(file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  EXPECT_EQ(nvml->read_sample(0).ecc_volatile_corrected, 33u);  // 3 + 12 × 2.5
  // The uncorrected counter is refused; that does not stop the corrected one being asked.
  const auto& lines = nvml->unsupported();
  EXPECT_NE(
      std::find(lines.begin(), lines.end(), "nvmlDeviceGetTotalEccErrors (GPU 0, volatile uncorrected): Not Supported"),
      lines.end());
  set_clock(clock, 5399);                                       // 1.4997 h: rounded down
  EXPECT_EQ(nvml->read_sample(0).ecc_volatile_corrected, 20u);  // 3 + 17.99
}

// --- the problem scenarios, as a checker reads them ------------------------------------------

TEST(NvmlTest, ThermalScenarioReportsHwSlowdownOnGpu3) {
  FakeEnv env(fixture("thermal-throttle.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  const GpuFacts& hot = f.gpus[3];
  EXPECT_EQ(hot.info.pci_bus_id, "00000000:44:00.0");
  EXPECT_EQ(hot.now.temperature_c, 92.0);
  EXPECT_GE(*hot.now.temperature_c, *hot.info.slowdown_temp_c);
  EXPECT_EQ(hot.now.clock_event_reasons, 0x48u);
  EXPECT_TRUE(*hot.now.clock_event_reasons & 0x40);  // HW thermal slowdown
  EXPECT_EQ(hot.now.sm_clock_mhz, 1100.0);
  EXPECT_EQ(hot.info.max_sm_clock_mhz, 1410.0);
  EXPECT_EQ(hot.now.power_w, 265.0);
  for (unsigned i : {0u, 1u, 2u, 4u, 5u, 6u, 7u}) {
    EXPECT_EQ(f.gpus[i].now.clock_event_reasons, 0u) << i;
    EXPECT_EQ(f.gpus[i].now.sm_clock_mhz, 1410.0) << i;
    EXPECT_LT(*f.gpus[i].now.temperature_c, 92.0) << i;
  }
}

TEST(NvmlTest, SampledEccCountsStayWholeSixtyFourBitIntegers) {
  // 2^24 + 1 = 16,777,217 is the first count a float cannot hold (it reads 16,777,216), and
  // 2^64 - 1 the largest NVML's unsigned long long can report: both arrive exactly.
  FakeTime t;
  t.clock_file = temp_dir() + "/clock";
  set_clock(t.clock_file, 0);
  FakeEnv env(write_file(temp_dir(), "ecc.yaml",
                         "gpus:\n  - {uuid: GPU-0, ecc_enabled: true, ecc_volatile_corrected: 16777217,\n"
                         "     ecc_volatile_uncorrected: 18446744073709551615}\n"),
              t.clock_file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  auto samples = sample_gpus(*nvml, std::chrono::minutes(0), std::chrono::minutes(1), t.clock(), t.sleeper());
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].ecc_corrected, uint64_t{16'777'217});
  EXPECT_EQ(samples[0].ecc_uncorrected, uint64_t{18'446'744'073'709'551'615u});
}

TEST(NvmlTest, RisingEccScenarioCountsUpOnGpu5) {
  FakeTime t;
  t.clock_file = temp_dir() + "/clock";
  set_clock(t.clock_file, 0);
  FakeEnv env(fixture("rising-ecc.yaml"), t.clock_file);
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  auto samples = sample_gpus(*nvml, std::chrono::hours(2), std::chrono::hours(1), t.clock(), t.sleeper());
  ASSERT_EQ(samples.size(), 24u);
  EXPECT_EQ(samples[5].ecc_corrected, 0u);
  EXPECT_EQ(samples[8 + 5].ecc_corrected, 12u);
  EXPECT_EQ(samples[16 + 5].ecc_corrected, 24u);
  EXPECT_EQ(samples[16 + 4].ecc_corrected, 0u);
  EXPECT_EQ(samples[16 + 5].ecc_uncorrected, 0u);

  GpuDynamic d = nvml->read_dynamic(5);  // at 2 h
  EXPECT_EQ(d.ecc_volatile_corrected, 24u);
  EXPECT_EQ(d.ecc_volatile_uncorrected, 0u);
  EXPECT_EQ(d.ecc_aggregate_corrected, 64u);  // 40 + 24
  EXPECT_EQ(d.ecc_aggregate_uncorrected, 2u);
  EXPECT_EQ(d.retired_pages_sbe, 0u);
  EXPECT_EQ(d.retired_pages_dbe, 1u);
  EXPECT_EQ(d.retired_pages_pending, true);
  EXPECT_EQ(d.remapped_rows_correctable, 0u);
  EXPECT_EQ(d.remapped_rows_uncorrectable, 1u);
  EXPECT_EQ(d.remapping_pending, true);
  EXPECT_EQ(d.remapping_failed, false);
  GpuDynamic healthy = nvml->read_dynamic(4);
  EXPECT_EQ(healthy.ecc_aggregate_uncorrected, 0u);
  EXPECT_EQ(healthy.retired_pages_dbe, 0u);
  EXPECT_EQ(healthy.remapping_pending, false);
}

TEST(NvmlTest, EngineeringSampleScenarioMarksGpu6) {
  FakeEnv env(fixture("engineering-sample.yaml"));
  auto nvml = open_fake();
  ASSERT_TRUE(nvml);
  NvmlFacts f = nvml->read_facts();
  const GpuStatic& es = f.gpus[6].info;
  EXPECT_EQ(es.pci_bus_id, "00000000:C3:00.0");
  EXPECT_EQ(es.serial, "");  // present but empty, unlike NOT_SUPPORTED
  EXPECT_EQ(es.board_part_number, "699-2G506-0200-ES0");
  EXPECT_EQ(es.vbios, "92.00.00.00.01");
  EXPECT_EQ(es.name, "NVIDIA A100-SXM4-80GB");
  for (unsigned i : {0u, 1u, 2u, 3u, 4u, 5u, 7u}) {
    EXPECT_EQ(f.gpus[i].info.serial, kSerials[i]) << i;
    EXPECT_EQ(f.gpus[i].info.board_part_number, "692-2G506-0210-002") << i;
    EXPECT_EQ(f.gpus[i].info.vbios, "92.00.45.00.05") << i;
  }
  EXPECT_TRUE(f.unsupported.empty());
}

}  // namespace
}  // namespace gpuplan::nvml
