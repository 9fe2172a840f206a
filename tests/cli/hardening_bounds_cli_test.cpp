// Issue 16, items 2 and 5 at the command line: hostile figures on flags and in YAML, broken
// catalogs, repeated keys, second documents, a truncated gzip log and demand above the owned
// GPUs. Each bad input exits 2 naming the flag, or the file, line and field; the expected words
// are the message table's English with the value as given.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace gpuplan {
namespace {

using testing::run_gpuplan;
using testing::source_path;
using testing::temp_dir;
using testing::write_file;

struct FlagCase {
  std::string args;
  std::string words;  // the flag and what is wrong, as printed
};

TEST(HardeningBoundsCli, OutOfRangeFlagsExitTwoNamingTheFlag) {
  const std::vector<FlagCase> cases = {
      // 8 × 300,000,000 used to wrap an int into a negative per-GPU price.
      {"quote --gpu a100-80gb-sxm --gpus 8 --nodes 300000000", "--nodes: is implausibly large (got 300000000)"},
      {"quote --gpu a100-80gb-sxm --gpus 8 --memory-gb nan", "--memory-gb: must be a finite number (got nan)"},
      {"quote --gpu a100-80gb-sxm --gpus 8 --memory-gb inf", "--memory-gb: must be a finite number (got inf)"},
      {"quote --gpu a100-80gb-sxm --gpus 8 --memory-gb 1e30", "--memory-gb: is implausibly large (got 1e+30)"},
      {"quote --gpu a100-80gb-sxm --gpus 0", "--gpus: must be at least 1 (got 0)"},
      {"quote --gpu a100-80gb-sxm --gpus 8 --rack-amps nan", "--rack-amps: must be a finite number (got nan)"},
      // 1e10 TB × the catalog's headroom over 3.84 TB disks is billions of disks.
      {"recommend --task finetune --params 13B --dataset-tb 1e10",
       "--dataset-tb: 10,000,000,000 TB needs more than 100,000 data disks"},
      {"recommend --task finetune --params 13B --dataset-tb -1", "--dataset-tb: must not be negative (got -1)"},
      {"recommend --task finetune --params 13B --budget nan", "--budget: must be a finite number (got nan)"},
      {"recommend --task finetune --params 13B --budget 0", "--budget: must be more than 0 (got 0)"},
      {"recommend --task inference --params 13B --latency-ms inf", "--latency-ms: must be a finite number (got inf)"},
      // 0 used to be replaced by the catalog's default without a word.
      {"usage --busy-threshold 101 x.csv", "--busy-threshold: must be at least 0 and less than 100 % (got 101)"},
      {"usage --busy-threshold nan x.csv", "--busy-threshold: must be at least 0 and less than 100 % (got nan)"},
      {"usage --busy-threshold 100 x.csv", "--busy-threshold: must be at least 0 and less than 100 % (got 100)"},
      {"tco " + source_path("examples/tco-dual-a100.yaml") + " --draws -1",
       "--draws: must be between 0 and 100,000,000 (got -1)"},
  };
  for (const FlagCase& c : cases) {
    const auto r = run_gpuplan(c.args + " --lang en");
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.err.find(c.words), std::string::npos) << c.args << "\n" << r.err;
  }
}

// Lines 1-3 of every scenario below; the line under test is line 4 or 5.
const std::string kScenarioHead = "horizon: 36 months\nrent: {on_demand_gpu_hour: 12.8}\ndemand: {utilization: 50%}\n";

TEST(HardeningBoundsCli, ScenarioFiguresAndShapesExitTwoNamingFileLineAndField) {
  const std::string dir = temp_dir();
  const std::vector<std::pair<std::string, std::string>> cases = {
      // Used to recommend "buy" at ¥nan.
      {"owned: {gpus: 2, price: 1e308, power_kw: 0}\n", "s.yaml:4: owned.price: is implausibly large (got 1e308)"},
      // Used to cost ¥inf.
      {"owned: {gpus: 2, price: 780000, power_kw: 0}\ntransfer: {units: decimal, egress_per_month: 1e300 PB}\n",
       "s.yaml:5: transfer.egress_per_month: is implausibly large (got 1e300 PB)"},
      // yaml-cpp keeps the first of two keys; the second was silently ignored.
      {"owned: {gpus: 2, price: 780000, power_kw: 0}\nowned: {gpus: 3}\n",
       "s.yaml:5: owned: key 'owned' is given twice in one mapping"},
      {"owned: {gpus: 2, price: 780000, power_kw: 0, gpus: 4}\n", "s.yaml:4: owned.gpus: key 'gpus' is given twice"},
      {"owned: {gpus: 2, price: 780000, power_kw: 0}\n---\nhorizon: 1 month\n",
       "s.yaml:5: a second YAML document (`---`): a file holds one"},
  };
  for (const auto& [tail, words] : cases) {
    write_file(dir, "s.yaml", kScenarioHead + tail);
    const auto r = run_gpuplan("tco " + dir + "/s.yaml --lang en");
    EXPECT_EQ(r.exit_code, 2) << tail << r.out;
    EXPECT_NE(r.err.find(words), std::string::npos) << tail << r.err;
  }
}

TEST(HardeningBoundsCli, DemandAboveTheOwnedGpusIsNamedAsOverflow) {
  const std::string dir = temp_dir();
  write_file(dir, "w.yaml",
             "horizon: 36 months\nowned: {gpus: 2, price: 780000, power_kw: 0}\nrent: {on_demand_gpu_hour: 12.8}\n"
             "demand:\n  weekly:\n    - {days: [mon, tue, wed, thu, fri, sat, sun], gpus: 1000}\n");
  // 1,000 busy GPUs every hour over 2 owned: 1000 / 2 = 500.0×.
  const auto en = run_gpuplan("tco " + dir + "/w.yaml --lang en");
  EXPECT_EQ(en.exit_code, 0) << en.err;
  EXPECT_NE(en.out.find("over 100% (overflow: demand is 500.0× the 2 owned GPUs)"), std::string::npos) << en.out;
  EXPECT_EQ(en.out.find("50,000.0%"), std::string::npos) << en.out;
  const auto zh = run_gpuplan("tco " + dir + "/w.yaml --lang zh");
  EXPECT_NE(zh.out.find("超出容量：需求是 2 块自有 GPU 的 500.0 倍"), std::string::npos) << zh.out;
}

// A copy of the shipped catalog with one file changed.
std::string catalog_copy(const std::string& file, const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  const std::string dir = temp_dir() + "/catalog";
  fs::copy(source_path("catalog"), dir, fs::copy_options::recursive);
  std::ifstream in(dir + "/" + file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  std::ofstream(dir + "/" + file, std::ios::trunc) << text;
  return dir;
}

TEST(HardeningBoundsCli, CatalogCheckRefusesFiguresThatWouldPrintWrongMoney) {
  const std::vector<std::array<std::string, 4>> cases = {
      {"fx.yaml", "cny: 7.12", "cny: 0", "usd-cny.cny: must be more than 0 (got 0)"},
      {"fx.yaml", "cny: 7.12", "cny: -7.12", "usd-cny.cny: must not be negative (got -7.12)"},
      {"gpu.yaml", "buy: [70000, 100000]", "buy: .nan", "a100-80gb-pcie.buy: must be a finite number (got .nan)"},
      {"gpu.yaml", "buy: [70000, 100000]", "buy: [70000, .inf]",
       "a100-80gb-pcie.buy: must be a finite number (got .inf)"},
      {"fx.yaml", "entries:", "a: &a [x, x]\nb: [*a, *a]\nentries:", "YAML anchors and aliases (&, *) are not allowed"},
      {"fx.yaml", "    cny: 7.12", "    cny: 7.12\n    cny: 7.2", "fx.yaml:9: entries.cny: key 'cny' is given twice"},
  };
  for (const auto& [file, from, to, words] : cases) {
    const auto r = run_gpuplan("catalog check --lang en --catalog " + catalog_copy(file, from, to));
    EXPECT_EQ(r.exit_code, 2) << to << r.out;
    EXPECT_NE((r.out + r.err).find(words), std::string::npos) << to << r.out << r.err;
  }
}

TEST(HardeningBoundsCli, ACatalogIdOfFortyThousandCharactersIsCheckedWithoutACrash) {
  // std::regex's recursive matcher overflowed the stack (SIGSEGV) on 30,000+ characters.
  const std::string id(40000, 'a');
  const auto ok =
      run_gpuplan("catalog check --lang en --catalog " + catalog_copy("fx.yaml", "id: usd-cny", "id: " + id));
  EXPECT_EQ(ok.exit_code, 0) << ok.err.substr(0, 300);
  const auto bad =
      run_gpuplan("catalog check --lang en --catalog " + catalog_copy("fx.yaml", "id: usd-cny", "id: " + id + "X"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE((bad.out + bad.err).find("must be lower-case letters"), std::string::npos);
}

TEST(HardeningBoundsCli, ATruncatedGzipLogIsAnErrorNotACompleteHistory) {
  const std::string dir = temp_dir();
  ASSERT_EQ(
      run_gpuplan("usage synth --pattern steady --gpus 2 --days 3 --interval 60s --output " + dir + "/s.csv").exit_code,
      0);
  ASSERT_EQ(std::system(("gzip -k " + dir + "/s.csv && head -c $(( $(stat -c %s " + dir + "/s.csv.gz) / 2 )) " + dir +
                         "/s.csv.gz > " + dir + "/cut.csv.gz")
                            .c_str()),
            0);
  const auto whole = run_gpuplan("usage " + dir + "/s.csv.gz --lang en");
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  const auto cut = run_gpuplan("usage " + dir + "/cut.csv.gz --lang en");
  EXPECT_EQ(cut.exit_code, 2) << cut.out;
  EXPECT_NE(cut.err.find("cut.csv.gz: the gzip stream ends early (truncated after"), std::string::npos) << cut.err;
}

}  // namespace
}  // namespace gpuplan
