#include "telemetry/smi_table.h"

#include <cctype>
#include <charconv>

#include "core/text.h"

namespace gpuplan::telemetry {
namespace {

// The cells between '|' of a table line ("| a | b |" → "a", "b"), trimmed.
std::vector<std::string_view> cells(std::string_view line) {
  std::vector<std::string_view> out;
  line = trim(line);
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return out;
  line = line.substr(1, line.size() - 2);
  size_t start = 0;
  while (start <= line.size()) {
    const size_t bar = line.find('|', start);
    out.push_back(trim(line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start)));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<unsigned> whole(std::string_view s) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "4MiB", "20480MiB", "97%" → the number before `unit`; N/A or anything else → nullopt.
std::optional<float> with_unit(std::string_view s, std::string_view unit) {
  if (s.size() <= unit.size() || s.substr(s.size() - unit.size()) != unit) return std::nullopt;
  auto v = whole(trim(s.substr(0, s.size() - unit.size())));
  return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
}

// A bus id as nvidia-smi prints it: 00000000:07:00.0.
bool bus_id(std::string_view s) {
  return s.size() == 16 && s[8] == ':' && s[11] == ':' && s[14] == '.';
}

// "4MiB / 81920MiB" → used, total.
void memory(std::string_view cell, SmiTableGpu& g) {
  const size_t slash = cell.find('/');
  if (slash == std::string_view::npos) return;
  g.memory_used_mib = with_unit(trim(cell.substr(0, slash)), "MiB");
  g.memory_total_mib = with_unit(trim(cell.substr(slash + 1)), "MiB");
}

}  // namespace

bool looks_like_smi_table(std::string_view head) {
  return head.find("| NVIDIA-SMI ") != std::string_view::npos;
}

SmiTable parse_smi_table(std::string_view text) {
  SmiTable out;
  bool in_processes = false, processes_started = false, has_gi_ci = false;
  int64_t number = 0;
  bool pending = false;  // the last GPU's second row (memory, utilization) comes next
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++number;
    if (line.find("Processes:") != std::string_view::npos) {
      in_processes = true;
      continue;
    }
    const auto c = cells(line);
    if (c.empty()) continue;
    if (in_processes) {
      if (!processes_started) {
        if (c[0].find(" GI ") != std::string_view::npos) has_gi_ci = true;
        if (!c[0].empty() && c[0].front() == '=') processes_started = true;
        continue;
      }
      // "0   N/A  N/A      1150      G   /usr/lib/xorg/Xorg      78MiB" (GI and CI since R450).
      const auto w = words(c[0]);
      const size_t fixed = has_gi_ci ? 5 : 3;  // gpu [gi ci] pid type
      auto gpu = w.empty() ? std::nullopt : whole(w[0]);
      if (!gpu || w.size() < fixed + 1) continue;
      SmiTableProcess p;
      p.gpu = *gpu;
      p.pid = std::string(w[fixed - 2]);
      p.type = std::string(w[fixed - 1]);
      for (size_t i = fixed; i + 1 < w.size(); ++i) p.name += (p.name.empty() ? "" : " ") + std::string(w[i]);
      p.used_mib = with_unit(w.back(), "MiB");
      p.line = number;
      out.processes.push_back(std::move(p));
      continue;
    }
    if (c.size() < 3) continue;
    const auto first = words(c[0]), second = words(c[1]);
    if (!first.empty() && !second.empty() && whole(first[0]) && bus_id(second[0])) {
      out.gpus.push_back({*whole(first[0]), std::string(second[0]), {}, {}, {}, number});
      pending = true;
    } else if (pending && c[1].find("MiB") != std::string_view::npos) {
      memory(c[1], out.gpus.back());
      const auto third = words(c[2]);
      if (!third.empty()) out.gpus.back().utilization_pct = with_unit(third[0], "%");
      pending = false;
    }
  }
  return out;
}

}  // namespace gpuplan::telemetry
