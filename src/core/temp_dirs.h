// Temporary directories (and the temporary files outputs are written to before their rename) that
// gpuplan removes on every way out: when the owner is done with one
// (remove_temp_dir), and when the process is stopped by SIGINT, SIGTERM or SIGHUP while it still
// exists. A caller may rely on: removal first gives the owner read, write and search permission
// on every directory inside (an unpacked snapshot may hold read-only directories, which a non-root
// user could otherwise not empty), then removes the tree without following links; after a signal
// the process still dies by that signal (its exit status says so). At most kMaxTempDirs are
// registered at once; a path past that, or longer than PATH_MAX, is still removed normally but
// not on a signal.
#pragma once

#include <string>

namespace gpuplan {

inline constexpr int kMaxTempDirs = 8;

// Creates a directory from `pattern` (mkdtemp's, ending in "XXXXXX", mode 0700) and registers it
// for removal on a signal, with the signals held meanwhile so that none comes between the two;
// installs the handlers on first use. The path made, or "" with errno set when none could be.
std::string make_temp_dir(std::string pattern);
// The same for a file: creates it from `pattern` (mkostemp's, O_CLOEXEC, mode 0600) and registers
// it. Its descriptor, or -1 with errno set. The owner forgets it once renamed or removed.
int make_temp_file(std::string& pattern);
// Registers `path` for removal on a signal; installs the handlers on first use.
void register_temp_dir(const std::string& path);
// Unregisters `path` (renamed into place or removed by its owner).
void forget_temp_dir(const std::string& path);
// Makes every directory under `path` writable by its owner, removes the tree and forgets it.
void remove_temp_dir(const std::string& path);

}  // namespace gpuplan
