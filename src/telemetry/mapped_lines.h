// Whole lines of a byte range of a plain file, read in place through a sliding memory mapping:
// no copy into a buffer (read() copying a cached file costs as much as parsing it), and memory
// stays bounded (one window is mapped at a time, so a large file does not become resident).
// A file that shrinks while it is mapped (log rotation by copytruncate) would raise SIGBUS on
// the lost pages: they read as '\0' instead, and truncated() says so; so it does when the file
// is found shorter than the range before a window is mapped. One thread uses an object (the
// SIGBUS handler knows each thread's current mapping); a thread maps one window at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpuplan::telemetry {

class MappedLines {
 public:
  // The range [begin, end) of the open file `fd` (kept open by the caller).
  // `slack`: readable bytes wanted after every view (parsers load whole words past a field).
  MappedLines(int fd, int64_t begin, int64_t end, size_t slack);
  ~MappedLines();
  MappedLines(const MappedLines&) = delete;
  MappedLines& operator=(const MappedLines&) = delete;

  // The next whole lines in place: a view that ends right after a newline, with `slack` readable
  // bytes after it, valid until the next call. Empty when no whole line is left that a window
  // can hold with its slack inside the file: position() is then where plain reads take over.
  std::string_view next();
  int64_t position() const { return pos_; }
  // Whether pages of a view vanished because the file shrank while it was mapped.
  bool truncated() const;

  static constexpr int64_t kWindow = 8 << 20;  // bytes mapped at a time

 private:
  void unmap();

  int fd_;
  int64_t pos_, end_;
  size_t slack_;
  char* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  bool truncated_ = false;
};

}  // namespace gpuplan::telemetry
