// The fuzz targets' shared helpers (fuzz_support.h).
#include "fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace fs = std::filesystem;

namespace gpuplan::fuzz {
namespace {

// One directory per process, removed at exit: libFuzzer runs each target in one process, and
// the smoke driver too.
struct ProcessDir {
  fs::path path;
  ProcessDir() {
    std::string tmpl = (fs::temp_directory_path() / "gpuplan-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("gpuplan fuzz: cannot create a temporary directory");
    path = tmpl;
  }
  ~ProcessDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& process_dir() {
  static ProcessDir dir;
  return dir.path;
}

}  // namespace

std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  fs::path p = process_dir() / name;
  FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) throw std::runtime_error("gpuplan fuzz: cannot write " + p.string());
  if (size > 0 && std::fwrite(data, 1, size, f) != size) throw std::runtime_error("gpuplan fuzz: short write");
  if (std::fclose(f) != 0) throw std::runtime_error("gpuplan fuzz: cannot close " + p.string());
  return p.string();
}

std::string scratch_dir() {
  fs::path p = process_dir() / "scratch";
  std::error_code ec;
  fs::remove_all(p, ec);
  fs::create_directories(p);
  return p.string();
}

void read_log(const uint8_t* data, size_t size, telemetry::SourceFormat format, const std::string& name) {
  struct Discard : telemetry::SampleSink {
    void add(const telemetry::Sample&) override {}
  };
  telemetry::GpuRegistry gpus;
  Discard sink;
  telemetry::ReadOptions options;
  options.dmon_start_ms = 1772409600000;  // 2026-03-02: dmon without -o DT needs a start
  (void)telemetry::read_samples(input_file(data, size, name), format, gpus, sink, {}, options);
}

const catalog::Catalog& catalog() {
  static const catalog::Catalog loaded = [] {
    std::vector<Error> problems;
    catalog::Catalog c = catalog::Catalog::load({GPUPLAN_FUZZ_CATALOG}, problems);
    if (!problems.empty()) {
      std::fprintf(stderr, "gpuplan fuzz: the catalog %s does not load\n", GPUPLAN_FUZZ_CATALOG);
      std::abort();
    }
    return c;
  }();
  return loaded;
}

}  // namespace gpuplan::fuzz
