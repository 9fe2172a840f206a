#include "telemetry/mapped_lines.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

namespace gpuplan::telemetry {
namespace {

// The mappings being read, for the SIGBUS handler: a fault inside one of them is a page the file
// lost. Lock-free atomics only, as a signal handler may use.
struct Slot {
  std::atomic<bool> taken{false};
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> faulted{false};
};
constexpr int kSlots = 64;  // mappings at once (one per reading thread); beyond, plain reads
Slot g_slots[kSlots];
struct sigaction g_previous {};
uintptr_t g_page_size = 4096;

void on_sigbus(int, siginfo_t* info, void*) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    if (address < slot.begin.load(std::memory_order_acquire) || address >= slot.end.load(std::memory_order_acquire)) continue;
    // A zero page where the file's page was: the read is retried and sees '\0', which no parser
    // takes for text. mmap is a plain system call, safe here though POSIX does not list it.
    void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
    if (::mmap(page, g_page_size, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
      slot.faulted.store(true, std::memory_order_release);
      return;
    }
  }
  // Not a page of ours: back to what handled SIGBUS before, which the retried access meets.
  ::sigaction(SIGBUS, &g_previous, nullptr);
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

int take_slot() {
  for (int i = 0; i < kSlots; ++i) {
    bool free = false;
    if (g_slots[i].taken.compare_exchange_strong(free, true)) return i;
  }
  return -1;
}

}  // namespace

MappedLines::MappedLines(int fd, int64_t begin, int64_t end, size_t slack) : fd_(fd), pos_(begin), end_(end), slack_(slack) {
  install_handler();
  slot_ = take_slot();
}

MappedLines::~MappedLines() {
  unmap();
  if (slot_ >= 0) g_slots[slot_].taken.store(false);
}

void MappedLines::unmap() {
  if (!mapping_) return;
  Slot& slot = g_slots[slot_];
  slot.begin.store(0, std::memory_order_release);
  slot.end.store(0, std::memory_order_release);
  if (slot.faulted.exchange(false)) truncated_ = true;
  ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
}

bool MappedLines::truncated() const {
  return truncated_ || (mapping_ && g_slots[slot_].faulted.load(std::memory_order_acquire));
}

std::string_view MappedLines::next() {
  unmap();
  if (slot_ < 0 || truncated_) return {};
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return {};
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
  g_slots[slot_].begin.store(reinterpret_cast<uintptr_t>(mapping_), std::memory_order_release);
  g_slots[slot_].end.store(reinterpret_cast<uintptr_t>(mapping_) + mapping_size_, std::memory_order_release);
  const char* begin = mapping_ + (pos_ - map_begin);
  const size_t size = static_cast<size_t>(lines_until - pos_);
  const void* last_newline = ::memrchr(begin, '\n', size);
  if (!last_newline) return {};  // one line longer than the window: left to plain reads
  const size_t n = static_cast<size_t>(static_cast<const char*>(last_newline) + 1 - begin);
  pos_ += static_cast<int64_t>(n);
  return {begin, n};
}

}  // namespace gpuplan::telemetry
