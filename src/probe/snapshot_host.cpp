// The snapshot host: a snapshot tree or fixture (files plus gpuplan/ captures), or a snapshot
// archive unpacked into a temporary directory for as long as the host lives. Nothing is run on it.
#include <unistd.h>

#include <filesystem>

#include "core/files.h"
#include "core/temp_dirs.h"
#include "probe/host_input.h"
#include "probe/machine.h"
#include "probe/snapshot.h"

namespace gpuplan::probe {
namespace {

namespace fs = std::filesystem;

class SnapshotHost final : public machine::MachineHost {
 public:
  // `unpacked`: a temporary directory this host removes when it goes, or "".
  SnapshotHost(const std::string& dir, std::string unpacked) : fs_(dir), unpacked_(std::move(unpacked)) {}
  SnapshotHost(const SnapshotHost&) = delete;
  SnapshotHost& operator=(const SnapshotHost&) = delete;
  ~SnapshotHost() override {
    if (!unpacked_.empty()) remove_temp_dir(unpacked_);
  }

  const HostFs& fs() const override { return fs_; }
  bool live() const override { return false; }
  std::optional<KernelLogText> live_kernel_log() override { return std::nullopt; }
  bool has_tool(const std::string&) override { return false; }
  ToolRun run(const std::string&, std::chrono::seconds) override { return {}; }

 private:
  HostFs fs_;
  std::string unpacked_;
};

}  // namespace

Result<std::unique_ptr<HostInput>> open_host(const std::string& root) {
  if (root.empty() || root == "/") return live_host();
  std::error_code ec;
  if (fs::is_directory(root, ec)) return std::unique_ptr<HostInput>(std::make_unique<SnapshotHost>(root, ""));
  if (!fs::exists(root, ec)) return Error{root, 0, "--root", Phrase("cli.root.missing")};
  // A snapshot archive is a regular file: /dev/zero reads as an empty archive (an empty host),
  // a FIFO would block.
  if (auto file = open_regular_file(root); !file) {
    Error e = file.error();
    e.field = "--root";
    return e;
  } else {
    ::close(file->fd);
  }
  // Removed on SIGINT/SIGTERM too, not only by the host's destructor.
  const std::string dir = make_temp_dir((fs::temp_directory_path() / "gpuplan-snapshot-XXXXXX").string());
  if (dir.empty()) return Error{root, 0, "--root", Phrase("cli.root.no_temp_dir")};
  auto host = std::make_unique<SnapshotHost>(dir, dir);  // removes the directory on every path out
  if (auto unpacked = unpack_snapshot(root, dir); !unpacked) return unpacked.error();
  return std::unique_ptr<HostInput>(std::move(host));
}

}  // namespace gpuplan::probe
