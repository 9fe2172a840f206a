// The tool-output parsers on captured-style outputs (smartctl --json for a new and a worn NVMe,
// ibstat with one port up and one down, nvidia-smi topo -m of an HGX board and of a PCIe
// server, nvidia-smi nvlink --status with all and with some links up) and on each malformed
// input, whose error must name the line (JSON: the field) and what was expected.
#include "probe/tools.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/messages.h"
#include "test_support.h"

namespace gpuplan::probe {
namespace {

using gpuplan::testing::fact_in;
using gpuplan::testing::source_path;

std::string read_fixture(const std::string& name) {
  return gpuplan::testing::read_file(source_path("tests/fixtures/tools/" + name));
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

using CaseFacts = std::vector<std::pair<std::string, std::string>>;

// A malformed input, the line its error names, the message key and the facts it carries.
struct Case {
  const char* text;
  int line;
  const char* key;
  CaseFacts facts = {};
};

template <class Parse>
void expect_errors(Parse parse, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    auto r = parse(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().line, c.line) << c.text;
    EXPECT_EQ(r.error().message.key, c.key) << c.text << " → " << r.error().str();
    // Worded in both languages, every placeholder filled.
    EXPECT_TRUE(report::has_message(c.key)) << c.key;
    for (report::Lang lang : {report::Lang::kEn, report::Lang::kZh})
      EXPECT_EQ(report::say(r.error().message, lang).find('{'), std::string::npos)
          << report::say(r.error().message, lang);
    for (const auto& [name, value] : c.facts) {
      const std::string* got = fact_in(r.error().message, name);
      ASSERT_TRUE(got) << c.text << " → " << r.error().str() << " has no " << name;
      EXPECT_EQ(*got, value) << c.text << " → " << r.error().str();
    }
  }
}

// --- smartctl --json -----------------------------------------------------------------------------

TEST(ToolsTest, SmartctlNewNvmeReadsIdentityAndHealth) {
  auto s = parse_smartctl_json(read_fixture("smartctl-nvme0.json"));
  ASSERT_TRUE(s.ok()) << s.error().str();
  EXPECT_EQ(s->device, "/dev/nvme0");
  EXPECT_EQ(s->model, "SAMSUNG MZQL23T8HCLS-00A07");
  EXPECT_EQ(s->serial, "S64HNE0T512345");
  EXPECT_EQ(s->firmware, "GDC5602Q");
  EXPECT_EQ(s->percentage_used, 1);
  EXPECT_EQ(s->media_errors, 0u);
  EXPECT_EQ(s->critical_warning, 0u);
  EXPECT_EQ(s->smart_passed, true);
}

TEST(ToolsTest, SmartctlWornNvmeShows87PercentUsedAnd2MediaErrors) {
  auto s = parse_smartctl_json(read_fixture("smartctl-worn.json"));
  ASSERT_TRUE(s.ok()) << s.error().str();
  EXPECT_EQ(s->device, "/dev/nvme1");
  EXPECT_EQ(s->model, "INTEL SSDPE2KX040T8");
  EXPECT_EQ(s->percentage_used, 87);
  EXPECT_EQ(s->media_errors, 2u);
  EXPECT_EQ(s->smart_passed, true);  // wear alone does not fail SMART: the check must read percentage_used
}

TEST(ToolsTest, SmartctlMissingCountersStayEmpty) {
  auto s = parse_smartctl_json(R"({"model_name": "X", "nvme_smart_health_information_log": {}})");
  ASSERT_TRUE(s.ok()) << s.error().str();
  EXPECT_FALSE(s->percentage_used);
  EXPECT_FALSE(s->media_errors);
  EXPECT_FALSE(s->critical_warning);
  EXPECT_FALSE(s->smart_passed);
  EXPECT_EQ(s->device, "");
}

TEST(ToolsTest, SmartctlBrokenJsonNamesTheLine) {
  auto s = parse_smartctl_json("{\n  \"model_name\": \"X\",\n  \"serial_number\": \n}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.key, "error.smart.not_json") << s.error().message;
  ASSERT_TRUE(fact_in(s.error().message, "why")) << s.error().message;
  EXPECT_TRUE(has(*fact_in(s.error().message, "why"), "line 4")) << s.error().message;
}

TEST(ToolsTest, SmartctlTopLevelArrayIsRejected) {
  auto s = parse_smartctl_json("[1, 2]");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.key, "error.smart.not_object");
}

TEST(ToolsTest, SmartctlOpenFailureQuotesSmartctl) {
  auto s = parse_smartctl_json(R"({"smartctl": {"exit_status": 2, "messages": [
      {"string": "Smartctl open device: /dev/nvme9 failed: No such device", "severity": "error"}]},
      "device": {"name": "/dev/nvme9"}})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().field, "nvme_smart_health_information_log");
  EXPECT_EQ(s.error().message.key, "error.smart.no_health_log_said") << s.error().message;
  EXPECT_EQ(*fact_in(s.error().message, "said"), "Smartctl open device: /dev/nvme9 failed: No such device");
}

TEST(ToolsTest, SmartctlWrongTypesNameTheField) {
  auto used = parse_smartctl_json(R"({"nvme_smart_health_information_log": {"percentage_used": "87%"}})");
  ASSERT_FALSE(used.ok());
  EXPECT_EQ(used.error().field, "nvme_smart_health_information_log.percentage_used");
  EXPECT_EQ(used.error().message.key, "error.json.not_unsigned_got");
  EXPECT_EQ(*fact_in(used.error().message, "got"), "\"87%\"");

  auto negative = parse_smartctl_json(R"({"nvme_smart_health_information_log": {"media_errors": -2}})");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().field, "nvme_smart_health_information_log.media_errors");
  EXPECT_EQ(*fact_in(negative.error().message, "got"), "-2");

  auto over = parse_smartctl_json(R"({"nvme_smart_health_information_log": {"percentage_used": 300}})");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message.key, "error.smart.percentage_range");
  EXPECT_EQ(*fact_in(over.error().message, "got"), "300");

  auto passed = parse_smartctl_json(R"({"nvme_smart_health_information_log": {}, "smart_status": {"passed": 1}})");
  ASSERT_FALSE(passed.ok());
  EXPECT_EQ(passed.error().field, "smart_status.passed");
  EXPECT_EQ(passed.error().message.key, "error.json.not_bool");

  auto model = parse_smartctl_json(R"({"model_name": 7, "nvme_smart_health_information_log": {}})");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().field, "model_name");
  EXPECT_EQ(model.error().message.key, "error.json.not_string");

  auto log = parse_smartctl_json(R"({"nvme_smart_health_information_log": [1]})");
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error().field, "nvme_smart_health_information_log");
  EXPECT_EQ(log.error().message.key, "error.json.not_object");
}

// --- ibstat --------------------------------------------------------------------------------------

TEST(ToolsTest, IbstatHdrShowsOneActivePortAndOneDown) {
  auto ports = parse_ibstat(read_fixture("ibstat-hdr.txt"));
  ASSERT_TRUE(ports.ok()) << ports.error().str();
  ASSERT_EQ(ports->size(), 2u);
  const IbstatPort& up = (*ports)[0];
  EXPECT_EQ(up.ca, "mlx5_0");
  EXPECT_EQ(up.port, 1);
  EXPECT_EQ(up.state, "Active");
  EXPECT_EQ(up.physical_state, "LinkUp");
  EXPECT_EQ(up.rate_gbps, 200);
  EXPECT_EQ(up.sm_lid, 1);
  EXPECT_EQ(up.link_layer, "InfiniBand");
  const IbstatPort& down = (*ports)[1];
  EXPECT_EQ(down.ca, "mlx5_1");
  EXPECT_EQ(down.state, "Down");
  EXPECT_EQ(down.physical_state, "Disabled");
  EXPECT_EQ(down.rate_gbps, 10);
  EXPECT_EQ(down.sm_lid, 0);  // no subnet manager answered
}

TEST(ToolsTest, IbstatTwoPortCaGivesTwoPorts) {
  auto ports = parse_ibstat("CA 'mlx5_2'\n\tPort 1:\n\t\tState: Active\n\t\tRate: 2.5\n\tPort 2:\n\t\tState: Down\n");
  ASSERT_TRUE(ports.ok()) << ports.error().str();
  ASSERT_EQ(ports->size(), 2u);
  EXPECT_EQ((*ports)[0].rate_gbps, 3);  // SDR 1x, rounded to whole Gb/s
  EXPECT_EQ((*ports)[1].port, 2);
  EXPECT_EQ((*ports)[1].state, "Down");
  EXPECT_FALSE((*ports)[1].rate_gbps);
  EXPECT_FALSE((*ports)[1].sm_lid);
}

TEST(ToolsTest, IbstatErrorsNameTheLine) {
  expect_errors(
      parse_ibstat,
      {
          {"\tPort 1:\n", 1, "error.ibstat.ca_first", {{"got", "Port 1:"}}},
          {"\tState: Active\n", 1, "error.ibstat.ca_first", {{"got", "State: Active"}}},
          {"CA 'mlx5_0\n", 1, "error.ibstat.bad_ca", {{"got", "CA 'mlx5_0"}}},
          {"CA 'mlx5_0'\n\tgarbage here\n", 2, "error.ibstat.bad_line", {{"got", "garbage here"}}},
          {"CA 'mlx5_0'\n\tPort x:\n", 2, "error.ibstat.bad_port", {{"got", "Port x:"}}},
          {"CA 'mlx5_0'\n\tPort 0:\n", 2, "error.ibstat.bad_port", {{"got", "Port 0:"}}},
          {"CA 'mlx5_0'\n\tPort 1:\n\t\tRate: fast\n", 3, "error.ibstat.bad_rate", {{"got", "Rate: fast"}}},
          {"CA 'mlx5_0'\n\tPort 1:\n\t\tSM lid: none\n", 3, "error.ibstat.bad_sm_lid", {{"got", "SM lid: none"}}},
          {"", 0, "error.ibstat.empty"},
          {"CA 'mlx5_0'\n\tCA type: MT4123\n", 0, "error.ibstat.empty"},
      });
}

TEST(ToolsTest, ALongOffendingLineIsCutShort) {
  const std::string line = "CA 'mlx5_0'\n\t" + std::string(100, 'z') + "\n";
  auto r = parse_ibstat(line);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "error.ibstat.bad_line");
  EXPECT_EQ(*fact_in(r.error().message, "got"), std::string(60, 'z') + "…");
}

// --- nvidia-smi topo -m --------------------------------------------------------------------------

TEST(ToolsTest, TopoHgxHasNv12BetweenEveryPairOfGpus) {
  auto t = parse_topo_matrix(read_fixture("topo-hgx-8gpu.txt"));
  ASSERT_TRUE(t.ok()) << t.error().str();
  ASSERT_EQ(t->gpus.size(), 8u);
  EXPECT_EQ(t->gpus.front(), "GPU0");  // the terminal underline codes around the header are gone
  EXPECT_EQ(t->nics, (std::vector<std::string>{"NIC0", "NIC1", "NIC2", "NIC3"}));
  EXPECT_EQ(t->link.size(), 56u);  // 8 × 7 ordered pairs, no self entries
  for (const auto& [pair, connection] : t->link) {
    EXPECT_EQ(connection, "NV12") << pair.first << "-" << pair.second;
    EXPECT_TRUE(GpuTopology::is_nvlink(connection));
  }
  EXPECT_EQ(t->link.count({"GPU0", "GPU0"}), 0u);
  EXPECT_EQ(t->cpu_affinity.at("GPU0"), "48-63,176-191");
  EXPECT_EQ(t->numa_affinity.at("GPU0"), "3");
  EXPECT_EQ(t->cpu_affinity.at("GPU7"), "80-95,208-223");
  EXPECT_EQ(t->numa_affinity.at("GPU7"), "5");
  EXPECT_EQ(t->gpu_numa_id.at("GPU4"), "N/A");
  EXPECT_EQ(t->nic_link.size(), 32u);
  EXPECT_EQ(t->nic_link.at({"GPU0", "NIC0"}), "PXB");
  EXPECT_EQ(t->nic_link.at({"GPU3", "NIC0"}), "NODE");
  EXPECT_EQ(t->nic_link.at({"GPU0", "NIC2"}), "SYS");
  EXPECT_EQ(t->nic_names.at("NIC3"), "mlx5_3");
}

TEST(ToolsTest, TopoPcieServerShowsEachPcieHop) {
  auto t = parse_topo_matrix(read_fixture("topo-pcie-4gpu.txt"));
  ASSERT_TRUE(t.ok()) << t.error().str();
  ASSERT_EQ(t->gpus.size(), 4u);
  EXPECT_EQ(t->link.size(), 12u);
  EXPECT_EQ(t->link.at({"GPU0", "GPU1"}), "PIX");
  EXPECT_EQ(t->link.at({"GPU1", "GPU0"}), "PIX");
  EXPECT_EQ(t->link.at({"GPU0", "GPU2"}), "NODE");
  EXPECT_EQ(t->link.at({"GPU2", "GPU3"}), "SYS");
  EXPECT_EQ(t->nic_link.at({"GPU1", "NIC0"}), "PXB");
  for (const auto& [pair, connection] : t->link) EXPECT_FALSE(GpuTopology::is_nvlink(connection));
  EXPECT_EQ(t->cpu_affinity.at("GPU3"), "32-63,96-127");
  EXPECT_EQ(t->numa_affinity.at("GPU3"), "1");
  EXPECT_EQ(t->numa_affinity.at("GPU0"), "0");
  EXPECT_EQ(t->nic_names.at("NIC0"), "mlx5_0");
}

TEST(ToolsTest, TopoWithoutNicsOrNumaIdColumnParses) {
  auto t = parse_topo_matrix("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV4\t0-23\t0\nGPU1\tNV4\t X \t0-23\t0\n");
  ASSERT_TRUE(t.ok()) << t.error().str();
  EXPECT_EQ(t->link.at({"GPU1", "GPU0"}), "NV4");
  EXPECT_TRUE(t->nics.empty());
  EXPECT_TRUE(t->gpu_numa_id.empty());
  EXPECT_EQ(t->cpu_affinity.at("GPU1"), "0-23");
}

TEST(ToolsTest, NvlinkConnectionsAreNvAndANumber) {
  EXPECT_TRUE(GpuTopology::is_nvlink("NV12"));
  EXPECT_TRUE(GpuTopology::is_nvlink("NV1"));
  EXPECT_FALSE(GpuTopology::is_nvlink("NV"));
  EXPECT_FALSE(GpuTopology::is_nvlink("NODE"));
  EXPECT_FALSE(GpuTopology::is_nvlink("NV4x"));
  EXPECT_FALSE(GpuTopology::is_nvlink("SYS"));
  EXPECT_FALSE(GpuTopology::is_nvlink("X"));
}

TEST(ToolsTest, TopoErrorsNameTheLine) {
  expect_errors(
      parse_topo_matrix,
      {
          {"", 0, "error.topo.empty"},
          {"\n\tCPU Affinity\tNUMA Affinity\n",
           2,
           "error.topo.no_gpu_header",
           {{"got", "\tCPU Affinity\tNUMA Affinity"}}},
          {"\tGPU0\tCPU Affinity\tNIC0\n", 1, "error.topo.column_after", {{"after", "CPU Affinity"}, {"got", "NIC0"}}},
          {"\tGPU0\tGPU1\nGPU0\t X \tFOO\nGPU1\tFOO\t X \n",
           2,
           "error.topo.bad_connection",
           {{"row", "GPU0"}, {"column", "GPU1"}, {"got", "FOO"}}},
          {"\tGPU0\tGPU1\nGPU0\t X \nGPU1\tNV4\t X \n",
           2,
           "error.topo.connection_count",
           {{"row", "GPU0"}, {"expected", "2"}, {"got", "1"}}},
          {"\tGPU0\tGPU1\nGPU0\t X \tX\nGPU1\tNV4\t X \n",
           2,
           "error.topo.misplaced_x",
           {{"row", "GPU0"}, {"column", "GPU1"}}},
          {"\tGPU0\tGPU1\nGPU0\t X \tNV4\n\nLegend:\n", 3, "error.topo.missing_row", {{"row", "GPU1"}}},
          {"\tGPU0\nGPU0\t X \nGPU5\t X \n", 3, "error.topo.row_not_in_header", {{"row", "GPU5"}}},
          {"\tGPU0\nGPU0\t X \nmlx5_9\t X \n", 3, "error.topo.unknown_row", {{"got", "mlx5_9\t X "}}},
          {"\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\t0\t1\n",
           2,
           "error.topo.too_many_values",
           {{"row", "GPU0"}, {"expected", "1"}, {"got", "3"}}},
      });
}

// --- nvidia-smi nvlink --status ------------------------------------------------------------------

TEST(ToolsTest, NvlinkStatusA100HasTwelveLinksAt25GBsPerGpu) {
  auto s = parse_nvlink_status(read_fixture("nvlink-status-a100.txt"));
  ASSERT_TRUE(s.ok()) << s.error().str();
  ASSERT_EQ(s->gpus.size(), 8u);
  for (size_t g = 0; g < 8; ++g) {
    EXPECT_EQ(s->gpus[g].index, static_cast<int>(g));
    EXPECT_EQ(s->gpus[g].name, "NVIDIA A100-SXM4-80GB");
    ASSERT_EQ(s->gpus[g].links_gbs.size(), 12u);
    for (const auto& l : s->gpus[g].links_gbs) EXPECT_EQ(l, 25.0);
  }
  EXPECT_EQ(s->gpus[3].uuid, "GPU-e6071a8c-5d3b-49f2-b8e0-2c9a4d16f7b3");
}

TEST(ToolsTest, NvlinkStatusInactiveLinksAreEmpty) {
  auto s = parse_nvlink_status(read_fixture("nvlink-status-inactive.txt"));
  ASSERT_TRUE(s.ok()) << s.error().str();
  ASSERT_EQ(s->gpus.size(), 2u);
  const auto& links = s->gpus[0].links_gbs;
  ASSERT_EQ(links.size(), 12u);
  EXPECT_FALSE(links[3]);
  EXPECT_FALSE(links[7]);
  int active = 0;
  for (const auto& l : links) active += l.has_value();
  EXPECT_EQ(active, 10);
  for (const auto& l : s->gpus[1].links_gbs) EXPECT_EQ(l, 25.0);
}

TEST(ToolsTest, NvlinkStatusPcieCardWithoutLinksHasNone) {
  auto s = parse_nvlink_status(
      "GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-5a1e0c3d-7b92-4f68-a0d4-e2c1b9f83a67)\n"
      "\t NVML: Unable to retrieve NVLink information as all links are inActive\n");
  ASSERT_TRUE(s.ok()) << s.error().str();
  ASSERT_EQ(s->gpus.size(), 1u);
  EXPECT_EQ(s->gpus[0].name, "NVIDIA A100 80GB PCIe");
  EXPECT_TRUE(s->gpus[0].links_gbs.empty());
}

// The line as public captures show it for cards without NVLink (a Quadro RTX 4000 in a public
// test of an NVLink checker; GeForce RTX 5090 hosts in public benchmark notes), with or without
// its full stop.
TEST(ToolsTest, NvlinkStatusCardThatHasNoNvlinkHasNoLinks) {
  auto s = parse_nvlink_status(
      "GPU 0: Quadro RTX 4000 with Max-Q Design (UUID: GPU-3193a2da-ea05-d9e8-dd6d-24fa7a760595)\n"
      "Device does not have or support Nvlink\n"
      "GPU 1: NVIDIA GeForce RTX 5090 (UUID: GPU-00000000-0000-0000-0000-000000000001)\n"
      "Device does not have or support Nvlink.\n");
  ASSERT_TRUE(s.ok()) << s.error().str();
  ASSERT_EQ(s->gpus.size(), 2u);
  EXPECT_EQ(s->gpus[1].name, "NVIDIA GeForce RTX 5090");
  EXPECT_TRUE(s->gpus[0].links_gbs.empty());
  EXPECT_TRUE(s->gpus[1].links_gbs.empty());
}

TEST(ToolsTest, NvlinkStatusReadsFractionalSpeeds) {
  auto s = parse_nvlink_status("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n\t Link 0: 26.562 GB/s\n");
  ASSERT_TRUE(s.ok()) << s.error().str();
  EXPECT_EQ(s->gpus[0].links_gbs.at(0), 26.562);
  EXPECT_EQ(s->gpus[0].uuid, "GPU-x");
}

TEST(ToolsTest, NvlinkStatusErrorsNameTheLine) {
  expect_errors(
      parse_nvlink_status,
      {
          {"\t Link 0: 25 GB/s\n", 1, "error.nvlink.gpu_first", {{"got", "Link 0: 25 GB/s"}}},
          {"GPU 0: A100 (UUID: GPU-a)\n\t Link 2: fast\n", 2, "error.nvlink.bad_value", {{"got", "fast"}}},
          {"GPU 0: A100 (UUID: GPU-a)\n\t Link 2: x GB/s\n", 2, "error.nvlink.bad_speed", {{"got", "x GB/s"}}},
          {"GPU 0: A100 (UUID: GPU-a)\n\t Link x: 25 GB/s\n",
           2,
           "error.nvlink.bad_index",
           {{"got", "Link x: 25 GB/s"}}},
          {"GPU 0: A100 (UUID: GPU-a)\n\t Link 99: 25 GB/s\n",
           2,
           "error.nvlink.bad_index",
           {{"got", "Link 99: 25 GB/s"}}},
          {"GPU 0: A100 (UUID: GPU-a)\n\n\t something else\n", 3, "error.nvlink.bad_line", {{"got", "something else"}}},
          {"", 0, "error.nvlink.empty"},
      });
}

// --- Pasted captures (issue 26): a prompt or command above the output, tabs turned to spaces ----------

TEST(ToolsTest, NvlinkStatusUnderItsCommandLineIsReadAndItsInactiveLinksKept) {
  // Azure/azhpc-diagnostics issue 73: "nvidia-smi nvlink -s" and "...." above the output. The
  // parse failed on the command line and the capture was dropped, so two inactive links passed.
  const std::string text = read_fixture("nvlink-status-azhpc-command.txt");
  const PastedPreamble pre = pasted_preamble(text, "nvidia-smi");
  EXPECT_EQ(pre.lines, 2);
  EXPECT_EQ(pre.last, "....");
  auto s = parse_nvlink_status(text);
  ASSERT_TRUE(s) << s.error().phrase().key;
  ASSERT_EQ(s->gpus.size(), 1u);
  EXPECT_EQ(s->gpus[0].index, 3);
  EXPECT_EQ(s->gpus[0].name, "Tesla V100-SXM2-32GB");
  ASSERT_EQ(s->gpus[0].links_gbs.size(), 6u);
  EXPECT_FALSE(s->gpus[0].links_gbs[3].has_value());
  EXPECT_FALSE(s->gpus[0].links_gbs[5].has_value());
  EXPECT_DOUBLE_EQ(*s->gpus[0].links_gbs[4], 25.781);
}

TEST(ToolsTest, TopoMatrixUnderAShellPromptIsRead) {
  // NVIDIA/k8s-device-plugin issue 436: "$ nvidia-smi topo -m" above a tab-separated matrix of
  // four A100s, NVLink bridges between GPU0-GPU1 and GPU2-GPU3 (NV12 and, as pasted, NODE).
  const std::string text = read_fixture("topo-k8s-device-plugin-prompt.txt");
  EXPECT_EQ(pasted_preamble(text, "nvidia-smi").lines, 1);
  auto t = parse_topo_matrix(text);
  ASSERT_TRUE(t) << t.error().line << " " << t.error().phrase().key;
  EXPECT_EQ(t->gpus, (std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3"}));
  EXPECT_EQ(t->nics, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ((t->link.at({"GPU0", "GPU1"})), "NV12");
  EXPECT_EQ((t->link.at({"GPU2", "GPU3"})), "NODE");
  EXPECT_EQ(t->cpu_affinity.at("GPU2"), "28-55,84-111");
  EXPECT_EQ(t->numa_affinity.at("GPU3"), "1");
}

TEST(ToolsTest, TopoMatrixWhoseTabsBecameSpacesIsRead) {
  // NVIDIA/nccl issue 1617 (four H100, NV6, NIC rows) and club-3090 issue 46 (five GPUs), both
  // pasted with spaces: they were refused ("no GPU header").
  auto h100 = parse_topo_matrix(read_fixture("topo-nccl-h100-spaces.txt"));
  ASSERT_TRUE(h100) << h100.error().line << " " << h100.error().phrase().key;
  EXPECT_EQ(h100->gpus.size(), 4u);
  EXPECT_EQ(h100->nics, (std::vector<std::string>{"NIC0", "NIC1", "NIC2", "NIC3"}));
  EXPECT_EQ((h100->link.at({"GPU1", "GPU3"})), "NV6");
  EXPECT_EQ((h100->nic_link.at({"GPU2", "NIC2"})), "PIX");
  EXPECT_EQ(h100->cpu_affinity.at("GPU0"), "6,14,22,30");
  EXPECT_EQ(h100->numa_affinity.at("GPU2"), "7");
  EXPECT_EQ(h100->gpu_numa_id.at("GPU3"), "N/A");
  auto five = parse_topo_matrix(read_fixture("topo-club-3090-spaces.txt"));
  ASSERT_TRUE(five) << five.error().line << " " << five.error().phrase().key;
  EXPECT_EQ(five->gpus.size(), 5u);
  EXPECT_EQ((five->link.at({"GPU1", "GPU2"})), "PHB");
  EXPECT_EQ((five->link.at({"GPU0", "GPU4"})), "SYS");
  EXPECT_EQ(five->cpu_affinity.at("GPU0"), "8-15,24-31");
  EXPECT_EQ(five->numa_affinity.at("GPU1"), "0");
  // A paste cut inside the matrix is still refused: GPU4's row is missing.
  std::string cut = read_fixture("topo-club-3090-spaces.txt");
  cut = cut.substr(0, cut.find("GPU4    SYS"));
  auto refused = parse_topo_matrix(cut);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.key, "error.topo.missing_row");
}

TEST(ToolsTest, IbstatUnderALogHeadingIsReadAndItsRoceLinkLayerKept) {
  // NVIDIA/l2fwd-nv issue 6: "Log ibstat:" and "=======" above two ConnectX-6 Dx ports on
  // Ethernet (RoCE), SM lid 0. --ibstat refused it on the heading.
  const std::string text = read_fixture("ibstat-l2fwd-roce-preamble.txt");
  const PastedPreamble pre = pasted_preamble(text, "ibstat");
  EXPECT_EQ(pre.lines, 2);
  EXPECT_EQ(pre.last, "=======");
  auto ports = parse_ibstat(text);
  ASSERT_TRUE(ports) << ports.error().line << " " << ports.error().phrase().key;
  ASSERT_EQ(ports->size(), 2u);
  EXPECT_EQ((*ports)[1].ca, "mlx5_1");
  EXPECT_EQ((*ports)[0].link_layer, "Ethernet");
  EXPECT_EQ((*ports)[0].rate_gbps, 100);
  EXPECT_EQ((*ports)[0].sm_lid, 0);
}

TEST(ToolsTest, APreambleIsOnlyLinesNamingTheToolOrRules) {
  EXPECT_EQ(pasted_preamble("root@node2:~/DeepEP# nvidia-smi topo -m\n\tGPU0\n", "nvidia-smi").lines, 1);
  EXPECT_EQ(pasted_preamble("\n[root@gpu01 ~]# ibstat\nCA 'mlx5_0'\n", "ibstat").lines, 2);
  EXPECT_EQ(pasted_preamble("CA 'mlx5_0'\n", "ibstat").lines, 0);
  // Any other text first is no preamble: the parser names that line, as before.
  EXPECT_EQ(pasted_preamble("hello\n$ ibstat\n", "ibstat").lines, 0);
}

}  // namespace
}  // namespace gpuplan::probe
