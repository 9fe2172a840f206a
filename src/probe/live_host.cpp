// The live host: the machine gpuplan runs on, its files under "/".
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/text.h"
#include "probe/host_input.h"
#include "probe/machine.h"

namespace gpuplan::probe {
namespace {

// coreutils `timeout` exits with this status when it had to stop the command.
constexpr int kTimedOutStatus = 124;

// /dev/kmsg records, read without blocking; "" when the device cannot be opened.
std::string read_kmsg() {
  const int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
  if (fd < 0) return {};
  std::string text;
  std::array<char, 8192> record{};
  for (;;) {
    const ssize_t n = read(fd, record.data(), record.size());
    if (n > 0) {
      text.append(record.data(), static_cast<size_t>(n));
      if (text.back() != '\n') text += '\n';
    } else if (n < 0 && errno == EPIPE) {
      continue;  // the oldest records were overwritten while reading: go on with the next
    } else {
      break;  // EAGAIN: no more records
    }
  }
  close(fd);
  return text;
}

class LiveHost final : public machine::MachineHost {
 public:
  LiveHost() : fs_("/") {}

  const HostFs& fs() const override { return fs_; }
  bool live() const override { return true; }

  std::optional<KernelLogText> live_kernel_log() override {
    if (std::string text = read_kmsg(); !text.empty()) return KernelLogText{std::move(text), "/dev/kmsg"};
    if (ToolRun r = run("dmesg", std::chrono::seconds(120)); r.ok() && !r.out.empty())
      return KernelLogText{std::move(r.out), "dmesg"};
    return std::nullopt;
  }

  bool has_tool(const std::string& name) override {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    return false;
  }

  ToolRun run(const std::string& command, std::chrono::seconds timeout) override {
    ToolRun r;
    const std::string line = "timeout " + std::to_string(timeout.count()) + " sh -c " + shell_quoted(command) + " 2>&1";
    FILE* pipe = popen(line.c_str(), "r");
    if (!pipe) return r;
    r.started = true;
    std::array<char, 4096> buffer{};
    size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.timed_out = r.exit_code == kTimedOutStatus;
    return r;
  }

 private:
  HostFs fs_;
};

}  // namespace

std::unique_ptr<HostInput> live_host() {
  return std::make_unique<LiveHost>();
}

}  // namespace gpuplan::probe
