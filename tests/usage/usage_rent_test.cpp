// What usage prices renting at (issue 14 item 6, issue 27): every basis side by side by default
// (on demand and spot at the cheapest offer of the buyer's market, or the one --rent-offer picks;
// the articles' whole-server monthly rent), why monthly changes the answer, and the owned
// platform's whole purchasable units.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "report/usage_render.h"
#include "test_support.h"
#include "usage/synth.h"
#include "usage/synth_hours.h"
#include "usage/usage.h"

namespace gpuplan::usage {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::default_catalog;
using testing::run_gpuplan;
using testing::temp_dir;

// Five-minute samples, as these cases were worked at.
telemetry::HourlyData synth_hours(SynthPattern pattern, int days, int gpus) {
  return testing::synth_hours(pattern, days, gpus, 300);
}

const telemetry::HourlyData& nightly8() {
  static const telemetry::HourlyData data = synth_hours(SynthPattern::kNightlyPeak, 14, 8);
  return data;
}

std::string table(const UsageResult& r, report::Lang lang = report::Lang::kEn) {
  return report::render_usage(r, report::Format::kTable, {lang, false});
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The buyer's market is China by default: of the catalog's CNY offers (market cn) for A100 80GB,
// Aliyun's 1-GPU gn7e at ¥34.7 a GPU-hour is the cheapest (the 4-GPU size is ¥138.96 / 4 =
// ¥34.74, the 8-GPU ¥277.93 / 8 = ¥34.74125). It lists no spot price, so there is no spot
// strategy, and the report says so. Every basis is costed: buy, monthly, on demand, hybrid.
TEST(UsageRentTest, TheDefaultOfferIsTheCheapestOfTheBuyersMarketAndIsNamed) {
  const UsageResult r = analyse(nightly8(), Options{}, default_catalog());
  ASSERT_TRUE(r.rent.has_value());
  EXPECT_EQ(r.rent->basis, "all");
  ASSERT_TRUE(r.rent->hourly.has_value());
  const CloudOfferPrice& o = *r.rent->hourly;
  EXPECT_EQ(o.entry->id, "aliyun-ecs-gn7e-c16g1-4xlarge");
  EXPECT_EQ(o.market, "cn");
  EXPECT_TRUE(o.cheapest);
  EXPECT_EQ(o.gpu_hour_cny, 34.7);
  EXPECT_FALSE(o.fx.has_value());
  EXPECT_FALSE(o.spot_gpu_hour_cny.has_value());
  ASSERT_TRUE(r.rent->monthly.has_value());
  EXPECT_EQ(r.rent->monthly->entry->id, "a100-80gb-8gpu");
  ASSERT_TRUE(r.costs.has_value());
  std::set<std::string> ids;
  for (const auto& s : r.costs->strategies) ids.insert(s.id);
  EXPECT_EQ(ids, (std::set<std::string>{"buy", "rent_monthly", "rent_hourly", "hybrid"}));

  const std::string out = table(r);
  for (const char* needle :
       {"aliyun-ecs-gn7e-c16g1-4xlarge", "¥34.70 a GPU-hour", "(2024)", "--market", "No spot strategy",
        "a100-80gb-8gpu", "Buy priced at the catalog quote for 8 × a100-80gb-sxm"})
    EXPECT_TRUE(contains(out, needle)) << needle << "\n" << out;
  const std::string zh = table(r, report::Lang::kZh);
  EXPECT_TRUE(contains(zh, "没有竞价方案")) << zh;

  const json j = report::usage_json(r, report::Lang::kEn);
  EXPECT_EQ(j["rent_offer"]["basis"], "all");
  EXPECT_EQ(j["rent_offer"]["market"], "cn");
  EXPECT_TRUE(j["rent_offer"]["spot_per_gpu_hour_cny"].is_null());
  EXPECT_EQ(j["rent_offer"]["monthly_rent"]["id"], "a100-80gb-8gpu");
  EXPECT_EQ(j["owned"]["gpu"], "a100-80gb-sxm");
}

// --market global, hourly only: the US-dollar offers. RunPod 1 × PCIe US$1.39 (and 2 × at
// US$2.78, the same a GPU), Lambda 8 × US$22.32 = US$2.79, GCP 1 × US$2.94582, AWS 8 ×
// US$27.44705 = US$3.43, Azure. The cheapest is RunPod's 1-GPU offer, first of the two at
// US$1.39: US$1.39 × 7.12 (usd-cny, 2024-12) = ¥9.8968 a GPU-hour. RunPod lists no spot price.
TEST(UsageRentTest, TheGlobalMarketPricesTheCheapestUsOffer) {
  Options global;
  global.market = "global";
  global.rent = RentBasis::kHourly;
  const UsageResult r = analyse(nightly8(), global, default_catalog());
  ASSERT_TRUE(r.rent.has_value());
  EXPECT_EQ(r.rent->basis, "hourly");
  ASSERT_TRUE(r.rent->hourly.has_value());
  const CloudOfferPrice& o = *r.rent->hourly;
  EXPECT_EQ(o.entry->id, "runpod-1x-a100-80gb-secure");
  EXPECT_TRUE(o.cheapest);
  EXPECT_EQ(o.family, "a100-80gb");
  EXPECT_EQ(o.market, "global");
  EXPECT_EQ(o.listed_hour, 1.39);
  EXPECT_DOUBLE_EQ(o.gpu_hour_cny, 9.8968);
  ASSERT_TRUE(o.fx.has_value());
  EXPECT_EQ(o.fx->rate, 7.12);
  EXPECT_EQ(o.fx->as_of, "2024-12");
  EXPECT_FALSE(r.rent->monthly.has_value());

  const std::string out = table(r);
  for (const char* needle :
       {"runpod-1x-a100-80gb-secure", "RunPod", "US/EU/AP", "US$1.39", "¥9.90", "7.12", "2024-12", "--rent-offer"})
    EXPECT_TRUE(contains(out, needle)) << needle << "\n" << out;
  const std::string zh = table(r, report::Lang::kZh);
  EXPECT_TRUE(contains(zh, "按需报价里每 GPU 小时最便宜")) << zh;

  const json j = report::usage_json(r, report::Lang::kEn);
  const json& offer = j["rent_offer"];
  EXPECT_EQ(offer["basis"], "hourly");
  EXPECT_EQ(offer["id"], "runpod-1x-a100-80gb-secure");
  EXPECT_EQ(offer["provider"], "RunPod");
  EXPECT_EQ(offer["region"], "US/EU/AP");
  EXPECT_EQ(offer["gpu"], "a100-80gb-pcie");
  EXPECT_EQ(offer["cheapest"], true);
  EXPECT_EQ(offer["currency"], "USD");
  EXPECT_EQ(offer["per_instance_hour"], 1.39);
  EXPECT_EQ(offer["per_gpu_hour_cny"], 9.9);
  EXPECT_EQ(offer["fx"]["rate"], 7.12);
  EXPECT_EQ(offer["fx"]["as_of"], "2024-12");
  EXPECT_TRUE(offer["monthly_rent"].is_null());
}

// An offer that lists a spot price adds the spot strategy: AWS p4de.24xlarge in use1-az4 lists
// US$9.9734 an instance-hour spot = 9.9734 × 7.12 / 8 = ¥8.8763 a GPU-hour.
TEST(UsageRentTest, AnOfferWithASpotPriceAddsTheSpotStrategy) {
  Options o;
  o.rent_offer = "aws-p4de-24xlarge-us-east-1-use1-az4";
  const UsageResult r = analyse(nightly8(), o, default_catalog());
  ASSERT_TRUE(r.rent && r.rent->hourly && r.costs);
  ASSERT_TRUE(r.rent->hourly->spot_gpu_hour_cny.has_value());
  EXPECT_NEAR(*r.rent->hourly->spot_gpu_hour_cny, 9.9734 * 7.12 / 8, 1e-9);
  bool spot = false;
  for (const auto& s : r.costs->strategies) spot = spot || s.id == "spot";
  EXPECT_TRUE(spot);
  EXPECT_TRUE(contains(table(r), "Spot priced at aws-p4de-24xlarge-us-east-1-use1-az4's listed spot price: ¥8.88"))
      << table(r);
}

// A buyer's market without an offer for the GPU is an error naming --market and the offers.
TEST(UsageRentTest, AMarketWithoutAnOfferIsAnError) {
  const catalog::Catalog cat = testing::catalog_with({{"h100_offer.yaml", R"(kind: cloud_offer
entries:
  - {id: test-h100-us, name: "Test H100", provider: Test, instance: h1, gpu: h100-80gb-sxm, gpus: 1, region: x, currency: CNY, market: global, on_demand_hour: 50, source: "test", as_of: "2024"}
)"}});
  auto none = rent_offer_for("", "h100-80gb-sxm", "cn", cat);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().field, "--market");
  EXPECT_EQ(none.error().message.key, "error.usage.no_offer_in_market");
  EXPECT_EQ(*testing::fact_in(none.error().message, "valid"), "test-h100-us");
  EXPECT_TRUE(rent_offer_for("", "h100-80gb-sxm", "global", cat).ok());
}

// --rent-offer: Aliyun's ¥34.7 a GPU-hour, in CNY (no exchange rate). Renting on demand then
// costs ¥34.7 a used GPU-hour: nothing else is on the hourly bill here.
TEST(UsageRentTest, ARentOfferIsPricedAsChosen) {
  Options o;
  o.rent_offer = "aliyun-ecs-gn7e-c16g1-4xlarge";
  const UsageResult r = analyse(nightly8(), o, default_catalog());
  ASSERT_TRUE(r.rent && r.rent->hourly && r.costs);
  EXPECT_EQ(r.rent->hourly->entry->id, "aliyun-ecs-gn7e-c16g1-4xlarge");
  EXPECT_FALSE(r.rent->hourly->cheapest);
  EXPECT_FALSE(r.rent->hourly->fx.has_value());
  EXPECT_EQ(r.rent->hourly->gpu_hour_cny, 34.7);
  bool seen = false;
  for (const auto& s : r.costs->strategies)
    if (s.id == "rent_hourly") {
      seen = true;
      EXPECT_NEAR(s.per_used_gpu_hour, 34.7, 1e-9);
    }
  EXPECT_TRUE(seen);
  const std::string out = table(r);
  EXPECT_TRUE(contains(out, "¥34.7 ")) << out;
  EXPECT_TRUE(contains(out, "--rent-offer")) << out;
  EXPECT_TRUE(report::usage_json(r, report::Lang::kEn)["rent_offer"]["fx"].is_null());
}

TEST(UsageRentTest, AWrongRentOfferIsAnErrorListingTheValidOnes) {
  auto unknown = rent_offer_for("aws-p5", "a100-80gb-sxm", "cn", default_catalog());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().field, "--rent-offer");
  EXPECT_EQ(unknown.error().message.key, "error.usage.unknown_rent_offer");
  const std::string* valid = testing::fact_in(unknown.error().message, "valid");
  ASSERT_NE(valid, nullptr);
  EXPECT_TRUE(contains(*valid, "runpod-1x-a100-80gb-secure")) << *valid;
  EXPECT_TRUE(contains(*valid, "aliyun-ecs-gn7e-c16g1-4xlarge")) << *valid;

  // An offer for another GPU family: an H100 owner cannot price renting at an A100 offer.
  const catalog::Catalog cat = testing::catalog_with({{"h100_offer.yaml", R"(kind: cloud_offer
entries:
  - {id: test-h100-1x, name: "Test H100", provider: Test, instance: h1, gpu: h100-80gb-sxm, gpus: 1, region: x, currency: CNY, market: cn, on_demand_hour: 50, source: "test", as_of: "2024"}
)"}});
  auto other = rent_offer_for("runpod-1x-a100-80gb-secure", "h100-80gb-sxm", "cn", cat);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message.key, "error.usage.rent_offer_other_gpu");
  EXPECT_EQ(*testing::fact_in(other.error().message, "offer_gpu"), "a100-80gb-pcie");
  EXPECT_EQ(*testing::fact_in(other.error().message, "valid"), "test-h100-1x");
  EXPECT_TRUE(rent_offer_for("test-h100-1x", "h100-80gb-sxm", "cn", cat).ok());
}

// --rent monthly, 8 GPUs: the 8-GPU market class a100-80gb-8gpu, ¥12,000–15,000 a server-month
// [S0 §2.1] = ¥1,500–1,875 a GPU-month, midpoint ¥1,687.5. Against Aliyun's ¥34.7 a GPU-hour it
// is cheaper only above 1,687.5 / 34.7 = 48.63 held hours a GPU-month (a job running day and
// night for 2.0 days). Nightly peak: the held GPU-hours come from the profile, per GPU-month =
// Σ demand / (8 × hours / 730).
TEST(UsageRentTest, MonthlyRentIsTheMarketClassAndSaysWhyItChangesTheAnswer) {
  Options o;
  o.rent = RentBasis::kMonthly;
  const UsageResult r = analyse(nightly8(), o, default_catalog());
  ASSERT_TRUE(r.rent && r.rent->monthly && r.rent->hourly && r.costs);
  EXPECT_EQ(r.rent->basis, "monthly");
  const MonthlyRent& m = *r.rent->monthly;
  EXPECT_EQ(m.entry->id, "a100-80gb-8gpu");
  EXPECT_EQ(m.servers, 1);
  EXPECT_EQ(m.server_month.low, 12000);
  EXPECT_EQ(m.gpu_month.low, 1500);
  EXPECT_EQ(m.gpu_month.high, 1875);
  EXPECT_NEAR(m.breakeven_hours, 1687.5 / 34.7, 1e-9);
  double busy = 0;
  for (double d : r.demand) busy += d;
  EXPECT_NEAR(m.busy_hours, busy / (8.0 * r.hours / 730), 1e-9);
  EXPECT_GT(m.busy_hours, m.breakeven_hours);
  // Renting is now by the month only: buy against rent_monthly, no hourly offer to burst to.
  std::set<std::string> ids;
  for (const auto& s : r.costs->strategies) ids.insert(s.id);
  EXPECT_EQ(ids, (std::set<std::string>{"buy", "rent_monthly"}));
  for (const auto& s : r.costs->strategies)
    if (s.id == "rent_monthly") {
      EXPECT_NEAR(s.total, 8 * 1687.5 * 36, 1e-6);  // 8 GPUs × ¥1,687.5 × 36 months
    }
  const std::string out = table(r);
  EXPECT_TRUE(contains(out, "a100-80gb-8gpu")) << out;
  EXPECT_TRUE(contains(out, "49 busy hours")) << out;  // 48.63 printed whole
  EXPECT_TRUE(contains(out, "more than 2.0 days")) << out;
  EXPECT_TRUE(contains(out, testing::en("usage.rent.monthly_wins"))) << out;

  // A fleet held one hour a day is held 7 of 168 hours = 30.4 hours a GPU-month, fewer than
  // that: the report says hourly would cost less.
  telemetry::HourlyData daily;
  for (int g = 0; g < 8; ++g) daily.gpus.push_back("n/" + std::to_string(g));
  for (int64_t day = 0; day < 7; ++day)
    for (int64_t hour = 0; hour < 24; ++hour) {
      auto& row = daily.hours[475000 + day * 24 + hour];
      row.resize(8);
      for (auto& acc : row) {
        acc.count = acc.util_count = 1;
        acc.util_sum = hour == 9 ? 90 : 0;
        acc.util_held = hour == 9 ? 1 : 0;
      }
    }
  const UsageResult idle = analyse(daily, o, default_catalog());
  ASSERT_TRUE(idle.rent && idle.rent->monthly);
  EXPECT_NEAR(idle.rent->monthly->busy_hours, 7 * 8 / (8 * 168.0 / 730), 1e-9);
  EXPECT_LT(idle.rent->monthly->busy_hours, idle.rent->monthly->breakeven_hours);
  EXPECT_TRUE(contains(table(idle), testing::en("usage.rent.hourly_wins")));
  const json j = report::usage_json(r, report::Lang::kEn)["rent_offer"];
  EXPECT_EQ(j["basis"], "monthly");
  EXPECT_EQ(j["monthly_rent"]["id"], "a100-80gb-8gpu");
  EXPECT_EQ(j["monthly_rent"]["per_gpu_month"], json({{"low", 1500}, {"high", 1875}}));
}

// SXM A100s come mounted on the HGX board (purchase_unit_gpus 8): the owned unit is the board.
// PCIe cards are sold one by one.
TEST(UsageRentTest, TheHgxIsOwnedInWholeBoards) {
  Options hourly;
  hourly.rent = RentBasis::kHourly;
  const UsageResult sxm = analyse(synth_hours(SynthPattern::kSteady, 7, 8), hourly, default_catalog());
  EXPECT_EQ(sxm.unit_gpus, 8);
  EXPECT_EQ(sxm.platform, "hgx-a100-8gpu");
  ASSERT_EQ(sxm.recommendation, "buy");
  EXPECT_EQ(sxm.owned_gpus, 8);
  EXPECT_TRUE(contains(table(sxm), "owns 1 whole 8-GPU board")) << table(sxm);
  EXPECT_EQ(report::usage_json(sxm, report::Lang::kEn)["recommendation"]["unit_gpus"], 8);

  // A 4-GPU history is not half of an 8-GPU board: unless --gpu says so, owning it is priced as
  // four PCIe cards in a 4-GPU server, and renting by the month at the 4-GPU class
  // (¥7,000–12,000 a server-month [S0 §2.1]).
  const UsageResult four = analyse(synth_hours(SynthPattern::kSteady, 7, 4), Options{}, default_catalog());
  EXPECT_EQ(four.owned_gpu, "a100-80gb-pcie");
  EXPECT_TRUE(four.owned_gpu_chosen);
  EXPECT_EQ(four.unit_gpus, 1);
  EXPECT_EQ(four.platform, "server-4gpu-pcie");
  ASSERT_TRUE(four.rent && four.rent->monthly);
  EXPECT_EQ(four.rent->monthly->entry->id, "a100-80gb-4gpu");
  EXPECT_TRUE(contains(table(four), "not whole 8-GPU HGX boards")) << table(four);
  Options board;
  board.gpu = "a100-80gb-sxm";
  const UsageResult half = analyse(synth_hours(SynthPattern::kSteady, 7, 4), board, default_catalog());
  EXPECT_EQ(half.unit_gpus, 8);
  EXPECT_FALSE(half.owned_gpu_chosen);

  Options pcie;
  pcie.gpu = "a100-80gb-pcie";
  const UsageResult cards = analyse(synth_hours(SynthPattern::kSteady, 7, 8), pcie, default_catalog());
  EXPECT_EQ(cards.unit_gpus, 1);
  EXPECT_FALSE(contains(table(cards), "board")) << table(cards);
}

TEST(UsageRentTest, TheCliTakesRentAndRentOfferAndRefusesBadOnes) {
  const std::string csv = temp_dir() + "/n.csv";
  ASSERT_EQ(run_gpuplan("usage synth --pattern nightly-peak --gpus 8 --days 7 --interval 10min --output '" + csv + "'")
                .exit_code,
            0);
  const CliResult unknown = run_gpuplan("usage '" + csv + "' --rent-offer nope");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "--rent-offer")) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "runpod-1x-a100-80gb-secure")) << unknown.err;
  const CliResult h100 = run_gpuplan("usage '" + csv + "' --gpu h100-80gb-sxm --rent-offer runpod-1x-a100-80gb-secure");
  EXPECT_EQ(h100.exit_code, 2);
  EXPECT_TRUE(contains(h100.err, "h100-80gb-sxm")) << h100.err;
  const CliResult basis = run_gpuplan("usage '" + csv + "' --rent weekly");
  EXPECT_EQ(basis.exit_code, 2);
  EXPECT_TRUE(contains(basis.err, "monthly")) << basis.err;
  const CliResult both = run_gpuplan("usage '" + csv + "' --rent monthly --scenario '" +
                                     testing::source_path("examples/tco-dual-a100.yaml") + "'");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--rent")) << both.err;

  const CliResult monthly = run_gpuplan("usage '" + csv + "' --rent monthly --format json");
  ASSERT_EQ(monthly.exit_code, 0) << monthly.err;
  EXPECT_EQ(json::parse(monthly.out)["rent_offer"]["monthly_rent"]["id"], "a100-80gb-8gpu");
  const CliResult chosen =
      run_gpuplan("usage '" + csv + "' --rent-offer lambda-gpu-8x-a100-80gb-sxm4-us-east-1 --format json");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_EQ(json::parse(chosen.out)["rent_offer"]["id"], "lambda-gpu-8x-a100-80gb-sxm4-us-east-1");
}

TEST(UsageRentTest, TheReportIsDatedByTheCatalogPricesItWasCostedWith) {
  // The Aliyun offer is dated only "2024", read as 2024-01-01: to 2026-12-07 is 35 months, older
  // than the quote's and the market class's 2024-06 (30 months).
  UsageResult r = analyse(nightly8(), Options{}, default_catalog());
  date_prices(r, "2026-12-07", default_catalog());
  ASSERT_TRUE(r.price_age);
  EXPECT_EQ(r.price_age->kind, "cloud_offer");
  EXPECT_EQ(r.price_age->id, "aliyun-ecs-gn7e-c16g1-4xlarge");
  EXPECT_EQ(r.price_age->months, 35);
  EXPECT_TRUE(contains(table(r), "Prices as of 2024, 35 months before 2026-12-07"));
  EXPECT_TRUE(contains(table(r, report::Lang::kZh), "价格截至 2024（"));
  EXPECT_EQ(report::usage_json(r, report::Lang::kEn)["price_age"]["as_of"], "2024");

  // Priced at the monthly rent alone, the hourly offer is not used: the 2024-06 prices date it.
  Options monthly;
  monthly.rent = RentBasis::kMonthly;
  UsageResult m = analyse(nightly8(), monthly, default_catalog());
  date_prices(m, "2026-12-07", default_catalog());
  ASSERT_TRUE(m.price_age);
  EXPECT_EQ(m.price_age->as_of, "2024-06");
  EXPECT_EQ(m.price_age->months, 30);
}

}  // namespace
}  // namespace gpuplan::usage
