#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/limits.h"

namespace gpuplan {
namespace {

// What a non-regular file is, as a fact id ("file.kind.*" in report/messages).
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "file.kind.directory";
  if (S_ISFIFO(mode)) return "file.kind.fifo";
  if (S_ISCHR(mode)) return "file.kind.char_device";
  if (S_ISBLK(mode)) return "file.kind.block_device";
  if (S_ISSOCK(mode)) return "file.kind.socket";
  return "file.kind.other";
}

}  // namespace

Result<RegularFile> open_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever before fstat.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{path, 0, {}, Phrase("error.file.cannot_open").fact("why", std::strerror(errno))};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return Error{path, 0, {}, Phrase("error.file.cannot_open").fact("why", std::strerror(e))};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path, 0, {}, Phrase("error.file.not_regular").fact("kind", {Phrase(kind_of(st.st_mode))})};
  }
  // Reads of a regular file never block; clearing the flag keeps later reads ordinary.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return RegularFile{fd, static_cast<int64_t>(st.st_size)};
}

Result<std::string> read_text_file(const std::string& path, int64_t max_bytes) {
  if (max_bytes < 0) max_bytes = limits::kMaxTextFileBytes;
  auto file = open_regular_file(path);
  if (!file) return file.error();
  const int fd = file->fd;
  if (file->size > max_bytes) {
    ::close(fd);
    return Error{path, 0, {}, Phrase("error.file.too_large").fact("limit", std::to_string(max_bytes >> 20) + " MiB")};
  }
  std::string out(static_cast<size_t>(file->size), '\0');
  size_t have = 0;
  // Read to the end, not to the size seen at open: a file still growing is read up to the cap.
  for (;;) {
    if (have == out.size()) {
      if (static_cast<int64_t>(have) > max_bytes) break;
      out.resize(have + 65536);
    }
    const ssize_t got = ::read(fd, out.data() + have, out.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      ::close(fd);
      return Error{path, 0, {}, Phrase("error.file.read_failed")};
    }
    if (got == 0) break;
    have += static_cast<size_t>(got);
  }
  ::close(fd);
  if (static_cast<int64_t>(have) > max_bytes)
    return Error{path, 0, {}, Phrase("error.file.too_large").fact("limit", std::to_string(max_bytes >> 20) + " MiB")};
  out.resize(have);
  return out;
}

}  // namespace gpuplan
