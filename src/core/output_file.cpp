#include "core/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <utility>

#include "core/temp_dirs.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

Error write_error(const std::string& path, const std::string& field, int err) {
  return Error{path, 0, field, Phrase("error.file.cannot_write").fact("why", std::strerror(err))};
}

// A stream buffer over a file descriptor that remembers the first failed write (its errno), so
// the caller reports the system's reason rather than a stream's bare failbit.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
  int error() const { return error_; }

  // Writes out what is buffered; false (and error() set) when the descriptor refused it.
  bool drain() {
    const char* at = pbase();
    while (at < pptr() && error_ == 0) {
      const ssize_t n = ::write(fd_, at, static_cast<size_t>(pptr() - at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = n < 0 ? errno : EIO;
      if (n > 0) at += n;
    }
    setp(buf_, buf_ + sizeof buf_);
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  int error_ = 0;
  char buf_[1 << 16];
};

// Runs `produce` into `fd`, then flushes, fsyncs (a regular file only) and closes it; `fd` is
// closed on every path.
Result<void> write_fd(int fd, bool regular, const std::string& path, const std::string& field,
                      const std::function<Result<void>(std::ostream&)>& produce) {
  FdBuf buf(fd);
  std::ostream out(&buf);
  Result<void> produced = produce(out);
  out.flush();
  int err = buf.error();
  if (err == 0 && !out) err = EIO;  // the stream failed without a system error: say so all the same
  if (err == 0 && regular && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (!produced) return produced.error();
  if (err != 0) return write_error(path, field, err);
  return {};
}

// A target that exists and is not a regular file (a device, a FIFO): written where it is.
Result<void> write_in_place(const std::string& path, const std::string& field,
                            const std::function<Result<void>(std::ostream&)>& produce) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return write_error(path, field, errno);
  return write_fd(fd, /*regular=*/false, path, field, produce);
}

}  // namespace

mode_t process_umask() {
  if (FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, status)) found = std::sscanf(line, "Umask: %o", &mask) == 1;
    std::fclose(status);
    if (found) return static_cast<mode_t>(mask);
  }
  const mode_t mask = ::umask(0);  // an older kernel, or no /proc
  ::umask(mask);
  return mask;
}

Result<void> write_output_file(const std::string& path, const std::string& field,
                               const std::function<Result<void>(std::ostream&)>& produce) {
  // A link is followed, so that the file it names is replaced rather than the link itself.
  std::error_code ec;
  fs::path target = fs::path(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    target = fs::weakly_canonical(target, ec);
    if (ec) return write_error(path, field, ec.value());
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return write_error(path, field, EISDIR);
    return write_in_place(path, field, produce);
  }
  // A file its owner made read-only is refused, as writing it in place would be, not replaced.
  if (::access(target.c_str(), F_OK) == 0 && ::access(target.c_str(), W_OK) != 0)
    return write_error(path, field, errno);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  // Removed on SIGINT/SIGTERM/SIGHUP until it is renamed into place.
  const int fd = make_temp_file(temp);  // O_CREAT|O_EXCL, mode 0600
  if (fd < 0) return write_error(path, field, errno);
  auto discard = [&temp] {
    ::unlink(temp.c_str());
    forget_temp_dir(temp);
  };
  // The mode a plain new file would get (0666 less the umask), not mkstemp's 0600; an existing
  // target keeps its own mode.
  const mode_t mode = ::stat(target.c_str(), &st) == 0 ? (st.st_mode & 07777) : (0666 & ~process_umask());
  if (::fchmod(fd, mode) != 0) {
    const int err = errno;
    ::close(fd);
    discard();
    return write_error(path, field, err);
  }
  Result<void> written = write_fd(fd, /*regular=*/true, path, field, produce);
  if (written && ::rename(temp.c_str(), target.c_str()) != 0) written = write_error(path, field, errno);
  if (!written) {
    discard();
    return written;
  }
  forget_temp_dir(temp);
  // The rename is durable only once the directory holding it is on disk too.
  if (const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return written;
}

Result<void> write_output_file(const std::string& path, std::string_view text, const std::string& field) {
  return write_output_file(path, field, [text](std::ostream& out) -> Result<void> {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return {};
  });
}

Result<void> flush_standard_output() {
  // The C++ stream writes through stdout's buffer (synced with stdio): the first failed flush
  // sets errno, and ferror stays set for any failure before it.
  errno = 0;
  std::cout.flush();
  int err = errno;
  const bool c_failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (err == 0) err = errno;
  if (!c_failed && std::cout) return {};
  // A failure while the report was being written (stdout's buffer filled) left only ferror set:
  // its errno is gone by now.
  Phrase p("error.stdout.cannot_write");
  if (err != 0)
    p.fact("why", std::strerror(err));
  else
    p.fact("why", {Phrase("error.unknown_reason")});
  return Error{{}, 0, {}, std::move(p)};
}

}  // namespace gpuplan
