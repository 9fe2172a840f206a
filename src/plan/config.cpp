#include "plan/config.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/bounds.h"
#include "core/money.h"
#include "core/text.h"
#include "core/units.h"
#include "core/yaml_reader.h"
#include "plan/quote.h"

namespace gpuplan::plan {
namespace {

constexpr std::array<std::pair<Task, const char*>, 5> kTasks = {{
    {Task::kInference, "inference"},
    {Task::kFinetune, "finetune"},
    {Task::kTrain, "train"},
    {Task::kPretrain, "pretrain"},
    {Task::kSimulation, "simulation"},
}};

const std::vector<std::string> kConfigKeys = {
    "name",       "gpu",          "gpus",         "nodes",       "platform",  "cpu",
    "cpu_sockets", "memory",      "memory_gb",    "system_disk", "data_disk", "nics",
    "switch",     "cooling",      "rack",         "rack_amps",   "servers_per_rack",
    "region",     "public_bandwidth", "software_image", "licences",   "support",     "cluster_manager",
    "term_years", "task",         "room_temp_c",  "software",    "hidden_costs"};

PartCount read_part_count(const YamlReader& r, const YAML::Node& n, const std::string& field) {
  r.check_keys(n, field, {"part", "count"});
  if (!n["part"]) r.fail(n, field + ".part", Phrase("error.config.missing_part"));
  if (!n["count"]) r.fail(n, field + ".count", Phrase("error.config.missing_count"));
  return {r.text(n["part"], field + ".part"), r.count(n["count"], field + ".count", 0)};
}

std::optional<std::string> read_version(const YamlReader& r, const YAML::Node& n, const std::string& field) {
  if (!n) return std::nullopt;
  return r.text(n, field);
}

// Remembers the line of every field, so errors found later (unknown ids) can name it.
void record_lines(const YAML::Node& n, const std::string& path, std::map<std::string, int>& lines) {
  if (n.Mark().line >= 0 && !path.empty()) lines[path] = n.Mark().line + 1;
  if (n.IsMap()) {
    for (const auto& kv : n) record_lines(kv.second, path.empty() ? kv.first.Scalar() : path + "." + kv.first.Scalar(), lines);
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) record_lines(n[i], path + "[" + std::to_string(i) + "]", lines);
  }
}

ConfigInput parse(const std::string& text, const std::string& file) {
  YamlReader r(file);
  YAML::Node root = r.load(text);
  r.check_keys(root, "", kConfigKeys);
  ConfigInput in;
  in.file = file;
  record_lines(root, "", in.lines);
  ServerConfig& c = in.config;
  if (root["name"]) c.name = r.text(root["name"], "name");
  if (!root["gpu"]) r.fail(root, "gpu", Phrase("error.config.missing_gpu"));
  c.gpu = r.text(root["gpu"], "gpu");
  if (!root["gpus"]) r.fail(root, "gpus", Phrase("error.config.missing_gpus"));
  c.gpus = r.count(root["gpus"], "gpus", 1);
  if (root["nodes"]) c.nodes = r.count(root["nodes"], "nodes", 1);
  if (root["platform"]) c.platform = r.text(root["platform"], "platform");
  if (root["cpu"]) c.cpu = r.text(root["cpu"], "cpu");
  if (root["cpu_sockets"]) c.cpu_sockets = r.count(root["cpu_sockets"], "cpu_sockets", 1);
  if (root["memory"] && root["memory_gb"]) r.fail(root["memory_gb"], "memory_gb", "error.config.either", {{"a", "memory"}, {"b", "memory_gb"}});
  if (const auto m = root["memory"]) {
    if (m.IsMap()) {
      r.check_keys(m, "memory", {"module", "count"});
      if (!m["module"] || !m["count"]) r.fail(m, "memory", Phrase("error.config.memory_needs_module_and_count"));
      c.memory = {r.text(m["module"], "memory.module"), r.count(m["count"], "memory.count", 1)};
    } else {
      in.memory_gb = bytes_to_memory_gb(r.quantity(m, "memory", Dimension::kBytes, ""));
    }
  }
  if (const auto m = root["memory_gb"]) in.memory_gb = r.quantity(m, "memory_gb", Dimension::kBytes, "GiB") / kGiB;
  if (in.memory_gb && *in.memory_gb <= 0) r.fail(root["memory_gb"] ? root["memory_gb"] : root["memory"], "memory", Phrase("error.config.not_positive"));
  if (root["system_disk"]) c.system_disk = read_part_count(r, root["system_disk"], "system_disk");
  if (root["data_disk"]) c.data_disk = read_part_count(r, root["data_disk"], "data_disk");
  if (const auto n = root["nics"]) {
    if (!n.IsSequence()) r.fail(n, "nics", Phrase("error.config.nics_not_list"));
    for (size_t i = 0; i < n.size(); ++i) c.nics.push_back(read_part_count(r, n[i], "nics[" + std::to_string(i) + "]"));
  }
  if (root["switch"]) c.network_switch = read_part_count(r, root["switch"], "switch");
  if (root["cooling"]) c.cooling = r.text(root["cooling"], "cooling");
  if (root["rack"] && root["rack_amps"]) r.fail(root["rack_amps"], "rack_amps", "error.config.either", {{"a", "rack"}, {"b", "rack_amps"}});
  if (root["rack"]) c.rack = r.text(root["rack"], "rack");
  if (root["rack_amps"]) in.rack_amps = r.quantity(root["rack_amps"], "rack_amps", Dimension::kCurrent, "A");
  if (root["servers_per_rack"]) c.servers_per_rack = r.count(root["servers_per_rack"], "servers_per_rack", 1);
  if (root["region"]) c.region = r.text(root["region"], "region");
  // "fixed", "metered" or a catalog bandwidth tier ("fixed-100mbps"): resolve_config checks the tier.
  if (const auto b = root["public_bandwidth"]) c.public_bandwidth = r.text(b, "public_bandwidth");
  if (root["software_image"]) c.software_image = r.boolean(root["software_image"], "software_image");
  if (root["licences"]) c.licences = r.string_list(root["licences"], "licences");
  if (root["support"]) c.support = r.text(root["support"], "support");
  if (root["cluster_manager"]) c.cluster_manager = r.text(root["cluster_manager"], "cluster_manager");
  if (root["term_years"]) {
    c.term_years = r.non_negative(root["term_years"], "term_years");
    constexpr double kMaxTermYears = 20;  // a longer term is a typo, not a server's life
    if (c.term_years == 0 || c.term_years > kMaxTermYears)
      r.fail(root["term_years"], "term_years", "error.config.term_years", {{"max", format_number(kMaxTermYears)}});
  }
  if (const auto t = root["task"]) {
    std::string s = r.text(t, "task");
    auto task = parse_task(s);
    if (!task) r.fail(t, "task", not_one_of(s, task_names()));
    c.task = *task;
  }
  if (const auto t = root["room_temp_c"]) {
    double v = r.number(t, "room_temp_c");
    if (v < -40 || v > 70) r.fail(t, "room_temp_c", "error.config.room_temp", {{"got", t.Scalar()}});
    c.room_temp_c = v;
  }
  if (const auto s = root["software"]) {
    r.check_keys(s, "software", {"driver", "cuda", "cudnn", "pytorch", "tensorflow"});
    c.software.driver = read_version(r, s["driver"], "software.driver");
    c.software.cuda = read_version(r, s["cuda"], "software.cuda");
    c.software.cudnn = read_version(r, s["cudnn"], "software.cudnn");
    c.software.pytorch = read_version(r, s["pytorch"], "software.pytorch");
    c.software.tensorflow = read_version(r, s["tensorflow"], "software.tensorflow");
  }
  if (const auto h = root["hidden_costs"]) {
    if (!h.IsMap()) r.fail(h, "hidden_costs", Phrase("error.config.hidden_costs_not_map"));
    for (const auto& kv : h)
      c.hidden_costs.push_back({kv.first.Scalar(), r.range(kv.second, "hidden_costs." + kv.first.Scalar())});
  }
  return in;
}

// Checks that `id` names an entry of `kind`; the error suggests the nearest id.
void require_part(const catalog::Catalog& cat, const ConfigInput& in, const std::string& kind,
                  const std::string& id, const std::string& field) {
  if (cat.find(kind, id)) return;
  throw ParseFailure{Error{in.file, in.line_of(field), field, unknown_id(kind, id, cat.ids_of_kind(kind))}};
}

ServerConfig resolve(const ConfigInput& in, const catalog::Catalog& cat) {
  ServerConfig c = in.config;
  auto fail = [&](const std::string& field, Phrase msg) { throw ParseFailure{Error{in.file, in.line_of(field), field, std::move(msg)}}; };
  // GPUs × nodes is a count too: 8 × 300,000,000 wraps an int and prices a negative server.
  const double total_gpus = static_cast<double>(c.gpus) * c.nodes;
  if (bounds::count(total_gpus, 1, bounds::shown(total_gpus)))
    fail("nodes", Phrase("error.config.too_many_gpus").fact("got", bounds::shown(total_gpus)).fact("limit", format_number(bounds::kMaxCount)));
  require_part(cat, in, "gpu", c.gpu, "gpu");
  const catalog::Entry& gpu = *cat.find("gpu", c.gpu);
  const std::string form = gpu.text("form_factor");

  if (c.platform.empty()) {
    // The smallest platform that takes this many GPUs of this form factor.
    const catalog::Entry* best = nullptr;
    for (const catalog::Entry* p : cat.of_kind("platform")) {
      if (p->text("gpu_form_factor") != form || p->number("max_gpus") < c.gpus) continue;
      auto families = p->list("gpu_families");
      if (!families.empty() && std::find(families.begin(), families.end(), gpu.text("family")) == families.end()) continue;
      if (!best || p->number("max_gpus") < best->number("max_gpus")) best = p;
    }
    if (!best) fail("gpus", Phrase("error.config.no_platform").fact("gpus", std::to_string(c.gpus)).fact("form", form));
    c.platform = best->id;
  }
  require_part(cat, in, "platform", c.platform, "platform");
  const catalog::Entry& platform = *cat.find("platform", c.platform);

  if (c.cpu.empty()) c.cpu = platform.text("default_cpu");
  require_part(cat, in, "cpu", c.cpu, "cpu");
  if (c.cpu_sockets == 0) c.cpu_sockets = static_cast<int>(platform.number("cpu_sockets"));

  if (c.memory.part.empty()) {
    c.memory.part = platform.text("default_memory");
    const catalog::Entry& module = *cat.find("memory", c.memory.part);
    const double modules = in.memory_gb ? std::ceil(*in.memory_gb / module.number("size_gb") - 1e-9)
                                        : platform.number("default_memory_modules");
    // 1e30 GB would be −2,147,483,648 modules: a count past the bound is a typo in the size.
    if (bounds::count(modules, 0, bounds::shown(modules)))
      fail("memory_gb", Phrase("error.yaml.implausible").fact("got", format_number(in.memory_gb.value_or(0))));
    c.memory.count = static_cast<int>(modules);
  }
  require_part(cat, in, "memory", c.memory.part, "memory.module");

  auto default_part = [&](PartCount& pc, const char* part_key, const char* count_key, const std::string& field) {
    if (pc.part.empty()) pc = {platform.text(part_key), static_cast<int>(platform.number(count_key))};
    require_part(cat, in, "disk", pc.part, field + ".part");
  };
  default_part(c.system_disk, "default_system_disk", "default_system_disks", "system_disk");
  default_part(c.data_disk, "default_data_disk", "default_data_disks", "data_disk");

  if (c.nics.empty()) c.nics.push_back({platform.text("default_nic"), static_cast<int>(platform.number("default_nics"))});
  for (size_t i = 0; i < c.nics.size(); ++i) require_part(cat, in, "nic", c.nics[i].part, "nics[" + std::to_string(i) + "].part");
  if (c.network_switch) require_part(cat, in, "switch", c.network_switch->part, "switch.part");

  if (c.cooling.empty()) c.cooling = platform.text("default_cooling");
  require_part(cat, in, "cooling", c.cooling, "cooling");

  c.rack_stated = !c.rack.empty() || in.rack_amps;
  if (c.rack.empty()) {
    auto racks = cat.of_kind("rack");
    if (racks.empty()) fail("rack", Phrase("error.config.catalog_lacks").fact("kind", "rack"));
    c.rack = racks.front()->id;  // until the parts are known: then the smallest that carries them
    if (in.rack_amps) {
      auto same_amps = std::find_if(racks.begin(), racks.end(), [&](const catalog::Entry* r) {
        return std::fabs(r->number("amps") - *in.rack_amps) < 1e-9;
      });
      if (same_amps == racks.end()) {
        std::string have;
        for (const catalog::Entry* r : racks) have += (have.empty() ? "" : ", ") + format_number(r->number("amps")) + " A";
        fail("rack_amps", Phrase("error.config.no_rack").fact("amps", format_number(*in.rack_amps, 1)).fact("have", have));
      }
      c.rack = (*same_amps)->id;
    }
  }
  require_part(cat, in, "rack", c.rack, "rack");

  if (c.region.empty()) {
    auto regions = cat.of_kind("region");
    if (regions.empty()) fail("region", Phrase("error.config.catalog_lacks").fact("kind", "region"));
    c.region = regions.front()->id;
  }
  require_part(cat, in, "region", c.region, "region");
  for (size_t i = 0; i < c.licences.size(); ++i) require_part(cat, in, "licence", c.licences[i], "licences[" + std::to_string(i) + "]");
  if (c.support.empty()) {
    auto tiers = cat.of_kind("support");
    if (tiers.empty()) fail("support", Phrase("error.config.catalog_lacks").fact("kind", "support"));
    c.support = tiers.front()->id;
  }
  require_part(cat, in, "support", c.support, "support");
  if (!c.cluster_manager.empty()) require_part(cat, in, "cluster_manager", c.cluster_manager, "cluster_manager");
  if (!c.public_bandwidth.empty() && c.public_bandwidth != "fixed" && c.public_bandwidth != "metered") {
    const catalog::Entry* tier = cat.find("rent_addon", c.public_bandwidth);
    if (!tier || tier->text("applies_to") != "bandwidth") {
      std::vector<std::string> allowed = {"fixed", "metered"};
      for (const catalog::Entry* a : cat.of_kind("rent_addon"))
        if (a->text("applies_to") == "bandwidth") allowed.push_back(a->id);
      fail("public_bandwidth", not_one_of(c.public_bandwidth, allowed));
    }
  }
  if (c.term_years == 0) c.term_years = cat.threshold("term.years");
  for (const auto& h : c.hidden_costs) require_part(cat, in, "hidden_cost", h.id, "hidden_costs." + h.id);
  if (!c.rack_stated) c.rack = rack_for_load(node_power(c, cat).peak_w() * c.servers_per_rack, cat).rack->id;
  return c;
}

void emit_part(YAML::Emitter& out, const char* key, const PartCount& pc) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "part" << YAML::Value
      << pc.part << YAML::Key << "count" << YAML::Value << pc.count << YAML::EndMap;
}

}  // namespace

bool is_training(Task t) {
  return t == Task::kFinetune || t == Task::kTrain || t == Task::kPretrain;
}

const char* task_name(Task t) {
  for (const auto& [task, name] : kTasks)
    if (task == t) return name;
  return "train";
}

std::vector<std::string> task_names() {
  std::vector<std::string> out;
  for (const auto& [task, name] : kTasks) out.emplace_back(name);
  return out;
}

std::optional<Task> parse_task(std::string_view s) {
  for (const auto& [task, name] : kTasks)
    if (s == name) return task;
  return std::nullopt;
}

Result<ConfigInput> parse_config_yaml(const std::string& text, const std::string& file) {
  try {
    return parse(text, file);
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

Result<ConfigInput> read_config_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_config_yaml(*text, path);
}

Result<ServerConfig> resolve_config(const ConfigInput& input, const catalog::Catalog& catalog) {
  try {
    return resolve(input, catalog);
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

std::string write_config_yaml(const ServerConfig& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!c.name.empty()) out << YAML::Key << "name" << YAML::Value << c.name;
  out << YAML::Key << "task" << YAML::Value << task_name(c.task);
  out << YAML::Key << "gpu" << YAML::Value << c.gpu;
  out << YAML::Key << "gpus" << YAML::Value << c.gpus;
  out << YAML::Key << "nodes" << YAML::Value << c.nodes;
  out << YAML::Key << "platform" << YAML::Value << c.platform;
  out << YAML::Key << "cpu" << YAML::Value << c.cpu;
  out << YAML::Key << "cpu_sockets" << YAML::Value << c.cpu_sockets;
  out << YAML::Key << "memory" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "module"
      << YAML::Value << c.memory.part << YAML::Key << "count" << YAML::Value << c.memory.count << YAML::EndMap;
  emit_part(out, "system_disk", c.system_disk);
  emit_part(out, "data_disk", c.data_disk);
  out << YAML::Key << "nics" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : c.nics)
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "part" << YAML::Value << n.part << YAML::Key << "count"
        << YAML::Value << n.count << YAML::EndMap;
  out << YAML::EndSeq;
  if (c.network_switch) emit_part(out, "switch", *c.network_switch);
  out << YAML::Key << "cooling" << YAML::Value << c.cooling;
  // An unstated rack stays unstated: it is chosen again from the parts when read back.
  if (c.rack_stated) out << YAML::Key << "rack" << YAML::Value << c.rack;
  out << YAML::Key << "servers_per_rack" << YAML::Value << c.servers_per_rack;
  out << YAML::Key << "region" << YAML::Value << c.region;
  if (!c.public_bandwidth.empty()) out << YAML::Key << "public_bandwidth" << YAML::Value << c.public_bandwidth;
  out << YAML::Key << "software_image" << YAML::Value << c.software_image;
  if (!c.licences.empty()) out << YAML::Key << "licences" << YAML::Value << YAML::Flow << c.licences;
  out << YAML::Key << "support" << YAML::Value << c.support;
  if (!c.cluster_manager.empty()) out << YAML::Key << "cluster_manager" << YAML::Value << c.cluster_manager;
  out << YAML::Key << "term_years" << YAML::Value << c.term_years;
  if (c.room_temp_c) out << YAML::Key << "room_temp_c" << YAML::Value << *c.room_temp_c;
  if (c.software.any()) {
    out << YAML::Key << "software" << YAML::Value << YAML::BeginMap;
    auto version = [&](const char* key, const std::optional<std::string>& v) {
      if (v) out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << *v;
    };
    version("driver", c.software.driver);
    version("cuda", c.software.cuda);
    version("cudnn", c.software.cudnn);
    version("pytorch", c.software.pytorch);
    version("tensorflow", c.software.tensorflow);
    out << YAML::EndMap;
  }
  if (!c.hidden_costs.empty()) {
    out << YAML::Key << "hidden_costs" << YAML::Value << YAML::BeginMap;
    for (const auto& h : c.hidden_costs) {
      out << YAML::Key << h.id << YAML::Value;
      if (h.monthly.low == h.monthly.high) out << h.monthly.low;
      else out << YAML::Flow << YAML::BeginSeq << h.monthly.low << h.monthly.high << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gpuplan::plan
