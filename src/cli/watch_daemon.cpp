// `gpuplan watch` itself: its flags, the signals (SIGTERM/SIGINT stop after a final commit,
// SIGHUP reopens the log file for logrotate), its log, and the call of the loop in watch/daemon.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "archive/archive.h"
#include "cli/common.h"
#include "cli/watch.h"
#include "nvml/nvml.h"
#include "watch/daemon.h"
#include "watch/exporter.h"
#include "watch/live_checks.h"
#include "watch/follower.h"

namespace gpuplan::cli {
namespace {

using std::chrono::milliseconds;

// The shortest --interval: low enough for tests; NVML itself refreshes most values every 100 ms or more.
constexpr milliseconds kMinWatchInterval{100};

volatile sig_atomic_t g_watch_stop = 0;
volatile sig_atomic_t g_watch_reopen = 0;

void on_watch_stop(int) {
  g_watch_stop = 1;
}
void on_watch_hup(int) {
  g_watch_reopen = 1;
}

void install_watch_signals() {
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a signal ends the sleep between rounds at once
  sa.sa_handler = on_watch_stop;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sa.sa_handler = on_watch_hup;
  sigaction(SIGHUP, &sa, nullptr);
  // A file-size limit reached is a failed write (EFBIG) the commit reports, not a killed daemon;
  // a scraper that hangs up mid-answer is a failed send, not a killed daemon either.
  sa.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &sa, nullptr);
  sigaction(SIGPIPE, &sa, nullptr);
}

// The stop and reopen signals, blocked in the threads started while this lives (the exporter's),
// so the kernel delivers them to the sampling thread, whose sleep they must cut short.
class WatchSignalsBlocked {
 public:
  WatchSignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &saved_);
  }
  ~WatchSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  WatchSignalsBlocked(const WatchSignalsBlocked&) = delete;
  WatchSignalsBlocked& operator=(const WatchSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

// watch's own log: standard error, or a file opened for appending and reopened on SIGHUP.
class WatchLogFile {
 public:
  explicit WatchLogFile(std::string path) : path_(std::move(path)) { reopen(); }
  ~WatchLogFile() {
    if (file_ && file_ != stderr) std::fclose(file_);
  }
  WatchLogFile(const WatchLogFile&) = delete;
  WatchLogFile& operator=(const WatchLogFile&) = delete;
  bool ok() const { return file_ != nullptr; }
  void reopen() {
    if (path_.empty()) {
      file_ = stderr;
      return;
    }
    FILE* reopened = std::fopen(path_.c_str(), "a");
    if (!reopened && file_) {
      // Keep writing where we were rather than lose every later line; say so once there.
      const int err = errno;
      line(Phrase("error.watch.log_open").fact("reason", std::strerror(err)));
      return;
    }
    if (file_) std::fclose(file_);
    file_ = reopened;
  }
  void line(const Phrase& p) {
    if (!file_) return;
    std::string text = say(p) + "\n";
    std::fwrite(text.data(), 1, text.size(), file_);
    std::fflush(file_);
  }

 private:
  std::string path_;
  FILE* file_ = nullptr;
};

struct WatchDaemonArgs {
  std::string interval = "5s", commit_every = "30s", keep_raw = "14d", duration;
  std::string archive = "/var/lib/gpuplan/archive.db";
  std::string kernel_log = "auto";
  std::string log, web_config, host;
  std::string listen = watch::kDefaultListen;
};

std::optional<milliseconds> watch_duration_flag(const std::string& flag, const std::string& value, milliseconds min,
                                                int& rc) {
  auto d = watch::parse_duration(value);
  if (!d || *d < min) {
    rc = bad_input(
        Error{{},
              0,
              flag,
              Phrase("cli.value.watch_duration").fact("min", std::to_string(min.count()) + "ms").fact("got", value)});
    return std::nullopt;
  }
  return d;
}

// The follower --kernel-log names; auto: /dev/kmsg when readable, else the journal. Null, with
// one log line, when none can be followed (watch samples NVML all the same).
std::unique_ptr<watch::KernelLogFollower> open_kernel_follower(const std::string& mode, WatchLogFile& log) {
  using watch::KernelLogSource;
  if (mode == "off") return nullptr;
  Result<std::unique_ptr<watch::KernelLogFollower>> f = Error{};
  if (mode == "auto") {
    f = watch::KernelLogFollower::open(KernelLogSource::kKmsg);
    if (!f) f = watch::KernelLogFollower::open(KernelLogSource::kJournal);
  } else if (mode == "kmsg") {
    f = watch::KernelLogFollower::open(KernelLogSource::kKmsg);
  } else if (mode == "journal") {
    f = watch::KernelLogFollower::open(KernelLogSource::kJournal);
  } else {
    f = watch::KernelLogFollower::open(KernelLogSource::kFile, mode);
  }
  if (!f) {
    log.line(Phrase("watch.kernel_log_unavailable").fact("why", {f.error().phrase()}));
    return nullptr;
  }
  return std::move(*f);
}

std::string watch_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

int run_watch_daemon(const Common& common, const WatchDaemonArgs& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc)) return rc;
  watch::DaemonOptions opt;
  auto interval = watch_duration_flag("--interval", a.interval, kMinWatchInterval, rc);
  if (!interval) return rc;
  auto commit_every = watch_duration_flag("--commit-every", a.commit_every, kMinWatchInterval, rc);
  if (!commit_every) return rc;
  auto keep_raw = watch_duration_flag("--keep-raw", a.keep_raw, milliseconds(3600000), rc);
  if (!keep_raw) return rc;
  opt.interval = *interval;
  opt.commit_every = *commit_every;
  opt.keep_raw = *keep_raw;
  // The costly reads about once a minute, whatever the interval.
  opt.full_every = static_cast<int>(std::max<int64_t>(1, 60000 / interval->count()));
  if (!a.duration.empty()) {
    opt.duration = watch_duration_flag("--duration", a.duration, kMinWatchInterval, rc);
    if (!opt.duration) return rc;
  }

  WatchLogFile log(a.log);
  if (!log.ok())
    return bad_input(Error{a.log, 0, "--log", Phrase("error.watch.log_open").fact("reason", std::strerror(errno))});
  // Bad flags and files are refused before the first reading: the address and the web config.
  watch::ExporterOptions served;
  if (a.listen != "off") {
    auto listen = watch::parse_listen(a.listen);
    if (!listen) return bad_input(listen.error());
    served.listen = *listen;
    if (!a.web_config.empty()) {
      if (auto web = watch::read_web_config(a.web_config); !web) return bad_input(web.error());
      served.web_config = a.web_config;
    }
  }
  auto nvml = nvml::Nvml::open();
  if (!nvml) return bad_input(nvml.error());
  const std::string host = a.host.empty() ? watch_hostname() : a.host;
  auto archive = archive::Archive::open(a.archive, host);
  if (!archive) return bad_input(archive.error());
  auto follower = open_kernel_follower(a.kernel_log, log);

  watch::Watch w;
  w.state.host = host;
  w.state.driver_version = (*nvml)->read_facts().driver_version;
  w.state.started_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  w.state.archive.path = a.archive;
  // The exporter serves a copy of the state with the live checks judged on it, so the lock is
  // held only for the copy.
  install_watch_signals();
  watch::Exporter exporter;
  if (a.listen != "off") {
    WatchSignalsBlocked in_server_threads;
    const catalog::Catalog& cat = ctx.catalog;
    auto started = exporter.start(served, [&w, &cat] {
      watch::WatchState s = w.snapshot();
      s.checks = watch::live_checks(s, cat);
      return s;
    });
    if (!started) return bad_input(started.error());
    // The port really listened on: the one asked, or the one the system chose for port 0.
    const bool v6 = served.listen.host.find(':') != std::string::npos;
    log.line(Phrase("watch.serving")
                 .fact("address", (v6 ? "[" + served.listen.host + "]" : served.listen.host) + ":" +
                                      std::to_string(exporter.port())));
  }

  std::string ids;
  for (unsigned i = 0; i < (*nvml)->count(); ++i) ids += (ids.empty() ? "" : ",") + std::to_string(i);
  log.line(Phrase("watch.started")
               .fact("gpus", std::to_string((*nvml)->count()))
               .fact("ids", ids)
               .fact("interval", a.interval)
               .fact("archive", a.archive)
               .fact(follower ? Fact{"kernel_log", follower->name(), {}, {}, ""}
                              : Fact{"kernel_log", "", {}, {Phrase("watch.kernel_log_off")}, ""}));

  watch::DaemonIo io;
  io.now = [] { return std::chrono::system_clock::now(); };
  io.sleep = [](milliseconds d) {
    // nanosleep returns early on a signal (no SA_RESTART); slices of at most 250 ms also cover a
    // signal that came just before the sleep began.
    while (d.count() > 0 && !g_watch_stop) {
      const milliseconds slice = std::min(d, milliseconds(250));
      timespec ts{static_cast<time_t>(slice.count() / 1000), static_cast<long>(slice.count() % 1000) * 1000000};
      nanosleep(&ts, nullptr);
      d -= slice;
    }
  };
  io.stop = [] { return g_watch_stop != 0; };
  io.log = [&log](const Phrase& p) {
    if (g_watch_reopen) {
      g_watch_reopen = 0;
      log.reopen();
    }
    log.line(p);
  };
  io.on_round = [&log] {
    if (g_watch_reopen) {
      g_watch_reopen = 0;
      log.reopen();
    }
  };
  int64_t rounds = watch::run_daemon(opt, **nvml, **archive, follower.get(), w, io);
  exporter.stop();
  log.line(Phrase("watch.stopped").fact("rounds", std::to_string(rounds)));
  return kOk;
}

}  // namespace

Run add_watch_daemon(CLI::App& cmd) {
  auto args = std::make_shared<WatchDaemonArgs>();
  cmd.add_option("--interval", args->interval, ui("cli.help.watch.interval"));
  cmd.add_option("--commit-every", args->commit_every, ui("cli.help.watch.commit_every"));
  cmd.add_option("--keep-raw", args->keep_raw, ui("cli.help.watch.keep_raw"));
  cmd.add_option("--archive", args->archive, ui("cli.help.watch.archive"));
  cmd.add_option("--kernel-log", args->kernel_log, ui("cli.help.watch.kernel_log"));
  cmd.add_option("--log", args->log, ui("cli.help.watch.log"));
  cmd.add_option("--listen", args->listen, ui("cli.help.watch.listen"));
  cmd.add_option("--web-config", args->web_config, ui("cli.help.watch.web_config"));
  cmd.add_option("--duration", args->duration, ui("cli.help.watch.duration"));
  cmd.add_option("--host", args->host, ui("cli.help.watch.host"));
  return [args](const Common& common) { return run_watch_daemon(common, *args); };
}

}  // namespace gpuplan::cli
