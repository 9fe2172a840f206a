// gpuplan watch: the daemon (the verb itself), `watch export` and `watch rules`. cli/watch.cpp
// builds the verb from these three, each in its own file.
#pragma once

#include "cli/verb.h"

namespace gpuplan::cli {

Run add_watch_daemon(CLI::App& cmd);  // the flags of `gpuplan watch` itself (cli/watch_daemon.cpp)
Run add_watch_export(CLI::App& sub);  // `gpuplan watch export` (cli/watch_export.cpp)
Run add_watch_rules(CLI::App& sub);   // `gpuplan watch rules` (cli/watch_rules.cpp)

}  // namespace gpuplan::cli
