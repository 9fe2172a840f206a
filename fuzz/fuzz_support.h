// What the fuzz targets share: the bytes as a string, the bytes in a file for parsers that take
// only a path, and the repository's catalog for parsers that resolve ids against it.
//
// A caller may rely on: input_file() returns the same path for every input of one process (the
// file rewritten each time), in a directory this process made and removes at exit; scratch_dir()
// is an empty directory for each call; catalog() is loaded once (GPUPLAN_FUZZ_CATALOG).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "telemetry/readers.h"

namespace gpuplan::fuzz {

inline std::string_view bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `data` written to <process dir>/<name>, its path.
std::string input_file(const uint8_t* data, size_t size, const std::string& name = "input");

// An empty directory (emptied again on each call) for parsers that write what they read.
std::string scratch_dir();

// The repository's catalog/, as the binary loads it.
const catalog::Catalog& catalog();

// `data` as a telemetry log of `format` in a file named `name`, read through read_samples (the
// reader maps or streams a path, gzip or not) into a sink that keeps nothing.
void read_log(const uint8_t* data, size_t size, telemetry::SourceFormat format, const std::string& name);

// Calls `each` with every line of `text` (without its '\n').
template <typename Each>
void for_each_line(std::string_view text, Each&& each) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    each(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace gpuplan::fuzz
