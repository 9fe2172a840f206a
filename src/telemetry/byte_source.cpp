// The byte sources of byte_source.h (a file range, read or mapped; a gzip stream through zlib),
// opening a log file, and readers.h's is_gzip_file.
#include "telemetry/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/files.h"

namespace gpuplan::telemetry {
namespace detail {
namespace {

class GzipSource : public ByteSource {
 public:
  explicit GzipSource(gzFile f) : f_(f) {}
  ssize_t read(char* buf, size_t n) override {
    const int got = gzread(f_, buf, static_cast<unsigned>(n));
    if (got > 0) out_ += got;
    // zlib ends a stream cut short (a copy interrupted, a disk filled) like a whole one, and says
    // Z_BUF_ERROR only when asked: the hours after the cut are missing, so the read fails.
    int errnum = Z_OK;
    if (got == 0) gzerror(f_, &errnum);
    if (got < 0 || errnum != Z_OK) {
      failure_ = errnum == Z_BUF_ERROR ? Phrase("error.gzip.truncated").fact("bytes", std::to_string(out_))
                                       : Phrase("error.gzip.cannot_read");
      return -1;
    }
    return got;
  }
  std::optional<Phrase> failure() const override { return failure_; }

 private:
  gzFile f_;
  int64_t out_ = 0;  // bytes decompressed before the end
  std::optional<Phrase> failure_;
};

}  // namespace

ssize_t FileRange::read(char* buf, size_t n) {
  if (pos_ >= end_) return 0;
  n = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(n), end_ - pos_));
  ssize_t got = ::pread(fd_, buf, n, pos_);
  if (got > 0) pos_ += got;
  if (got == 0) shrank_ = true;  // the file ended before the range did
  return got;
}

std::string_view FileRange::map_lines() {
  if (!mapped_) mapped_.emplace(fd_, pos_, end_, kSlack);
  std::string_view lines = mapped_->next();
  pos_ = mapped_->position();
  return lines;
}

std::optional<Phrase> FileRange::failure() const {
  if (shrank_ || (mapped_ && mapped_->truncated())) return Phrase("error.file.shrank");
  return std::nullopt;
}

Phrase read_failure(const ByteSource& src) {
  return src.failure().value_or(Phrase("error.file.read_failed"));
}

OpenedSource::~OpenedSource() {
  if (gz) gzclose(gz);
  if (fd >= 0) ::close(fd);
}

Result<std::unique_ptr<OpenedSource>> open_source(const std::string& path) {
  auto s = std::make_unique<OpenedSource>();
  // A regular file only: a FIFO or device would block the open or never end.
  auto file = open_regular_file(path);
  if (!file) return file.error();
  s->fd = file->fd;
  s->size = file->size;
  if (is_gzip_file(path)) {
    s->gz = gzdopen(::dup(s->fd), "rb");
    if (!s->gz) return Error{path, 0, {}, Phrase("error.gzip.cannot_read")};
    gzbuffer(s->gz, 1 << 18);
    s->source = std::make_unique<GzipSource>(s->gz);
  } else {
    s->source = std::make_unique<FileRange>(s->fd, 0, s->size);
  }
  return s;
}

}  // namespace detail

bool is_gzip_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);  // a FIFO without a writer must not hang
  if (fd < 0) return false;
  unsigned char magic[2] = {};
  bool gz = ::read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  ::close(fd);
  return gz;
}

}  // namespace gpuplan::telemetry
