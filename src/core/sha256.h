// SHA-256 of files and text (OpenSSL's EVP digest), lowercase hex: the hashes acceptance
// compares with a vendor's checksums and the evidence bundle's manifest lists.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace gpuplan {

std::string sha256_hex(std::string_view data);
// Streams a regular file up to its size when opened (capped, core/limits.h); an Error names it
// when it cannot be read or is not a regular file (a FIFO, /dev/zero, a directory).
Result<std::string> sha256_file(const std::string& path);

}  // namespace gpuplan
