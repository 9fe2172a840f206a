// Byte sources for the log readers (private to telemetry/; readers.h is the public interface):
// a plain file, or a byte range of one, read in place through mapped windows where it can be,
// and a gzip stream; and the loops that hand a source's data over a chunk or a line at a time.
// Memory stays bounded whatever the file size (one fixed-size buffer, one mapped window). Every
// buffer handed over has kSlack readable bytes after its data, so a parser may load whole words
// past a field's end.
#pragma once

#include <sys/types.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/phrase.h"
#include "telemetry/mapped_lines.h"
#include "telemetry/readers.h"

namespace gpuplan::telemetry::detail {

constexpr size_t kChunk = 1 << 20;  // read buffer; memory stays constant whatever the file size
constexpr size_t kMaxLine = 1 << 16;
// Readable bytes after the data in every read buffer: the parsers load whole words (8 bytes) and
// blocks (64 bytes; a line's shape, 128) without checking where a field or the data ends.
constexpr size_t kSlack = 128;

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; 0 at the end; -1 on error.
  virtual ssize_t read(char* buf, size_t n) = 0;
  // The next whole lines in place, without a copy, when the source can map them (see
  // MappedLines::next); empty when it cannot or no more can be, and read() goes on from there.
  virtual std::string_view map_lines() { return {}; }
  // Why the data read so far cannot be trusted, or nullopt.
  virtual std::optional<Phrase> failure() const { return std::nullopt; }
  // Whether read() is known to have nothing more to give (false: it may have).
  virtual bool exhausted() const { return false; }
};

// A plain file, or the byte range [begin, end) of one; whole lines are mapped in place.
class FileRange : public ByteSource {
 public:
  FileRange(int fd, int64_t begin, int64_t end) : fd_(fd), pos_(begin), end_(end) {}
  ssize_t read(char* buf, size_t n) override;
  std::string_view map_lines() override;
  std::optional<Phrase> failure() const override;
  bool exhausted() const override { return pos_ >= end_; }

 private:
  int fd_;
  int64_t pos_, end_;
  std::optional<MappedLines> mapped_;
  bool shrank_ = false;
};

// Why reading `src` failed.
Phrase read_failure(const ByteSource& src);

// An open log file and what reads it (gzip through zlib); closes both.
struct OpenedSource {
  int fd = -1;
  gzFile gz = nullptr;
  int64_t size = 0;
  std::unique_ptr<ByteSource> source;
  ~OpenedSource();
};

// The file at `path`, read through zlib when it is gzip-compressed.
Result<std::unique_ptr<OpenedSource>> open_source(const std::string& path);

// Reads `src` a chunk at a time into one buffer and hands over its lines: `whole(p, end)` gets
// the data after what is left of the previous chunk ('\0' at end, kSlack readable bytes after it)
// and returns where the first line it did not take begins (its unfinished last line, carried
// over to the next chunk); `unfinished(text)` gets a last line without a newline, and the first
// 64 bytes of a "line" too long for a log line (dropped whole).
template <class Whole, class Unfinished>
bool for_each_chunk(ByteSource& src, int64_t& bytes, const Progress& progress, int64_t total, Whole&& whole,
                    Unfinished&& unfinished) {
  static_assert(kSlack >= 64);
  if (src.exhausted()) return true;  // all mapped: no buffer to fault in
  // Zeroed once, so no byte read in the slack is ever uninitialised.
  std::vector<char> buf(kChunk + kMaxLine + kSlack);
  size_t kept = 0;        // bytes of an unfinished line carried over
  bool dropping = false;  // the rest of a line too long to keep, up to its newline, is skipped
  int64_t since_progress = 0;
  while (true) {
    ssize_t got = src.read(buf.data() + kept, kChunk);
    if (got < 0) return false;
    bytes += got;
    const size_t filled = kept + static_cast<size_t>(got);
    if (got == 0) {
      if (kept > 0) unfinished(std::string_view(buf.data(), kept));
      return true;
    }
    buf[filled] = '\0';  // a sentinel for CSV's fast path
    const char* const end = buf.data() + filled;
    const char* start = buf.data();
    if (dropping) {
      const void* newline = std::memchr(start, '\n', filled);
      dropping = newline == nullptr;
      start = dropping ? end : static_cast<const char*>(newline) + 1;
    }
    const char* p = whole(start, end);
    kept = static_cast<size_t>(end - p);
    if (kept >= kMaxLine) {  // a "line" this long is not a log line: counted once, dropped whole
      unfinished(std::string_view(p, 64));
      kept = 0;
      dropping = true;
    } else {
      std::memmove(buf.data(), p, kept);
    }
    since_progress += got;
    if (progress && since_progress > (64 << 20)) {
      progress(bytes, total);
      since_progress = 0;
    }
  }
}

// Calls `on_line(line, line_number, complete)` for every line of `src`, in order. A last line
// without a newline is passed with complete = false, so a truncated write can be told apart.
template <class OnLine>
bool for_each_line(ByteSource& src, OnLine&& on_line, int64_t& bytes, const Progress& progress = {},
                   int64_t total = 0) {
  int64_t line_no = 0;
  auto whole = [&](const char* p, const char* end) {
    while (const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) {
      size_t len = static_cast<size_t>(nl - p);
      if (len > 0 && p[len - 1] == '\r') --len;
      on_line(std::string_view(p, len), ++line_no, true);
      p = nl + 1;
    }
    return p;
  };
  auto unfinished = [&](std::string_view text) { on_line(text, ++line_no, false); };
  return for_each_chunk(src, bytes, progress, total, whole, unfinished);
}

// Hands every line of `src` to `parser.line(line, number, complete)` (the formats read a line at
// a time: dmon, Prometheus text) and returns the counts in `stats`, or why the read failed.
template <class Parser>
Result<ReadStats> run_parser(const std::string& path, Parser& parser, ReadStats& stats, OpenedSource& src,
                             const Progress& progress) {
  bool ok = for_each_line(
      *src.source, [&](std::string_view l, int64_t n, bool complete) { parser.line(l, n, complete); }, stats.bytes,
      progress, src.size);
  if (!ok) return Error{path, 0, {}, read_failure(*src.source)};
  return stats;
}

}  // namespace gpuplan::telemetry::detail
