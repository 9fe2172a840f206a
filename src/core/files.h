// Reading whole files: the one place a file's bytes are read for parsing.
#pragma once

#include <string>

#include "core/error.h"

namespace gpuplan {

// Reads a whole file; a missing or unreadable file is an Error naming it.
[[nodiscard]] Result<std::string> read_text_file(const std::string& path);

}  // namespace gpuplan
