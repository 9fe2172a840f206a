// The git commit gpuplan was built from, for `gpuplan --version`: its short hash, with "+dirty"
// when tracked files had changes, or "" when it was built outside git (from a tarball). Defined in
// a file generated on every build (packaging/version.cmake), so a commit recompiles only that file.
#pragma once

namespace gpuplan::cli {
extern const char* const kBuildCommit;
}  // namespace gpuplan::cli
