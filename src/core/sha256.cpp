#include "core/sha256.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <openssl/evp.h>

#include "core/files.h"
#include "core/limits.h"

namespace gpuplan {
namespace {

using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::string hex(const unsigned char* digest, unsigned length) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned i = 0; i < length; ++i) {
    out += kDigits[digest[i] >> 4];
    out += kDigits[digest[i] & 0xf];
  }
  return out;
}

Context new_context() {
  Context ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_DigestFinal_ex(ctx, digest, &length);
  return hex(digest, length);
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  Context ctx = new_context();
  EVP_DigestUpdate(ctx.get(), data.data(), data.size());
  return finish(ctx.get());
}

Result<std::string> sha256_file(const std::string& path) {
  // A regular file only, hashed up to the size it had when opened (at most
  // limits::kMaxFirmwareBytes): /dev/zero or a FIFO would otherwise be hashed forever.
  auto file = open_regular_file(path);
  if (!file) return file.error();
  const int fd = file->fd;
  if (file->size > limits::kMaxFirmwareBytes) {
    ::close(fd);
    return Error{path, 0, {}, Phrase("error.file.too_large").fact("limit", std::to_string(limits::kMaxFirmwareBytes >> 20) + " MiB")};
  }
  Context ctx = new_context();
  std::vector<char> buffer(1 << 16);
  int64_t left = file->size;
  while (left > 0) {
    const ssize_t got = ::read(fd, buffer.data(), static_cast<size_t>(std::min<int64_t>(left, buffer.size())));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ::close(fd);
      return Error{path, 0, {}, Phrase(got == 0 ? "error.file.shrank" : "error.file.read_failed")};
    }
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(got));
    left -= got;
  }
  ::close(fd);
  return finish(ctx.get());
}

}  // namespace gpuplan
