#include "probe/snapshot.h"

#include <archive.h>
#include <archive_entry.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

namespace fs = std::filesystem;
using testing::fact_in;
using testing::temp_dir;
using testing::write_file;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A two-device sysfs in miniature: the bus entry is a relative link into /sys/devices.
std::string mini_host() {
  const std::string root = temp_dir();
  fs::create_directories(root + "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
  fs::create_directories(root + "/sys/bus/pci/devices");
  write_file(root + "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", "vendor", "0x10de\n");
  write_file(root + "/sys/devices/pci0000:00/0000:00:01.0", "vendor", "0x1022\n");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
                               root + "/sys/bus/pci/devices/0000:01:00.0");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:01.0", root + "/sys/bus/pci/devices/0000:00:01.0");
  return root;
}

struct Entry {
  std::string name;
  bool link = false;
  std::string target_or_text;
};

// Writes a .tar.gz holding `entries` in order, to feed the unpacker what a hostile archive would.
std::string archive_of(const std::vector<Entry>& entries) {
  const std::string path = temp_dir() + "/hostile.tar.gz";
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  archive_write_open_filename(a, path.c_str());
  for (const Entry& en : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, en.name.c_str());
    archive_entry_set_perm(e, 0644);
    if (en.link) {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_symlink(e, en.target_or_text.c_str());
      archive_write_header(a, e);
    } else {
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_size(e, static_cast<la_int64_t>(en.target_or_text.size()));
      archive_write_header(a, e);
      archive_write_data(a, en.target_or_text.data(), en.target_or_text.size());
    }
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return path;
}

std::string archive_with(const std::string& name, bool link, const std::string& target_or_text) {
  return archive_of({{name, link, target_or_text}});
}

// Bytes gzip cannot shrink (a linear congruential generator), so the archive is as big as they are.
std::string noise(size_t n) {
  std::string out(n, '\0');
  uint32_t x = 12345;
  for (char& c : out) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return out;
}

// Lowers RLIMIT_FSIZE for the scope, as a full disk would stop writes (EFBIG instead of ENOSPC),
// with SIGXFSZ ignored so the failed write returns instead of killing the test.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

TEST(SnapshotTest, KeepsLinksAsLinksAndFilesBehindThem) {
  const std::string root = mini_host();
  HostFs host(root);
  SnapshotContent content;
  content.link_dirs = {"/sys/bus/pci/devices"};
  content.host_files = {"/sys/bus/pci/devices/0000:01:00.0/vendor"};
  content.captures["kernel.log"] = "[    1.000000] DMAR: IOMMU enabled\n";
  const std::string out = temp_dir() + "/snap.tar.gz";
  auto written = write_snapshot(host, content, out);
  ASSERT_TRUE(written) << written.error().str();
  // 2 links + the GPU's vendor file + gpuplan/kernel.log; the root port's vendor was not asked for.
  EXPECT_EQ(*written, 4);

  const std::string dir = temp_dir() + "/unpacked";
  auto unpacked = unpack_snapshot(out, dir);
  ASSERT_TRUE(unpacked) << unpacked.error().str();
  EXPECT_EQ(*unpacked, 4);
  EXPECT_TRUE(fs::is_symlink(dir + "/sys/bus/pci/devices/0000:01:00.0"));
  EXPECT_EQ(fs::read_symlink(dir + "/sys/bus/pci/devices/0000:01:00.0").string(),
            "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
  EXPECT_EQ(slurp(dir + "/sys/bus/pci/devices/0000:01:00.0/vendor"), "0x10de\n");
  EXPECT_EQ(slurp(dir + "/gpuplan/kernel.log"), "[    1.000000] DMAR: IOMMU enabled\n");
  EXPECT_FALSE(fs::exists(dir + "/sys/devices/pci0000:00/0000:00:01.0/vendor"));
}

TEST(SnapshotTest, RefusesAPathThatClimbsOut) {
  auto r = unpack_snapshot(archive_with("sys/../../evil", false, "x"), temp_dir() + "/u");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.key, "error.snapshot.path_leaves");
}

TEST(SnapshotTest, RefusesAnAbsolutePath) {
  auto r = unpack_snapshot(archive_with("/etc/evil", false, "x"), temp_dir() + "/u");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.key, "error.snapshot.path_leaves");
}

TEST(SnapshotTest, RefusesALinkOutOfTheTarget) {
  // sys/x sits one directory deep: "../../etc" climbs above the unpack directory.
  auto r = unpack_snapshot(archive_with("sys/x", true, "../../etc"), temp_dir() + "/u");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "sys/x");
  EXPECT_EQ(r.error().message.key, "error.snapshot.link_outside");
  auto absolute = unpack_snapshot(archive_with("sys/y", true, "/etc/passwd"), temp_dir() + "/u2");
  ASSERT_FALSE(absolute);
  EXPECT_EQ(absolute.error().message.key, "error.snapshot.link_outside");
}

TEST(SnapshotTest, AcceptsALinkThatStaysInside) {
  auto r = unpack_snapshot(archive_with("sys/bus/x", true, "../devices/x"), temp_dir() + "/u");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, 1);
}

TEST(SnapshotTest, ATruncatedArchiveIsAnError) {
  const std::string good = archive_with("gpuplan/kernel.log", false, std::string(100000, 'k'));
  const std::string cut = temp_dir() + "/cut.tar.gz";
  fs::copy_file(good, cut);
  fs::resize_file(cut, fs::file_size(good) / 2);
  auto r = unpack_snapshot(cut, temp_dir() + "/u");
  ASSERT_FALSE(r);
  // libarchive finds the cut gzip stream as it opens the archive, and says so.
  EXPECT_EQ(r.error().message.key, "error.snapshot.cannot_read") << r.error().str();
  ASSERT_TRUE(fact_in(r.error().message, "why"));
  auto missing = unpack_snapshot("/nonexistent/snap.tar.gz", temp_dir() + "/u3");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().file, "/nonexistent/snap.tar.gz");
  EXPECT_EQ(missing.error().message.key, "error.snapshot.cannot_read");
}

// --- "." parts, chained links (review item 2a, 2b) ----------------------------------------------

TEST(SnapshotTest, DotPartsOfTheNameDoNotCountAsDepth) {
  // "./evil" is unpacked as "evil", at the top: "../x" leaves the target. Counting "." as a
  // directory put it one deep, where "../x" looked inside.
  auto top = unpack_snapshot(archive_with("./evil", true, "../x"), temp_dir() + "/u");
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error().field, "./evil");
  EXPECT_EQ(top.error().message.key, "error.snapshot.link_outside");
  // "sys/./x" is one deep, so "../../etc" climbs one above the target.
  const std::string dir = temp_dir() + "/u2";
  auto inner = unpack_snapshot(archive_with("sys/./x", true, "../../etc"), dir);
  ASSERT_FALSE(inner);
  EXPECT_EQ(inner.error().field, "sys/./x");
  EXPECT_FALSE(fs::is_symlink(dir + "/sys/x"));
  // And "./" alone names the target itself, no entry.
  EXPECT_FALSE(unpack_snapshot(archive_with("./", false, "x"), temp_dir() + "/u3"));
}

TEST(SnapshotTest, DotPartsInsideStayAccepted) {
  // "./sys/bus/x" is two deep: "../devices/x" is sys/devices/x, inside.
  auto r = unpack_snapshot(archive_with("./sys/bus/x", true, "../devices/x"), temp_dir() + "/u");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, 1);
}

TEST(SnapshotTest, RefusesDotDotBackOutThroughAnEarlierLink) {
  // x/l1 -> ".." is the target itself; x/l2 -> "l1/.." reads as x textually but is the
  // target's parent on disk (l1 leads to the target, ".." leaves it).
  const std::string dir = temp_dir() + "/u";
  auto r = unpack_snapshot(archive_of({{"x/l1", true, ".."}, {"x/l2", true, "l1/.."}}), dir);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "x/l2");
  EXPECT_EQ(r.error().message.key, "error.snapshot.link_through_link");
  EXPECT_TRUE(fs::is_symlink(dir + "/x/l1"));  // accepted before the refusal
  EXPECT_FALSE(fs::is_symlink(dir + "/x/l2"));
}

TEST(SnapshotTest, RefusesTheSameChainArchivedLinkLast) {
  // x/l2 -> "l1/.." first, while x/l1 is no link yet; x/l1 -> ".." then would make it escape.
  const std::string dir = temp_dir() + "/u";
  auto r = unpack_snapshot(archive_of({{"x/l2", true, "l1/.."}, {"x/l1", true, ".."}}), dir);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "x/l1");
  EXPECT_EQ(r.error().message.key, "error.snapshot.link_climbed_through");
  EXPECT_FALSE(fs::is_symlink(dir + "/x/l1"));
}

TEST(SnapshotTest, DescendingThroughALinkIsAccepted) {
  // nixos-style: etc/static -> ../nix/store/s-etc/etc, etc/hostname -> static/hostname. No ".."
  // after entering etc/static, so the target stays inside what etc/static leads to.
  const std::string dir = temp_dir() + "/u";
  auto r = unpack_snapshot(archive_of({{"nix/store/s-etc/etc/hostname", false, "gpu01\n"},
                                       {"etc/static", true, "../nix/store/s-etc/etc"},
                                       {"etc/hostname", true, "static/hostname"}}),
                           dir);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, 3);
  EXPECT_EQ(slurp(dir + "/etc/hostname"), "gpu01\n");
}

// --- size limits (2c) ----------------------------------------------------------------------------

TEST(SnapshotTest, DefaultLimitsAreTheDocumentedOnes) {
  const UnpackLimits limits;
  EXPECT_EQ(limits.max_entries, 200'000u);
  EXPECT_EQ(limits.max_file_bytes, 268'435'456u);     // 256 × 1,048,576
  EXPECT_EQ(limits.max_total_bytes, 4'294'967'296u);  // 4 × 1,073,741,824
}

TEST(SnapshotTest, RefusesTheEntryPastTheEntryLimit) {
  UnpackLimits limits;
  limits.max_entries = 2;
  const std::string dir = temp_dir() + "/u";
  auto r = unpack_snapshot(archive_of({{"a", false, "1"}, {"b", false, "2"}, {"c", false, "3"}}), dir, limits);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "c");
  EXPECT_EQ(r.error().message.key, "error.snapshot.too_many_entries");
  EXPECT_EQ(*fact_in(r.error().message, "max"), "2");
  EXPECT_EQ(slurp(dir + "/b"), "2");
  EXPECT_FALSE(fs::exists(dir + "/c"));
}

TEST(SnapshotTest, RefusesAFileLargerThanTheFileLimit) {
  UnpackLimits limits;
  limits.max_file_bytes = 100;
  const std::string dir = temp_dir() + "/u";
  // 100 bytes is at the limit and goes in; 101 is one past it.
  auto r = unpack_snapshot(archive_of({{"ok", false, std::string(100, 'a')}, {"big", false, std::string(101, 'b')}}),
                           dir, limits);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "big");
  EXPECT_EQ(r.error().message.key, "error.snapshot.file_too_large");
  EXPECT_EQ(*fact_in(r.error().message, "max"), "100");
  EXPECT_EQ(fs::file_size(dir + "/ok"), 100u);
  EXPECT_FALSE(fs::exists(dir + "/big"));
}

TEST(SnapshotTest, RefusesTheFileThatTakesTheTotalPastItsLimit) {
  UnpackLimits limits;
  limits.max_total_bytes = 1000;
  // 600 + 400 = 1000 is at the limit; the third file's 1 byte makes 1001.
  auto r = unpack_snapshot(
      archive_of({{"a", false, std::string(600, 'a')}, {"b", false, std::string(400, 'b')}, {"c", false, "c"}}),
      temp_dir() + "/u", limits);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "c");
  EXPECT_EQ(r.error().message.key, "error.snapshot.total_too_large");
  EXPECT_EQ(*fact_in(r.error().message, "max"), "1000");
}

TEST(SnapshotTest, RefusesAHeaderDeclaringMoreThan256MibBeforeReadingIt) {
  // A plain tar whose one header declares 256 MiB + 1 bytes and whose data is cut off: the
  // declared size alone is refused, with the default limits, before any data is read.
  std::string tar(4096, '\0');
  size_t used = 0;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_set_bytes_per_block(a, 0);  // every write goes straight to the buffer
  archive_write_open_memory(a, tar.data(), tar.size(), &used);
  archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "gpuplan/kernel.log");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, (la_int64_t{256} << 20) + 1);
  ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK);
  const size_t header_bytes = used;
  archive_entry_free(e);
  archive_write_free(a);          // its padding overflows the buffer and fails; the header is in
  ASSERT_EQ(header_bytes, 512u);  // one ustar header block: the size fits its octal field
  const std::string path = write_file(temp_dir(), "huge.tar", tar.substr(0, header_bytes) + std::string(512, 'k'));
  const std::string dir = temp_dir() + "/u";
  auto r = unpack_snapshot(path, dir);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "gpuplan/kernel.log");
  EXPECT_EQ(r.error().message.key, "error.snapshot.file_too_large");
  EXPECT_EQ(*fact_in(r.error().message, "max"), "268435456");
  EXPECT_FALSE(fs::exists(dir + "/gpuplan/kernel.log"));
}

// --- write failures (2d) --------------------------------------------------------------------------

TEST(SnapshotTest, AFullDiskWhileUnpackingIsAnErrorNotAShortFile) {
  // 200,000 bytes against a 65,536-byte file size limit: the write past it fails.
  const std::string archive = archive_with("gpuplan/kernel.log", false, noise(200'000));
  const std::string dir = temp_dir() + "/u";
  Result<int> r = 0;
  {
    FileSizeLimit limit(65'536);
    r = unpack_snapshot(archive, dir);
  }
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "gpuplan/kernel.log");
  EXPECT_EQ(r.error().message.key, "error.snapshot.cannot_unpack") << r.error().message;
  ASSERT_TRUE(fact_in(r.error().message, "why")) << r.error().message;
}

TEST(SnapshotTest, AFullDiskWhileWritingNamesTheEntry) {
  // 1,000,000 bytes gzip cannot shrink against a 65,536-byte limit: the compressed stream
  // outgrows it while this capture is written.
  HostFs host(temp_dir());
  SnapshotContent content;
  content.captures["tools/big.txt"] = noise(1'000'000);
  const std::string out = temp_dir() + "/snap.tar.gz";
  Result<int> r = 0;
  {
    FileSizeLimit limit(65'536);
    r = write_snapshot(host, content, out);
  }
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, out);
  EXPECT_EQ(r.error().field, "gpuplan/tools/big.txt");
  EXPECT_EQ(r.error().message.key, "error.snapshot.cannot_write_entry") << r.error().message;
}

// --- absolute link targets (2e) -------------------------------------------------------------------

TEST(SnapshotTest, AbsoluteLinkTargetsAreArchivedRelativeToTheLink) {
  // /etc/hostname -> /etc/static/hostname (NixOS) and /sys/class/gpu0 -> /sys/devices/gpu0 on the
  // host; in the snapshot "static/hostname" (from /etc: one directory shared) and "../devices/gpu0" (from
  // /sys/class: up to /sys, which both share, then down).
  const std::string root = temp_dir();
  fs::create_directories(root + "/etc/static");
  fs::create_directories(root + "/sys/devices/gpu0");
  fs::create_directories(root + "/sys/class");
  write_file(root + "/etc/static", "hostname", "gpu01\n");
  write_file(root + "/sys/devices/gpu0", "vendor", "0x10de\n");
  fs::create_symlink("/etc/static/hostname", root + "/etc/hostname");
  fs::create_directory_symlink("/sys/devices/gpu0", root + "/sys/class/gpu0");
  HostFs host(root);
  SnapshotContent content;
  content.host_files = {"/etc/hostname", "/sys/class/gpu0/vendor"};
  const std::string out = temp_dir() + "/snap.tar.gz";
  auto written = write_snapshot(host, content, out);
  ASSERT_TRUE(written) << written.error().str();
  EXPECT_EQ(*written, 4);  // two links, two files

  const std::string dir = temp_dir() + "/unpacked";
  auto unpacked = unpack_snapshot(out, dir);
  ASSERT_TRUE(unpacked) << unpacked.error().str();
  EXPECT_EQ(fs::read_symlink(dir + "/etc/hostname").string(), "static/hostname");
  EXPECT_EQ(fs::read_symlink(dir + "/sys/class/gpu0").string(), "../devices/gpu0");
  EXPECT_EQ(slurp(dir + "/etc/hostname"), "gpu01\n");
  EXPECT_EQ(slurp(dir + "/sys/class/gpu0/vendor"), "0x10de\n");
}

TEST(SnapshotTest, AbsoluteLinkToTheRootBecomesDotDots) {
  // /a/b/up -> / : two directories up from /a/b.
  const std::string root = temp_dir();
  fs::create_directories(root + "/a/b");
  write_file(root, "top", "t\n");
  fs::create_directory_symlink("/", root + "/a/b/up");
  HostFs host(root);
  SnapshotContent content;
  content.host_files = {"/a/b/up/top"};
  const std::string out = temp_dir() + "/snap.tar.gz";
  auto written = write_snapshot(host, content, out);
  ASSERT_TRUE(written) << written.error().str();
  const std::string dir = temp_dir() + "/unpacked";
  auto unpacked = unpack_snapshot(out, dir);
  ASSERT_TRUE(unpacked) << unpacked.error().str();
  EXPECT_EQ(fs::read_symlink(dir + "/a/b/up").string(), "../..");
  EXPECT_EQ(slurp(dir + "/a/b/up/top"), "t\n");
}

}  // namespace
}  // namespace gpuplan::probe
