#include "core/error.h"

namespace gpuplan {

std::string Error::str() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
  }
  if (!field.empty()) out += field + ": ";
  return out + message;
}

}  // namespace gpuplan
