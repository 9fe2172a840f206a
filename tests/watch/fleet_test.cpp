// The fleet test (issue 15): three `gpuplan watch` processes on loopback ports, as three hosts
// of two fake GPUs each, every one keeping its own archive; Debian's real Prometheus scrapes all
// three. The heatmap data Prometheus gives back from gpuplan's own series (query_prometheus and
// `usage --prometheus`) must equal what the three archives say read directly (read_hourly and
// `usage a.db b.db c.db`): the same six GPUs, the same hourly means and maxima.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "archive/archive.h"
#include "prometheus_process.h"
#include "telemetry/prometheus.h"
#include "test_support.h"
#include "watch/daemon_process.h"

namespace gpuplan::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;

const std::vector<std::string> kHosts = {"node-a", "node-b", "node-c"};

// Host h, GPU g: every value differs from every other GPU's, so a GPU mixed up with another (or
// a host's series given another's Hostname) shows as a wrong number.
int util_of(size_t h, unsigned g) {
  return 11 + 20 * static_cast<int>(h) + 5 * static_cast<int>(g);
}
int memory_of(size_t h, unsigned g) {
  return 1024 * (1 + 2 * static_cast<int>(h) + static_cast<int>(g)) + 7;
}
int temperature_of(size_t h, unsigned g) {
  return 41 + 6 * static_cast<int>(h) + 2 * static_cast<int>(g);
}

// A two-GPU A100 host for the fake NVML (tests/fake_nvml lists the keys), constant readings.
std::string scenario(size_t h) {
  std::string gpus;
  for (unsigned g = 0; g < 2; ++g)
    gpus += fmt::format(
        "  - {{pci_bus_id: \"00000000:{:02X}:00.0\", uuid: GPU-0000000{}-0000-4000-8000-00000000000{}, "
        "utilization_gpu_pct: {}, memory_used_mib: {}, temperature_c: {}}}\n",
        0x17 + 0x1a * g, h, g, util_of(h, g), memory_of(h, g), temperature_of(h, g));
  return "driver_version: \"535.129.03\"\ncuda_driver_version: 12020\n"
         "defaults: {name: NVIDIA A100-SXM4-80GB, max_link_gen: 4, max_link_width: 16, link_gen: 4, "
         "link_width: 16, memory_total_mib: 81920, utilization_memory_pct: 40, slowdown_temp_c: 92, "
         "shutdown_temp_c: 97, power_w: 250, power_limit_w: 400, sm_clock_mhz: 1410, max_sm_clock_mhz: 1410, "
         "clock_event_reasons: 0, pcie_replays: 0, ecc_enabled: true, ecc_volatile_corrected: 0, "
         "ecc_volatile_uncorrected: 0, ecc_aggregate_corrected: 0, ecc_aggregate_uncorrected: 0, nvlinks: 12}\n"
         "gpus:\n" +
         gpus;
}

struct Host {
  std::string archive, log;
  int port = 0;
  std::unique_ptr<WatchProcess> watch;
};

// Starts host h's watch on a free port, trying another when the port was taken meanwhile; true
// once its /metrics answers.
bool start_host(const std::string& dir, size_t h, Host& host) {
  const std::string name = kHosts[h];
  const std::string file = write_file(dir, name + ".yaml", scenario(h));
  host.archive = dir + "/" + name + ".db";
  for (int attempt = 0; attempt < 3; ++attempt) {
    host.port = free_port();
    host.log = dir + "/" + name + "-" + std::to_string(attempt) + ".log";
    host.watch = std::make_unique<WatchProcess>(
        std::vector<std::string>{"--host", name, "--archive", host.archive, "--log", host.log, "--listen",
                                 "127.0.0.1:" + std::to_string(host.port), "--interval", "200ms", "--commit-every",
                                 "200ms", "--kernel-log", "off"},
        file);
    const std::string metrics = "http://127.0.0.1:" + std::to_string(host.port) + "/metrics";
    if (eventually([&] { return !host.watch->running() || http_status(metrics) == 200; }) && host.watch->running())
      return true;
  }
  return false;
}

// How many of the fleet's GPU series Prometheus holds at least `scrapes` samples of.
int series_scraped(const std::string& url, int scrapes) {
  const std::string body = http_get(url + "/api/v1/query?query=count_over_time(DCGM_FI_DEV_GPU_UTIL%5B10m%5D)");
  if (body.empty()) return 0;
  const json answer = json::parse(body);
  int enough = 0;
  for (const auto& series : answer["data"]["result"])
    if (std::stoi(series["value"][1].get<std::string>()) >= scrapes) ++enough;
  return enough;
}

// `gpuplan usage ARGS --format json`, parsed; null when it did not exit 0.
json usage_json(const std::vector<std::string>& args, const std::string& dir, const std::string& name) {
  std::vector<std::string> argv = {GPUPLAN_BINARY, "--lang", "en", "--format", "json", "usage", "--quiet"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--output", dir + "/" + name + ".json"});
  if (run_command(argv, dir + "/" + name + ".log") != 0) return nullptr;
  return json::parse(read_file(dir + "/" + name + ".json"));
}

// One GPU-hour as each side sees it.
struct Cell {
  double util = -1, memory = -1, temperature = -1;
  bool operator==(const Cell&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Cell& c) {
  return os << "util " << c.util << ", memory " << c.memory << ", temperature " << c.temperature;
}
using Cells = std::map<std::pair<int64_t, std::string>, Cell>;  // (hour since 1970, "host/gpu")

Cells from_archives(const std::vector<Host>& hosts) {
  Cells out;
  for (size_t h = 0; h < hosts.size(); ++h) {
    auto hours = archive::read_hourly(hosts[h].archive);
    EXPECT_TRUE(hours) << hours.error().str();
    if (!hours) continue;
    for (const archive::HourlyRollup& r : *hours)
      out[{r.hour_ms / 3600000, kHosts[h] + "/" + std::to_string(r.gpu)}] = {
          r.utilization_pct.mean.value_or(-1), r.memory_used_mib.mean.value_or(-1), r.temperature_c.max.value_or(-1)};
  }
  return out;
}

Cells from_prometheus(const telemetry::HourlyData& data) {
  Cells out;
  for (const auto& [hour, row] : data.hours)
    for (size_t g = 0; g < row.size(); ++g)
      if (row[g].util_count || row[g].mem_count || row[g].temp_max)  // a GPU not scraped that hour has none
        out[{hour, data.gpus[g]}] = {row[g].mean_util().value_or(-1), row[g].mean_mem().value_or(-1),
                                     row[g].temp_max.value_or(-1)};
  return out;
}

TEST(Fleet, PrometheusScrapingThreeWatchesGivesTheHeatmapOfTheirArchives) {
  ASSERT_TRUE(fs::exists(kPrometheus)) << kPrometheus << " is missing: run scripts/install-deps.sh";
  const std::string dir = temp_dir();
  const int64_t started_s = std::time(nullptr);
  std::vector<Host> hosts(kHosts.size());
  for (size_t h = 0; h < hosts.size(); ++h)
    ASSERT_TRUE(start_host(dir, h, hosts[h])) << kHosts[h] << " did not serve /metrics:\n" << log_tail(hosts[h].log);

  // The scrape config of the README's fleet section, with the three loopback ports as targets.
  std::string targets;
  for (const Host& host : hosts) targets += (targets.empty() ? "" : ", ") + fmt::format("'127.0.0.1:{}'", host.port);
  const std::string config = write_file(dir, "prometheus.yml",
                                        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                        "scrape_configs:\n  - job_name: gpuplan\n    static_configs:\n"
                                        "      - targets: [" +
                                            targets + "]\n");
  ASSERT_EQ(run_command({kPromtool, "check", "config", config}, dir + "/promtool.log"), 0)
      << log_tail(dir + "/promtool.log");
  std::unique_ptr<PrometheusProcess> prometheus;
  const std::string url = start_prometheus(prometheus, config, dir + "/tsdb", dir + "/prometheus.log");
  ASSERT_FALSE(url.empty()) << "prometheus did not become ready:\n" << prometheus->log();

  // Five scrapes of every GPU (5 s at 1 s), then the watches stop: SIGTERM commits and exits 0.
  EXPECT_TRUE(eventually([&] { return series_scraped(url, 5) == 6; }, milliseconds(20000)))
      << series_scraped(url, 1) << " of 6 series scraped at all\n"
      << prometheus->log();
  for (Host& host : hosts) host.watch->signal(SIGTERM);
  for (size_t h = 0; h < hosts.size(); ++h) {
    const int status = hosts[h].watch->wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << kHosts[h] << ":\n" << log_tail(hosts[h].log);
  }

  telemetry::PromQuery q;
  q.url = url;
  q.from_s = started_s - 3600;
  q.to_s = std::time(nullptr) + 1;
  auto scraped = telemetry::query_prometheus(q);
  ASSERT_TRUE(scraped) << scraped.error().str();
  const Cells prom = from_prometheus(*scraped), archived = from_archives(hosts);

  // The six GPUs, named "<Hostname>/<gpu>" on both sides.
  std::set<std::string> names(scraped->gpus.begin(), scraped->gpus.end());
  EXPECT_EQ(names, (std::set<std::string>{"node-a/0", "node-a/1", "node-b/0", "node-b/1", "node-c/0", "node-c/1"}));
  // Each GPU-hour Prometheus has, the archive has too, with the same numbers: the scenario's
  // constants (so the means are exact on both sides, whatever the sample count). An hour the
  // watches began in before the first scrape is the archive's alone.
  size_t compared = 0;
  for (const auto& [key, cell] : prom) {
    auto it = archived.find(key);
    ASSERT_NE(it, archived.end()) << "hour " << key.first << " of " << key.second << " is not in the archives";
    EXPECT_EQ(cell, it->second) << "hour " << key.first << " of " << key.second << " (Prometheus, then the archive)";
    const size_t h = static_cast<size_t>(key.second[5] - 'a');
    const unsigned g = static_cast<unsigned>(key.second.back() - '0');
    EXPECT_EQ(cell, (Cell{double(util_of(h, g)), double(memory_of(h, g)), double(temperature_of(h, g))})) << key.second;
    ++compared;
  }
  EXPECT_GE(compared, 6u);

  // The CLI on both sources: the same GPUs, the same per-GPU means, the same fleet heatmap cells.
  // --to the end of this hour: by default usage ends at the last whole hour, before these scrapes.
  const std::string to = std::to_string((std::time(nullptr) / 3600 + 1) * 3600);
  json by_prom = usage_json({"--prometheus", url, "--since", "2h", "--to", to}, dir, "usage-prometheus");
  json by_file = usage_json({hosts[0].archive, hosts[1].archive, hosts[2].archive}, dir, "usage-archives");
  ASSERT_FALSE(by_prom.is_null()) << log_tail(dir + "/usage-prometheus.log");
  ASSERT_FALSE(by_file.is_null()) << log_tail(dir + "/usage-archives.log");
  std::map<std::string, double> prom_means, file_means;
  for (size_t i = 0; i < by_prom["gpu_names"].size(); ++i)
    prom_means[by_prom["gpu_names"][i]] = by_prom["gpu_mean_util"][i];
  for (size_t i = 0; i < by_file["gpu_names"].size(); ++i)
    file_means[by_file["gpu_names"][i]] = by_file["gpu_mean_util"][i];
  EXPECT_EQ(prom_means, file_means);
  EXPECT_EQ(prom_means.size(), 6u);
  // Heatmap cells by day and hour: each Prometheus has, the archives have, equal (an hour the
  // watches began in before the first scrape is the archives' alone).
  auto cells = [](const json& report) {
    std::map<std::pair<std::string, size_t>, json> out;
    const json& heatmap = report["heatmap"]["by_day"];
    for (size_t r = 0; r < heatmap["rows"].size(); ++r)
      for (size_t c = 0; c < heatmap["cells"][r].size(); ++c)
        if (!heatmap["cells"][r][c].is_null()) out[{heatmap["rows"][r].dump(), c}] = heatmap["cells"][r][c];
    return out;
  };
  const auto prom_cells = cells(by_prom), file_cells = cells(by_file);
  size_t cells_in_both = 0;
  for (const auto& [where, value] : prom_cells) {
    auto it = file_cells.find(where);
    ASSERT_NE(it, file_cells.end()) << "day " << where.first << " hour " << where.second;
    EXPECT_EQ(value, it->second) << "day " << where.first << " hour " << where.second;
    ++cells_in_both;
  }
  EXPECT_GE(cells_in_both, 1u);
}

TEST(Fleet, TheReadmeScrapeConfigForNNodesPassesPromtool) {
  // The YAML block under "### Scraping N nodes", with the rules file it names written by
  // `gpuplan watch rules`.
  const std::string readme = read_file(source_path("README.md"));
  const size_t section = readme.find("### Scraping N nodes");
  ASSERT_NE(section, std::string::npos);
  const size_t begin = readme.find("```yaml\n", section), end = readme.find("```\n", begin + 8);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string config = readme.substr(begin + 8, end - begin - 8);
  ASSERT_NE(config.find("job_name: gpuplan"), std::string::npos) << config;
  const std::string dir = temp_dir();
  fs::create_directories(dir + "/rules");
  const std::string rules = dir + "/rules/gpuplan.rules.yml";  // its standard output (stderr too: none)
  ASSERT_EQ(run_command({GPUPLAN_BINARY, "watch", "rules"}, rules), 0) << log_tail(rules);
  const std::string file = write_file(dir, "prometheus.yml", config);
  EXPECT_EQ(run_command({kPromtool, "check", "config", file}, dir + "/promtool.log"), 0)
      << log_tail(dir + "/promtool.log") << "\n"
      << config;
}

}  // namespace
}  // namespace gpuplan::testing
