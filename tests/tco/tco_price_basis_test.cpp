// tco names the basis of every price it costs with (issue 27): the scenario's own line, a quote
// config, a catalog entry with its source and date, or "not stated" for a cost counted as 0.
// Catalog figures used below: threshold electricity.price_kwh 0.8, pue [1.25, 1.6],
// power.server_factor 1.8, used.card_fraction [0.3, 0.5], egress.price_gb 0.8; gpu
// a100-80gb-sxm tdp_w 400, buy [70,000, 100,000]; cloud_offer aws-p4de-24xlarge-us-east-1-use1-az4
// 8 GPUs at US$27.44705 an hour, spot US$9.9734; fx USD→CNY 7.12.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/render.h"
#include "report/tco_render.h"
#include "tco/tco.h"
#include "test_support.h"

namespace gpuplan::tco {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::source_path;

Scenario parse(const std::string& text, const std::string& file = "s.yaml") {
  auto s = parse_scenario(text, file, default_catalog());
  if (!s) throw std::runtime_error(s.error().str());
  return *s;
}

const PriceBasis& basis(const Scenario& s, const std::string& field) {
  for (const auto& p : s.prices)
    if (p.field == field) return p;
  throw std::runtime_error("no basis for " + field);
}

bool has_basis(const Scenario& s, const std::string& field) {
  for (const auto& p : s.prices)
    if (p.field == field) return true;
  return false;
}

const char* kStated =
    "horizon: 36 months\n"                     // line 1
    "owned:\n"                                 // 2
    "  gpus: 2\n"                              // 3
    "  price: 780000\n"                        // 4
    "  residual: 0\n"                          // 5
    "  power_kw: 1.5\n"                        // 6
    "  rack_monthly: 800\n"                    // 7
    "rent:\n"                                  // 8
    "  on_demand_gpu_hour: 12.8\n"             // 9
    "  monthly_server: [24000, 36000]\n"       // 10
    "  gpus_per_server: 8\n"                   // 11
    "  source: \"Aliyun list price, 2024\"\n"  // 12
    "demand: {utilization: 50%}\n";            // 13

TEST(TcoPriceBasisTest, StatedPricesNameTheirLine) {
  const Scenario s = parse(kStated);
  const PriceBasis& price = basis(s, "owned.price");
  EXPECT_EQ(price.from, "scenario");
  EXPECT_EQ(price.where, "s.yaml:4");
  EXPECT_EQ(price.value, Range::point(780000));
  EXPECT_EQ(price.unit, "cny");
  EXPECT_EQ(basis(s, "owned.residual").where, "s.yaml:5");
  EXPECT_EQ(basis(s, "owned.power_kw").where, "s.yaml:6");
  EXPECT_EQ(basis(s, "owned.rack_monthly").where, "s.yaml:7");
  EXPECT_EQ(basis(s, "owned.rack_monthly").value, Range::point(800));

  const PriceBasis& hourly = basis(s, "rent.on_demand_gpu_hour");
  EXPECT_EQ(hourly.where, "s.yaml:9");
  EXPECT_EQ(hourly.source, "Aliyun list price, 2024");
  EXPECT_EQ(hourly.unit, "cny_gpu_hour");
  // ¥24,000–36,000 a server of 8 GPUs: ¥3,000–4,500 a GPU-month.
  const PriceBasis& monthly = basis(s, "rent.monthly_gpu");
  EXPECT_EQ(monthly.where, "s.yaml:10");
  EXPECT_EQ(monthly.stated_as, "rent.monthly_server");
  EXPECT_EQ(monthly.gpus_per_server, 8);
  EXPECT_EQ(monthly.value, (Range{3000, 4500}));
  EXPECT_FALSE(has_basis(s, "rent.spot_gpu_hour"));
  EXPECT_FALSE(has_basis(s, "rent.spot_overhead"));  // only beside a spot price
}

TEST(TcoPriceBasisTest, UnstatedFiguresNameTheCatalogOrSayZero) {
  const Scenario s = parse(kStated);
  const PriceBasis& electricity = basis(s, "owned.electricity_per_kwh");
  EXPECT_EQ(electricity.from, "catalog");
  ASSERT_NE(electricity.entry, nullptr);
  EXPECT_EQ(electricity.entry->id, "electricity.price_kwh");
  EXPECT_EQ(electricity.entry->as_of, "2024-06");
  EXPECT_EQ(electricity.value, Range::point(0.8));
  EXPECT_EQ(basis(s, "owned.pue").value, (Range{1.25, 1.6}));
  EXPECT_EQ(basis(s, "owned.pue").entry->id, "pue");
  const PriceBasis& staff = basis(s, "owned.staff_monthly");
  EXPECT_EQ(staff.from, "default");
  EXPECT_EQ(staff.value, Range::point(0));
  EXPECT_EQ(staff.entry, nullptr);
  // Nothing is moved, so no transfer price is named.
  EXPECT_FALSE(has_basis(s, "transfer.egress_price_gb"));
}

// The offer lists US$27.44705 an hour for 8 GPUs: 27.44705 × 7.12 / 8 = ¥24.4278745 a GPU-hour;
// spot US$9.9734: 9.9734 × 7.12 / 8 = ¥8.876326.
TEST(TcoPriceBasisTest, ACloudOfferNamesItsEntryAndExchangeRate) {
  const Scenario s = parse(
      "horizon: 12 months\n"
      "owned: {gpus: 8, price: 1000000, power_kw: 6}\n"
      "rent: {cloud_offer: aws-p4de-24xlarge-us-east-1-use1-az4}\n"
      "demand: {utilization: 50%}\n");
  const PriceBasis& hourly = basis(s, "rent.on_demand_gpu_hour");
  EXPECT_EQ(hourly.from, "catalog");
  ASSERT_NE(hourly.entry, nullptr);
  EXPECT_EQ(hourly.entry->id, "aws-p4de-24xlarge-us-east-1-use1-az4");
  EXPECT_EQ(hourly.stated_as, "on_demand_hour");
  EXPECT_EQ(hourly.gpus_per_server, 8);
  EXPECT_NEAR(hourly.value.mid(), 24.4278745, 1e-9);
  ASSERT_TRUE(hourly.fx.has_value());
  EXPECT_EQ(hourly.fx->from, "USD");
  EXPECT_DOUBLE_EQ(hourly.fx->rate, 7.12);
  const PriceBasis& spot = basis(s, "rent.spot_gpu_hour");
  EXPECT_NEAR(spot.value.mid(), 8.876326, 1e-9);
  EXPECT_EQ(spot.stated_as, "spot_hour");
  EXPECT_EQ(basis(s, "rent.spot_overhead").from, "default");
}

// No config and no power_kw: 8 × 400 W × 1.8 = 5,760 W = 5.76 kW, from the GPU's TDP.
// The default residual is the used-card band on the cards: min(¥1,000,000, 8 × ¥85,000) =
// ¥680,000 × [0.3, 0.5] = ¥204,000–340,000.
TEST(TcoPriceBasisTest, PowerFromTheGpuAndResaleFromTheCatalogBand) {
  const Scenario s = parse(
      "horizon: 36 months\n"
      "owned: {gpus: 8, price: 1000000, gpu: a100-80gb-sxm}\n"
      "rent: {on_demand_gpu_hour: 34.7}\n"
      "demand: {utilization: 50%}\n");
  const PriceBasis& power = basis(s, "owned.power_kw");
  EXPECT_EQ(power.from, "gpu_tdp");
  EXPECT_EQ(power.entry->id, "a100-80gb-sxm");
  EXPECT_EQ(power.where, "8 × 400 W × 1.8");
  EXPECT_NEAR(power.value.mid(), 5.76, 1e-12);
  const PriceBasis& residual = basis(s, "owned.residual");
  EXPECT_EQ(residual.from, "resale");
  EXPECT_EQ(residual.entry->id, "used.card_fraction");
  EXPECT_NEAR(residual.value.low, 204000, 1e-6);
  EXPECT_NEAR(residual.value.high, 340000, 1e-6);
}

// 48 months outlast the 36-month life (term.years 3): the band no longer applies, residual ¥0.
TEST(TcoPriceBasisTest, PastTheServiceLifeTheResidualIsNothing) {
  const Scenario s = parse(
      "horizon: 48 months\n"
      "owned: {gpus: 8, price: 1000000, gpu: a100-80gb-sxm}\n"
      "rent: {on_demand_gpu_hour: 34.7}\n"
      "demand: {utilization: 50%}\n");
  EXPECT_EQ(basis(s, "owned.residual").from, "past_life");
  EXPECT_EQ(basis(s, "owned.residual").value, Range::point(0));
}

// Book value over a 60-month life at 36 months: ¥1,000,000 × (1 − 36/60) = ¥400,000.
TEST(TcoPriceBasisTest, ABookValueIsWorkedOutOnceTheHorizonIsKnown) {
  const Scenario s = parse(
      "horizon: 36 months\n"
      "owned: {gpus: 8, price: 1000000, power_kw: 6, residual: book, life: 60 months}\n"
      "rent: {on_demand_gpu_hour: 34.7}\n"
      "demand: {utilization: 50%}\n");
  const PriceBasis& residual = basis(s, "owned.residual");
  EXPECT_EQ(residual.from, "book");
  EXPECT_EQ(residual.where, "s.yaml:2");
  EXPECT_NEAR(residual.value.mid(), 400000, 1e-6);
}

TEST(TcoPriceBasisTest, AConfigNamesItsQuote) {
  const std::string file = source_path("examples/price-basis.yaml");
  const Scenario s = parse(
      "horizon: 36 months\n"
      "owned: {config: a100-8gpu-training.yaml}\n"
      "rent: {on_demand_gpu_hour: 34.7}\n"
      "demand: {utilization: 50%}\n",
      file);
  const PriceBasis& price = basis(s, "owned.price");
  EXPECT_EQ(price.from, "config");
  EXPECT_EQ(price.where, source_path("examples/a100-8gpu-training.yaml"));
  EXPECT_EQ(price.value, s.owned.purchase);
  EXPECT_EQ(basis(s, "owned.power_kw").from, "config");
}

// Egress is named once data moves, from the catalog when not stated; ingress stated at line 5.
TEST(TcoPriceBasisTest, TransferPricesAreNamedWhenDataMoves) {
  const Scenario s = parse(
      "horizon: 12 months\n"
      "owned: {gpus: 8, price: 1000000, power_kw: 6}\n"
      "rent: {on_demand_gpu_hour: 34.7}\n"
      "transfer:\n"
      "  ingress_price_gb: 0.1\n"
      "  egress_per_month: 500\n"
      "demand: {utilization: 50%}\n");
  const PriceBasis& egress = basis(s, "transfer.egress_price_gb");
  EXPECT_EQ(egress.from, "catalog");
  EXPECT_EQ(egress.entry->id, "egress.price_gb");
  EXPECT_EQ(egress.value, Range::point(0.8));
  EXPECT_EQ(basis(s, "transfer.ingress_price_gb").where, "s.yaml:5");
  EXPECT_FALSE(has_basis(s, "transfer.storage_price_gb_month"));
}

TEST(TcoPriceBasisTest, TheReportAndJsonNameEveryPrice) {
  const TcoResult r = analyse(parse(kStated), default_catalog());
  ASSERT_EQ(r.prices.size(), 12u);  // 10 owned figures, then on demand and monthly
  const std::string table = report::render_tco(r, report::Format::kTable, {});
  EXPECT_NE(table.find("Prices and figures used, with their basis"), std::string::npos);
  EXPECT_NE(table.find("stated at s.yaml:9; source: Aliyun list price, 2024"), std::string::npos);
  EXPECT_NE(table.find("¥3,000–4,500 a GPU-month"), std::string::npos);
  EXPECT_NE(table.find("stated at s.yaml:10; rent.monthly_server ÷ 8 GPUs"), std::string::npos);
  EXPECT_NE(table.find("not stated: counted as 0"), std::string::npos);

  report::Style zh;
  zh.lang = report::Lang::kZh;
  const std::string zh_table = report::render_tco(r, report::Format::kTable, zh);
  EXPECT_NE(zh_table.find("所用价格与参数及其依据"), std::string::npos);
  EXPECT_NE(zh_table.find("场景文件 s.yaml:4 中填写"), std::string::npos);
  EXPECT_NE(zh_table.find("未填写：按 0 计"), std::string::npos);

  const auto j = nlohmann::json::parse(report::render_tco(r, report::Format::kJson, {}));
  ASSERT_EQ(j["prices"].size(), 12u);
  const auto& monthly = j["prices"][11];
  EXPECT_EQ(monthly["field"], "rent.monthly_gpu");
  EXPECT_EQ(monthly["value"]["low"], 3000);
  EXPECT_EQ(monthly["value"]["high"], 4500);
  EXPECT_EQ(monthly["from"], "scenario");
  EXPECT_EQ(monthly["where"], "s.yaml:10");
  EXPECT_EQ(monthly["stated_as"], "rent.monthly_server");
  EXPECT_EQ(monthly["gpus_per_server"], 8);
  EXPECT_TRUE(monthly["catalog"].is_null());
  EXPECT_TRUE(monthly["fx"].is_null());
  const auto& electricity = j["prices"][4];
  EXPECT_EQ(electricity["field"], "owned.electricity_per_kwh");
  EXPECT_EQ(electricity["catalog"]["id"], "electricity.price_kwh");
  EXPECT_EQ(electricity["catalog"]["as_of"], "2024-06");
  EXPECT_TRUE(electricity["where"].is_null());
}

TEST(TcoPriceBasisTest, AnOfferInDollarsSaysItsRate) {
  const TcoResult r = analyse(parse("horizon: 12 months\n"
                                    "owned: {gpus: 8, price: 1000000, power_kw: 6}\n"
                                    "rent: {cloud_offer: aws-p4de-24xlarge-us-east-1-use1-az4}\n"
                                    "demand: {utilization: 50%}\n"),
                              default_catalog());
  const std::string table = report::render_tco(r, report::Format::kTable, {});
  EXPECT_NE(table.find("¥24.43 a GPU-hour"), std::string::npos);
  EXPECT_NE(table.find("on_demand_hour ÷ 8 GPUs; at 1 USD = ¥7.12 (as of 2024-12)"), std::string::npos);
}

TEST(TcoPriceBasisTest, TheReportIsDatedByItsCatalogPricesOnly) {
  // Every price stated but the electricity, which is the catalog's (threshold
  // electricity.price_kwh, 2024-06): 2024-06-01 to 2026-12-07 is 30 months. The PUE also comes
  // from the catalog but is a ratio, not a price.
  TcoResult stated = analyse(parse(kStated), default_catalog());
  date_prices(stated, "2026-12-07", default_catalog());
  ASSERT_TRUE(stated.price_age);
  EXPECT_EQ(stated.price_age->kind, "threshold");
  EXPECT_EQ(stated.price_age->id, "electricity.price_kwh");
  EXPECT_EQ(stated.price_age->months, 30);

  // Renting at a catalog cloud offer dated only "2024" (read as 2024-01-01): 35 months, older.
  TcoResult offered = analyse(parse("horizon: 36 months\n"
                                    "owned: {gpus: 8, price: 780000, residual: 0, power_kw: 6, rack_monthly: 800}\n"
                                    "rent: {cloud_offer: aws-p4de-24xlarge-us-east-1-use1-az4}\n"
                                    "demand: {utilization: 50%}\n"),
                              default_catalog());
  date_prices(offered, "2026-12-07", default_catalog());
  ASSERT_TRUE(offered.price_age);
  EXPECT_EQ(offered.price_age->kind, "cloud_offer");
  EXPECT_EQ(offered.price_age->as_of, "2024");
  EXPECT_EQ(offered.price_age->months, 35);
  const nlohmann::json j = report::tco_json(offered, report::Lang::kEn);
  EXPECT_EQ(j["price_age"]["months"], 35);
  EXPECT_EQ(j["price_age"]["stale"], true);
  EXPECT_NE(
      report::render_tco(offered, report::Format::kTable, {}).find("Prices as of 2024, 35 months before 2026-12-07"),
      std::string::npos);
}

}  // namespace
}  // namespace gpuplan::tco
