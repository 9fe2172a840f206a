// Parsers for the optional tools acceptance uses when they are installed: `smartctl --json` (or
// its terminal output),
// `ibstat`, `nvidia-smi topo -m` and `nvidia-smi nvlink --status`. Each takes the captured
// output as text (tests use captured fixtures; a live run captures it first) and returns what
// was found, or an Error naming the line (JSON: the field) and what was expected. Error.file is
// left for the caller to fill with the file the text came from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace gpuplan::probe {

struct SmartNvme {
  std::string device;   // "/dev/nvme0"
  std::string model;
  std::string serial;
  std::string firmware;
  std::optional<int> percentage_used;     // nvme_smart_health_information_log.percentage_used
  std::optional<uint64_t> media_errors;   // .media_errors
  std::optional<uint64_t> critical_warning;
  std::optional<bool> smart_passed;       // smart_status.passed
};
Result<SmartNvme> parse_smartctl_json(std::string_view text);
// `smartctl -a /dev/nvmeN` (or -A, -x) as it prints to a terminal: the NVMe health log's lines
// ("Percentage Used:  2%", "Critical Warning:  0x04", counts grouped by ',' or a locale's spaces),
// the overall-health line and the information section; the device from a pasted
// `smartctl -a /dev/nvme0` command line. An output without the NVMe health log (an ATA drive's
// attribute table, a device smartctl could not open) is an Error, as is a value that is not one.
Result<SmartNvme> parse_smartctl_text(std::string_view text);
// Either form: JSON when the text is a JSON object, the terminal form otherwise.
Result<SmartNvme> parse_smartctl(std::string_view text);

struct IbstatPort {
  std::string ca;           // "mlx5_0"
  int port = 1;
  std::string state;        // "Active"
  std::string physical_state;  // "LinkUp"
  std::optional<int> rate_gbps;  // 200
  std::string link_layer;   // "InfiniBand"
  std::optional<int> sm_lid;  // "SM lid": a subnet manager answers when it is non-zero
};
Result<std::vector<IbstatPort>> parse_ibstat(std::string_view text);

// What a paste carries above a tool's output, which parse_ibstat, parse_topo_matrix and
// parse_nvlink_status skip: before the first line of output, lines that name the tool (the
// command, with or without a shell prompt: "$ nvidia-smi topo -m", "root@node2:~# ibstat",
// "Log ibstat:") and rule lines of '=', '-' or '.' ("=======", "...."). `lines` is how many
// lines they take from the top (blank ones between included), `last` the last one as written, so
// a caller can tell the user what was skipped.
struct PastedPreamble {
  int lines = 0;
  std::string last;
};
// `tool`: "ibstat" or "nvidia-smi".
PastedPreamble pasted_preamble(std::string_view text, std::string_view tool);

// `nvidia-smi topo -m`: the connection between each pair of GPUs ("NV12", "PIX", "PXB", "PHB",
// "NODE", "SYS"; a GPU's own "X" is not stored), between each GPU and each NIC, and each GPU's
// CPU and NUMA affinity. Terminal colour codes are ignored; the legend after the matrix is read
// only for the NIC names. nvidia-smi separates the columns with tabs; a matrix pasted where the
// tabs became spaces (a header without a tab) is split at whitespace, since no cell holds a space
// but the header's "CPU Affinity", "NUMA Affinity" and "GPU NUMA ID".
struct GpuTopology {
  std::vector<std::string> gpus;  // "GPU0", "GPU1", ...
  std::map<std::pair<std::string, std::string>, std::string> link;  // (GPU0, GPU1) → "NV12"
  std::map<std::string, std::string> cpu_affinity;   // GPU0 → "0-63"
  std::map<std::string, std::string> numa_affinity;  // GPU0 → "0"
  std::map<std::string, std::string> gpu_numa_id;    // GPU0 → "N/A", when the column is there
  std::vector<std::string> nics;                     // "NIC0", "NIC1", ... (also mlx5_0 on old drivers)
  std::map<std::pair<std::string, std::string>, std::string> nic_link;  // (GPU0, NIC0) → "PXB"
  std::map<std::string, std::string> nic_names;      // NIC0 → "mlx5_0", from the "NIC Legend"
  // True for NV# links (NVLink or NVSwitch), false for PCIe paths.
  static bool is_nvlink(std::string_view connection);
};
Result<GpuTopology> parse_topo_matrix(std::string_view text);

// `nvidia-smi nvlink --status`: per GPU, each link's speed in GB/s or inactive. A GPU with no
// NVLink ("NVML: Unable to retrieve NVLink information as all links are inActive", a PCIe card
// without a bridge) has no links.
struct NvlinkStatus {
  struct Gpu {
    int index = 0;
    std::string name;     // "NVIDIA A100-SXM4-80GB"
    std::string uuid;
    std::vector<std::optional<double>> links_gbs;  // link i → GB/s, nullopt = inactive
  };
  std::vector<Gpu> gpus;
};
Result<NvlinkStatus> parse_nvlink_status(std::string_view text);

}  // namespace gpuplan::probe
