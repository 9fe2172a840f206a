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
