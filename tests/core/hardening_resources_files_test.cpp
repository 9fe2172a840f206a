// Whole-file reads and firmware hashing refuse what is not a regular file (issue 16): a FIFO with
// no writer (used to hang six verbs), /dev/zero (read until bad_alloc; hashed forever as
// --firmware), a directory; and every whole read is capped.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "core/files.h"
#include "core/sha256.h"
#include "test_support.h"

namespace gpuplan {
namespace {

using gpuplan::testing::fact_in;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

std::string fifo() {
  const std::string path = temp_dir() + "/pipe";
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

// The Error of a refused non-regular file: names it, and says what it is.
void expect_not_regular(const Error& e, const std::string& path, const std::string& kind) {
  EXPECT_EQ(e.file, path);
  EXPECT_EQ(e.message.key, "error.file.not_regular");
  EXPECT_NE(testing::english(e.message).find(kind), std::string::npos) << testing::english(e.message);
}

TEST(HardeningResourcesFiles, ReadingAFifoWithoutAWriterIsRefusedNotWaitedOn) {
  const std::string path = fifo();
  auto text = read_text_file(path);
  ASSERT_FALSE(text.ok());
  expect_not_regular(text.error(), path, "FIFO");
}

TEST(HardeningResourcesFiles, ReadingDevZeroIsRefused) {
  auto text = read_text_file("/dev/zero");
  ASSERT_FALSE(text.ok());
  expect_not_regular(text.error(), "/dev/zero", "character device");
}

TEST(HardeningResourcesFiles, ReadingADirectoryIsRefused) {
  const std::string dir = temp_dir();
  auto text = read_text_file(dir);
  ASSERT_FALSE(text.ok());
  expect_not_regular(text.error(), dir, "directory");
}

TEST(HardeningResourcesFiles, AFileLargerThanTheCapIsRefusedAndOneAtTheCapIsRead) {
  const std::string dir = temp_dir();
  const std::string at_cap = write_file(dir, "a.yaml", std::string(4096, 'a'));
  const std::string over = write_file(dir, "b.yaml", std::string(4097, 'b'));
  auto ok = read_text_file(at_cap, 4096);
  ASSERT_TRUE(ok.ok()) << ok.error().str();
  EXPECT_EQ(ok->size(), 4096u);
  auto big = read_text_file(over, 4096);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().file, over);
  EXPECT_EQ(big.error().message.key, "error.file.too_large");
}

TEST(HardeningResourcesFiles, AFileWithoutASizeIsReadToItsEnd) {
  // /proc files report size 0 yet hold text: read to the end, not to the size at open.
  auto text = read_text_file("/proc/self/status");
  ASSERT_TRUE(text.ok()) << text.error().str();
  EXPECT_NE(text->find("Name:"), std::string::npos);
}

TEST(HardeningResourcesFiles, HashingDevZeroOrAFifoIsRefusedNotEndless) {
  auto zero = sha256_file("/dev/zero");
  ASSERT_FALSE(zero.ok());
  expect_not_regular(zero.error(), "/dev/zero", "character device");
  const std::string path = fifo();
  auto pipe = sha256_file(path);
  ASSERT_FALSE(pipe.ok());
  expect_not_regular(pipe.error(), path, "FIFO");
}

TEST(HardeningResourcesFiles, ARegularFileIsHashedWhole) {
  // 200,000 bytes: more than one 64 KiB read; the digest of the same bytes in memory agrees, and
  // sha256("abc") is FIPS 180-2's example digest.
  const std::string dir = temp_dir();
  const std::string bytes(200'000, 'x');
  auto hash = sha256_file(write_file(dir, "fw.bin", bytes));
  ASSERT_TRUE(hash.ok()) << hash.error().str();
  EXPECT_EQ(*hash, sha256_hex(bytes));
  auto abc = sha256_file(write_file(dir, "abc", "abc"));
  ASSERT_TRUE(abc.ok());
  EXPECT_EQ(*abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace gpuplan
