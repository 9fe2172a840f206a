#include "probe/tools.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace gpuplan::probe {
namespace {

using nlohmann::json;

// A line or cell of a tool's text output without spaces, tabs and '\r's at either end; any other
// control byte stays part of it.
std::string_view trim_line(std::string_view s) {
  return trim_chars(s, " \t\r");
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Error error_at(int line, Phrase message) {
  return Error{"", line, "", std::move(message)};
}

// The offending input as the fact "got" of `key`, cut short: enough to recognise the line, short
// enough for one message line.
Phrase got(const char* key, std::string_view s) {
  constexpr size_t kMax = 60;
  return Phrase(key).fact("got", std::string(s.substr(0, kMax)) + (s.size() > kMax ? "…" : ""));
}

// --- smartctl --json -----------------------------------------------------------------------------

// The field at `path` ("a.b.c") when present and not null.
const json* find_path(const json& j, std::string_view path) {
  const json* at = &j;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string key(path.substr(0, dot));
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return at;
}

std::string string_field(const json& j, std::string_view path) {
  const json* v = find_path(j, path);
  if (!v) return "";
  if (!v->is_string()) throw ParseFailure{Error{"", 0, std::string(path), Phrase("error.json.not_string")}};
  return v->get<std::string>();
}

std::optional<uint64_t> count_field(const json& j, std::string_view path) {
  const json* v = find_path(j, path);
  if (!v) return std::nullopt;
  if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<int64_t>() >= 0))
    throw ParseFailure{Error{"", 0, std::string(path), Phrase("error.json.not_unsigned_got").fact("got", v->dump())}};
  return v->get<uint64_t>();
}

// --- nvidia-smi topo -m ---------------------------------------------------------------------------

// nvidia-smi underlines the header with terminal codes ("\x1b[4mGPU0\t...\x1b[0m") when it thinks
// it writes to a terminal; captures keep them.
std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
      i = j;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::vector<std::string> split_tabs(std::string_view s) {
  std::vector<std::string> cells;
  while (true) {
    size_t tab = s.find('\t');
    cells.emplace_back(trim_line(s.substr(0, tab)));
    if (tab == std::string_view::npos) break;
    s.remove_prefix(tab + 1);
  }
  return cells;
}

// A row of a matrix whose tabs became spaces: its whitespace-separated words, the header's
// two- and three-word column names joined again.
std::vector<std::string> split_spaces(std::string_view s, bool header) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < s.size()) {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t')) ++at;
    size_t end = at;
    while (end < s.size() && s[end] != ' ' && s[end] != '\t') ++end;
    if (end > at) words.emplace_back(s.substr(at, end - at));
    at = end;
  }
  if (!header) return words;
  std::vector<std::string> joined;
  for (size_t i = 0; i < words.size(); ++i) {
    auto next_is = [&](size_t k, const char* w) { return i + k < words.size() && words[i + k] == w; };
    if ((words[i] == "CPU" || words[i] == "NUMA") && next_is(1, "Affinity")) {
      joined.push_back(words[i] + " Affinity");
      ++i;
    } else if (words[i] == "GPU" && next_is(1, "NUMA") && next_is(2, "ID")) {
      joined.push_back("GPU NUMA ID");
      i += 2;
    } else {
      joined.push_back(words[i]);
    }
  }
  return joined;
}

bool is_indexed(std::string_view s, std::string_view prefix) {
  if (!starts_with(s, prefix) || s.size() == prefix.size()) return false;
  for (char c : s.substr(prefix.size()))
    if (c < '0' || c > '9') return false;
  return true;
}

// The path names `nvidia-smi topo -m` prints (its legend), "SOC" from drivers before 396.
bool known_connection(std::string_view c) {
  constexpr std::string_view kPaths[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC"};
  for (std::string_view p : kPaths)
    if (c == p) return true;
  return GpuTopology::is_nvlink(c);
}

constexpr std::string_view kTrailingColumns[] = {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"};

// --- nvidia-smi nvlink --status ------------------------------------------------------------------

// "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)"
std::optional<NvlinkStatus::Gpu> parse_nvlink_gpu(std::string_view line) {
  if (!starts_with(line, "GPU ")) return std::nullopt;
  size_t colon = line.find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  auto index = to_int(line.substr(4, colon - 4));
  if (!index) return std::nullopt;
  NvlinkStatus::Gpu gpu;
  gpu.index = *index;
  std::string_view rest = line.substr(colon + 2);
  size_t uuid = rest.rfind(" (UUID: ");
  if (uuid != std::string_view::npos && rest.back() == ')') {
    gpu.uuid = std::string(rest.substr(uuid + 8, rest.size() - uuid - 9));
    rest = rest.substr(0, uuid);
  }
  gpu.name = std::string(trim_line(rest));
  return gpu;
}

}  // namespace

Result<SmartNvme> parse_smartctl_json(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    // nlohmann says where: "[json.exception.parse_error.101] parse error at line 3, column 5: ...";
    // a number beyond a double ("1e999") is its out_of_range.406, not a parse_error (found by fuzzing).
    return Error{"", 0, "", Phrase("error.smart.not_json").fact("why", e.what())};
  }
  if (!j.is_object()) return Error{"", 0, "", Phrase("error.smart.not_object")};
  try {
    SmartNvme s;
    s.device = string_field(j, "device.name");
    s.model = string_field(j, "model_name");
    s.serial = string_field(j, "serial_number");
    s.firmware = string_field(j, "firmware_version");
    const json* log = find_path(j, "nvme_smart_health_information_log");
    if (!log) {
      // smartctl reports a device it could not open in smartctl.messages, exit status non-zero.
      std::string why;
      if (const json* msgs = find_path(j, "smartctl.messages"); msgs && msgs->is_array()) {
        for (const json& m : *msgs)
          if (m.is_object() && m.contains("string") && m["string"].is_string())
            why += (why.empty() ? "" : "; ") + m["string"].get<std::string>();
      }
      return Error{"", 0, "nvme_smart_health_information_log",
                   why.empty() ? Phrase("error.smart.no_health_log")
                               : Phrase("error.smart.no_health_log_said").fact("said", why)};
    }
    if (!log->is_object()) return Error{"", 0, "nvme_smart_health_information_log", Phrase("error.json.not_object")};
    if (auto used = count_field(j, "nvme_smart_health_information_log.percentage_used")) {
      // NVMe lets the estimate pass 100 (up to 255) once the rated endurance is used up.
      if (*used > 255)
        return Error{"", 0, "nvme_smart_health_information_log.percentage_used",
                     Phrase("error.smart.percentage_range").fact("got", std::to_string(*used))};
      s.percentage_used = static_cast<int>(*used);
    }
    s.media_errors = count_field(j, "nvme_smart_health_information_log.media_errors");
    s.critical_warning = count_field(j, "nvme_smart_health_information_log.critical_warning");
    if (const json* passed = find_path(j, "smart_status.passed")) {
      if (!passed->is_boolean()) return Error{"", 0, "smart_status.passed", Phrase("error.json.not_bool")};
      s.smart_passed = passed->get<bool>();
    }
    return s;
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

PastedPreamble pasted_preamble(std::string_view text, std::string_view tool) {
  constexpr int kMostLines = 5;  // a prompt, a command, a rule: a paste's preamble is short
  PastedPreamble out;
  const auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size() && i < static_cast<size_t>(kMostLines); ++i) {
    std::string_view line = trim_line(lines[i]);
    if (line.empty()) continue;
    const bool names_tool = line.find(tool) != std::string_view::npos;
    const bool rule = line.find_first_not_of("=-.") == std::string_view::npos;
    if (!names_tool && !rule) break;
    out.lines = static_cast<int>(i) + 1;
    out.last = std::string(line);
  }
  return out;
}

Result<std::vector<IbstatPort>> parse_ibstat(std::string_view text) {
  std::vector<IbstatPort> ports;
  std::string ca;
  bool in_port = false;
  const auto lines = split_lines(text);
  const size_t preamble = static_cast<size_t>(pasted_preamble(text, "ibstat").lines);
  for (size_t i = preamble; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    std::string_view line = trim_line(lines[i]);
    if (line.empty()) continue;
    if (starts_with(line, "CA '")) {
      if (line.size() < 6 || line.back() != '\'') return error_at(line_no, got("error.ibstat.bad_ca", line));
      ca = std::string(line.substr(4, line.size() - 5));
      in_port = false;
      continue;
    }
    if (starts_with(line, "Port ") && line.back() == ':') {
      if (ca.empty()) return error_at(line_no, got("error.ibstat.ca_first", line));
      auto n = to_int(line.substr(5, line.size() - 6));
      if (!n || *n < 1) return error_at(line_no, got("error.ibstat.bad_port", line));
      IbstatPort p;
      p.ca = ca;
      p.port = *n;
      ports.push_back(std::move(p));
      in_port = true;
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return error_at(line_no, got("error.ibstat.bad_line", line));
    if (ca.empty()) return error_at(line_no, got("error.ibstat.ca_first", line));
    if (!in_port) continue;  // the CA's own attributes: type, firmware, GUIDs
    std::string_view key = trim_line(line.substr(0, colon));
    std::string_view value = trim_line(line.substr(colon + 1));
    IbstatPort& p = ports.back();
    if (key == "State") {
      p.state = std::string(value);
    } else if (key == "Physical state") {
      p.physical_state = std::string(value);
    } else if (key == "Link layer") {
      p.link_layer = std::string(value);
    } else if (key == "Rate") {
      auto rate = to_double(value);  // 2.5 for an SDR 1x link
      if (!rate || *rate < 0) return error_at(line_no, got("error.ibstat.bad_rate", line));
      p.rate_gbps = static_cast<int>(std::lround(*rate));
    } else if (key == "SM lid") {
      auto lid = to_int(value);
      if (!lid || *lid < 0) return error_at(line_no, got("error.ibstat.bad_sm_lid", line));
      p.sm_lid = *lid;
    }
  }
  if (ports.empty()) return error_at(0, Phrase("error.ibstat.empty"));
  return ports;
}

bool GpuTopology::is_nvlink(std::string_view connection) {
  return is_indexed(connection, "NV");
}

Result<GpuTopology> parse_topo_matrix(std::string_view text) {
  GpuTopology topo;
  const auto raw_lines = split_lines(text);
  std::vector<std::string> lines;
  for (std::string_view l : raw_lines) lines.push_back(strip_ansi(l));
  const int preamble = pasted_preamble(text, "nvidia-smi").lines;
  for (int k = 0; k < preamble; ++k) lines[static_cast<size_t>(k)].clear();

  // The header: the first non-blank line, a tab-separated row naming GPU0..GPUn.
  size_t i = 0;
  while (i < lines.size() && trim_line(lines[i]).empty()) ++i;
  if (i == lines.size()) return error_at(0, Phrase("error.topo.empty"));
  const int header_line = static_cast<int>(i) + 1;
  const bool tabbed = lines[i].find('\t') != std::string::npos;
  auto cells_of = [&](const std::string& line, bool header_row) {
    return tabbed ? split_tabs(line) : split_spaces(line, header_row);
  };
  std::vector<std::string> header = cells_of(lines[i], true);
  if (!header.empty() && header.front().empty()) header.erase(header.begin());
  std::vector<std::string> columns;   // the connection columns, GPUs then NICs
  std::vector<std::string> trailing;  // CPU Affinity, NUMA Affinity, GPU NUMA ID
  for (const std::string& h : header) {
    if (h.empty()) continue;
    bool is_trailing = false;
    for (std::string_view t : kTrailingColumns) is_trailing |= h == t;
    if (is_trailing) {
      trailing.push_back(h);
    } else if (!trailing.empty()) {
      return error_at(header_line, got("error.topo.column_after", h).fact("after", trailing.back()));
    } else if (is_indexed(h, "GPU")) {
      topo.gpus.push_back(h);
      columns.push_back(h);
    } else {
      topo.nics.push_back(h);  // NIC0 on current drivers, mlx5_0 on older ones
      columns.push_back(h);
    }
  }
  if (topo.gpus.empty()) return error_at(header_line, got("error.topo.no_gpu_header", lines[i]));

  // The rows, up to the first blank line; the legend follows it.
  std::map<std::string, bool> seen;
  for (++i; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    if (trim_line(lines[i]).empty() || starts_with(trim_line(lines[i]), "Legend")) break;
    std::vector<std::string> cells = cells_of(lines[i], false);
    const std::string& name = cells[0];
    bool is_gpu_row = is_indexed(name, "GPU");
    bool is_nic_row = std::find(topo.nics.begin(), topo.nics.end(), name) != topo.nics.end();
    if (!is_gpu_row && !is_nic_row) return error_at(line_no, got("error.topo.unknown_row", lines[i]));
    if (is_gpu_row && std::find(topo.gpus.begin(), topo.gpus.end(), name) == topo.gpus.end())
      return error_at(line_no, Phrase("error.topo.row_not_in_header").fact("row", name));
    if (cells.size() < columns.size() + 1)
      return error_at(line_no, Phrase("error.topo.connection_count")
                                   .fact("row", name)
                                   .fact("expected", std::to_string(columns.size()))
                                   .fact("got", std::to_string(cells.size() - 1)));
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string& v = cells[c + 1];
      if (!known_connection(v))
        return error_at(line_no, got("error.topo.bad_connection", v).fact("row", name).fact("column", columns[c]));
      if ((v == "X") != (columns[c] == name))
        return error_at(line_no, Phrase("error.topo.misplaced_x").fact("row", name).fact("column", columns[c]));
    }
    if (!is_gpu_row) continue;  // a NIC's row repeats its column
    seen[name] = true;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c] == name) continue;
      bool to_gpu = c < topo.gpus.size();
      (to_gpu ? topo.link : topo.nic_link)[{name, columns[c]}] = cells[c + 1];
    }
    // nvidia-smi pads the affinity columns with extra tabs: take the non-empty cells in order.
    std::vector<std::string> rest;
    for (size_t c = columns.size() + 1; c < cells.size(); ++c)
      if (!cells[c].empty()) rest.push_back(cells[c]);
    if (rest.size() > trailing.size())
      return error_at(line_no, Phrase("error.topo.too_many_values")
                                   .fact("row", name)
                                   .fact("expected", std::to_string(trailing.size()))
                                   .fact("got", std::to_string(rest.size())));
    for (size_t c = 0; c < rest.size(); ++c) {
      if (trailing[c] == "CPU Affinity") topo.cpu_affinity[name] = rest[c];
      if (trailing[c] == "NUMA Affinity") topo.numa_affinity[name] = rest[c];
      if (trailing[c] == "GPU NUMA ID") topo.gpu_numa_id[name] = rest[c];
    }
  }
  for (const std::string& g : topo.gpus)
    if (!seen.count(g)) return error_at(static_cast<int>(i) + 1, Phrase("error.topo.missing_row").fact("row", g));

  // "NIC Legend:" then "  NIC0: mlx5_0".
  for (; i < lines.size(); ++i) {
    std::string_view l = trim_line(lines[i]);
    size_t colon = l.find(": ");
    if (colon != std::string_view::npos && is_indexed(l.substr(0, colon), "NIC"))
      topo.nic_names[std::string(l.substr(0, colon))] = std::string(trim_line(l.substr(colon + 2)));
  }
  return topo;
}

Result<NvlinkStatus> parse_nvlink_status(std::string_view text) {
  NvlinkStatus status;
  const auto lines = split_lines(text);
  for (size_t i = static_cast<size_t>(pasted_preamble(text, "nvidia-smi").lines); i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    std::string_view line = trim_line(lines[i]);
    if (line.empty()) continue;
    if (auto gpu = parse_nvlink_gpu(line)) {
      status.gpus.push_back(std::move(*gpu));
      continue;
    }
    if (status.gpus.empty()) return error_at(line_no, got("error.nvlink.gpu_first", line));
    NvlinkStatus::Gpu& g = status.gpus.back();
    if (starts_with(line, "NVML: ") && line.find("all links are inActive") != std::string_view::npos) continue;
    // Cards with no NVLink at all (newer drivers print this instead of the NVML line): no links.
    if (starts_with(line, "Device does not have or support Nvlink")) continue;
    if (!starts_with(line, "Link ")) return error_at(line_no, got("error.nvlink.bad_line", line));
    size_t colon = line.find(": ");
    auto index = colon == std::string_view::npos ? std::nullopt : to_int(line.substr(5, colon - 5));
    if (!index || *index < 0 || *index > 63) return error_at(line_no, got("error.nvlink.bad_index", line));
    std::string_view value = line.substr(colon + 2);
    std::optional<double> gbs;
    if (value != "<inactive>") {
      constexpr std::string_view kUnit = " GB/s";
      if (value.size() <= kUnit.size() || value.substr(value.size() - kUnit.size()) != kUnit)
        return error_at(line_no, got("error.nvlink.bad_value", value));
      gbs = to_double(value.substr(0, value.size() - kUnit.size()));
      if (!gbs || *gbs < 0) return error_at(line_no, got("error.nvlink.bad_speed", value));
    }
    if (static_cast<size_t>(*index) >= g.links_gbs.size()) g.links_gbs.resize(static_cast<size_t>(*index) + 1);
    g.links_gbs[static_cast<size_t>(*index)] = gbs;
  }
  if (status.gpus.empty()) return error_at(0, Phrase("error.nvlink.empty"));
  return status;
}

}  // namespace gpuplan::probe
