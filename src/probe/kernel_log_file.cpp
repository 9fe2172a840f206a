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

// Every gzip member of `bytes` inflated in turn (`cat a.gz b.gz` is a valid gzip file); nullopt
// when the stream is damaged or cut short.
std::optional<std::string> gunzip(const std::string& bytes) {
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return std::nullopt;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::array<char, 1 << 16> buf{};
  int rc = Z_OK;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf.data(), buf.size() - z.avail_out);
    if (static_cast<int64_t>(out.size()) > limits::kMaxTextFileBytes) {
      rc = Z_DATA_ERROR;  // a gzip bomb: refused, never inflated until memory runs out
      break;
    }
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) break;  // the next member
      continue;
    }
    if (rc != Z_OK) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
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
  auto text = gunzip(*bytes);
  if (!text) return Error{path, 0, "--kernel-log", Phrase("error.gzip.cannot_read")};
  return std::move(*text);
}

}  // namespace gpuplan::probe
