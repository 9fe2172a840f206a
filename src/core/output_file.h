// Writing an output file so that a failed write never passes for a written one. A caller may rely
// on: the text goes to a new temporary file beside the target (same directory, created with
// O_EXCL, mode 0666 less the umask as any new file), is written in full, fsynced and closed, and
// only then renamed over the target, so the target holds either its old content or all of the new;
// any failure (a full disk, a file size limit, an unwritable directory) is an Error naming the
// target, the flag and the system's reason, and the temporary file is removed. A target that
// exists and is not a regular file (/dev/stdout, /dev/full, a FIFO) is written in place instead,
// every write and the close checked, since renaming over it would replace a device with a file.
#pragma once

#include <sys/types.h>

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpuplan {

// Writes `text` to `path`; `field` is the flag that named it ("--output"), for the Error.
[[nodiscard]] Result<void> write_output_file(const std::string& path, std::string_view text, const std::string& field);

// The same for output produced as a stream: `produce` writes into the stream it is given and
// returns its own Error (a failed read of what it copies), which is passed on and the temporary
// file removed. A stream that failed to take what `produce` wrote is reported as a failed write.
[[nodiscard]] Result<void> write_output_file(const std::string& path, const std::string& field,
                                             const std::function<Result<void>(std::ostream&)>& produce);

// The process's umask, for the mode a new file or directory would get. Read from /proc/self/status
// (Linux 4.7 on) rather than by setting it and setting it back, which would give a file another
// thread creates meanwhile the wrong mode.
[[nodiscard]] mode_t process_umask();

// Flushes standard output (C++ and C streams) and says whether everything written reached it;
// the system's reason when not. Called once before the process exits.
[[nodiscard]] Result<void> flush_standard_output();

}  // namespace gpuplan
