#include "plan/config.h"

#include <gtest/gtest.h>

#include "plan/quote.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::config_from;
using gpuplan::testing::default_catalog;

Error parse_error(const std::string& yaml) {
  auto r = parse_config_yaml(yaml, "c.yaml");
  if (r.ok()) {
    auto resolved = resolve_config(*r, default_catalog());
    if (resolved.ok()) ADD_FAILURE() << "expected an error for:\n" << yaml;
    else return resolved.error();
    return {};
  }
  return r.error();
}

TEST(ConfigTest, FillsDefaultsFromThePlatform) {
  ServerConfig c = config_from("gpu: a100-80gb-sxm\ngpus: 8\n");
  EXPECT_EQ(c.platform, "hgx-a100-8gpu");  // the only 8-GPU SXM board for the A100 family
  EXPECT_EQ(c.cpu, "epyc-7763");
  EXPECT_EQ(c.cpu_sockets, 2);
  EXPECT_EQ(c.memory, (PartCount{"ddr4-3200-64gb", 16}));
  EXPECT_EQ(c.nodes, 1);
  // No rack stated: the node's 6,500 W peak (DGX A100 system maximum) outgrows every catalog
  // circuit's continuous share (32 A × 220 V × 0.8 = 5,632 W), so the largest is priced.
  EXPECT_FALSE(c.rack_stated);
  EXPECT_EQ(c.rack, "rack-32a-220v");
  EXPECT_EQ(c.term_years, 3);  // term.years
}

// Two PCIe cards: 1,328 W at peak (the quote's parts' sum) fits 8 A × 220 V × 0.8 = 1,408 W, the
// smallest circuit; a stated rack stays as stated.
TEST(ConfigTest, AnUnstatedRackIsTheSmallestThatCarriesTheNode) {
  ServerConfig small = config_from("gpu: a100-80gb-pcie\ngpus: 2\n");
  EXPECT_FALSE(small.rack_stated);
  EXPECT_EQ(small.rack, "rack-8a-220v");
  ServerConfig stated = config_from("gpu: a100-80gb-sxm\ngpus: 8\nrack: rack-16a-220v\n");
  EXPECT_TRUE(stated.rack_stated);
  EXPECT_EQ(stated.rack, "rack-16a-220v");
}

TEST(ConfigTest, TheChinaMarketGpusFindTheirPlatforms) {
  // A800 SXM4 and A100 40GB ship on the HGX A100 board, H800 on HGX H100, H20 on its own HGX
  // H20 (no vendor system maximum); L40S and L20 are PCIe cards for the PCIe servers.
  EXPECT_EQ(config_from("gpu: a800-80gb-sxm\ngpus: 8\n").platform, "hgx-a100-8gpu");
  EXPECT_EQ(config_from("gpu: a100-40gb-sxm\ngpus: 8\n").platform, "hgx-a100-8gpu");
  EXPECT_EQ(config_from("gpu: h800-80gb-sxm\ngpus: 8\n").platform, "hgx-h100-8gpu");
  EXPECT_EQ(config_from("gpu: h20-96gb-sxm\ngpus: 8\n").platform, "hgx-h20-8gpu");
  EXPECT_EQ(config_from("gpu: l40s-48gb-pcie\ngpus: 4\n").platform, "server-4gpu-pcie");
  EXPECT_EQ(config_from("gpu: l20-48gb-pcie\ngpus: 1\n").platform, "workstation-1gpu");
  // H20 node: 8 × 400 W = 3,200 W; the system figure 1.8 × 3,200 = 5,760 W is below the parts'
  // 3,200 + 2 × 350 (CPUs) + 16 × 8 (DDR5) + 2 × 3 + 4 × 12 (disks) + 2 × 12 (NICs) + 2,400 = 6,506 W.
  Quote h20 = build_quote(config_from("gpu: h20-96gb-sxm\ngpus: 8\n"), default_catalog());
  EXPECT_EQ(h20.power.system_w, 5760);
  EXPECT_EQ(h20.power.peak_w(), 6506);
}

TEST(ConfigTest, SizesMemoryAndPicksTheRackFromQuantities) {
  // 1 TiB = 1,024 GB of 64 GB modules = 16 modules; 700 GB rounds up to 11.
  EXPECT_EQ(config_from("gpu: a100-80gb-sxm\ngpus: 8\nmemory: 1 TiB\n").memory.count, 16);
  EXPECT_EQ(config_from("gpu: a100-80gb-sxm\ngpus: 8\nmemory_gb: 700\n").memory.count, 11);
  EXPECT_EQ(config_from("gpu: a100-80gb-sxm\ngpus: 8\nrack_amps: 16 A\n").rack, "rack-16a-220v");
  EXPECT_EQ(config_from("gpu: a100-80gb-sxm\ngpus: 8\nrack_amps: 32\n").rack, "rack-32a-220v");
}

TEST(ConfigTest, WrittenConfigReadsBackUnchanged) {
  ServerConfig c = config_from(R"(
name: round trip
task: pretrain
gpu: a100-80gb-sxm
gpus: 8
nodes: 2
nics: [{part: ib-hdr-200g, count: 8}, {part: eth-25g-dual, count: 1}]
switch: {part: ib-hdr-switch-40p, count: 1}
licences: [nvidia-ai-enterprise]
cluster_manager: commercial-16node-3y
room_temp_c: 27.5
public_bandwidth: fixed
software: {driver: "535.104.05", cuda: "12.1"}
hidden_costs: {ops_staff: [8000, 15000], egress: 1200}
)");
  ServerConfig again = config_from(write_config_yaml(c));
  EXPECT_EQ(again, c);
  EXPECT_EQ(again.software.cuda, std::optional<std::string>("12.1"));
}

TEST(ConfigTest, MalformedYamlNamesTheLine) {
  Error e = parse_error("gpu: a100-80gb-sxm\ngpus: 8\nnics: [{part: x\n");
  EXPECT_EQ(e.file, "c.yaml");
  EXPECT_GE(e.line, 3);
  EXPECT_EQ(e.message.key, "error.yaml.malformed");
}

TEST(ConfigTest, UnknownPartSuggestsTheNearestIdOnItsLine) {
  Error e = parse_error("gpu: a100-80gb-sxm\ngpus: 8\ncpu: epyc-7736\n");
  // Error::str() gives the message id and its facts: the words are the message table's.
  // The known ids follow: every CPU of the catalog, as the catalog lists them.
  std::string cpus;
  for (const auto& id : default_catalog().ids_of_kind("cpu")) cpus += (cpus.empty() ? "" : ", ") + id;
  EXPECT_EQ(e.str(),
            "c.yaml:3: cpu: error.unknown_id (kind=cpu, hint=error.did_you_mean (nearest=epyc-7763), id=epyc-7736, "
            "known=error.known_ids (ids=" +
                cpus + "))");
  Error nic = parse_error("gpu: a100-80gb-sxm\ngpus: 8\nnics:\n  - {part: ib-hdr-20g, count: 8}\n");
  EXPECT_EQ(nic.str().rfind("c.yaml:4: nics[0].part: error.unknown_id (kind=nic, hint=error.did_you_mean "
                            "(nearest=ib-hdr-200g), id=ib-hdr-20g, known=error.known_ids (ids=",
                            0),
            0u)
      << nic.str();
}

TEST(ConfigTest, CountsMustBePositiveWholeNumbers) {
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: 0\n").str(), "c.yaml:2: gpus: error.yaml.below_min (min=1, got=0)");
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: -2\n").str(), "c.yaml:2: gpus: error.yaml.below_min (min=1, got=-2)");
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: 2.5\n").str(), "c.yaml:2: gpus: error.yaml.not_whole (got=2.5)");
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: 8\nnodes: 0\n").str(), "c.yaml:3: nodes: error.yaml.below_min (min=1, got=0)");
}

TEST(ConfigTest, WrongTypesAndUnitTypos) {
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: eight\n").str(), "c.yaml:2: gpus: error.yaml.not_a_number (got=eight)");
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: 8\nsoftware_image: maybe\n").str(),
            "c.yaml:3: software_image: error.yaml.not_bool");
  Error unit = parse_error("gpu: a100-80gb-sxm\ngpus: 8\nmemory: 512 GBB\n");
  EXPECT_EQ(unit.line, 3);
  EXPECT_EQ(unit.field, "memory");
  ASSERT_TRUE(gpuplan::testing::fact_in(unit.message, "unit")) << unit.str();
  EXPECT_EQ(*gpuplan::testing::fact_in(unit.message, "unit"), "GBB");
  Error amps = parse_error("gpu: a100-80gb-sxm\ngpus: 8\nrack_amps: 16 W\n");
  ASSERT_TRUE(gpuplan::testing::fact_in(amps.message, "unit")) << amps.str();
  EXPECT_EQ(*gpuplan::testing::fact_in(amps.message, "unit"), "W");
}

TEST(ConfigTest, UnknownFieldSuggestsTheIntendedOne) {
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpuz: 8\n").str(),
            "c.yaml:2: gpuz: error.yaml.unknown_field (hint=error.did_you_mean (nearest=gpus))");
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\ngpus: 8\nsoftware: {cuda: \"12.1\", cudnnn: \"8.9\"}\n").str(),
            "c.yaml:3: software.cudnnn: error.yaml.unknown_field (hint=error.did_you_mean (nearest=cudnn))");
}

TEST(ConfigTest, MissingRequiredFields) {
  EXPECT_EQ(parse_error("gpus: 8\n").field, "gpu");
  EXPECT_EQ(parse_error("gpu: a100-80gb-sxm\n").field, "gpus");
  EXPECT_EQ(parse_error("- just a list\n").message.key, "error.yaml.not_mapping");
}

TEST(ConfigTest, MissingFileIsAnErrorNamingIt) {
  auto r = read_config_file("/nonexistent/dir/server.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "/nonexistent/dir/server.yaml");
  EXPECT_EQ(r.error().message.key, "error.file.cannot_open");
}

}  // namespace
}  // namespace gpuplan::plan
