// The loop of `gpuplan watch`: a sampling round every interval (on a schedule counted from the
// start, so slow reads do not stretch it), kernel-log events as they come, a commit of the
// archive every commit interval, maintain() (hourly rollups, raw retention) once an hour, and a
// final commit when asked to stop. Clock, sleep, stop and the log are injected, so a test runs
// 24 hours in no time; the CLI (cli/watch_daemon.cpp) wires signals and the log file.
//
// A caller may rely on: a "committed" log line is written only after commit() returned success;
// a failed commit is one error line and the loop goes on (the batch stays pending in the archive
// and the next commit retries it); the state is only touched under `Watch::mu`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "archive/archive.h"
#include "core/phrase.h"
#include "nvml/nvml.h"
#include "watch/follower.h"
#include "watch/state.h"

namespace gpuplan::watch {

struct DaemonOptions {
  std::chrono::milliseconds interval{5000};
  std::chrono::milliseconds commit_every{30000};
  std::chrono::milliseconds keep_raw{std::chrono::hours(24 * 14)};
  std::chrono::milliseconds maintain_every{std::chrono::hours(1)};
  std::optional<std::chrono::milliseconds> duration;  // stop after it (tests); nullopt: until stopped
  // The costly reads (processes, retired pages, remapped rows) once a minute at the default 5 s.
  int full_every = 12;
};

// What the daemon knows, behind its lock: the exporter takes copies with snapshot().
struct Watch {
  std::mutex mu;
  WatchState state;
  WatchState snapshot() {
    std::lock_guard<std::mutex> lock(mu);
    return state;
  }
};

struct DaemonIo {
  nvml::Clock now;
  nvml::Sleep sleep;
  std::function<bool()> stop;              // true once SIGTERM/SIGINT arrived
  std::function<void(const Phrase&)> log;  // one line, written and flushed before it returns
  std::function<void()> on_round;          // may be empty: after each round (SIGHUP, tests)
};

// Runs until io.stop() or the duration; returns the number of rounds taken. `follower` may be
// null (--kernel-log off).
int64_t run_daemon(const DaemonOptions& options, nvml::Nvml& nvml, archive::Archive& archive,
                   KernelLogFollower* follower, Watch& watch, DaemonIo& io);

// The longest duration a flag takes (--keep-raw, --duration, …): 10 years, so that every time
// computed from one stays far inside 64-bit milliseconds.
constexpr std::chrono::milliseconds kMaxWatchDuration{int64_t{3650} * 86400000};

// "5s", "1s", "500ms", "30s", "2m", "1h", "14d" → milliseconds; nullopt when not a whole number
// followed by one of ms, s, m, h, d, or longer than kMaxWatchDuration.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace gpuplan::watch
