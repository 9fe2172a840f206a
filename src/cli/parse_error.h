// CLI11's parse errors in the run's language. CLI11 says what went wrong only in English text
// ("Could not convert: --gpus = x"), so the flag and the value are read back out of it; a text
// not recognised is quoted as it is.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/error.h"

namespace gpuplan::cli {

// The command a parse error belongs to: the last subcommand given ("gpuplan usage synth").
const CLI::App* deepest(const CLI::App& app);
// "gpuplan usage synth"
std::string command_of(const CLI::App* app);
// `e` as an Error with a message key and facts.
Error parse_error(const CLI::ParseError& e, const CLI::App& app);

}  // namespace gpuplan::cli
