// Issue 16's table of hostile inputs: every verb, each input refused with exit 2 by an error that
// names the file, line and field (or the flag) that is wrong, within 5 s and 512 MB, and never a
// crash, a hang or a silent wrong figure. Each row runs the real binary (the instrumented one under
// asan.*) in a directory of its own holding the row's files.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.h"

namespace gpuplan {
namespace {

struct Hostile {
  std::string name;                                           // the test's name
  std::vector<std::pair<std::string, std::string>> files;    // written into the row's directory
  std::string args;                                           // after `gpuplan`, run in that directory
  std::vector<std::string> names;                             // each must appear in the error
  std::vector<std::string> absent = {};                       // none may appear anywhere
  std::vector<std::string> fifos = {};                        // named pipes nobody writes to
};

void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name << ": gpuplan " << h.args; }

// A gzip file that inflates to `mib` MiB of zeros: one member of 1 MiB, repeated (`cat a.gz b.gz`
// is one gzip file), so that building it costs nothing.
std::string gzip_of_zeros(int mib) {
  const std::string zeros(1 << 20, '\0');
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string member(deflateBound(&z, zeros.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
  z.avail_in = static_cast<uInt>(zeros.size());
  z.next_out = reinterpret_cast<Bytef*>(member.data());
  z.avail_out = static_cast<uInt>(member.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  member.resize(z.total_out);
  deflateEnd(&z);
  std::string file;
  for (int i = 0; i < mib; ++i) file += member;
  return file;
}

// A quote configuration whose line 4 is `field: value`.
std::string config_with(const std::string& line) {
  return "name: hostile\ngpu: a100-80gb-sxm\ngpus: 8\n" + line + "\n";
}
// A tco scenario whose owned block has `owned_line` as its line 7 (indented by the caller).
std::string scenario_with(const std::string& owned_line) {
  return "name: hostile\nhorizon: 36 months\nowned:\n  gpus: 2\n  residual: 0\n  power_kw: 0\n" + owned_line +
         "\nrent:\n  on_demand_gpu_hour: 12.8\ndemand:\n  utilization: 50%\n";
}
// A vendor quote whose first line item has `line_fields` in its braces (line 7).
std::string vendor_quote_with(const std::string& line_fields) {
  return "vendor: Hostile Co.\ndate: 2024-05-20\ncurrency: CNY\ngpu: a100-80gb-sxm\ngpus: 8\nlines:\n  - {" + line_fields +
         "}\n";
}
// A catalog overlay of one GPU entry, the repository's a100-80gb-sxm under the id hostile-gpu
// with `field_line` in place of its `buy:` line, and the line number that line has in the file.
std::pair<std::string, int> gpu_entry_with(const std::string& field_line) {
  std::ifstream in(testing::source_path("catalog/gpu.yaml"));
  std::string text = "kind: gpu\nentries:\n", line;
  int at = 2, buy_line = 0;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("  - id: ", 0) == 0) {
      if (inside) break;
      inside = line == "  - id: a100-80gb-sxm";
      if (inside) line = "  - id: hostile-gpu";
    }
    if (!inside) continue;
    if (line.rfind("    buy:", 0) == 0) {
      line = "    " + field_line;
      buy_line = at + 1;
    }
    text += line + "\n";
    ++at;
  }
  return {text, buy_line};
}
std::string gpu_yaml_at_buy(const std::string& field_line) {
  return "gpu.yaml:" + std::to_string(gpu_entry_with(field_line).second);
}

const std::string kCsvHeader =
    "timestamp, name, pci.bus_id, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n";
std::string csv_row(const std::string& stamp, int index) {
  return stamp + ", NVIDIA A100-SXM4-80GB, 00000000:07:00.0, " + std::to_string(index) +
         ", 96 %, 61000 MiB, 81920 MiB\n";
}

const std::string kQuoteFlags = "quote --gpu a100-80gb-sxm --gpus 8 ";
const std::string kRecommend = "recommend --task finetune --params 7B ";

// Quote: flags; quote: configuration files; recommend; audit; tco.
std::vector<Hostile> planning_rows() {
  return {
      // quote: flags
      {"QuoteNodesOverflow", {}, kQuoteFlags + "--nodes 300000000", {"--nodes"}},
      {"QuoteMemoryNan", {}, kQuoteFlags + "--memory-gb nan", {"--memory-gb"}},
      {"QuoteMemoryInf", {}, kQuoteFlags + "--memory-gb inf", {"--memory-gb"}},
      {"QuoteMemoryHuge", {}, kQuoteFlags + "--memory-gb 1e30", {"--memory-gb"}},
      {"QuoteMemoryNegative", {}, kQuoteFlags + "--memory-gb -1", {"--memory-gb"}},
      {"QuoteGpusZero", {}, "quote --gpu a100-80gb-sxm --gpus 0", {"--gpus"}},
      {"QuoteGpusMillion", {}, "quote --gpu a100-80gb-sxm --gpus 1000000", {"--gpus"}},
      {"QuoteGpusText", {}, "quote --gpu a100-80gb-sxm --gpus abc", {"--gpus"}},
      {"QuoteRackAmpsNan", {}, kQuoteFlags + "--rack-amps nan", {"--rack-amps"}},
      {"QuoteRackAmpsZero", {}, kQuoteFlags + "--rack-amps 0", {"--rack-amps"}},
      {"QuoteUnknownGpu", {}, "quote --gpu no-such-gpu --gpus 8", {"no-such-gpu"}},
      {"QuoteUnknownRegion", {}, kQuoteFlags + "--region nowhere", {"nowhere"}},
      // quote: configuration files
      {"ConfigNodesText", {{"q.yaml", config_with("nodes: abc")}}, "quote q.yaml", {"q.yaml:4", "nodes"}},
      {"ConfigNodesNan", {{"q.yaml", config_with("nodes: .nan")}}, "quote q.yaml", {"q.yaml:4", "nodes"}},
      {"ConfigNodesHuge", {{"q.yaml", config_with("nodes: 1e9")}}, "quote q.yaml", {"q.yaml:4", "nodes"}},
      {"ConfigNodesFraction", {{"q.yaml", config_with("nodes: 1.5")}}, "quote q.yaml", {"q.yaml:4", "nodes"}},
      {"ConfigDuplicateKey", {{"q.yaml", config_with("gpus: 4")}}, "quote q.yaml", {"q.yaml:4", "gpus"}},
      {"ConfigSecondDocument", {{"q.yaml", config_with("---\nnodes: 2")}}, "quote q.yaml", {"q.yaml:4"}},
      {"ConfigUnknownKey", {{"q.yaml", config_with("nodez: 1")}}, "quote q.yaml", {"q.yaml:4", "nodez"}},
      {"ConfigNotAMapping", {{"q.yaml", "- a\n- b\n"}}, "quote q.yaml", {"q.yaml:1"}},
      {"ConfigUnclosedList", {{"q.yaml", config_with("nics: [1, 2")}}, "quote q.yaml", {"q.yaml"}},
      {"ConfigEmpty", {{"q.yaml", ""}}, "quote q.yaml", {"q.yaml"}},
      {"ConfigBinary", {{"q.yaml", std::string("\x00\xff\xfe\x01gpus", 8)}}, "quote q.yaml", {"q.yaml"}},
      {"ConfigMemoryInf", {{"q.yaml", config_with("memory: {module: ddr4-3200-64gb, count: .inf}")}},
       "quote q.yaml", {"q.yaml:4", "memory.count"}},
      {"ConfigHiddenCostNan", {{"q.yaml", config_with("hidden_costs: {public_ip: .nan}")}}, "quote q.yaml",
       {"q.yaml:4", "hidden_costs.public_ip"}},
      {"ConfigMissing", {}, "quote missing.yaml", {"missing.yaml"}},
      {"ConfigDirectory", {{"d/x", ""}}, "quote d", {"d"}},
      {"ConfigDevZero", {}, "quote /dev/zero", {"/dev/zero"}},
      {"ConfigFifo", {}, "quote pipe.yaml", {"pipe.yaml"}, {}, {"pipe.yaml"}},
      // recommend
      {"RecommendDatasetHuge", {}, kRecommend + "--dataset-tb 1e10", {"--dataset-tb"}},
      {"RecommendDatasetNan", {}, kRecommend + "--dataset-tb nan", {"--dataset-tb"}},
      {"RecommendBudgetNan", {}, kRecommend + "--budget nan", {"--budget"}},
      {"RecommendBudgetNegative", {}, kRecommend + "--budget -5", {"--budget"}},
      {"RecommendParamsText", {}, "recommend --task finetune --params lots", {"--params"}},
      {"RecommendConcurrencyZero", {}, "recommend --task inference --params 7B --concurrency 0", {"--concurrency"}},
      {"RecommendContextZero", {}, "recommend --task inference --params 7B --context 0", {"--context"}},
      {"RecommendLatencyNan", {}, kRecommend + "--latency-ms nan", {"--latency-ms"}},
      {"RecommendModeUnknown", {}, kRecommend + "--mode lease", {"--mode"}},
      {"RecommendMethodUnknown", {}, kRecommend + "--method sideways", {"--method"}},
      {"RecommendWriteFull", {}, kRecommend + "--write /dev/full", {"/dev/full"}},
      // audit
      {"AuditPriceNan", {{"v.yaml", vendor_quote_with("item: GPU, part: a100-80gb-sxm, qty: 8, unit_price: .nan")}},
       "audit v.yaml", {"v.yaml:7", "unit_price"}},
      {"AuditPriceNegative",
       {{"v.yaml", vendor_quote_with("item: GPU, part: a100-80gb-sxm, qty: 8, unit_price: -88000")}}, "audit v.yaml",
       {"v.yaml:7", "unit_price"}},
      {"AuditQuantityHuge",
       {{"v.yaml", vendor_quote_with("item: GPU, part: a100-80gb-sxm, qty: 1e12, unit_price: 88000")}},
       "audit v.yaml", {"v.yaml:7", "qty"}},
      {"AuditDuplicateKey", {{"v.yaml", "vendor: A\nvendor: B\n"}}, "audit v.yaml", {"v.yaml:2", "vendor"}},
      {"AuditSecondDocument", {{"v.yaml", "vendor: A\n---\nvendor: B\n"}}, "audit v.yaml", {"v.yaml:2"}},
      {"AuditMissing", {}, "audit gone.yaml", {"gone.yaml"}},
      {"AuditDevZero", {}, "audit /dev/zero", {"/dev/zero"}},
      {"AuditFifo", {}, "audit pipe.yaml", {"pipe.yaml"}, {}, {"pipe.yaml"}},
      // tco
      {"TcoPriceHuge", {{"t.yaml", scenario_with("  price: 1e308")}}, "tco t.yaml", {"t.yaml:7", "owned.price"}},
      {"TcoPriceNan", {{"t.yaml", scenario_with("  price: .nan")}}, "tco t.yaml", {"t.yaml:7", "owned.price"}},
      {"TcoPriceInf", {{"t.yaml", scenario_with("  price: .inf")}}, "tco t.yaml", {"t.yaml:7", "owned.price"}},
      {"TcoEgressHuge",
       {{"t.yaml", scenario_with("  price: 780000") + "transfer:\n  egress_per_month: 1e300 PB\n  egress_price_gb: 0.8\n"}},
       "tco t.yaml", {"t.yaml:13", "transfer.egress_per_month"}},
      {"TcoHorizonZero", {{"t.yaml", "name: x\nhorizon: 0 months\n"}}, "tco t.yaml", {"t.yaml:2", "horizon"}},
      {"TcoHorizonCentury", {{"t.yaml", "name: x\nhorizon: 1200 years\n"}}, "tco t.yaml", {"t.yaml:2", "horizon"}},
      {"TcoHorizonText", {{"t.yaml", "name: x\nhorizon: forever\n"}}, "tco t.yaml", {"t.yaml:2", "horizon"}},
      {"TcoDrawsTooMany", {{"t.yaml", scenario_with("  price: 780000")}}, "tco t.yaml --draws 200000000", {"--draws"}},
      {"TcoDuplicateKey", {{"t.yaml", scenario_with("  price: 1\n  price: 2")}}, "tco t.yaml", {"t.yaml:8", "price"}},
      {"TcoSecondDocument", {{"t.yaml", scenario_with("  price: 780000") + "---\nname: y\n"}}, "tco t.yaml",
       {"t.yaml:12"}},
      {"TcoDrawsNegative", {{"t.yaml", scenario_with("  price: 780000")}}, "tco t.yaml --draws -1", {"--draws"}},
      {"TcoSeedText", {{"t.yaml", scenario_with("  price: 780000")}}, "tco t.yaml --seed abc", {"--seed"}},
      {"TcoDemandFileHugeHour",
       {{"t.yaml", "name: x\nhorizon: 36 months\nowned:\n  gpus: 2\n  price: 780000\n  power_kw: 0\nrent:\n  on_demand_gpu_hour: 12.8\n"
                   "demand:\n  file: d.csv\n"},
        {"d.csv", "hour,busy_gpus\n0,1\n99999999999,1\n"}},
       "tco t.yaml", {"d.csv:3"}},
      {"TcoDevZero", {}, "tco /dev/zero", {"/dev/zero"}},
  };
}

// Usage; diagnose; accept; snapshot and catalog; watch; the command line itself.
std::vector<Hostile> host_rows() {
  return {
      // usage
      {"UsageBusyThresholdHundred", {{"u.csv", kCsvHeader + csv_row("2024/05/06 01:00:00.000", 0)}},
       "usage u.csv --busy-threshold 100", {"--busy-threshold"}},
      {"UsageBusyThresholdOver", {{"u.csv", kCsvHeader + csv_row("2024/05/06 01:00:00.000", 0)}},
       "usage u.csv --busy-threshold 150", {"--busy-threshold"}},
      {"UsageBusyThresholdNan", {{"u.csv", kCsvHeader + csv_row("2024/05/06 01:00:00.000", 0)}},
       "usage u.csv --busy-threshold nan", {"--busy-threshold"}},
      {"UsageDmonIntervalZero", {{"u.csv", kCsvHeader}}, "usage u.csv --dmon-interval 0", {"--dmon-interval"}},
      {"UsageSourceFormat", {{"u.csv", kCsvHeader}}, "usage u.csv --source-format xml", {"--source-format"}},
      {"UsageSinceText", {}, "usage --prometheus http://127.0.0.1:1/ --since soon", {"--since"}},
      {"UsageYears0001And9999",
       {{"u.csv", kCsvHeader + csv_row("0001/01/01 00:00:00.000", 0) + csv_row("9999/12/31 23:00:00.000", 0)}},
       "usage u.csv", {"u.csv:3"}},
      {"UsageDmonStartText", {{"u.log", "# gpu    sm   mem\n# Idx     %     %\n    0    10     5\n"}},
       "usage u.log --source-format dmon --dmon-start yesterday", {"--dmon-start"}},
      {"UsageCredentialsInUrl", {}, "usage --prometheus http://alice:s3cret@127.0.0.1:1/", {"127.0.0.1:1"},
       {"s3cret"}},
      {"UsageRentUnknown", {{"u.csv", kCsvHeader}}, "usage u.csv --rent weekly", {"--rent"}},
      {"UsageDevZero", {}, "usage /dev/zero", {"/dev/zero"}},
      {"UsageRentOfferUnknown", {{"u.csv", kCsvHeader + csv_row("2024/05/06 01:00:00.000", 0)}},
       "usage u.csv --rent-offer no-such-offer", {"no-such-offer"}},
      {"UsageFifo", {}, "usage pipe.csv", {"pipe.csv"}, {}, {"pipe.csv"}},
      {"UsageMissing", {}, "usage nothing.csv", {"nothing.csv"}},
      {"UsageWriteDemandFull",
       {{"u.csv", kCsvHeader + csv_row("2024/05/06 01:00:00.000", 0) + csv_row("2024/05/06 01:00:01.000", 0)}},
       "usage u.csv --write-demand /dev/full", {"/dev/full"}},
      // diagnose
      {"DiagnoseSampleNan", {}, "diagnose --sample nan", {"--sample"}},
      {"DiagnoseIntervalZero", {}, "diagnose --interval 0", {"--interval"}},
      {"DiagnoseNvmlUnknown", {}, "diagnose --nvml maybe", {"--nvml"}},
      {"DiagnoseRootMissing", {}, "diagnose --root /no/such/root", {"/no/such/root"}},
      {"DiagnoseTopoDevZero", {}, "diagnose --root . --topo /dev/zero", {"/dev/zero"}},
      {"DiagnoseKernelLogDevZero", {}, "diagnose --root . --kernel-log /dev/zero", {"/dev/zero"}},
      {"DiagnoseKernelLogGzipBomb", {{"kern.log.gz", gzip_of_zeros(300)}}, "diagnose --root . --kernel-log kern.log.gz",
       {"kern.log.gz", "--kernel-log", "256 MiB"}},
      {"DiagnoseKernelLogGzipCut", {{"kern.log.gz", gzip_of_zeros(1).substr(0, 500)}},
       "diagnose --root . --kernel-log kern.log.gz", {"kern.log.gz", "--kernel-log", "truncated"}},
      {"DiagnoseLogDevZero", {}, "diagnose /dev/zero", {"/dev/zero"}},
      {"DiagnoseLogFifo", {}, "diagnose pipe.csv", {"pipe.csv"}, {}, {"pipe.csv"}},
      {"DiagnoseOutputFull", {{"u.csv", kCsvHeader + csv_row("2024/05/06 01:00:00.000", 0)}},
       "diagnose u.csv --output /dev/full", {"/dev/full"}},
      // accept
      {"AcceptFirmwareDevZero", {}, "accept --root . --nvml off --firmware /dev/zero", {"/dev/zero"}},
      {"AcceptChecksumsDevZero", {}, "accept --root . --nvml off --checksums /dev/zero", {"/dev/zero"}},
      {"AcceptSoakFifo", {}, "accept --root . --nvml off --soak pipe.csv", {"pipe.csv"}, {}, {"pipe.csv"}},
      {"AcceptSoakMissing", {}, "accept --root . --nvml off --soak gone.csv", {"gone.csv"}},
      {"AcceptGpusZero", {}, "accept --root . --nvml off --gpus 0", {"--gpus"}},
      {"AcceptBenchmarkGpusZero", {}, "accept --root . --nvml off --benchmark-gpus 0", {"--benchmark-gpus"}},
      {"AcceptBenchmarkScope", {}, "accept --root . --nvml off --benchmark-scope some", {"--benchmark-scope"}},
      {"AcceptAttachNoFile", {}, "accept --root . --nvml off --attach infiniband", {"--attach"}},
      {"AcceptContractDuplicateKey", {{"v.yaml", "vendor: A\nvendor: B\n"}},
       "accept --root . --nvml off --contract v.yaml", {"v.yaml:2", "vendor"}},
      {"AcceptSmartctlNotJson", {{"s.json", "{\"nvme\": [1, 2"}}, "accept --root . --nvml off --smartctl s.json",
       {"s.json"}},
      {"AcceptRootDevZero", {}, "accept --root /dev/zero", {"/dev/zero"}},
      {"AcceptEvidenceIsAFile", {{"e", "x"}}, "accept --root . --nvml off --evidence e", {"e"}},
      // snapshot and catalog
      {"SnapshotRootMissing", {}, "snapshot --root /no/such/root out.tar.gz", {"/no/such/root"}},
      {"SnapshotRootDevZero", {}, "snapshot --root /dev/zero out.tar.gz", {"/dev/zero"}},
      {"CatalogPriceNan", {{"c/gpu.yaml", gpu_entry_with("buy: [.nan, 100000]").first}}, "catalog check c",
       {gpu_yaml_at_buy("buy: [.nan, 100000]"), "buy"}},
      {"CatalogPriceInf", {{"c/gpu.yaml", gpu_entry_with("buy: [70000, .inf]").first}}, "catalog check c",
       {gpu_yaml_at_buy("buy: [70000, .inf]"), "buy"}},
      {"CatalogExchangeRateZero",
       {{"c/fx.yaml", "kind: fx\nentries:\n  - id: usd-cny\n    name: US dollar\n    from: USD\n    cny: 0\n"
                      "    source: hostile\n    as_of: \"2024-12\"\n"}},
       "catalog check c", {"fx.yaml:6", "cny"}},
      {"CatalogAliases",
       {{"c/gpu.yaml", "kind: gpu\nentries:\n  - &a {id: x1, name: [*a]}\n"}}, "catalog check c", {"gpu.yaml:3"}},
      {"CatalogBillionLaughs",
       {{"c/gpu.yaml", "kind: gpu\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "entries: [*f]\n"}},
       "catalog show a100-80gb-sxm --catalog c", {"gpu.yaml:"}},
      {"CatalogHugeId", {{"c/gpu.yaml", "kind: gpu\nentries:\n  - id: " + std::string(30000, 'a') + "\n"}},
       "catalog check c", {"gpu.yaml:3"}},
      {"CatalogDuplicateKey", {{"c/gpu.yaml", gpu_entry_with("buy: [1, 2]\n    buy: [3, 4]").first}},
       "catalog check c", {"gpu.yaml", "buy"}},
      {"CatalogOverlayBreaksQuote", {{"c/gpu.yaml", gpu_entry_with("buy: [.nan, 100000]").first}},
       "quote --catalog c --gpu hostile-gpu --gpus 8", {"gpu.yaml"}},
      // watch
      {"WatchIntervalZero", {}, "watch --interval 0 --duration 1s", {"--interval"}},
      {"WatchCommitEveryText", {}, "watch --commit-every often --duration 1s", {"--commit-every"}},
      {"WatchKeepRawCentury", {}, "watch --keep-raw 36500d --duration 1s", {"--keep-raw"}},
      {"WatchListenBadAddress", {}, "watch --listen 999.1.1.1:80 --duration 1s", {"--listen"}},
      {"WatchListenBadPort", {}, "watch --listen 127.0.0.1:99999 --duration 1s", {"--listen"}},
      {"WatchWebConfigMissing", {}, "watch --web-config nowhere.yml --duration 1s", {"nowhere.yml"}},
      {"WatchExportMissing", {}, "watch export none.db", {"none.db"}},
      {"WatchExportGarbage", {{"g.db", "this is not an SQLite file at all, just text\n"}}, "watch export g.db",
       {"g.db"}},
      // the command line itself
      {"UnknownVerb", {}, "frobnicate", {"frobnicate"}},
      {"UnknownLanguage", {}, "quote --lang xx --gpu a100-80gb-sxm --gpus 8", {"--lang"}},
      {"UnknownFormat", {}, kQuoteFlags + "--format xml", {"--format"}},
  };
}

std::vector<Hostile> table() {
  std::vector<Hostile> all;
  for (auto rows : {planning_rows, host_rows})
    for (auto& row : rows()) all.push_back(std::move(row));
  return all;
}

struct Outcome {
  int exit_code = -1;
  bool hung = false;
  double seconds = 0;
  long max_rss_kb = 0;
  std::string out, err;
};

// Runs `gpuplan ARGS` in `dir` with English words; kills it after 10 s (a hang).
Outcome run_in(const std::string& dir, const std::string& args) {
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(120);
    int in = open("/dev/null", O_RDONLY);
    int out = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(121);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    setenv("LANG", "en_US.UTF-8", 1);
    std::string cmd = std::string("exec ") + GPUPLAN_BINARY + " " + args;
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(122);
  }
  Outcome o;
  int status = 0;
  rusage usage{};
  for (;;) {
    pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      o.hung = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.max_rss_kb = usage.ru_maxrss;
  o.out = testing::read_file(dir + "/out");
  o.err = testing::read_file(dir + "/err");
  return o;
}

class HostileInput : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileInput, ExitsTwoNamingTheInput) {
  const Hostile& h = GetParam();
  std::string dir = testing::temp_dir();
  for (const auto& [name, text] : h.files) {
    auto slash = name.rfind('/');
    if (slash != std::string::npos) mkdir((dir + "/" + name.substr(0, slash)).c_str(), 0755);
    testing::write_file(dir, name, text);
  }
  for (const auto& fifo : h.fifos) ASSERT_EQ(mkfifo((dir + "/" + fifo).c_str(), 0600), 0);

  Outcome o = run_in(dir, h.args);

  ASSERT_FALSE(o.hung) << "still running after 10 s";
  EXPECT_EQ(o.exit_code, 2) << o.err << o.out.substr(0, 2000);
  EXPECT_LT(o.seconds, 5.0);
  EXPECT_LT(o.max_rss_kb, 512L * 1024);
  // An error, or `catalog check`'s report of the problems it found, names the input.
  const std::string said = o.err + o.out;
  EXPECT_TRUE(o.err.find("error") != std::string::npos || h.args.find("catalog check") == 0) << o.err;
  for (const auto& name : h.names) EXPECT_NE(said.find(name), std::string::npos) << "names " << name << ": " << said;
  for (const auto& secret : h.absent) {
    EXPECT_EQ(o.err.find(secret), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find(secret), std::string::npos) << o.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, HostileInput, ::testing::ValuesIn(table()),
                         [](const ::testing::TestParamInfo<Hostile>& info) { return info.param.name; });

TEST(HostileInputTable, HasAtLeastEightyRowsAcrossEveryVerb) {
  auto rows = table();
  EXPECT_GE(rows.size(), 80u);
  for (std::string verb : {"quote", "recommend", "audit", "tco", "usage", "diagnose", "accept", "snapshot",
                           "catalog", "watch"}) {
    int n = 0;
    for (const auto& r : rows) n += r.args.find(verb) != std::string::npos;
    EXPECT_GE(n, 2) << verb;
  }
}

}  // namespace
}  // namespace gpuplan
