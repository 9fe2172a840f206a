// The watch loop: rounds on schedule, kernel events, commits, hourly maintenance, final commit.
#include "watch/daemon.h"

#include <cctype>
#include <ctime>

#include "watch/sampling.h"

namespace gpuplan::watch {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

int64_t unix_ms(const nvml::Clock& now) {
  return duration_cast<milliseconds>(now().time_since_epoch()).count();
}

// "2024-05-06T10:00:05Z": the time a batch reaches, as a fact shown the same in every language.
std::string iso_utc(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void commit(archive::Archive& archive, Watch& watch, DaemonIo& io, int64_t now_ms) {
  if (archive.pending() == 0) return;
  auto done = archive.commit();
  {
    std::lock_guard<std::mutex> lock(watch.mu);
    ArchiveState& a = watch.state.archive;
    a.pending = archive.pending();
    a.dropped = archive.dropped();
    a.writable = done.ok();
    if (done) {
      ++a.batches_committed;
      a.readings_committed += done->readings;
      a.last_commit_ms = now_ms;
    } else {
      ++a.commit_errors;
    }
  }
  if (!done) {
    io.log(Phrase("watch.commit_failed")
               .fact("pending", std::to_string(archive.pending()))
               .fact("why", {done.error().phrase()}));
    return;
  }
  // The figures stay plain numbers: tests and operators parse them.
  io.log(Phrase("watch.batch_committed")
             .fact("batch", std::to_string(done->batch))
             .fact("readings", std::to_string(done->readings))
             .fact("events", std::to_string(done->events))
             .fact("time", iso_utc(done->last_time_ms ? done->last_time_ms : now_ms)));
}

}  // namespace

std::optional<milliseconds> parse_duration(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const int64_t n = std::stoll(text.substr(0, digits));  // at most 12 digits: no overflow here
  const std::string unit = text.substr(digits);
  int64_t per = 0;
  if (unit == "ms") per = 1;
  if (unit == "s") per = 1000;
  if (unit == "m") per = 60000;
  if (unit == "h") per = 3600000;
  if (unit == "d") per = 86400000;
  // n ≤ 10^12 and per ≤ 8.64·10^7: the bound is checked before the product could overflow.
  if (per == 0 || n > kMaxWatchDuration.count() / per) return std::nullopt;
  return milliseconds(n * per);
}

int64_t run_daemon(const DaemonOptions& options, nvml::Nvml& nvml, archive::Archive& archive,
                   KernelLogFollower* follower, Watch& watch, DaemonIo& io) {
  Sampling sampling(nvml, options.full_every);
  std::vector<nvml::GpuStatic> identities;
  {
    std::lock_guard<std::mutex> lock(watch.mu);
    auto gpus = sampling.start(watch.state);
    if (auto r = archive.register_gpus(gpus); !r)
      io.log(Phrase("watch.register_failed").fact("why", {r.error().phrase()}));
    for (const auto& g : watch.state.gpus) identities.push_back(g.info);
  }
  const auto start = io.now();
  const int64_t start_ms = unix_ms(io.now);
  int64_t next_commit = start_ms + options.commit_every.count();
  int64_t next_maintain = start_ms + options.maintain_every.count();
  int64_t rounds = 0;
  while (!io.stop()) {
    if (rounds > 0) {
      const milliseconds due = options.interval * rounds;
      auto wait = due - duration_cast<milliseconds>(io.now() - start);
      if (wait.count() > 0) io.sleep(wait);
      if (io.stop()) break;
    }
    const int64_t now_ms = unix_ms(io.now);
    if (options.duration && now_ms - start_ms > options.duration->count()) break;
    RoundReadings readings = sampling.read(now_ms);
    std::vector<probe::KernelEvent> kernel;
    if (follower) kernel = follower->poll();
    {
      std::lock_guard<std::mutex> lock(watch.mu);
      if (sampling.apply(readings, watch.state, archive)) {
        std::vector<archive::ArchivedGpu> gpus;
        identities.clear();
        for (const auto& g : watch.state.gpus) {
          gpus.push_back({g.info.index, g.info.uuid, g.info.pci_bus_id, g.info.name, g.info.memory_total_mib});
          identities.push_back(g.info);
        }
        (void)archive.register_gpus(gpus);  // a failure here is retried at the next identity change
      }
      for (const auto& k : kernel) {
        archive::Event e = to_archive_event(k, identities, now_ms);
        count_event(e, watch.state);
        archive.add(e);
      }
      watch.state.archive.pending = archive.pending();
    }
    ++rounds;
    if (now_ms >= next_commit) {
      commit(archive, watch, io, now_ms);
      while (next_commit <= now_ms) next_commit += options.commit_every.count();
    }
    if (now_ms >= next_maintain) {
      if (auto r = archive.maintain(now_ms, options.keep_raw.count()); !r)
        io.log(Phrase("watch.maintain_failed").fact("why", {r.error().phrase()}));
      while (next_maintain <= now_ms) next_maintain += options.maintain_every.count();
    }
    if (io.on_round) io.on_round();
  }
  commit(archive, watch, io, unix_ms(io.now));
  return rounds;
}

}  // namespace gpuplan::watch
