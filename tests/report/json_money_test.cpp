// Every money value in every verb's JSON is rounded to the fen (issue 14: "No JSON money value has
// more than 2 decimals"): the real binary on the examples, each document walked for the money keys;
// round_to_fen on its own; and one figure that used to print unrounded, checked exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "core/money.h"
#include "report/render.h"
#include "tco/scenario.h"
#include "tco/tco.h"
#include "test_support.h"

namespace gpuplan::report {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::default_catalog;
using testing::run_gpuplan;
using testing::source_path;
using testing::temp_dir;

// The keys whose values (a number, a {low, high} range, an array, or an object of these) are money
// in the JSON shapes of quote, recommend, audit, tco and usage. A key added later that carries
// money must be added here, or this test cannot see it.
const std::set<std::string> kMoneyKeys = {
    // quote, recommend (its "quote"), audit
    "buy", "rent_monthly", "totals", "per_gpu", "monthly", "hidden_costs_monthly",
    // tco (and usage's "strategies")
    "amount", "total", "per_used_gpu_hour", "cumulative_by_month", "upfront", "cost_monthly", "benefit_monthly", "net",
    "base_margin", "tornado", "percentiles",
    // usage's "rent_offer"
    "per_instance_hour", "per_gpu_hour_cny", "per_server_month", "per_gpu_month"};

std::string quoted(const std::string& path) {
  return "'" + path + "'";
}

// How many decimals a number prints with in a JSON document (nlohmann writes the shortest text
// that reads back as the same double); an exponent below zero counts as many.
int printed_decimals(const json& number) {
  const std::string text = number.dump();
  const size_t e = text.find_first_of("eE");
  if (e != std::string::npos && text.find('-', e) != std::string::npos) return 99;
  const size_t dot = text.find('.');
  if (dot == std::string::npos) return 0;
  const std::string decimals = text.substr(dot + 1, e == std::string::npos ? std::string::npos : e - dot - 1);
  return decimals == "0" ? 0 : static_cast<int>(decimals.size());
}

// Every number under a money key, with its path; returns how many were checked.
int check_money(const json& j, const std::string& path, bool money, const std::string& what) {
  int checked = 0;
  if (j.is_number()) {
    if (money) {
      EXPECT_LE(printed_decimals(j), 2) << what << ": " << path << " = " << j.dump();
      ++checked;
    }
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      checked += check_money(value, path + "." + key, money || kMoneyKeys.count(key) > 0, what);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      checked += check_money(j[i], path + "[" + std::to_string(i) + "]", money, what);
  }
  return checked;
}

json run_json(const std::string& args) {
  const CliResult r = run_gpuplan(args + " --format json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << args << "\n" << r.err;  // audit fails with 1
  json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << args << "\n" << r.out << r.err;
  return j;
}

std::string example(const std::string& name) {
  return quoted(source_path("examples/" + name));
}

TEST(JsonMoneyTest, RoundsHalfAwayFromZeroToTheFen) {
  EXPECT_EQ(round_to_fen(2838239.999999963), 2838240.0);
  EXPECT_EQ(round_to_fen(0.285), 0.29);    // the double 0.285 lies just below .285: still a tie in decimal
  EXPECT_EQ(round_to_fen(-0.285), -0.29);  // away from zero
  EXPECT_EQ(round_to_fen(9.8968), 9.9);    // US$1.39 × 7.12
  EXPECT_EQ(round_to_fen(1.004), 1.0);
  EXPECT_EQ(round_to_fen(1.005), 1.01);
  EXPECT_EQ(json(round_to_fen(-0.001)).dump(), "0.0");  // never "-0.0"
  EXPECT_TRUE(std::isnan(round_to_fen(NAN)));
  EXPECT_EQ(money_range_json(Range{780000.0 / 26280, 1.0 / 3}), json({{"low", 29.68}, {"high", 0.33}}));
}

TEST(JsonMoneyTest, QuoteRecommendAndAuditPrintMoneyToTheFen) {
  for (const std::string& args :
       {"quote " + example("a100-8gpu-training.yaml"), "quote " + example("a100-1gpu-inference.yaml"),
        std::string("quote --gpu a100-80gb-pcie --gpus 3 --nodes 2"),
        std::string("recommend --task finetune --params 13B"), "audit " + example("vendor-quote-clean.yaml"),
        "audit " + example("vendor-quote-padded.yaml")}) {
    const json j = run_json(args);
    EXPECT_GT(check_money(j, "", false, args), 4) << args;
  }
}

TEST(JsonMoneyTest, TcoPrintsMoneyToTheFen) {
  for (const std::string name : {"tco-dual-a100.yaml", "tco-burst-8gpu.yaml", "tco-hybrid-nightly.yaml"}) {
    const json j = run_json("tco " + example(name));
    EXPECT_GT(check_money(j, "", false, name), 40) << name;  // 36 months of cumulative cash at least
  }
}

TEST(JsonMoneyTest, UsagePrintsMoneyToTheFen) {
  const std::string csv = temp_dir() + "/n.csv";
  ASSERT_EQ(run_gpuplan("usage synth --pattern nightly-peak --gpus 8 --days 14 --interval 5min --output " + quoted(csv))
                .exit_code,
            0);
  for (const std::string flags : {"", " --rent monthly", " --rent-offer aliyun-ecs-gn7e-c16g1-4xlarge"}) {
    const json j = run_json("usage " + quoted(csv) + flags);
    EXPECT_GT(check_money(j, "", false, "usage" + flags), 3) << flags;
  }
}

// The burst example's rent on demand, by hand: 8 GPUs × 48 h a week × ¥12.8 × 156 weeks =
// ¥766,771.20. Summed hour by hour in doubles it comes out a hair off; the JSON prints the fen.
TEST(JsonMoneyTest, TheBurstExamplesRentPrintsExactly) {
  auto sc = tco::read_scenario(source_path("examples/tco-burst-8gpu.yaml"), default_catalog());
  ASSERT_TRUE(sc.ok()) << sc.error().str();
  const tco::TcoResult raw = tco::analyse(*sc, default_catalog());
  const json j = run_json("tco " + example("tco-burst-8gpu.yaml"));
  bool seen = false;
  for (size_t i = 0; i < raw.strategies.size(); ++i) {
    if (raw.strategies[i].id != "rent_hourly") continue;
    seen = true;
    EXPECT_NE(raw.strategies[i].total, 766771.2);  // the figure as computed: unrounded
    EXPECT_NEAR(raw.strategies[i].total, 766771.2, 1e-6);
    EXPECT_EQ(j["strategies"][i]["id"], "rent_hourly");
    EXPECT_EQ(j["strategies"][i]["total"].dump(), "766771.2");
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace gpuplan::report
