#include "catalog/catalog.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan::catalog {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::fact_in;
using gpuplan::testing::source_path;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

std::vector<Error> problems_of(const std::string& file_name, const std::string& yaml) {
  std::string dir = temp_dir();
  write_file(dir, file_name, yaml);
  std::vector<Error> problems;
  Catalog::load({source_path("catalog"), dir}, problems);
  return problems;
}

// The problem at `line` of a file named `file_name`, for `field`; nullptr when there is none.
const Error* problem_at(const std::vector<Error>& problems, const std::string& file_name, int line,
                        const std::string& field) {
  for (const auto& p : problems)
    if (p.file.size() >= file_name.size() && p.file.substr(p.file.size() - file_name.size()) == file_name &&
        p.line == line && p.field == field)
      return &p;
  return nullptr;
}

TEST(CatalogTest, ShippedCatalogLoadsWithoutProblems) {
  std::vector<Error> problems;
  Catalog c = Catalog::load({source_path("catalog")}, problems);
  for (const auto& p : problems) ADD_FAILURE() << p.str();
  EXPECT_GT(c.entries().size(), 100u);
  for (const auto& e : c.entries()) {
    EXPECT_FALSE(e.source.empty()) << e.id;
    EXPECT_FALSE(e.as_of.empty()) << e.id;
  }
}

TEST(CatalogTest, CarriesTheArticlesFiguresAndTheCorrections) {
  const Catalog& c = default_catalog();
  EXPECT_EQ(c.find("gpu", "a100-80gb-pcie")->number("tdp_w"), 300);  // SPEC B1
  EXPECT_EQ(c.find("gpu", "a100-80gb-sxm")->number("tdp_w"), 400);   // SPEC §J: SXM is 400 W
  EXPECT_EQ(c.find("gpu", "a100-80gb-sxm")->range("buy"), (Range{70000, 100000}));  // [S0 §1]
  EXPECT_EQ(c.find("gpu", "a100-80gb-sxm")->number("nvlink_gen"), 3);  // SPEC §J
  EXPECT_EQ(c.find("gpu", "a100-80gb-sxm")->number("nvlink_bandwidth_gbs"), 600);
  EXPECT_EQ(c.find("gpu", "h100-80gb-sxm")->number("nvlink_bandwidth_gbs"), 900);
  EXPECT_EQ(c.find("cpu", "epyc-7453")->number("pcie_lanes_per_socket"), 128);           // not 64
  EXPECT_EQ(c.find("cpu", "xeon-platinum-8480p")->number("pcie_lanes_per_socket"), 80);  // not 112
  EXPECT_EQ(c.find("market", "a100-80gb-8gpu")->range("rent_monthly"), (Range{12000, 15000}));
  EXPECT_EQ(c.find("market", "a100-80gb-4gpu")->range("buy"), (Range{200000, 250000}));
  EXPECT_EQ(c.find("market", "a100-80gb-1gpu")->range("rent_monthly"), (Range{3000, 5000}));
  EXPECT_EQ(c.threshold("memory.min_gb"), 256);
  EXPECT_EQ(c.threshold_range("band.rent_per_gpu_month"), (Range{3000, 4500}));
  EXPECT_EQ(c.threshold_range("band.buy_per_gpu"), (Range{28000, 40000}));
  EXPECT_EQ(c.find("rack", "rack-16a-220v")->range("rent_monthly"), Range::point(800));  // [S0 §3.3]
  EXPECT_EQ(c.find("licence", "nvidia-ai-enterprise")->range("per_gpu_year"), Range::point(28000));
  EXPECT_EQ(c.find("support", "premium-2h-4h")->range("per_year"), Range::point(55000));
  EXPECT_EQ(c.find("software_image", "preinstalled-ai-image")->range("rent_monthly"), (Range{100, 500}));
  EXPECT_EQ(c.find("software", "driver-min")->text("min_version"), "525.85.05");
  // 8 A, 16 A and 32 A at 220 V are 1.76, 3.52 and 7.04 kW.
  for (auto [id, watts] : {std::pair{"rack-8a-220v", 1760.0}, {"rack-16a-220v", 3520.0}, {"rack-32a-220v", 7040.0}}) {
    const Entry* r = c.find("rack", id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_DOUBLE_EQ(r->number("amps") * r->number("volts"), watts) << id;
  }
}

TEST(CatalogTest, CloudOffersComeFromTheReferencePricesInUsd) {
  const Catalog& c = default_catalog();
  const Entry* aws = c.find("cloud_offer", "aws-p4de-24xlarge-us-east-1-use1-az4");
  ASSERT_NE(aws, nullptr);
  EXPECT_EQ(aws->text("currency"), "USD");
  EXPECT_DOUBLE_EQ(aws->number("on_demand_hour"), 27.44705);  // reference CSV
  EXPECT_DOUBLE_EQ(aws->number("gpus"), 8);
  ASSERT_TRUE(c.rate_to_cny("USD").has_value());
  EXPECT_FALSE(c.rate_to_cny("USD")->as_of.empty());
}

TEST(CatalogTest, OverrideDirectoryReplacesById) {
  auto c = gpuplan::testing::catalog_with({{"mine.yaml", R"(kind: rack
entries:
  - id: rack-16a-220v
    name: My 16 A rack
    amps: 16
    volts: 220
    rent_monthly: 650
    source: my contract
    as_of: "2024-09"
  - id: rack-63a-220v
    name: 63 A rack
    amps: 63
    volts: 220
    source: my contract
    as_of: "2024-09"
)"}});
  EXPECT_EQ(c.find("rack", "rack-16a-220v")->range("rent_monthly"), Range::point(650));
  EXPECT_EQ(c.find("rack", "rack-16a-220v")->source, "my contract");
  ASSERT_NE(c.find("rack", "rack-63a-220v"), nullptr);
  EXPECT_EQ(c.ids_of_kind("rack").size(), default_catalog().ids_of_kind("rack").size() + 1);
}

TEST(CatalogTest, ReportsEveryProblemWithFileAndLine) {
  auto problems = problems_of("bad.yaml", R"(kind: rack
entries:
  - id: rack-a
    name: A
    amps: 16
    volts: 220
    colour: red
    source: x
    as_of: "2024"
  - id: rack-b
    name: B
    amps: -3
    volts: 220
    as_of: "2024"
  - id: rack-a
    name: A again
    amps: 16
    volts: 220
    rent_monthly: [900, 100]
    source: x
    as_of: "2024"
)");
  std::vector<std::string> text;
  for (const auto& p : problems) text.push_back(p.str());
  const Error* colour = problem_at(problems, "/bad.yaml", 7, "rack-a.colour");
  ASSERT_TRUE(colour) << ::testing::PrintToString(text);
  EXPECT_EQ(colour->message.key, "error.catalog.unknown_key");
  EXPECT_EQ(*fact_in(colour->message, "key"), "colour");
  EXPECT_EQ(*fact_in(colour->message, "kind"), "rack");
  const Error* amps = problem_at(problems, "/bad.yaml", 12, "rack-b.amps");
  ASSERT_TRUE(amps) << ::testing::PrintToString(text);
  EXPECT_EQ(amps->message.key, "error.yaml.negative");
  EXPECT_EQ(*fact_in(amps->message, "got"), "-3");
  const Error* source = problem_at(problems, "/bad.yaml", 10, "rack-b.source");
  ASSERT_TRUE(source) << ::testing::PrintToString(text);
  EXPECT_EQ(source->message.key, "error.catalog.missing");
  EXPECT_EQ(*fact_in(source->message, "field"), "source");
  const Error* range = problem_at(problems, "/bad.yaml", 19, "rack-a.rent_monthly");
  ASSERT_TRUE(range) << ::testing::PrintToString(text);
  EXPECT_EQ(range->message.key, "error.catalog.low_above_high");
  EXPECT_EQ(*fact_in(range->message, "low"), "900");
  EXPECT_EQ(*fact_in(range->message, "high"), "100");
  EXPECT_EQ(problems.size(), 4u) << ::testing::PrintToString(text);
}

TEST(CatalogTest, DuplicateIdInOneDirectoryIsAProblem) {
  auto problems = problems_of("dup.yaml", R"(kind: region
entries:
  - {id: r1, name: R1, price_factor: 1, latency_ms: 5, source: x, as_of: "2024"}
  - {id: r1, name: R1 again, price_factor: 1, latency_ms: 5, source: x, as_of: "2024"}
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].line, 4);
  EXPECT_EQ(problems[0].message.key, "error.catalog.duplicate_id");
  EXPECT_EQ(*fact_in(problems[0].message, "id"), "r1");
  EXPECT_EQ(*fact_in(problems[0].message, "first"), problems[0].file + ":3");
}

TEST(CatalogTest, UnknownReferenceSuggestsTheNearestId) {
  auto problems = problems_of("p.yaml", R"(kind: platform
entries:
  - id: my-box
    name: My box
    max_gpus: 1
    gpu_form_factor: pcie
    interconnect: pcie
    cpu_direct_x16_slots: 1
    switched_x16_slots: 0
    pcie_gen: 4
    cpu_sockets: 1
    base_power_w: 200
    buy: [1000, 2000]
    liquid_ready: false
    tpm2: true
    default_cpu: epyc-7543
    default_memory: ddr4-3200-64gb
    default_memory_modules: 4
    default_system_disk: sata-ssd-480gb
    default_system_disks: 1
    default_data_disk: nvme-m2-2tb
    default_data_disks: 1
    default_nic: eth-10g-dula
    default_nics: 1
    default_cooling: air-1600w-platinum
    source: x
    as_of: "2024"
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].line, 23);
  EXPECT_EQ(problems[0].field, "my-box.default_nic");
  EXPECT_EQ(problems[0].message.key, "error.unknown_id");
  EXPECT_EQ(*fact_in(problems[0].message, "kind"), "nic");
  EXPECT_EQ(*fact_in(problems[0].message, "id"), "eth-10g-dula");
  ASSERT_TRUE(fact_in(problems[0].message, "nearest")) << problems[0].str();
  EXPECT_EQ(*fact_in(problems[0].message, "nearest"), "eth-10g-dual");
}

TEST(CatalogTest, MalformedYamlNamesTheLine) {
  auto problems = problems_of("broken.yaml", "kind: rack\nentries:\n  - id: x\n    name: [unclosed\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].message.key, "error.yaml.malformed");
  ASSERT_TRUE(fact_in(problems[0].message, "why"));
  EXPECT_FALSE(fact_in(problems[0].message, "why")->empty());
  EXPECT_GE(problems[0].line, 4);
}

TEST(CatalogTest, MissingRequiredFieldAndUnknownKind) {
  auto missing = problems_of("m.yaml", "kind: region\nentries:\n  - {id: r9, name: R, latency_ms: 5, source: x, as_of: \"2024\"}\n");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].field, "r9.price_factor");
  EXPECT_EQ(missing[0].message.key, "error.catalog.missing_required");
  EXPECT_EQ(*fact_in(missing[0].message, "field"), "price_factor");
  auto kind = problems_of("k.yaml", "kind: regoin\nentries: []\n");
  ASSERT_EQ(kind.size(), 1u);
  EXPECT_EQ(kind[0].message.key, "error.unknown_id");
  EXPECT_EQ(*fact_in(kind[0].message, "id"), "regoin");
  ASSERT_TRUE(fact_in(kind[0].message, "nearest")) << kind[0].str();
  EXPECT_EQ(*fact_in(kind[0].message, "nearest"), "region");
}

}  // namespace
}  // namespace gpuplan::catalog
