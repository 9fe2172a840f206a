// Reading whole files: the one place a file's bytes are read for parsing, and the one check that
// an input path is a regular file. A FIFO, a character device (/dev/zero) or a directory given
// where a file is expected is refused up front, never read until memory runs out or waited on
// forever; every whole read is capped (core/limits.h).
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace gpuplan {

// An open regular file: its descriptor (the caller closes it) and its size when opened.
struct RegularFile {
  int fd = -1;
  int64_t size = 0;
};

// Opens `path` read-only if it is a regular file (following links). Opened non-blocking and
// checked with fstat before any read, so a FIFO without a writer does not hang; a FIFO, device,
// socket or directory is an Error naming the path ("error.file.not_regular", fact `kind`).
[[nodiscard]] Result<RegularFile> open_regular_file(const std::string& path);

// Reads a whole regular file of at most `max_bytes` (default limits::kMaxTextFileBytes); a
// missing, unreadable, non-regular or larger file is an Error naming it.
[[nodiscard]] Result<std::string> read_text_file(const std::string& path, int64_t max_bytes = -1);

}  // namespace gpuplan
