// The kernel-log follower: non-blocking reads of /dev/kmsg, of journalctl's pipe or of a file,
// complete lines parsed with probe::parse_kernel_log, events mapped to the GPUs by PCI address.
#include "watch/follower.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "core/pci_address.h"

namespace gpuplan::watch {

std::string LineBuffer::take_complete(std::string_view bytes) {
  partial_.append(bytes);
  const size_t end = partial_.rfind('\n');
  if (end == std::string::npos) {
    // A kernel record is at most a few KiB; a "line" past the bound is not one (a binary file,
    // a writer that never ends its line) and would grow without end: it is dropped.
    if (partial_.size() > kMaxPartialLine) partial_.clear();
    return {};
  }
  std::string complete = partial_.substr(0, end + 1);
  partial_.erase(0, end + 1);
  return complete;
}

namespace {

Error open_error(const std::string& what, int err) {
  return Error{what, 0, "", Phrase("error.watch.kernel_log_open").fact("reason", std::strerror(err))};
}

// Whether `program` is an executable file in a directory of $PATH: a child whose exec fails
// would only ever read as a journal with nothing in it.
bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/bin:/bin";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return false;
}

// journalctl -k -f -o json -n 0: the kernel's messages from now on, one JSON object a line.
Result<std::pair<int, int>> spawn_journalctl() {
  if (!on_path("journalctl")) return open_error("journalctl", ENOENT);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return open_error("journalctl", errno);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return open_error("journalctl", errno);
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDERR_FILENO);
    execlp("journalctl", "journalctl", "-k", "-f", "-o", "json", "-n", "0", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return std::pair<int, int>{fds[0], pid};
}

}  // namespace

Result<std::unique_ptr<KernelLogFollower>> KernelLogFollower::open(KernelLogSource source, const std::string& file) {
  std::unique_ptr<KernelLogFollower> f(new KernelLogFollower());
  f->source_ = source;
  switch (source) {
    case KernelLogSource::kKmsg:
      f->name_ = "/dev/kmsg";
      f->fd_ = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (f->fd_ < 0) return open_error(f->name_, errno);
      lseek(f->fd_, 0, SEEK_END);  // kmsg: SEEK_END moves past every record already logged
      break;
    case KernelLogSource::kJournal: {
      f->name_ = "journalctl";
      auto spawned = spawn_journalctl();
      if (!spawned) return spawned.error();
      f->fd_ = spawned->first;
      f->child_ = spawned->second;
      break;
    }
    case KernelLogSource::kFile: {
      f->name_ = file;
      f->fd_ = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (f->fd_ < 0) return open_error(file, errno);
      struct stat st {};
      fstat(f->fd_, &st);
      f->inode_ = st.st_ino;
      f->offset_ = lseek(f->fd_, 0, SEEK_END);
      break;
    }
  }
  return f;
}

KernelLogFollower::~KernelLogFollower() {
  if (fd_ >= 0) close(fd_);
  if (child_ > 0) {
    kill(child_, SIGTERM);
    waitpid(child_, nullptr, 0);
  }
}

void KernelLogFollower::reopen_if_rotated() {
  struct stat now {};
  if (stat(name_.c_str(), &now) != 0) return;  // moved away, not yet recreated: keep the old one
  if (static_cast<unsigned long long>(now.st_ino) != inode_) {
    // Rotated: the rest of the old file first (read_available drained it), then the new one from its start.
    int fd = ::open(name_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    close(fd_);
    fd_ = fd;
    inode_ = now.st_ino;
    offset_ = 0;
  } else if (now.st_size < offset_) {
    offset_ = lseek(fd_, 0, SEEK_SET);  // truncated (copytruncate): from its start
  }
}

std::string KernelLogFollower::read_available() {
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      offset_ += n;
      continue;
    }
    // EPIPE: /dev/kmsg overwrote records before they were read; the next read goes on.
    if (n < 0 && errno == EPIPE && source_ == KernelLogSource::kKmsg) continue;
    if (n < 0 && errno == EINTR) continue;
    break;  // 0 (end of file) or EAGAIN (nothing more now)
  }
  return out;
}

std::vector<probe::KernelEvent> KernelLogFollower::poll() {
  std::string bytes = read_available();
  if (source_ == KernelLogSource::kFile) {
    reopen_if_rotated();
    bytes += read_available();
  }
  // /dev/kmsg gives one record a read, each ending in '\n'; the others may cut a line anywhere.
  return gpu_events(lines_.take_complete(bytes));
}

std::vector<probe::KernelEvent> gpu_events(const std::string& complete_lines) {
  std::vector<probe::KernelEvent> out;
  if (complete_lines.empty()) return out;
  for (auto& e : probe::parse_kernel_log(complete_lines).events) {
    if (e.kind == probe::KernelEventKind::kXid || e.kind == probe::KernelEventKind::kSxid ||
        e.kind == probe::KernelEventKind::kAer) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

archive::Event to_archive_event(const probe::KernelEvent& e, const std::vector<nvml::GpuStatic>& gpus, int64_t now_ms) {
  archive::Event a;
  a.time_ms = now_ms;
  a.kind = e.kind == probe::KernelEventKind::kXid    ? archive::EventKind::kXid
           : e.kind == probe::KernelEventKind::kSxid ? archive::EventKind::kSxid
                                                     : archive::EventKind::kAer;
  a.device = e.device;
  if (e.code) a.code = *e.code;
  a.detail = e.text;
  // NVML writes "00000000:17:00.0", the kernel "0000:17:00.0": compared as addresses.
  if (auto device = PciAddress::parse(e.device)) {
    for (const auto& g : gpus) {
      if (PciAddress::parse(g.pci_bus_id) == device) a.gpu = g.index;
    }
  }
  return a;
}

void count_event(const archive::Event& e, WatchState& state) {
  switch (e.kind) {
    case archive::EventKind::kXid:
      if (e.gpu && *e.gpu < state.gpus.size() && e.code) {
        GpuState& g = state.gpus[*e.gpu];
        ++g.xid_counts[*e.code];
        g.last_xid = *e.code;
      }
      break;
    case archive::EventKind::kSxid:
      if (e.code) ++state.sxid_counts[*e.code];
      break;
    case archive::EventKind::kAer:
      ++state.aer_events;
      break;
    default:
      break;
  }
}

}  // namespace gpuplan::watch
