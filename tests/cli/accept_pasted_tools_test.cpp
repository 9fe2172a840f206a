// End to end: tool outputs as operators paste them (tests/fixtures/tools/README.md names each
// source), given to `gpuplan accept` and `gpuplan diagnose`: a command or heading above the
// output is skipped and said, a matrix whose tabs became spaces is read, and a capture that
// does not parse is said, never dropped in silence.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::run_gpuplan;
using testing::source_path;

std::string tool_fixture(const std::string& name) {
  return source_path("tests/fixtures/tools/" + name);
}

const json& check(const json& report, const std::string& id) {
  for (const auto& c : report.at("checks"))
    if (c.at("id") == id) return c;
  throw std::runtime_error("no check " + id);
}

TEST(AcceptPastedToolsTest, IbstatUnderAHeadingIsReadAndRoceAsksNoSubnetManager) {
  // --ibstat refused "Log ibstat:" / "=======" above the output (exit 2). Read, its two ports
  // are RoCE: no InfiniBand, no subnet manager to ask for.
  const std::string file = tool_fixture("ibstat-l2fwd-roce-preamble.txt");
  auto r = run_gpuplan("accept --root " + testing::temp_dir() + " --nvml off --ibstat " + file +
                       " --format json --lang en");
  ASSERT_NE(r.exit_code, 2) << r.err;
  const json ib = check(json::parse(r.out), "infiniband");
  EXPECT_EQ(ib.at("status"), "pass");
  EXPECT_NE(ib.at("detail").get<std::string>().find("the 2 RDMA port(s) run RoCE"), std::string::npos)
      << ib.at("detail");
  // What was skipped is said: "FILE: the 2 line(s) above the tool's output were skipped ...".
  EXPECT_NE(r.err.find(file + ": the 2 line(s) above the tool's output were skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"=======\""), std::string::npos) << r.err;
}

TEST(AcceptPastedToolsTest, TopoPastedWithSpacesOrUnderAPromptIsRead) {
  for (const char* name : {"topo-nccl-h100-spaces.txt", "topo-k8s-device-plugin-prompt.txt"}) {
    SCOPED_TRACE(name);
    auto r = run_gpuplan("diagnose --nvml off --lang en --root " + testing::temp_dir() + " --topo " +
                         tool_fixture(name) + " --format json");
    EXPECT_NE(r.exit_code, 2) << r.err;  // it was refused: "no GPU header" or the prompt line
  }
  auto prompt = run_gpuplan("diagnose --nvml off --lang en --root " + testing::temp_dir() + " --topo " +
                            tool_fixture("topo-k8s-device-plugin-prompt.txt"));
  EXPECT_NE(prompt.err.find("\"$ nvidia-smi topo -m\""), std::string::npos) << prompt.err;
}

}  // namespace
}  // namespace gpuplan
