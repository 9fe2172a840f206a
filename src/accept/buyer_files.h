// The parser of a buyer's file: the vendor's firmware checksum list (a benchmark's output is
// accept/benchmark_output.h). Pure: the caller reads the file, this reads the text.
// A caller may rely on: a malformed checksum line is an Error naming the file and line.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpuplan::accept {

// A sha256sum-style list ("<hex>  <name>" or "<hex> *<name>"); names are reduced to their file
// name. Errors name the line.
Result<std::map<std::string, std::string>> parse_checksums(std::string_view text, const std::string& file);

}  // namespace gpuplan::accept
