// End-to-end tests of `gpuplan accept --contract` and `gpuplan audit` through the built binary
// (issue 13's Done-when): the delivered-host fixtures against examples/vendor-quote-clean.yaml,
// the `dmidecode -t memory` attachment of contract.delivery, and the weak-terms example's audit.
// Expected strings are read off the fixtures: the swapped host has 12 of the 16 DIMMs, nvme3n1 a
// 1.92 TB SAMSUNG MZWLJ1T9HBJR in place of a 3.84 TB one, and Intel X710 (8086:1572) ports for
// the ConnectX-6 Lx; the quote's lines are at vendor-quote-clean.yaml:13, :14 and :15.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/files.h"
#include "test_support.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::run_gpuplan;
using testing::source_path;

std::string host(const std::string& name) {
  return source_path("tests/fixtures/hosts/" + name);
}
std::string tool(const std::string& name) {
  return source_path("tests/fixtures/tools/" + name);
}
const std::string kQuote = source_path("examples/vendor-quote-clean.yaml");

json parse(const testing::CliResult& r) {
  json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) ADD_FAILURE() << "not JSON:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

json delivery(const json& report) {
  for (const auto& c : report.at("checks"))
    if (c.at("id") == "contract.delivery") return c;
  ADD_FAILURE() << "no contract.delivery in " << report.dump();
  return json::object();
}

std::string evidence(const json& check) {
  std::string out;
  for (const auto& e : check.at("evidence")) out += e.get<std::string>() + "\n";
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

testing::CliResult accept(const std::string& root, const std::string& extra = "") {
  return run_gpuplan("accept --format json --contract " + kQuote + " --root " + host(root) + " " + extra);
}

TEST(AcceptContractCli, CleanDeliveryPasses) {
  const auto r = accept("delivered-a100-clean");
  // No soak log and no NVML in the fixture: the report is incomplete (exit 0), the check passes.
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json c = delivery(parse(r));
  EXPECT_EQ(c.at("status"), "pass") << c.dump(2);
  const std::string detail = c.at("detail");
  EXPECT_TRUE(contains(detail, "\"64 GB DDR4-3200 RDIMM\" × 16 (" + kQuote +
                                   ":13): delivered 16 × 64 GiB DIMMs, 1,024 GiB installed (from EDAC in sysfs)"))
      << detail;
  // The board's labels beside the real EDAC directories.
  EXPECT_TRUE(contains(evidence(c),
                       "/sys/devices/system/edac/mc/mc0/dimm0 (labelled P0_Node0_Channel0_Dimm0 "
                       "P1-DIMMA1): 64 GiB DDR4\n"))
      << evidence(c);
}

// The clean quote for two servers: every quantity doubled, hgx-a100-8gpu × 2. The delivered host is
// one of them and has its share of every line (issue 13 review: it failed every line before).
TEST(AcceptContractCli, AQuoteForTwoServersPassesOnOneDeliveredServer) {
  const auto text = read_text_file(kQuote);
  ASSERT_TRUE(text);
  std::string doubled;  // each line's "qty: N," as "qty: 2N,"
  for (std::size_t at = 0;;) {
    const std::size_t found = text->find("qty: ", at);
    if (found == std::string::npos) {
      doubled += text->substr(at);
      break;
    }
    const std::size_t digits = found + 5, end = text->find(',', digits);
    doubled += text->substr(at, digits - at) + std::to_string(2 * std::stoi(text->substr(digits, end - digits)));
    at = end;
  }
  ASSERT_NE(doubled.find("part: hgx-a100-8gpu, qty: 2,"), std::string::npos) << doubled;
  ASSERT_NE(doubled.find("part: a100-80gb-sxm, qty: 16,"), std::string::npos) << doubled;
  const std::string quote = testing::write_file(testing::temp_dir(), "two-servers.yaml", doubled);
  const auto r = run_gpuplan("accept --format json --contract " + quote + " --root " + host("delivered-a100-clean"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json c = delivery(parse(r));
  EXPECT_EQ(c.at("status"), "pass") << c.dump(2);
  EXPECT_TRUE(contains(c.at("detail"), "\"64 GB DDR4-3200 RDIMM\" × 32 (" + quote +
                                           ":13; 16 for each of the 2 servers the quote prices): delivered 16 × 64 "
                                           "GiB DIMMs, 1,024 GiB installed (from EDAC in sysfs)"))
      << c.at("detail");
}

TEST(AcceptContractCli, SwappedDeliveryFailsNamingEachSwappedPart) {
  const auto r = accept("delivered-a100-swapped");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json report = parse(r);
  EXPECT_EQ(report.at("verdict"), "fail");
  const json c = delivery(report);
  EXPECT_EQ(c.at("status"), "fail");
  const std::string detail = c.at("detail");
  EXPECT_TRUE(contains(detail, "\"64 GB DDR4-3200 RDIMM\" × 16 (" + kQuote +
                                   ":13): delivered 12 × 64 GiB DIMMs, 768 GiB installed (from EDAC in sysfs), below "
                                   "the contract"))
      << detail;
  EXPECT_TRUE(contains(detail, "\"3.84 TB U.2 NVMe\" × 4 (" + kQuote +
                                   ":14): delivered 3 × nvme of 3.84 TB, nvme3n1 (SAMSUNG MZWLJ1T9HBJR-00007) of 1.92 "
                                   "TB, smaller, below the contract"))
      << detail;
  EXPECT_TRUE(contains(detail, "\"Dual-port 25GbE adapter\" × 2 (" + kQuote +
                                   ":15): delivered no port of an id the "
                                   "part allows (15b3:1015, 15b3:1017, 15b3:101f, 8086:159b, 14e4:16d7), enp10s0f0 "
                                   "(8086:1572, 10,000 Mb/s) in its place"))
      << detail;
}

TEST(AcceptContractCli, AttachedDmidecodeGivesTheDimmsEdacDoesNotList) {
  // hgx-a100-8gpu has no EDAC DIMM directories (as on an AMD host): without the file the memory
  // line needs evidence; with it, 16 × 64 GiB from the 32 slots the file lists.
  const auto without = accept("hgx-a100-8gpu");
  EXPECT_TRUE(
      contains(delivery(parse(without)).at("detail").get<std::string>(), "no DIMM list: the host shows no EDAC DIMMs"));
  const std::string file = tool("dmidecode-memory-16dimm-ddr4-3200.txt");
  const auto with = accept("hgx-a100-8gpu", "--attach contract.delivery=" + file);
  ASSERT_NE(with.exit_code, 2) << with.err;
  const json c = delivery(parse(with));
  EXPECT_TRUE(contains(c.at("detail").get<std::string>(),
                       "\"64 GB DDR4-3200 RDIMM\" × 16 (" + kQuote +
                           ":13): delivered 16 × 64 GiB DIMMs, 1,024 GiB installed (from dmidecode -t memory in " +
                           file + ")"))
      << c.dump(2);
  EXPECT_TRUE(contains(evidence(c), file + ": slot P2-DIMMH1: 64 GiB DDR4, part number M393A8G40AB2-CWE\n"))
      << evidence(c);
  EXPECT_FALSE(contains(c.at("detail").get<std::string>(), "a person must judge"));
}

TEST(AcceptContractCli, DmidecodeDisagreeingWithEdacWarns) {
  const std::string file = tool("dmidecode-memory-16dimm-ddr4-3200.txt");
  const auto r = accept("delivered-a100-swapped", "--attach contract.delivery=" + file);
  const std::string detail = delivery(parse(r)).at("detail");
  EXPECT_TRUE(contains(detail, "\"64 GB DDR4-3200 RDIMM\" × 16 (" + kQuote +
                                   ":13): the two DIMM lists disagree: 12 × 64 GiB DIMMs, 768 GiB installed (from "
                                   "EDAC in sysfs); 16 × 64 GiB DIMMs, 1,024 GiB installed (from dmidecode -t memory "
                                   "in " +
                                   file + "). Neither is taken over the other"))
      << detail;
}

TEST(AcceptContractCli, AnAttachmentThatIsNotDmidecodeMemoryIsBadInput) {
  const std::string file = tool("ibstat-hdr.txt");
  const auto r = accept("delivered-a100-clean", "--attach contract.delivery=" + file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, file)) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(AcceptContractCli, WeakTermsAuditFindsEachTermAsWritten) {
  const auto r = run_gpuplan("audit " + source_path("examples/vendor-quote-weak-terms.yaml") + " --format json");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json report = parse(r);
  std::vector<std::pair<std::string, std::string>> found;  // (id, term as written)
  for (const auto& f : report.at("findings")) {
    const std::string id = f.at("id");
    if (id.rfind("contract.", 0) != 0) continue;
    found.emplace_back(id, f.at("evidence").value("term", ""));
  }
  // The terms as examples/vendor-quote-weak-terms.yaml writes them (lines 23-34).
  EXPECT_EQ(found, (std::vector<std::pair<std::string, std::string>>{
                       {"contract.driver", "470"},
                       {"contract.rack", "8 A at 220 V"},
                       {"contract.service", "4"},
                       {"contract.service", "48"},
                       {"contract.service", "none"},
                       {"contract.bandwidth", "100 Mbps, metered (按流量计费), about 20 TB/month"},
                       {"contract.licence", "NVIDIA AI Enterprise 2022"},
                   }));
  // The three service findings: response, repair time and penalty.
  std::vector<std::string> fields;
  for (const auto& f : report.at("findings"))
    if (f.at("id") == "contract.service") fields.push_back(f.at("evidence").at("field"));
  EXPECT_EQ(fields, (std::vector<std::string>{"service.response_h", "service.mttr_h", "service.penalty"}));
}

}  // namespace
}  // namespace gpuplan
