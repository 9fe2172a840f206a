#include "core/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpuplan {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, {}, Phrase("error.file.cannot_open").fact("why", std::strerror(errno))};
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Error{path, 0, {}, Phrase("error.file.read_failed")};
  return buf.str();
}

}  // namespace gpuplan
