// ServerConfig: what a user wants priced — GPUs, platform and every part by catalog id,
// the site (rack circuit, region, room temperature), software versions and the recurring
// extras. `resolve_config` fills what the user left out from the platform's defaults, so a
// resolved config names every part and reads back unchanged (write_config_yaml).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/range.h"

namespace gpuplan::plan {

struct PartCount {
  std::string part;
  int count = 0;
  friend bool operator==(const PartCount&, const PartCount&) = default;
};

struct SoftwareVersions {
  std::optional<std::string> driver, cuda, cudnn, pytorch, tensorflow;
  bool any() const { return driver || cuda || cudnn || pytorch || tensorflow; }
  friend bool operator==(const SoftwareVersions&, const SoftwareVersions&) = default;
};

// A hidden cost the user has a figure for, per month (SPEC A4).
struct HiddenCostFigure {
  std::string id;
  Range monthly;
  friend bool operator==(const HiddenCostFigure&, const HiddenCostFigure&) = default;
};

enum class Task { kInference, kFinetune, kTrain, kPretrain, kSimulation };
const char* task_name(Task t);
bool is_training(Task t);  // finetune, train, pretrain: the tasks that read a data set over and over
std::optional<Task> parse_task(std::string_view s);
std::vector<std::string> task_names();  // "inference", "finetune", "train", "pretrain", "simulation"

struct ServerConfig {
  std::string name;
  std::string gpu;      // catalog gpu id
  int gpus = 0;         // per node
  int nodes = 1;
  std::string platform;
  std::string cpu;
  int cpu_sockets = 0;
  PartCount memory;     // memory modules
  PartCount system_disk;
  PartCount data_disk;
  std::vector<PartCount> nics;  // per node
  std::optional<PartCount> network_switch;  // for the cluster, not per node
  std::string cooling;
  std::string rack;
  // False when neither `rack` nor `rack_amps` said which circuit the site has: `rack` is then the
  // catalog's smallest that carries the servers (rack_for_load), and power.rack states the need
  // instead of judging a circuit nobody named.
  bool rack_stated = false;
  int servers_per_rack = 1;
  std::string region;
  std::string public_bandwidth;  // "", "fixed", "metered" or a catalog rent_addon bandwidth tier id
  bool software_image = false;
  std::vector<std::string> licences;
  std::string support;
  std::string cluster_manager;  // "" = none
  double term_years = 0;        // years licences/support are priced for; 0 = catalog default
  Task task = Task::kTrain;
  std::optional<double> room_temp_c;
  SoftwareVersions software;
  std::vector<HiddenCostFigure> hidden_costs;

  int total_gpus() const { return gpus * nodes; }
  friend bool operator==(const ServerConfig&, const ServerConfig&) = default;
};

// What the user gave: only the fields present are set; `resolve_config` does the rest.
struct ConfigInput {
  ServerConfig config;
  std::optional<double> memory_gb;  // sizes the memory from the platform's module
  std::optional<double> rack_amps;  // picks the rack circuit with these amps
  std::string file;                 // for error messages
  std::map<std::string, int> lines;  // field path ("nics[0].part") -> line in `file`

  int line_of(const std::string& field) const {
    auto it = lines.find(field);
    return it == lines.end() ? 0 : it->second;
  }
};

// Parses a configuration YAML document. Errors name file:line:field.
Result<ConfigInput> parse_config_yaml(const std::string& text, const std::string& file);
Result<ConfigInput> read_config_file(const std::string& path);

// Fills defaults from the catalog and checks every id, count and size.
Result<ServerConfig> resolve_config(const ConfigInput& input, const catalog::Catalog& catalog);

// A YAML document that parse_config_yaml + resolve_config turn back into `config`.
std::string write_config_yaml(const ServerConfig& config);

}  // namespace gpuplan::plan
