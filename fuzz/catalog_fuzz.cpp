// One catalog YAML file (catalog/<kind>.yaml) loaded as the only file of a catalog directory:
// schema checks, references and all. Problems are the expected answer to most inputs.
#include <filesystem>
#include <fstream>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  std::string dir = fuzz::scratch_dir();
  std::ofstream(std::filesystem::path(dir) / "entries.yaml", std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::vector<Error> problems;
  (void)catalog::Catalog::load({dir}, problems);
  return 0;
}
