#include "core/money.h"

#include <gtest/gtest.h>

#include "core/range.h"

namespace gpuplan {
namespace {

TEST(MoneyTest, GroupsThousandsAndRoundsOnlyWhenPrinting) {
  EXPECT_EQ(format_number(1234567.8), "1,234,568");
  EXPECT_EQ(format_number(999.5), "1,000");
  EXPECT_EQ(format_number(-4915.2, 2), "-4,915.20");
  EXPECT_EQ(format_number(-0.001), "0");
}

TEST(MoneyTest, FiguresKeepOnlyTheDecimalsTheyHave) {
  EXPECT_EQ(format_figure(8, 1), "8");
  EXPECT_EQ(format_figure(2.5, 1), "2.5");
  EXPECT_EQ(format_figure(1850, 2), "1,850");
  EXPECT_EQ(format_figure(138.95, 2), "138.95");  // a benchmark figure as the tool printed it
  EXPECT_EQ(format_figure(138.9, 2), "138.9");
  EXPECT_EQ(format_figure(2.75, 1), "2.8");  // capped at max_decimals; 2.75 is exact, fmt rounds half to even
}

TEST(MoneyTest, FormatsCurrenciesAndRanges) {
  EXPECT_EQ(format_money(280000, "CNY"), "¥280,000");
  EXPECT_EQ(format_money(3.4309, "USD", 2), "US$3.43");
  EXPECT_EQ(format_money(12, "EUR"), "EUR 12");
  EXPECT_EQ(format_money_range({70000, 100000}, "CNY"), "¥70,000–100,000");
  EXPECT_EQ(format_money_range({800, 800}, "CNY"), "¥800");
  EXPECT_EQ(format_range({0.71, 0.83}, 2), "0.71–0.83");
}

TEST(MoneyTest, RangeArithmeticKeepsBothEnds) {
  Range card{70000, 100000};
  EXPECT_EQ(card * 8, (Range{560000, 800000}));  // 8 cards, [S0 §1]
  EXPECT_EQ(Range({12000, 15000}) * Range({0.71, 0.83}), (Range{12000 * 0.71, 15000 * 0.83}));
  EXPECT_EQ(Range({1, 2}) + Range({10, 20}), (Range{11, 22}));
  EXPECT_TRUE(Range({3000, 4500}).overlaps({4000, 6000}));
  EXPECT_FALSE(Range({3000, 4500}).overlaps({4501, 6000}));
}

TEST(MoneyTest, ExchangeRateConvertsWithItsDate) {
  ExchangeRate usd{"USD", "CNY", 7.12, "2024-12", "PBOC"};
  EXPECT_DOUBLE_EQ(usd.convert(3.4309), 3.4309 * 7.12);  // ≈ ¥24.43 per GPU-hour
  EXPECT_EQ(usd.convert(Range{1, 2}), (Range{7.12, 14.24}));
}

}  // namespace
}  // namespace gpuplan
