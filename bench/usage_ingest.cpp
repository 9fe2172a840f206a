// Ingestion + hourly aggregation of an nvidia-smi CSV log, as `gpuplan usage` does it: prints
// throughput and peak RSS, and writes the per-GPU hourly aggregates (count, mean utilization,
// mean memory used, max temperature) so bench/usage_vs_duckdb.sh can check that DuckDB and
// pandas compute the same numbers.
// Usage: bench_usage_ingest FILE [AGGREGATES.csv]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "telemetry/hourly.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_usage_ingest FILE [AGGREGATES.csv]\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  auto data = gpuplan::telemetry::read_hourly({argv[1]}, gpuplan::telemetry::SourceFormat::kSmiCsv);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!data) {
    std::fprintf(stderr, "%s\n", data.error().str().c_str());
    return 2;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("bytes: %lld\nseconds: %.4f\ngb_per_s: %.3f\npeak_rss_mb: %.1f\nsamples: %lld\nskipped: %lld\n",
              static_cast<long long>(data->stats.bytes), seconds, data->stats.bytes / seconds / 1e9, usage.ru_maxrss / 1024.0,
              static_cast<long long>(data->stats.samples), static_cast<long long>(data->stats.skipped_count));
  if (argc > 2) {
    // gpu (the key after "host/"), hour (hours since 1970), count, mean util, mean memory, max temperature.
    std::ofstream out(argv[2]);
    out << "gpu,hour,count,mean_util,mean_mem,max_temp\n";
    char line[256];
    for (const auto& [hour, accs] : data->hours)
      for (size_t g = 0; g < accs.size(); ++g) {
        const auto& a = accs[g];
        if (a.count == 0) continue;
        const std::string& name = data->gpus[g];
        std::snprintf(line, sizeof line, "%s,%lld,%u,%.6f,%.6f,%.0f\n", name.substr(name.find('/') + 1).c_str(),
                      static_cast<long long>(hour), a.count, a.mean_util().value_or(0), a.mean_mem().value_or(0),
                      a.temp_max.value_or(0));
        out << line;
      }
  }
  return 0;
}
