// Parsers for the buyer's files: the vendor's firmware checksum list and the output of a
// ResNet-50 benchmark. Pure: the caller reads the file, these read the text.
// A caller may rely on: a malformed checksum line is an Error naming the file and line; a
// benchmark output without a figure is nullopt, never 0.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpuplan::accept {

// A sha256sum-style list ("<hex>  <name>" or "<hex> *<name>"); names are reduced to their file
// name. Errors name the line.
Result<std::map<std::string, std::string>> parse_checksums(std::string_view text, const std::string& file);
// The images/s a ResNet-50 benchmark printed ("images/sec: 1875.3", "1875 img/s", "throughput:
// 14800 images/s"): the last such figure in the text; nullopt when there is none.
std::optional<double> parse_images_per_second(std::string_view text);

}  // namespace gpuplan::accept
