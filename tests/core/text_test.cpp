#include "core/text.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

TEST(TextTest, TrimTakesAsciiWhitespaceOffBothEnds) {
  EXPECT_EQ(trim(" \t\n\v\f\r12 GB \r\n"), "12 GB");  // inner space kept
  EXPECT_EQ(trim("  "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\xc2\xa0x\xc2\xa0"), "\xc2\xa0x\xc2\xa0");  // a UTF-8 no-break space is not ASCII whitespace
}

// An unknown id names the known ones: all of them up to 24, past that their count and where to
// find them (the list would bury the error).
TEST(TextTest, AnUnknownIdNamesTheKnownIds) {
  const Phrase few = unknown_id("gpu", "a800", {"a100-80gb-sxm", "h100-80gb-sxm"});
  ASSERT_NE(find_fact(few.facts, "known"), nullptr);
  const Phrase& listed = find_fact(few.facts, "known")->phrases.at(0);
  EXPECT_EQ(listed.key, "error.known_ids");
  EXPECT_EQ(*listed.value("ids"), "a100-80gb-sxm, h100-80gb-sxm");

  std::vector<std::string> many;
  for (int i = 0; i < 25; ++i) many.push_back("id-" + std::to_string(i));
  const Phrase over = unknown_id("cpu", "x", many);
  const Phrase& counted = find_fact(over.facts, "known")->phrases.at(0);
  EXPECT_EQ(counted.key, "error.known_ids_many");
  EXPECT_EQ(*counted.value("count"), "25");
  EXPECT_EQ(*counted.value("kind_id"), "cpu");
  EXPECT_EQ(find_fact(unknown_id("cpu", "x", {}).facts, "known"), nullptr);  // nothing known: nothing said
}

TEST(TextTest, TrimCharsTakesOnlyTheGivenSets) {
  EXPECT_EQ(trim_chars(" \tS0 §3\t ", " "), "\tS0 §3\t");
  EXPECT_EQ(trim_chars("\r 0x10de \r", " \t", " \t\r"), "\r 0x10de");  // front and back sets differ
  EXPECT_EQ(trim_chars("abc", ""), "abc");
}

TEST(TextTest, LowerOnlyChangesAsciiLetters) {
  EXPECT_EQ(lower("0000:C1:00.0 ÄB"), "0000:c1:00.0 Äb");
}

}  // namespace
}  // namespace gpuplan
