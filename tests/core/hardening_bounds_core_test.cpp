// Issue 16, item 2: core/bounds.h's checks and YamlReader's shape check, called directly. The
// expected phrases are the checks' documented outcomes for values chosen at each edge.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/bounds.h"
#include "core/yaml_reader.h"

namespace gpuplan {
namespace {

TEST(HardeningBoundsCore, AmountsAreFiniteNonNegativeAndAtMostTheLimit) {
  EXPECT_FALSE(bounds::amount(0, "0"));
  EXPECT_FALSE(bounds::amount(1e12, "1e12"));  // the limit itself is allowed
  EXPECT_EQ(bounds::amount(1.0000001e12, "x")->key, "error.yaml.implausible");
  EXPECT_EQ(bounds::amount(-0.5, "x")->key, "error.yaml.negative");
  EXPECT_EQ(bounds::amount(std::nan(""), "x")->key, "error.yaml.not_finite");
  EXPECT_EQ(bounds::amount(std::numeric_limits<double>::infinity(), "x")->key, "error.yaml.not_finite");
  EXPECT_EQ(bounds::positive(0, "0")->key, "cli.value.above");
  EXPECT_FALSE(bounds::positive(0.001, "0.001"));
}

TEST(HardeningBoundsCore, CountsAreWholeAndWithinTheirRange) {
  EXPECT_FALSE(bounds::count(1, 1, "1"));
  EXPECT_FALSE(bounds::count(100000, 1, "100000"));
  EXPECT_EQ(bounds::count(100001, 1, "x")->key, "error.yaml.implausible");
  EXPECT_EQ(bounds::count(0, 1, "x")->key, "error.yaml.below_min");
  EXPECT_EQ(bounds::count(1.5, 1, "x")->key, "error.yaml.not_whole");
  EXPECT_EQ(bounds::count(std::nan(""), 1, "x")->key, "error.yaml.not_finite");
  const auto flag = bounds::flag_count("--nodes", 300000000LL, 1);
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.error().field, "--nodes");
  EXPECT_FALSE(bounds::between(std::nan(""), 0, 1, "nan", "k", "0", "1") == std::nullopt);
}

TEST(HardeningBoundsCore, MoneyTotalsMustBeFiniteAndNotNegative) {
  EXPECT_TRUE(bounds::sane_money(Range{0, 1e17}));
  EXPECT_FALSE(bounds::sane_money(Range{-1, 5}));
  EXPECT_FALSE(bounds::sane_money(Range{0, std::numeric_limits<double>::infinity()}));
  EXPECT_FALSE(bounds::sane_money(std::nan("")));
}

TEST(HardeningBoundsCore, YamlShapeFindsRepeatedKeysSecondDocumentsAndAliases) {
  EXPECT_FALSE(yaml_shape_problem("a: 1\nb: {a: 2, c: [1, 1]}\n", false));
  auto dup = yaml_shape_problem("a: 1\nb:\n  c: 1\n  c: 2\n", true);
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->line, 4);
  EXPECT_EQ(dup->field, "b.c");
  EXPECT_EQ(dup->message.key, "error.yaml.duplicate_key");
  auto second = yaml_shape_problem("a: 1\n---\nb: 2\n", true);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->message.key, "error.yaml.second_document");
  EXPECT_FALSE(yaml_shape_problem("a: &x 1\nb: *x\n", true));
  auto alias = yaml_shape_problem("a: &x 1\nb: *x\n", false);
  ASSERT_TRUE(alias);
  EXPECT_EQ(alias->line, 1);
  EXPECT_EQ(alias->message.key, "error.yaml.alias");
  // The same key in two different mappings is no repeat.
  EXPECT_FALSE(yaml_shape_problem("- {a: 1}\n- {a: 2}\n", true));
}

TEST(HardeningBoundsCore, YamlReaderRefusesARepeatedKeyNamingItsLine) {
  YamlReader r("c.yaml");
  try {
    (void)r.load("gpus: 8\nnodes: 1\ngpus: 4\n");
    FAIL() << "a repeated key was read";
  } catch (const ParseFailure& f) {
    EXPECT_EQ(f.error.file, "c.yaml");
    EXPECT_EQ(f.error.line, 3);
    EXPECT_EQ(f.error.field, "gpus");
  }
}

}  // namespace
}  // namespace gpuplan
