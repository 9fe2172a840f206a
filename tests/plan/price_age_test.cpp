// The age of a report's prices: the oldest catalog date among the entries that priced it,
// in whole months to the report's day, against threshold prices.max_age_months (6).
#include "plan/price_age.h"

#include <gtest/gtest.h>

#include "core/dates.h"
#include "plan/audit.h"
#include "plan/quote.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::findings_with_id;
using gpuplan::testing::quote_from;
using gpuplan::testing::source_path;

catalog::Entry dated(std::string kind, std::string id, std::string as_of) {
  catalog::Entry e;
  e.kind = std::move(kind);
  e.id = std::move(id);
  e.as_of = std::move(as_of);
  return e;
}

TEST(PriceAgeTest, TheOldestEntryDatesTheReport) {
  const catalog::Entry month = dated("gpu", "g", "2024-06");
  const catalog::Entry year = dated("market", "m", "2024");  // stands for 2024-01-01
  const catalog::Entry recent = dated("nic", "n", "2026-12");
  // Repeats and nulls are not entries of their own.
  auto age = price_age({&month, &month, nullptr, &year, &recent}, "2026-12-07", default_catalog());
  ASSERT_TRUE(age);
  EXPECT_EQ(age->as_of, "2024");
  EXPECT_EQ(age->kind, "market");
  EXPECT_EQ(age->id, "m");
  EXPECT_EQ(age->entries, 3);
  // 2024-01-01 to 2026-12-07: 2 years and 11 months = 35 whole months.
  EXPECT_EQ(age->months, 35);
  EXPECT_EQ(age->max_months, 6);
  EXPECT_TRUE(age->stale());
}

TEST(PriceAgeTest, SixMonthsIsWithinTheLimitAndSevenIsNot) {
  const catalog::Entry june = dated("gpu", "g", "2024-06");
  // 2024-06-01 to 2024-11-30: 5 whole months; to 2024-12-01: 6, the limit itself; to 2025-01-01: 7.
  EXPECT_EQ(price_age({&june}, "2024-11-30", default_catalog())->months, 5);
  auto at_limit = price_age({&june}, "2024-12-01", default_catalog());
  EXPECT_EQ(at_limit->months, 6);
  EXPECT_FALSE(at_limit->stale());
  EXPECT_FALSE(stale_prices(at_limit));
  auto past = price_age({&june}, "2025-01-01", default_catalog());
  EXPECT_EQ(past->months, 7);
  auto f = stale_prices(past);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->id, "prices.age");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_EQ(*f->find_fact("months"), "7");
  EXPECT_EQ(*f->find_fact("max"), "6");
  EXPECT_EQ(*f->find_fact("as_of"), "2024-06");
  EXPECT_EQ(*f->find_fact("today"), "2025-01-01");
}

TEST(PriceAgeTest, APriceDatedAfterTheReportIsNoneOld) {
  const catalog::Entry later = dated("gpu", "g", "2026-12");
  EXPECT_EQ(price_age({&later}, "2026-06-30", default_catalog())->months, 0);
}

TEST(PriceAgeTest, NothingPricedOrNoDateGivesNoAge) {
  EXPECT_FALSE(price_age({}, "2026-12-07", default_catalog()));
  const catalog::Entry june = dated("gpu", "g", "2024-06");
  EXPECT_FALSE(price_age({&june}, "", default_catalog()));  // an undated report (a library caller)
  EXPECT_FALSE(stale_prices(std::nullopt));
}

TEST(PriceAgeTest, AQuoteIsDatedByItsOldestPricedLine) {
  Quote q = quote_from("gpu: a100-80gb-sxm\ngpus: 8\n");
  date_prices(q, "2026-12-07", default_catalog());
  ASSERT_TRUE(q.price_age);
  // The A100 card's price is dated 2024-06 (the articles): 2024-06-01 to 2026-12-07 is 30 months.
  EXPECT_EQ(q.price_age->as_of, "2024-06");
  EXPECT_EQ(q.price_age->kind, "gpu");
  EXPECT_EQ(q.price_age->id, "a100-80gb-sxm");
  EXPECT_EQ(q.price_age->months, 30);
  auto f = findings_with_id(q.findings, "prices.age");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(*f[0].find_fact("months"), "30");

  // On 2024-09-15 the same prices are 3 months old: stated, no warning.
  Quote fresh = quote_from("gpu: a100-80gb-sxm\ngpus: 8\n");
  date_prices(fresh, "2024-09-15", default_catalog());
  EXPECT_EQ(fresh.price_age->months, 3);
  EXPECT_TRUE(findings_with_id(fresh.findings, "prices.age").empty());
}

TEST(PriceAgeTest, EveryPricedQuoteLineNamesTheEntriesItWasPricedFrom) {
  const Quote q = quote_from("gpu: a100-80gb-sxm\ngpus: 8\nnodes: 2\n");
  for (const QuoteLine& line : q.lines)
    if (line.buy.high > 0 || line.rent_monthly.high > 0) {
      EXPECT_FALSE(line.priced_by.empty()) << line.id;
    }
  // The whole-server rent is priced from the market class and the region.
  for (const QuoteLine& line : q.lines)
    if (line.id == "server-rent") {
      ASSERT_EQ(line.priced_by.size(), 2u);
      EXPECT_EQ(line.priced_by[0]->kind, "market");
      EXPECT_EQ(line.priced_by[1]->kind, "region");
    }
}

TEST(PriceAgeTest, AnAuditIsDatedByTheCatalogPricesItsLinesWereHeldAgainst) {
  auto vq = read_vendor_quote(source_path("examples/vendor-quote-padded.yaml"), default_catalog());
  ASSERT_TRUE(vq) << vq.error().message;
  AuditResult a = audit_quote(*vq, default_catalog());
  date_prices(a, "2026-12-07", default_catalog());
  ASSERT_TRUE(a.price_age);
  // Six lines name a catalog part (the service line names none); all are dated 2024-06.
  EXPECT_EQ(a.price_age->entries, 6);
  EXPECT_EQ(a.price_age->as_of, "2024-06");
  EXPECT_EQ(a.price_age->months, 30);
  EXPECT_EQ(findings_with_id(a.findings, "prices.age").size(), 1u);
  // The warning takes its place among the findings, heaviest first: after every fail, before
  // every info.
  bool seen_lighter = false;
  for (size_t i = 1; i < a.findings.size(); ++i) {
    EXPECT_FALSE(weighs_more(a.findings[i].severity, a.findings[i - 1].severity)) << a.findings[i].id;
    seen_lighter = seen_lighter || a.findings[i].severity != a.findings[i - 1].severity;
  }
  EXPECT_TRUE(seen_lighter);
}

}  // namespace
}  // namespace gpuplan::plan
