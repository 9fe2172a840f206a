// A captured plain `nvidia-smi` (the table it prints without options): each GPU's rows (index,
// bus id, utilization, memory used and total) and the process table at its bottom, each with the
// line it was read from. Diagnose reads it for SPEC H4: memory held by the processes listed.
//
// A caller may rely on: values nvidia-smi prints as N/A (MIG mode, no permission) are nullopt;
// "No running processes found" is an empty process list, not an error; lines that are neither a
// GPU's nor a process's (borders, headers, the banner) are passed over.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::telemetry {

struct SmiTableGpu {
  unsigned index = 0;
  std::string bus_id;
  std::optional<float> utilization_pct, memory_used_mib, memory_total_mib;
  int64_t line = 0;  // the row with the bus id
};

struct SmiTableProcess {
  unsigned gpu = 0;
  std::string pid, type, name;
  std::optional<float> used_mib;
  int64_t line = 0;
};

struct SmiTable {
  std::vector<SmiTableGpu> gpus;
  std::vector<SmiTableProcess> processes;
};

// Whether a file's first bytes are nvidia-smi's table: its banner "| NVIDIA-SMI 535.129.03 ...".
bool looks_like_smi_table(std::string_view head);

SmiTable parse_smi_table(std::string_view text);

}  // namespace gpuplan::telemetry
