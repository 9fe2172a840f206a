// Reading a --kernel-log file: plain text, or gzip as logrotate leaves older kernel logs.
#include <zlib.h>

#include <array>

#include "core/files.h"
#include "core/limits.h"
#include "probe/kernel_log.h"

namespace gpuplan::probe {
namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Every gzip member of `bytes` inflated in turn (`cat a.gz b.gz` is a valid gzip file), or why
// not: the stream is damaged, cut short, or inflates beyond what a kernel log can be.
Result<std::string> gunzip(const std::string& bytes, const std::string& path) {
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Error{path, 0, "--kernel-log", Phrase("error.gzip.cannot_read")};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::array<char, 1 << 16> buf{};
  int rc = Z_OK;
  bool too_large = false;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const size_t produced = buf.size() - z.avail_out;
    if (static_cast<int64_t>(out.size() + produced) > limits::kMaxTextFileBytes) {
      too_large = true;  // a gzip bomb: refused before it is kept, never inflated until memory runs out
      break;
    }
    out.append(buf.data(), produced);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) break;  // the next member
      continue;
    }
    if (rc != Z_OK) break;
  }
  inflateEnd(&z);
  if (too_large)
    return Error{path, 0, "--kernel-log",
                 Phrase("error.gzip.too_large").fact("limit", std::to_string(limits::kMaxTextFileBytes >> 20) + " MiB")};
  // Z_BUF_ERROR with the input used up: the file ends inside the stream.
  if (rc == Z_BUF_ERROR && z.avail_in == 0)
    return Error{path, 0, "--kernel-log", Phrase("error.gzip.truncated").fact("bytes", std::to_string(out.size()))};
  if (rc != Z_STREAM_END) return Error{path, 0, "--kernel-log", Phrase("error.gzip.cannot_read")};
  return out;
}

}  // namespace

Result<std::string> read_kernel_log_file(const std::string& path) {
  auto bytes = read_text_file(path);
  if (!bytes) {
    // A FIFO, device or oversized file says so; any other failure keeps the plain wording.
    const std::string& key = bytes.error().message.key;
    if (key == "error.file.not_regular" || key == "error.file.too_large")
      return Error{path, 0, "--kernel-log", bytes.error().message};
    return Error{path, 0, "--kernel-log", Phrase("cli.file.cannot_read")};
  }
  if (!is_gzip(*bytes)) return std::move(*bytes);
  return gunzip(*bytes, path);
}

}  // namespace gpuplan::probe
