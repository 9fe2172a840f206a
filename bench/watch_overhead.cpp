// What `gpuplan watch` costs the host it watches: CPU time per sampling round of 8 GPUs and the
// resident memory over a simulated day at one round a second, against a named baseline in the
// same run: the same daemon loop writing every reading at once with one INSERT in autocommit mode
// (no batching). The NVML read alone is timed too, so gpuplan's own cost is told apart from the
// fake NVML's (tests/fake_nvml answers from a YAML scenario; a real driver costs differently).
//
// The loop is the daemon's own (watch::run_daemon with the CLI's settings for --interval 1s:
// commit every 30 s, maintain hourly, keep raw 14 days, the costly reads once a minute, every log
// line rendered and flushed to a file) with an injected clock, so 24 hours run without sleeping.
// CPU time is getrusage (user + system) of this process, taken per chunk of rounds; the figure
// is the median chunk (the mean, which includes the hourly maintenance, is printed beside it).
//
// Usage: bench_watch_overhead [--hours N] [--baseline-hours N] [--nvml LIB] [--scenario YAML] [--keep DIR]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/schema.h"
#include "archive/sqlite_db.h"
#include "nvml/nvml.h"
#include "report/messages.h"
#include "watch/daemon.h"
#include "watch/sampling.h"

namespace {

using namespace gpuplan;
using std::chrono::milliseconds;
namespace detail = archive::detail;
using report::Lang;
using report::say;

constexpr int64_t kChunkRounds = 600;  // 10 simulated minutes a chunk
constexpr int64_t kRssEveryMs = 4 * 3'600'000;

struct Options {
  double hours = 24;
  double baseline_hours = 1;
  std::string nvml, scenario, keep;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A field of /proc/self/status in MiB ("VmRSS:", "VmHWM:"); -1 when absent.
double status_mib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::strtod(line.c_str() + std::strlen(field), nullptr) / 1024.0;
  }
  return -1;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// CPU microseconds per round, one figure per chunk of kChunkRounds rounds: the whole round, and
// gpuplan's own part. The NVML read's cost is measured beside each round (`probe`: one more read
// of every GPU by a second Sampling, as the daemon reads, its CPU time taken apart), so the read
// and the round see the same load on this shared machine and the difference is gpuplan's cost.
struct ChunkMeter {
  int64_t in_chunk = 0;
  double chunk_start = cpu_seconds(), probe_s = 0;
  std::vector<double> round_us, own_us, read_us;
  void probe(watch::Sampling& sampling, int64_t now_ms) {
    const double t0 = cpu_seconds();
    if (sampling.read(now_ms).gpus.empty()) std::fprintf(stderr, "nvml: no GPU read\n");
    probe_s += cpu_seconds() - t0;
  }
  void tick() {
    if (++in_chunk < kChunkRounds) return;
    const double now = cpu_seconds(), n = static_cast<double>(in_chunk);
    const double round = (now - chunk_start - probe_s) / n * 1e6, read = probe_s / n * 1e6;
    round_us.push_back(round);
    read_us.push_back(read);
    own_us.push_back(round - read);
    chunk_start = now;
    probe_s = 0;
    in_chunk = 0;
  }
};

// The baseline: the same loop and schema, but each reading is written when it is taken, one
// INSERT (the archive's own statement and binding) in autocommit mode, so one transaction per
// reading. GPUs, events and maintenance go through a real archive on the same file, so only
// the batching differs.
class UnbatchedArchive : public archive::Archive {
 public:
  static std::unique_ptr<UnbatchedArchive> open(const std::string& path) {
    auto real = archive::Archive::open(path, "bench");
    if (!real) {
      std::fprintf(stderr, "%s\n", real.error().str().c_str());
      return nullptr;
    }
    auto out = std::unique_ptr<UnbatchedArchive>(new UnbatchedArchive(std::move(*real)));
    if (auto opened = detail::open_for_write(out->db_, path); !opened) {
      std::fprintf(stderr, "%s\n", opened.error().str().c_str());
      return nullptr;
    }
    std::string marks;
    for (size_t i = 0; i < detail::reading_columns().size(); ++i) marks += ", ?";
    const std::string sql =
        "INSERT INTO readings (time_ms, gpu, lost" + detail::reading_column_list() + ") VALUES (?, ?, ?" + marks + ")";
    if (std::string why = out->insert_.prepare(out->db_, sql); !why.empty()) {
      std::fprintf(stderr, "baseline: %s\n", why.c_str());
      return nullptr;
    }
    return out;
  }
  Result<void> register_gpus(const std::vector<archive::ArchivedGpu>& gpus) override {
    return real_->register_gpus(gpus);
  }
  void add(const archive::Reading& r) override {
    insert_.reset();
    insert_.bind(1, r.time_ms);
    insert_.bind(2, static_cast<int64_t>(r.gpu));
    insert_.bind(3, static_cast<int64_t>(r.lost));
    detail::bind_values(insert_, 4, r.values);
    if (insert_.step() != SQLITE_DONE) ++failed_;
    ++written_;
  }
  void add(const archive::Event& e) override { real_->add(e); }
  int64_t pending() const override { return real_->pending(); }
  int64_t dropped() const override { return real_->dropped() + failed_; }
  Result<archive::CommitResult> commit() override {
    auto done = real_->commit();
    if (done) done->readings = written_;
    written_ = 0;
    return done;
  }
  Result<void> maintain(int64_t now_ms, int64_t keep_raw_ms) override { return real_->maintain(now_ms, keep_raw_ms); }

 private:
  explicit UnbatchedArchive(std::unique_ptr<archive::Archive> real) : real_(std::move(real)) {}
  std::unique_ptr<archive::Archive> real_;
  detail::Db db_;
  detail::Stmt insert_;
  int64_t written_ = 0, failed_ = 0;
};

struct RunFigures {
  int64_t rounds = 0;
  double cpu_s = 0, wall_s = 0, probe_s = 0;
  std::vector<double> round_us, own_us, read_us;  // per chunk
  double rss_first = 0, rss_last = 0, rss_max = 0;
};

// One daemon run over `hours` of simulated time; VmRSS taken every 4 simulated hours (printed
// as it goes when `print_rss`).
RunFigures run_loop(nvml::Nvml& nvml, archive::Archive& archive, double hours, const std::string& log_path,
                    bool print_rss) {
  watch::DaemonOptions opt;  // what `gpuplan watch --interval 1s` sets (cli/watch_daemon.cpp)
  opt.interval = milliseconds(1000);
  opt.commit_every = milliseconds(30'000);
  opt.keep_raw = milliseconds(int64_t{14} * 24 * 3'600'000);
  opt.maintain_every = milliseconds(3'600'000);
  opt.full_every = 60;
  opt.duration = milliseconds(static_cast<int64_t>(hours * 3'600'000));
  // 2024-01-01T00:00:00Z, so maintenance falls on whole hours.
  const std::chrono::system_clock::time_point start{std::chrono::seconds(1'704'067'200)};
  milliseconds elapsed{0};
  FILE* log = std::fopen(log_path.c_str(), "a");
  if (!log) return {};
  RunFigures f;
  watch::Sampling probe(nvml, opt.full_every);
  watch::WatchState probe_state;
  probe.start(probe_state);
  ChunkMeter meter;
  watch::DaemonIo io;
  io.now = [&] { return start + elapsed; };
  io.sleep = [&](milliseconds d) { elapsed += d; };
  io.stop = [] { return false; };
  io.log = [&](const Phrase& p) {  // as WatchLogFile::line does
    const std::string text = say(p, Lang::kEn) + "\n";
    std::fwrite(text.data(), 1, text.size(), log);
    std::fflush(log);
  };
  io.on_round = [&] {
    const double before = meter.probe_s;
    meter.probe(probe, std::chrono::duration_cast<milliseconds>((start + elapsed).time_since_epoch()).count());
    f.probe_s += meter.probe_s - before;
    meter.tick();
    if (elapsed.count() % kRssEveryMs != 0) return;
    const double rss = status_mib("VmRSS:");
    if (elapsed.count() == 0) f.rss_first = rss;
    f.rss_last = rss;
    f.rss_max = std::max(f.rss_max, rss);
    if (print_rss) {
      std::printf("rss_mb_at_%lldh: %.1f\n", static_cast<long long>(elapsed.count() / 3'600'000), rss);
      std::fflush(stdout);
    }
  };
  watch::Watch w;
  const double cpu0 = cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  f.rounds = watch::run_daemon(opt, nvml, archive, nullptr, w, io);
  f.cpu_s = cpu_seconds() - cpu0 - f.probe_s;
  f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  f.round_us = std::move(meter.round_us);
  f.own_us = std::move(meter.own_us);
  f.read_us = std::move(meter.read_us);
  std::fclose(log);
  return f;
}

int64_t count_rows(const std::string& path) {
  detail::Db db;
  if (!db.open(path, true).empty()) return -1;
  return db.integer("SELECT COUNT(*) FROM readings").value_or(-1);
}

std::string self_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--hours")
      o.hours = std::atof(v);
    else if (a == "--baseline-hours")
      o.baseline_hours = std::atof(v);
    else if (a == "--nvml")
      o.nvml = v;
    else if (a == "--scenario")
      o.scenario = v;
    else if (a == "--keep")
      o.keep = v;
    else
      return false;
  }
  return o.hours > 0 && o.baseline_hours > 0;
}

std::string spread(const std::vector<double>& v) {
  if (v.empty()) return "no whole chunk";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  char text[96];
  std::snprintf(text, sizeof text, "%zu chunks of %lld rounds, %.1f to %.1f", v.size(),
                static_cast<long long>(kChunkRounds), *lo, *hi);
  return text;
}

void print_run(const char* name, const RunFigures& f, int64_t rows) {
  std::printf("%s_rounds: %lld\n%s_rows_written: %lld\n", name, static_cast<long long>(f.rounds), name,
              static_cast<long long>(rows));
  std::printf("%s_cpu_us_per_round_median: %.1f (%s)\n", name, median(f.round_us), spread(f.round_us).c_str());
  std::printf("%s_nvml_read_cpu_us_per_round_median: %.1f (%s)\n", name, median(f.read_us), spread(f.read_us).c_str());
  std::printf("%s_own_cpu_us_per_round_median: %.1f (%s)\n", name, median(f.own_us), spread(f.own_us).c_str());
  std::printf(
      "%s_cpu_us_per_round_mean: %.1f (all rounds, maintenance included: %.2f CPU-s, %.2f s of wall time "
      "with the reads beside them)\n",
      name, f.cpu_s / static_cast<double>(std::max<int64_t>(1, f.rounds)) * 1e6, f.cpu_s, f.wall_s);
  // The probe took one read per round, as many as the daemon's: its total stands for theirs.
  std::printf("%s_own_cpu_us_per_round_mean: %.1f (maintenance included)\n", name,
              (f.cpu_s - f.probe_s) / static_cast<double>(std::max<int64_t>(1, f.rounds)) * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.nvml = self_dir() + "/libnvidia-ml.so.1";
  o.scenario = std::string(GPUPLAN_SOURCE_DIR) + "/tests/fixtures/nvml/healthy-8xa100.yaml";
  if (!parse_args(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: bench_watch_overhead [--hours N] [--baseline-hours N] [--nvml LIB] [--scenario YAML] "
                 "[--keep DIR]\n");
    return 2;
  }
  setenv("GPUPLAN_FAKE_NVML_SCENARIO", o.scenario.c_str(), 1);
  auto opened = nvml::Nvml::open(o.nvml);
  if (!opened) {
    std::fprintf(stderr, "%s\n", opened.error().str().c_str());
    return 2;
  }
  nvml::Nvml& nvml = **opened;
  std::string dir = o.keep;
  if (dir.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuplan-watch-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) return 2;
    dir = pattern;
  }
  std::filesystem::create_directories(dir);
  std::printf("gpus: %u\nscenario: %s\narchive_dir: %s\nsimulated_hours: %g\nbaseline_hours: %g\n", nvml.count(),
              o.scenario.c_str(), dir.c_str(), o.hours, o.baseline_hours);
  std::fflush(stdout);

  RunFigures ours;
  {
    auto archive = archive::Archive::open(dir + "/archive.db", "bench");
    if (!archive) {
      std::fprintf(stderr, "%s\n", archive.error().str().c_str());
      return 2;
    }
    ours = run_loop(nvml, **archive, o.hours, dir + "/watch.log", true);
  }
  const double hwm_after_ours = status_mib("VmHWM:");
  print_run("gpuplan", ours, count_rows(dir + "/archive.db"));
  std::printf("gpuplan_rss_mb: %.1f at start, %.1f at the end, %.1f highest sampled, peak (VmHWM) %.1f\n",
              ours.rss_first, ours.rss_last, ours.rss_max, hwm_after_ours);
  std::fflush(stdout);

  RunFigures base;
  {
    auto archive = UnbatchedArchive::open(dir + "/baseline.db");
    if (!archive) return 2;
    base = run_loop(nvml, *archive, o.baseline_hours, dir + "/baseline.log", false);
  }
  print_run("baseline", base, count_rows(dir + "/baseline.db"));

  // The ratios: the baseline's CPU per round over gpuplan's, whole rounds and own cost alone.
  const double ours_us = median(ours.round_us), base_us = median(base.round_us);
  const double ours_own = median(ours.own_us), base_own = median(base.own_us);
  const double gpus = std::max(1u, nvml.count());
  std::printf("gpuplan_own_cpu_us_per_reading: %.2f\nbaseline_own_cpu_us_per_reading: %.2f\n", ours_own / gpus,
              base_own / gpus);
  std::printf("ratio_round_vs_unbatched_inserts: %.2f\n", base_us / ours_us);
  std::printf("ratio_own_vs_unbatched_inserts: %.2f\n", base_own / ours_own);
  if (o.keep.empty()) std::filesystem::remove_all(dir);
  return 0;
}
