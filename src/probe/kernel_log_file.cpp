// Reading a --kernel-log file: plain text, or gzip as logrotate leaves older kernel logs.
#include <zlib.h>

#include <array>
#include <functional>

#include "core/files.h"
#include "core/limits.h"
#include "probe/kernel_log.h"

namespace gpuplan::probe {
namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates every gzip member of `bytes` in turn (`cat a.gz b.gz` is a valid gzip file), handing
// each piece to `keep`, and stops before the total passes limits::kMaxTextFileBytes. zlib's last
// return code, or Z_MEM_ERROR when the limit stopped it; `inflated` counts what was handed over.
int inflate_members(const std::string& bytes, const std::function<void(const char*, size_t)>& keep, int64_t& inflated) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Z_STREAM_ERROR;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::array<char, 1 << 16> buf{};
  int rc = Z_OK;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const size_t produced = buf.size() - z.avail_out;
    if (inflated + static_cast<int64_t>(produced) > limits::kMaxTextFileBytes) {
      rc = Z_MEM_ERROR;  // a gzip bomb: refused, never inflated until memory runs out
      break;
    }
    inflated += static_cast<int64_t>(produced);
    keep(buf.data(), produced);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) break;  // the next member
      continue;
    }
    if (rc != Z_OK) break;
  }
  // Z_BUF_ERROR with input left would be a stall; with none left, the file ends inside a stream.
  if (rc == Z_BUF_ERROR && z.avail_in != 0) rc = Z_DATA_ERROR;
  inflateEnd(&z);
  return rc;
}

// `bytes` inflated, or why not: the stream is damaged, cut short, or inflates beyond what a kernel
// log can be. Inflated twice, first only counted: the text is then kept in a string of its exact
// size, never in one grown by doubling (a 255 MiB log would peak at 384 MiB, more under ASan).
Result<std::string> gunzip(const std::string& bytes, const std::string& path) {
  int64_t size = 0;
  const int rc = inflate_members(bytes, [](const char*, size_t) {}, size);
  if (rc == Z_MEM_ERROR)
    return Error{path, 0, "--kernel-log",
                 Phrase("error.gzip.too_large").fact("limit", std::to_string(limits::kMaxTextFileBytes >> 20) + " MiB")};
  if (rc == Z_BUF_ERROR)
    return Error{path, 0, "--kernel-log", Phrase("error.gzip.truncated").fact("bytes", std::to_string(size))};
  if (rc != Z_STREAM_END) return Error{path, 0, "--kernel-log", Phrase("error.gzip.cannot_read")};
  std::string out;
  out.reserve(static_cast<size_t>(size));
  int64_t again = 0;
  (void)inflate_members(bytes, [&out](const char* data, size_t n) { out.append(data, n); }, again);
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
