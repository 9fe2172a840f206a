#include "telemetry/mapped_lines.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace gpuplan::telemetry {
namespace {

// The mapping this thread is reading, for the SIGBUS handler: a fault inside it is a page the
// file lost. A fault is delivered to the thread that made it, so the handler looks at its own
// thread's mapping only, which no other thread changes. Plain data (static TLS, no initialiser),
// as a signal handler may touch.
struct Mapped {
  uintptr_t begin = 0, end = 0;
  bool faulted = false;
};
thread_local Mapped t_mapped;
struct sigaction g_previous {};
uintptr_t g_page_size = 4096;

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  if (address >= t_mapped.begin && address < t_mapped.end) {
    // A zero page where the file's page was: the read is retried and sees '\0', which no parser
    // takes for text. mmap is a plain system call, safe here though POSIX does not list it.
    void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
    if (::mmap(page, g_page_size, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
      t_mapped.faulted = true;
      errno = saved_errno;
      return;
    }
  }
  // Not a page of ours: what handled SIGBUS before does (a sanitizer's report, say), or the
  // default action ends the process, as it would have without this handler.
  errno = saved_errno;
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(signal);
  }
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page_size = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous);
  });
}

// Set and cleared with the handler in mind: it may run between any two stores of this thread.
void publish(uintptr_t begin, uintptr_t end) {
  t_mapped.faulted = false;
  t_mapped.end = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_mapped.begin = begin;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_mapped.end = end;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

}  // namespace

MappedLines::MappedLines(int fd, int64_t begin, int64_t end, size_t slack) : fd_(fd), pos_(begin), end_(end), slack_(slack) {
  install_handler();
}

MappedLines::~MappedLines() { unmap(); }

void MappedLines::unmap() {
  if (!mapping_) return;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (t_mapped.faulted) truncated_ = true;
  publish(0, 0);
  ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
}

bool MappedLines::truncated() const { return truncated_ || (mapping_ && t_mapped.faulted); }

std::string_view MappedLines::next() {
  unmap();
  if (truncated_) return {};
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return {};
  if (st.st_size < end_) {  // lost what it had when the range was set: no partial read passes
    truncated_ = true;
    return {};
  }
  const auto page = static_cast<int64_t>(g_page_size);
  const int64_t map_begin = pos_ / page * page;
  // Whole pages of the file only (a page past its end cannot be read), the slack among them.
  const int64_t map_end = std::min(map_begin + kWindow, st.st_size / page * page);
  const int64_t lines_until = std::min(end_, map_end - static_cast<int64_t>(slack_));
  if (lines_until <= pos_) return {};
  void* m = ::mmap(nullptr, static_cast<size_t>(map_end - map_begin), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_, map_begin);
  if (m == MAP_FAILED) return {};
  mapping_ = static_cast<char*>(m);
  mapping_size_ = static_cast<size_t>(map_end - map_begin);
  publish(reinterpret_cast<uintptr_t>(mapping_), reinterpret_cast<uintptr_t>(mapping_) + mapping_size_);
  const char* begin = mapping_ + (pos_ - map_begin);
  const size_t size = static_cast<size_t>(lines_until - pos_);
  const void* last_newline = ::memrchr(begin, '\n', size);
  if (!last_newline) return {};  // one line longer than the window: left to plain reads
  const size_t n = static_cast<size_t>(static_cast<const char*>(last_newline) + 1 - begin);
  pos_ += static_cast<int64_t>(n);
  return {begin, n};
}

}  // namespace gpuplan::telemetry
