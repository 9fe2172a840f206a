#include "probe/snapshot.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

namespace fs = std::filesystem;
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

// Writes a .tar.gz holding one entry, to feed the unpacker what a hostile archive would.
std::string archive_with(const std::string& name, bool link, const std::string& target_or_text) {
  const std::string path = temp_dir() + "/hostile.tar.gz";
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  archive_write_open_filename(a, path.c_str());
  archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, name.c_str());
  archive_entry_set_perm(e, 0644);
  if (link) {
    archive_entry_set_filetype(e, AE_IFLNK);
    archive_entry_set_symlink(e, target_or_text.c_str());
    archive_write_header(a, e);
  } else {
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_size(e, static_cast<la_int64_t>(target_or_text.size()));
    archive_write_header(a, e);
    archive_write_data(a, target_or_text.data(), target_or_text.size());
  }
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  return path;
}

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
  EXPECT_NE(r.error().message.find("leaves the snapshot"), std::string::npos);
}

TEST(SnapshotTest, RefusesAnAbsolutePath) {
  auto r = unpack_snapshot(archive_with("/etc/evil", false, "x"), temp_dir() + "/u");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("leaves the snapshot"), std::string::npos);
}

TEST(SnapshotTest, RefusesALinkOutOfTheTarget) {
  // sys/x sits one directory deep: "../../etc" climbs above the unpack directory.
  auto r = unpack_snapshot(archive_with("sys/x", true, "../../etc"), temp_dir() + "/u");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "sys/x");
  auto absolute = unpack_snapshot(archive_with("sys/y", true, "/etc/passwd"), temp_dir() + "/u2");
  ASSERT_FALSE(absolute);
  EXPECT_NE(absolute.error().message.find("outside the snapshot"), std::string::npos);
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
  EXPECT_FALSE(r);
  auto missing = unpack_snapshot("/nonexistent/snap.tar.gz", temp_dir() + "/u3");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().file, "/nonexistent/snap.tar.gz");
}

}  // namespace
}  // namespace gpuplan::probe
