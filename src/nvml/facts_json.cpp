// NvmlFacts to and from the snapshot's JSON (the shape is in nvml/facts_json.h): every key
// written, null for nullopt; on reading, a wrong type is an Error naming the file and the path.
#include "nvml/facts_json.h"

#include <climits>
#include <nlohmann/json.hpp>

namespace gpuplan::nvml {

namespace {

using nlohmann::json;

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json static_json(const GpuStatic& s) {
  return {{"index", s.index},
          {"name", s.name},
          {"uuid", s.uuid},
          {"serial", optional_json(s.serial)},
          {"board_part_number", optional_json(s.board_part_number)},
          {"vbios", optional_json(s.vbios)},
          {"pci_bus_id", s.pci_bus_id},
          {"max_link_gen", optional_json(s.max_link_gen)},
          {"max_link_width", optional_json(s.max_link_width)},
          {"memory_total_mib", optional_json(s.memory_total_mib)},
          {"power_limit_w", optional_json(s.power_limit_w)},
          {"slowdown_temp_c", optional_json(s.slowdown_temp_c)},
          {"shutdown_temp_c", optional_json(s.shutdown_temp_c)},
          {"max_sm_clock_mhz", optional_json(s.max_sm_clock_mhz)}};
}

json dynamic_json(const GpuDynamic& d) {
  json processes = nullptr;
  if (d.processes) {
    processes = json::array();
    for (const auto& p : *d.processes) processes.push_back({{"pid", p.pid}, {"used_mib", optional_json(p.used_mib)}});
  }
  json links = json::array();
  for (bool active : d.nvlink_active) links.push_back(active);
  return {{"utilization_pct", optional_json(d.utilization_pct)},
          {"memory_used_mib", optional_json(d.memory_used_mib)},
          {"temperature_c", optional_json(d.temperature_c)},
          {"power_w", optional_json(d.power_w)},
          {"sm_clock_mhz", optional_json(d.sm_clock_mhz)},
          {"clock_event_reasons", optional_json(d.clock_event_reasons)},
          {"link_gen", optional_json(d.link_gen)},
          {"link_width", optional_json(d.link_width)},
          {"pcie_replays", optional_json(d.pcie_replays)},
          {"ecc_enabled", optional_json(d.ecc_enabled)},
          {"ecc_volatile_corrected", optional_json(d.ecc_volatile_corrected)},
          {"ecc_volatile_uncorrected", optional_json(d.ecc_volatile_uncorrected)},
          {"ecc_aggregate_corrected", optional_json(d.ecc_aggregate_corrected)},
          {"ecc_aggregate_uncorrected", optional_json(d.ecc_aggregate_uncorrected)},
          {"retired_pages_sbe", optional_json(d.retired_pages_sbe)},
          {"retired_pages_dbe", optional_json(d.retired_pages_dbe)},
          {"retired_pages_pending", optional_json(d.retired_pages_pending)},
          {"remapped_rows_correctable", optional_json(d.remapped_rows_correctable)},
          {"remapped_rows_uncorrectable", optional_json(d.remapped_rows_uncorrectable)},
          {"remapping_pending", optional_json(d.remapping_pending)},
          {"remapping_failed", optional_json(d.remapping_failed)},
          {"nvlink_active", links},
          {"processes", processes}};
}

// Typed fields out of a parsed snapshot; a wrong type throws ParseFailure naming the path,
// caught once in facts_from_json. Absent and null both mean nullopt for optional fields.
class JsonFields {
 public:
  explicit JsonFields(std::string file) : file_(std::move(file)) {}

  // `key` is an error.json.* (or error.nvml.*) message without facts.
  [[noreturn]] void fail(const std::string& path, const char* key) const {
    throw ParseFailure{Error{file_, 0, path, Phrase(key)}};
  }

  const json& object(const json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "error.json.not_object");
    return j;
  }
  const json& array(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "error.json.not_array");
    return j;
  }
  // The member `key` of object `j` at `path`; nullptr when absent or null.
  static const json* member(const json& j, const std::string& key) {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const json& required(const json& j, const std::string& path, const std::string& key) const {
    const json* v = member(j, key);
    if (!v) fail(join(path, key), "error.json.missing");
    return *v;
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "error.json.not_string");
    return v.get<std::string>();
  }
  uint64_t uint64(const json& v, const std::string& path) const {
    if (!v.is_number_unsigned()) fail(path, "error.json.not_unsigned");
    return v.get<uint64_t>();
  }
  unsigned uint32(const json& v, const std::string& path) const {
    uint64_t n = uint64(v, path);
    if (n > UINT_MAX) fail(path, "error.json.not_uint32");
    return static_cast<unsigned>(n);
  }
  int integer(const json& v, const std::string& path) const {
    if (!v.is_number_integer()) fail(path, "error.json.not_integer");
    if (v.is_number_unsigned() ? v.get<uint64_t>() > INT_MAX : v.get<int64_t>() < INT_MIN)
      fail(path, "error.json.int_out_of_range");
    return static_cast<int>(v.get<int64_t>());
  }
  double number(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "error.json.not_number");
    return v.get<double>();
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "error.json.not_bool");
    return v.get<bool>();
  }

  // Reads the optional member `key` with `read` (one of the readers above).
  template <class T, class Read>
  void optional(const json& j, const std::string& path, const std::string& key, std::optional<T>& out,
                Read read) const {
    if (const json* v = member(j, key)) out = (this->*read)(*v, join(path, key));
  }

 private:
  std::string file_;
};

GpuStatic static_from_json(const JsonFields& r, const json& j, const std::string& path) {
  r.object(j, path);
  GpuStatic s;
  s.index = r.uint32(r.required(j, path, "index"), path + ".index");
  s.name = r.string(r.required(j, path, "name"), path + ".name");
  s.uuid = r.string(r.required(j, path, "uuid"), path + ".uuid");
  s.pci_bus_id = r.string(r.required(j, path, "pci_bus_id"), path + ".pci_bus_id");
  r.optional(j, path, "serial", s.serial, &JsonFields::string);
  r.optional(j, path, "board_part_number", s.board_part_number, &JsonFields::string);
  r.optional(j, path, "vbios", s.vbios, &JsonFields::string);
  r.optional(j, path, "max_link_gen", s.max_link_gen, &JsonFields::uint32);
  r.optional(j, path, "max_link_width", s.max_link_width, &JsonFields::uint32);
  r.optional(j, path, "memory_total_mib", s.memory_total_mib, &JsonFields::number);
  r.optional(j, path, "power_limit_w", s.power_limit_w, &JsonFields::number);
  r.optional(j, path, "slowdown_temp_c", s.slowdown_temp_c, &JsonFields::integer);
  r.optional(j, path, "shutdown_temp_c", s.shutdown_temp_c, &JsonFields::integer);
  r.optional(j, path, "max_sm_clock_mhz", s.max_sm_clock_mhz, &JsonFields::number);
  return s;
}

GpuDynamic dynamic_from_json(const JsonFields& r, const json& j, const std::string& path) {
  r.object(j, path);
  GpuDynamic d;
  r.optional(j, path, "utilization_pct", d.utilization_pct, &JsonFields::number);
  r.optional(j, path, "memory_used_mib", d.memory_used_mib, &JsonFields::number);
  r.optional(j, path, "temperature_c", d.temperature_c, &JsonFields::number);
  r.optional(j, path, "power_w", d.power_w, &JsonFields::number);
  r.optional(j, path, "sm_clock_mhz", d.sm_clock_mhz, &JsonFields::number);
  r.optional(j, path, "clock_event_reasons", d.clock_event_reasons, &JsonFields::uint64);
  r.optional(j, path, "link_gen", d.link_gen, &JsonFields::uint32);
  r.optional(j, path, "link_width", d.link_width, &JsonFields::uint32);
  r.optional(j, path, "pcie_replays", d.pcie_replays, &JsonFields::uint32);
  r.optional(j, path, "ecc_enabled", d.ecc_enabled, &JsonFields::boolean);
  r.optional(j, path, "ecc_volatile_corrected", d.ecc_volatile_corrected, &JsonFields::uint64);
  r.optional(j, path, "ecc_volatile_uncorrected", d.ecc_volatile_uncorrected, &JsonFields::uint64);
  r.optional(j, path, "ecc_aggregate_corrected", d.ecc_aggregate_corrected, &JsonFields::uint64);
  r.optional(j, path, "ecc_aggregate_uncorrected", d.ecc_aggregate_uncorrected, &JsonFields::uint64);
  r.optional(j, path, "retired_pages_sbe", d.retired_pages_sbe, &JsonFields::uint32);
  r.optional(j, path, "retired_pages_dbe", d.retired_pages_dbe, &JsonFields::uint32);
  r.optional(j, path, "retired_pages_pending", d.retired_pages_pending, &JsonFields::boolean);
  r.optional(j, path, "remapped_rows_correctable", d.remapped_rows_correctable, &JsonFields::uint32);
  r.optional(j, path, "remapped_rows_uncorrectable", d.remapped_rows_uncorrectable, &JsonFields::uint32);
  r.optional(j, path, "remapping_pending", d.remapping_pending, &JsonFields::boolean);
  r.optional(j, path, "remapping_failed", d.remapping_failed, &JsonFields::boolean);
  if (const json* links = JsonFields::member(j, "nvlink_active")) {
    std::string at = path + ".nvlink_active";
    r.array(*links, at);
    for (size_t i = 0; i < links->size(); ++i)
      d.nvlink_active.push_back(r.boolean((*links)[i], at + "[" + std::to_string(i) + "]"));
  }
  if (const json* procs = JsonFields::member(j, "processes")) {
    std::string at = path + ".processes";
    r.array(*procs, at);
    d.processes.emplace();
    for (size_t i = 0; i < procs->size(); ++i) {
      std::string p_at = at + "[" + std::to_string(i) + "]";
      const json& p = r.object((*procs)[i], p_at);
      GpuProcess proc;
      proc.pid = r.uint32(r.required(p, p_at, "pid"), p_at + ".pid");
      r.optional(p, p_at, "used_mib", proc.used_mib, &JsonFields::number);
      d.processes->push_back(proc);
    }
  }
  return d;
}

}  // namespace

nlohmann::json facts_to_json(const NvmlFacts& facts) {
  json gpus = json::array();
  for (const auto& g : facts.gpus) gpus.push_back({{"info", static_json(g.info)}, {"now", dynamic_json(g.now)}});
  json topology = json::array();
  for (const auto& [pair, level] : facts.topology)
    topology.push_back({{"gpus", {pair.first, pair.second}}, {"level", level}});
  return {{"library", facts.library},
          {"driver_version", facts.driver_version},
          {"cuda_driver_version", optional_json(facts.cuda_driver_version)},
          {"nvml_version", optional_json(facts.nvml_version)},
          {"gpus", gpus},
          {"topology", topology},
          {"unsupported", facts.unsupported}};
}

Result<NvmlFacts> facts_from_json(const nlohmann::json& j, const std::string& file) {
  JsonFields r(file);
  try {
    r.object(j, "");
    NvmlFacts f;
    if (const json* v = JsonFields::member(j, "library")) f.library = r.string(*v, "library");
    f.driver_version = r.string(r.required(j, "", "driver_version"), "driver_version");
    r.optional(j, "", "cuda_driver_version", f.cuda_driver_version, &JsonFields::string);
    r.optional(j, "", "nvml_version", f.nvml_version, &JsonFields::string);
    const json& gpus = r.array(r.required(j, "", "gpus"), "gpus");
    for (size_t i = 0; i < gpus.size(); ++i) {
      std::string at = "gpus[" + std::to_string(i) + "]";
      const json& g = r.object(gpus[i], at);
      GpuFacts facts;
      facts.info = static_from_json(r, r.required(g, at, "info"), at + ".info");
      if (const json* now = JsonFields::member(g, "now")) facts.now = dynamic_from_json(r, *now, at + ".now");
      f.gpus.push_back(std::move(facts));
    }
    if (const json* topo = JsonFields::member(j, "topology")) {
      r.array(*topo, "topology");
      for (size_t i = 0; i < topo->size(); ++i) {
        std::string at = "topology[" + std::to_string(i) + "]";
        const json& t = r.object((*topo)[i], at);
        const json& pair = r.array(r.required(t, at, "gpus"), at + ".gpus");
        if (pair.size() != 2) r.fail(at + ".gpus", "error.nvml.not_gpu_pair");
        unsigned a = r.uint32(pair[0], at + ".gpus[0]");
        unsigned b = r.uint32(pair[1], at + ".gpus[1]");
        f.topology[{a, b}] = r.integer(r.required(t, at, "level"), at + ".level");
      }
    }
    if (const json* lines = JsonFields::member(j, "unsupported")) {
      r.array(*lines, "unsupported");
      for (size_t i = 0; i < lines->size(); ++i)
        f.unsupported.push_back(r.string((*lines)[i], "unsupported[" + std::to_string(i) + "]"));
    }
    return f;
  } catch (const ParseFailure& e) {
    return e.error;
  }
}

}  // namespace gpuplan::nvml
