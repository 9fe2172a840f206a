// HostFs against a fixture host and against small trees built here: link resolution inside the
// root (relative, absolute, climbing out, loops), reads, listings and what gets remembered.
#include "probe/host_fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

namespace fs = std::filesystem;
using gpuplan::testing::source_path;

using Tree = gpuplan::testing::HostTree;

const std::string kHgx = source_path("tests/fixtures/hosts/hgx-a100-8gpu");
const std::string kGpu0 = "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0";

TEST(HostFsTest, RealPutsHostPathsUnderTheRoot) {
  EXPECT_EQ(HostFs("/srv/snap/").real("/sys/bus/pci"), "/srv/snap/sys/bus/pci");
  EXPECT_EQ(HostFs("/srv/snap").real("proc/cmdline"), "/srv/snap/proc/cmdline");
  EXPECT_EQ(HostFs("/").real("/proc/cmdline"), "/proc/cmdline");
  EXPECT_EQ(HostFs("").root(), "/");
}

TEST(HostFsTest, RelativeSysfsLinkResolvesToTheDeviceDirectory) {
  HostFs host(kHgx);
  EXPECT_EQ(host.resolve("/sys/bus/pci/devices/0000:03:00.0"), kGpu0);
  // A path through a link, and a link inside a directory reached through a link.
  EXPECT_EQ(host.resolve("/sys/bus/pci/devices/0000:03:00.0/vendor"), kGpu0 + "/vendor");
  EXPECT_EQ(host.resolve("/sys/bus/pci/devices/0000:03:00.0/driver"), "/sys/bus/pci/drivers/nvidia");
  EXPECT_EQ(host.resolve("/sys/class/infiniband/mlx5_0/device"),
            "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:02.0/0000:05:00.0");
  // A plain directory resolves to itself, "." and ".." are walked.
  EXPECT_EQ(host.resolve("/sys/bus/pci/./devices/../devices"), "/sys/bus/pci/devices");
  EXPECT_EQ(host.resolve("/"), "/");
}

TEST(HostFsTest, ReadsThroughLinksAndRemembersTheResolvedFile) {
  HostFs host(kHgx);
  EXPECT_EQ(host.read("/sys/bus/pci/devices/0000:03:00.0/vendor"), "0x10de\n");
  EXPECT_EQ(host.read_line("/sys/bus/pci/devices/0000:03:00.0/device"), "0x20b2");
  EXPECT_EQ(host.files_read(), (std::vector<std::string>{kGpu0 + "/vendor", kGpu0 + "/device"}));
  ASSERT_EQ(host.links_followed().size(), 1u);
  EXPECT_EQ(host.links_followed()[0].first, "/sys/bus/pci/devices/0000:03:00.0");
  EXPECT_EQ(host.links_followed()[0].second,
            "../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0");
}

TEST(HostFsTest, FilesReadAreRecordedOnceInFirstReadOrderAndFailuresAreNot) {
  Tree t;
  t.file("/a", "1\n");
  t.file("/b", "2\n");
  HostFs host(t.root());
  host.read("/b");
  host.read_line("/a");
  host.read("/b");
  host.read("/missing");
  host.list("/");
  host.exists("/a");
  EXPECT_EQ(host.files_read(), (std::vector<std::string>{"/b", "/a"}));
}

TEST(HostFsTest, AbsoluteLinkIsFollowedInsideTheRootNotOnTheMachine) {
  Tree t;
  t.file("/etc/hostname", "inside-the-snapshot\n");
  t.link("/sys/class/net/name", "/etc/hostname");
  HostFs host(t.root());
  EXPECT_EQ(host.resolve("/sys/class/net/name"), "/etc/hostname");
  EXPECT_EQ(host.read_line("/sys/class/net/name"), "inside-the-snapshot");
}

TEST(HostFsTest, RelativeLinkClimbingAboveTheRootReadsAsMissing) {
  Tree t;
  // Enough ".." to leave any temporary directory: on the real machine this would be /etc/hostname.
  // The root has one too, so a walk that stopped at the root instead of refusing would find it.
  t.file("/etc/hostname", "inside\n");
  t.link("/sys/escape", "../../../../../../../../../../../../etc/hostname");
  t.link("/sys/escape_dir", "../../../../../../../../../../../../etc");
  HostFs host(t.root());
  EXPECT_EQ(host.resolve("/sys/escape"), std::nullopt);
  EXPECT_EQ(host.read("/sys/escape"), std::nullopt);
  EXPECT_FALSE(host.exists("/sys/escape"));
  EXPECT_TRUE(host.list("/sys/escape_dir").empty());
  EXPECT_EQ(host.resolve("/../etc"), std::nullopt);
  EXPECT_TRUE(host.files_read().empty());
}

TEST(HostFsTest, LinkLoopReadsAsMissing) {
  Tree t;
  t.link("/a", "b");
  t.link("/b", "a");
  t.link("/self", "self");
  HostFs host(t.root());
  EXPECT_EQ(host.resolve("/a"), std::nullopt);
  EXPECT_EQ(host.read("/self"), std::nullopt);
}

TEST(HostFsTest, DanglingLinkAndMissingFileReadAsMissing) {
  Tree t;
  t.link("/sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
  HostFs host(t.root());
  EXPECT_EQ(host.resolve("/sys/bus/pci/devices/0000:01:00.0"), std::nullopt);
  EXPECT_EQ(host.read("/sys/bus/pci/devices/0000:01:00.0/vendor"), std::nullopt);
  EXPECT_EQ(host.read_line("/proc/cmdline"), std::nullopt);
  EXPECT_FALSE(host.exists("/proc"));
}

TEST(HostFsTest, AFileIsNotADirectory) {
  Tree t;
  t.file("/etc/hostname", "h\n");
  HostFs host(t.root());
  EXPECT_EQ(host.resolve("/etc/hostname/x"), std::nullopt);
  EXPECT_EQ(host.read("/etc/hostname/x"), std::nullopt);
  EXPECT_TRUE(host.list("/etc/hostname").empty());
}

TEST(HostFsTest, OnlyRegularFilesAreRead) {
  Tree t;
  t.file("/sys/dir/x", "x\n");
  ASSERT_EQ(::mkfifo((t.root() + "/fifo").c_str(), 0600), 0);
  HostFs host(t.root());
  EXPECT_EQ(host.read("/sys/dir"), std::nullopt);
  EXPECT_EQ(host.read("/fifo"), std::nullopt);  // without O_NONBLOCK this would wait for a writer
  EXPECT_TRUE(host.exists("/fifo"));
}

TEST(HostFsTest, AFileLargerThan256MibReadsAsMissing) {
  // A sparse file (no disk blocks) of 256 MiB + 1 byte: its size alone is refused, at once.
  Tree t;
  t.file("/var/huge.img", "");
  fs::resize_file(t.root() + "/var/huge.img", (uintmax_t{256} << 20) + 1);
  HostFs host(t.root());
  EXPECT_EQ(HostFs::kMaxReadBytes, 268'435'456u);  // 256 × 1,048,576
  EXPECT_EQ(host.read("/var/huge.img"), std::nullopt);
  EXPECT_EQ(host.read_line("/var/huge.img"), std::nullopt);
  EXPECT_TRUE(host.exists("/var/huge.img"));
  EXPECT_TRUE(host.files_read().empty());
}

TEST(HostFsTest, TheCapIsInclusive) {
  Tree t;
  t.file("/ten", "0123456789");
  t.file("/eleven", "0123456789A");
  HostFs host(t.root(), 10);
  EXPECT_EQ(host.read("/ten"), "0123456789");
  EXPECT_EQ(host.read("/eleven"), std::nullopt);
  EXPECT_EQ(host.files_read(), (std::vector<std::string>{"/ten"}));
}

TEST(HostFsTest, AFileWhoseSizeSaysZeroIsCappedByWhatItYields) {
  // procfs reports size 0 for /proc/self/status, which holds some hundred bytes ("Name:\t...",
  // "Pid:\t..." and more): past a 16-byte cap it reads as missing, under the default it reads.
  struct stat st {};
  if (::stat("/proc/self/status", &st) != 0 || st.st_size != 0) GTEST_SKIP() << "no procfs here";
  HostFs capped("/", 16);
  EXPECT_EQ(capped.read("/proc/self/status"), std::nullopt);
  auto whole = HostFs("/").read("/proc/self/status");
  ASSERT_TRUE(whole);
  EXPECT_GT(whole->size(), 16u);
}

TEST(HostFsTest, ReadLineKeepsTheFirstLineWithoutTrailingWhitespace) {
  Tree t;
  t.file("/model", "SAMSUNG MZWLJ3T8HBLS-00007              \nsecond\n");
  t.file("/crlf", "  lead stays\r\n");
  t.file("/empty", "");
  t.file("/no-newline", "last");
  HostFs host(t.root());
  EXPECT_EQ(host.read_line("/model"), "SAMSUNG MZWLJ3T8HBLS-00007");
  EXPECT_EQ(host.read_line("/crlf"), "  lead stays");
  EXPECT_EQ(host.read_line("/empty"), "");
  EXPECT_EQ(host.read_line("/no-newline"), "last");
}

TEST(HostFsTest, ListIsSortedFollowsLinksAndIsEmptyWhenMissing) {
  HostFs host(kHgx);
  EXPECT_EQ(host.list("/sys/class/infiniband"), (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_EQ(host.list("/sys/class/infiniband/mlx5_2/ports"), std::vector<std::string>{"1"});
  EXPECT_EQ(host.list("/sys/kernel/iommu_groups/6/devices"), std::vector<std::string>{"0000:03:00.0"});
  EXPECT_TRUE(host.list("/sys/class/nothing").empty());
}

TEST(HostFsTest, FirstReadKeepsTheBytesACheckSaw) {
  // A live AER counter moves between the check and the evidence: evidence wants the first bytes.
  Tree t;
  t.file("/sys/devices/x/aer_dev_correctable", "TOTAL_ERR_COR 0\n");
  HostFs host(t.root());
  EXPECT_EQ(host.read("/sys/devices/x/aer_dev_correctable"), "TOTAL_ERR_COR 0\n");
  t.file("/sys/devices/x/aer_dev_correctable", "TOTAL_ERR_COR 5\n");
  EXPECT_EQ(host.read("/sys/devices/x/aer_dev_correctable"), "TOTAL_ERR_COR 5\n");
  EXPECT_EQ(host.first_read("/sys/devices/x/aer_dev_correctable"), "TOTAL_ERR_COR 0\n");
  EXPECT_EQ(host.files_read(), std::vector<std::string>{"/sys/devices/x/aer_dev_correctable"});
  EXPECT_FALSE(host.first_read("/sys/devices/x/never_read"));
  // Over 1 MiB (a kernel log) is listed as read but not kept.
  t.file("/gpuplan/kernel.log", std::string(HostFs::kMaxKeptBytes + 1, 'k'));
  ASSERT_TRUE(host.read("/gpuplan/kernel.log"));
  EXPECT_EQ(host.files_read().size(), 2u);
  EXPECT_FALSE(host.first_read("/gpuplan/kernel.log"));
}

}  // namespace
}  // namespace gpuplan::probe
