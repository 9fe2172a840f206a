// Following the kernel log while `gpuplan watch` runs: /dev/kmsg (from its end: what was logged
// before watch started is history the archive does not claim), the journal (`journalctl -k -f
// -o json` as a child process, for hosts whose kernel log goes there), or a file followed like
// `tail -F` (kern.log, tests: from its end, reopened when rotated, reread when truncated).
// poll() never blocks: it takes what arrived, keeps an incomplete last line for the next poll,
// and parses the complete lines with probe::parse_kernel_log. Xid, SXid and AER events come
// back; other lines are ignored.
//
// A caller may rely on: no line is parsed twice or half; an AER header and its detail lines
// that arrive in different polls read as separate AER events (rare: the kernel writes them at
// once).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "core/error.h"
#include "nvml/facts.h"
#include "probe/kernel_log.h"
#include "watch/state.h"

namespace gpuplan::watch {

enum class KernelLogSource { kKmsg, kJournal, kFile };

// Bytes in, complete lines out: what a follower keeps between reads.
class LineBuffer {
 public:
  // The longest unfinished line kept while waiting for its newline (the kernel's own records are
  // under 1 KiB; /dev/kmsg's dictionary lines a few more).
  static constexpr size_t kMaxPartialLine = 64 * 1024;
  // Appends `bytes`; returns the complete lines (each with its '\n') now held, in order.
  std::string take_complete(std::string_view bytes);
  const std::string& partial() const { return partial_; }

 private:
  std::string partial_;
};

class KernelLogFollower {
 public:
  // kFile needs `file`. An Error names what could not be opened (/dev/kmsg without permission,
  // journalctl missing, the file).
  static Result<std::unique_ptr<KernelLogFollower>> open(KernelLogSource source, const std::string& file = "");
  ~KernelLogFollower();
  KernelLogFollower(const KernelLogFollower&) = delete;
  KernelLogFollower& operator=(const KernelLogFollower&) = delete;

  // The Xid, SXid and AER events in what arrived since the last poll.
  std::vector<probe::KernelEvent> poll();
  KernelLogSource source() const { return source_; }
  const std::string& name() const { return name_; }  // "/dev/kmsg", "journalctl", the file

 private:
  KernelLogFollower() = default;
  std::string read_available();
  void reopen_if_rotated();

  KernelLogSource source_ = KernelLogSource::kFile;
  std::string name_;
  int fd_ = -1;
  int child_ = -1;  // journalctl's pid
  unsigned long long inode_ = 0;
  long long offset_ = 0;
  LineBuffer lines_;
};

// The complete lines' Xid, SXid and AER events (other kinds left out).
std::vector<probe::KernelEvent> gpu_events(const std::string& complete_lines);

// An event as the archive keeps it, mapped to the GPU whose PCI address it names (nullopt when
// none of `gpus` has it: an NVSwitch, a root port); stamped `now_ms`.
archive::Event to_archive_event(const probe::KernelEvent& e, const std::vector<nvml::GpuStatic>& gpus, int64_t now_ms);

// Counts the event in `state`: Xid per GPU (and its last Xid), SXid by code, AER events.
void count_event(const archive::Event& e, WatchState& state);

}  // namespace gpuplan::watch
