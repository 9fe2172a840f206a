#include "core/temp_dirs.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

// Fixed storage the handler can read without allocating: a slot is in use while `used` is set,
// and its path is written before `used` is set (and signals blocked meanwhile).
struct Slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
Slot g_slots[kMaxTempDirs];
std::mutex g_mutex;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Only async-signal-safe calls: the removal runs in a child (_Fork + execve of /bin/sh running
// chmod and rm), waited for, then the signal is delivered again with its default action. _Fork,
// not fork: fork runs the atfork handlers and takes malloc's locks, a deadlock when the signal
// arrived inside malloc.
void on_signal(int sig) {
  for (Slot& slot : g_slots) {
    if (!slot.used.load()) continue;
    const pid_t pid = _Fork();
    if (pid == 0) {
      char sh[] = "/bin/sh", dash_c[] = "-c", name[] = "sh";
      char script[] = "chmod -R u+rwx -- \"$1\" 2>/dev/null; rm -rf -- \"$1\"";
      char* argv[] = {sh, dash_c, script, name, slot.path, nullptr};
      char path[] = "PATH=/usr/bin:/bin";
      char* envp[] = {path, nullptr};
      execve(sh, argv, envp);
      _exit(127);
    }
    if (pid > 0) {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kSignals) sigaddset(&sa.sa_mask, sig);
  for (int sig : kSignals) {
    struct sigaction old {};
    // A signal the caller ignores (nohup) stays ignored, and one it handles (the watch daemon's
    // shutdown) keeps its handler, which ends in the owners' own cleanup.
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    sigaction(sig, &sa, nullptr);
  }
}

// Changes the slots with the handled signals blocked, so the handler never sees one half-written.
template <class F>
void with_signals_blocked(F&& change) {
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : kSignals) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  change();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// Gives the owner rwx on `dir` and every directory below it (links are not followed).
void open_up(const fs::path& dir) {
  ::chmod(dir.c_str(), S_IRWXU);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) open_up(it->path());
}

// Takes a free slot for `path` (signals already blocked, g_mutex held).
void take_slot(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  for (Slot& slot : g_slots) {
    if (slot.used.load()) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true);
    return;
  }
}

void install_once() {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
}

}  // namespace

std::string make_temp_dir(std::string pattern) {
  std::lock_guard lock(g_mutex);
  install_once();
  bool made = false;
  int err = 0;
  with_signals_blocked([&] {
    made = ::mkdtemp(pattern.data()) != nullptr;
    err = errno;
    if (made) take_slot(pattern);
  });
  errno = err;
  return made ? pattern : std::string();
}

int make_temp_file(std::string& pattern) {
  std::lock_guard lock(g_mutex);
  install_once();
  int fd = -1;
  int err = 0;
  with_signals_blocked([&] {
    fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    err = errno;
    if (fd >= 0) take_slot(pattern);
  });
  errno = err;
  return fd;
}

void register_temp_dir(const std::string& path) {
  std::lock_guard lock(g_mutex);
  install_once();
  with_signals_blocked([&] { take_slot(path); });
}

void forget_temp_dir(const std::string& path) {
  std::lock_guard lock(g_mutex);
  with_signals_blocked([&] {
    for (Slot& slot : g_slots)
      if (slot.used.load() && path == slot.path) slot.used.store(false);
  });
}

void remove_temp_dir(const std::string& path) {
  std::error_code ec;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) open_up(path);
  fs::remove_all(path, ec);
  forget_temp_dir(path);
}

}  // namespace gpuplan
