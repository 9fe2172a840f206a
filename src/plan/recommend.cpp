#include "plan/recommend.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

#include "core/bounds.h"
#include "core/money.h"
#include "core/text.h"
#include "core/units.h"

namespace gpuplan::plan {
namespace {

using catalog::Catalog;
using catalog::Entry;

Finding reason(const char* id) {
  Finding f;
  f.id = id;
  f.source = "S0 §3.1; S0 §2.1; S1 §1";
  return f;
}

std::string num(double v, int decimals = 0) {
  return format_number(v, decimals);
}
// 13 -> "13", 1.5 -> "1.5".
std::string params_text(double b) {
  return format_figure(b, 1);
}

// The smallest platform for `gpus` GPUs of the family. Multi-GPU training prefers NVSwitch,
// then NVLink bridges; otherwise, and among equals, the cheaper board wins.
const Entry* choose_platform(const Catalog& cat, const std::vector<const Entry*>& family_gpus, int gpus,
                             bool training) {
  auto link_rank = [&](const Entry* p) {
    if (!training || gpus == 1) return 0;
    const std::string link = p->text("interconnect");
    return link == "nvswitch" ? 0 : link == "nvlink-bridge" ? 1 : 2;
  };
  auto rank = [&](const Entry* p) { return std::make_tuple(p->number("max_gpus"), link_rank(p), p->range("buy").low); };
  const Entry* best = nullptr;
  for (const Entry* p : cat.of_kind("platform")) {
    if (p->number("max_gpus") < gpus) continue;
    auto families = p->list("gpu_families");
    bool fits_family = std::any_of(family_gpus.begin(), family_gpus.end(), [&](const Entry* g) {
      return g->text("form_factor") == p->text("gpu_form_factor") &&
             (families.empty() || std::find(families.begin(), families.end(), g->text("family")) != families.end());
    });
    if (fits_family && (!best || rank(p) < rank(best))) best = p;
  }
  return best;
}

}  // namespace

Result<double> parse_params(const std::string& text) {
  std::string s = text;
  double scale = 1;  // billions
  if (!s.empty()) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
    if (unit == 'B')
      scale = 1, s.pop_back();
    else if (unit == 'T')
      scale = 1000, s.pop_back();
    else if (unit == 'M')
      scale = 0.001, s.pop_back();
  }
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v <= 0)
    return Error{{}, 0, "--params", Phrase("error.recommend.params").fact("got", text)};
  return v * scale;
}

namespace {

// 4. CPU: enough cores for the GPUs' data loading, more for many concurrent requests.
// The requests spread over the nodes: one node's CPUs serve ceil(concurrency ÷ nodes) of them.
void choose_cpu(const Workload& w, const Catalog& cat, const Entry* platform, int gpus, int nodes, ServerConfig& c,
                Recommendation& rec) {
  const double cores_per_gpu = cat.threshold("recommend.cores_per_gpu");
  double cores_needed = gpus * cores_per_gpu;
  std::vector<Phrase> core_reason = {Phrase("recommend.cores_per_gpu").fact("cores", num(cores_per_gpu))};
  const int per_node = (w.concurrency + std::max(1, nodes) - 1) / std::max(1, nodes);
  if (per_node >= cat.threshold("recommend.high_concurrency")) {
    cores_needed = std::max(cores_needed, static_cast<double>(per_node));
    core_reason.push_back(Phrase("recommend.core_per_request").fact("concurrency", num(per_node)));
  }
  const int sockets = static_cast<int>(platform->number("cpu_sockets"));
  // The cheapest CPU with enough cores, or, if none has, the one with the most.
  const Entry* cpu = nullptr;
  const Entry* most_cores = nullptr;
  for (const Entry* candidate : cat.of_kind("cpu")) {
    if (candidate->number("pcie_gen") < platform->number("pcie_gen")) continue;
    if (!most_cores || candidate->number("cores") > most_cores->number("cores")) most_cores = candidate;
    bool enough = candidate->number("cores") * sockets >= cores_needed;
    if (enough && (!cpu || candidate->range("buy").low < cpu->range("buy").low)) cpu = candidate;
  }
  // No catalog CPU gives the cores wanted: the most it has, and a warning naming both figures.
  const bool short_of_cores = !cpu;
  if (!cpu) cpu = most_cores;
  if (cpu) {
    c.cpu = cpu->id;
    Finding f = reason("recommend.cpu");
    if (short_of_cores) {
      f.severity = Severity::kWarn;
      f.variant = "short";
    }
    f.fact("cores_needed", num(cores_needed))
        .fact("reason", core_reason)
        .fact("sockets", std::to_string(sockets))
        .fact("cpu", cpu->name, cpu->display_name_zh())
        .fact("cores", num(cpu->number("cores") * sockets));
    rec.why.push_back(f);
  }
}

// 7. Several nodes: RDMA per GPU, a switch, a cluster manager.
void add_network(const Catalog& cat, const Entry* rule, int gpus, int nodes, ServerConfig& c, Recommendation& rec) {
  const Entry* nic = nullptr;
  for (const Entry* n : cat.of_kind("nic"))
    if (n->text("protocol") == "infiniband" && (!nic || n->range("buy").low < nic->range("buy").low)) nic = n;
  const Entry* sw = nullptr;
  for (const Entry* s : cat.of_kind("switch"))
    if (s->text("protocol") == "infiniband") sw = s;
  const auto managers = cat.of_kind("cluster_manager");
  if (nic) c.nics = {{nic->id, gpus}};
  if (sw && nic) c.network_switch = PartCount{sw->id, static_cast<int>(std::ceil(nodes * gpus / sw->number("ports")))};
  // Several machines put cluster management in the budget [S0 §3.1], whatever the rule's floor said.
  if ((rule->flag("cluster_manager") || nodes > 1) && !managers.empty()) c.cluster_manager = managers.front()->id;
  Finding f = reason("recommend.network");
  f.fact("nodes", std::to_string(nodes))
      .fact("nics", nic ? std::to_string(gpus) + " × " + nic->name : "—",
            nic ? std::to_string(gpus) + " × " + nic->display_name_zh() : "—")
      .fact("cluster_manager", c.cluster_manager.empty() ? "—" : c.cluster_manager);
  rec.why.push_back(f);
}

// 8. Region: the cheapest within the latency tolerance (the lowest latency if none is).
void choose_region(const Catalog& cat, double latency_ms, ServerConfig& c, Recommendation& rec) {
  // The cheapest region within the tolerance, or, if none is, the fastest.
  const Entry* region = nullptr;
  const Entry* fastest = nullptr;
  for (const Entry* r : cat.of_kind("region")) {
    if (!fastest || r->number("latency_ms") < fastest->number("latency_ms")) fastest = r;
    bool within = r->number("latency_ms") <= latency_ms;
    if (within && (!region || r->range("price_factor").mid() < region->range("price_factor").mid())) region = r;
  }
  if (!region) region = fastest;
  if (region) {
    c.region = region->id;
    Finding f = reason("recommend.region");
    f.fact("latency", num(latency_ms))
        .fact("region", region->id)
        .fact("region_latency", num(region->number("latency_ms")));
    rec.why.push_back(f);
  }
}

// 9. Rack: the smallest circuit that carries the node at full load within its continuous
// fraction (the largest if none does; power.rack then says so). The recommendation states the
// circuit it chose, so its quote judges it as a stated rack.
void choose_rack(const Catalog& cat, Recommendation& rec) {
  const double peak = node_power(rec.config, cat).peak_w() * rec.config.servers_per_rack;
  const double fraction = cat.threshold("rack.continuous_fraction");
  auto watts = [](const Entry* r) { return r->number("amps") * r->number("volts"); };
  const RackChoice choice = rack_for_load(peak, cat);
  const bool short_of_peak = !choice.carries;
  if (const Entry* rack = choice.rack) {
    rec.config.rack = rack->id;
    rec.config.rack_stated = true;
    Finding f = reason("recommend.rack");
    // No catalog circuit carries the peak continuously: the quote's power.rack says the same.
    if (short_of_peak) f.severity = Severity::kWarn, f.variant = "short";
    f.fact("peak", format_watts(peak))
        .fact("rack", rack->name, rack->display_name_zh())
        .fact("continuous", format_watts(watts(rack) * fraction));
    rec.why.push_back(f);
  }
}

// 1. The catalog's workload rule: the first for the task, the size and (fine-tuning) the method.
const Entry* find_rule(const Workload& w, const Catalog& cat) {
  for (const Entry* r : cat.of_kind("recommend_rule")) {
    Range p = r->range("params_b");
    auto methods = r->list("methods");
    bool method_ok =
        methods.empty() || std::find(methods.begin(), methods.end(), method_name(w.method)) != methods.end();
    if (r->text("task") == task_name(w.task) && w.params_b >= p.low && w.params_b < p.high && method_ok) return r;
  }
  return nullptr;
}

// The most GPUs any catalog platform holds in one node.
int largest_node_gpus(const Catalog& cat) {
  int most = 0;
  for (const Entry* p : cat.of_kind("platform")) most = std::max(most, static_cast<int>(p->number("max_gpus")));
  return most;
}

// 2b. Latency: a decode step reads every weight once, so one token takes at least the weights on
// a GPU ÷ its memory bandwidth (the family's slowest card: the platform picks the card later);
// tensor parallelism over more GPUs splits the weights. The GPUs that keep a token within tolerance,
// at most one node's worth: tensor parallelism stays inside a node (its NVLink/NVSwitch), so a
// tolerance beyond that is a warning naming the best time per token, not more nodes.
int gpus_for_latency(const Workload& w, const Catalog& cat, const std::vector<const Entry*>& family,
                     Recommendation& rec) {
  const Entry* slowest = family.front();
  for (const Entry* g : family)
    if (g->number("memory_bandwidth_gbs") < slowest->number("memory_bandwidth_gbs")) slowest = g;
  const double bandwidth = slowest->number("memory_bandwidth_gbs");
  const double weights_gb = w.params_b * cat.threshold("recommend.bytes_per_param_inference");
  const double step_ms = weights_gb / bandwidth * 1000;
  const int cap = std::max(1, largest_node_gpus(cat));
  // In double: a tiny tolerance must not overflow an int; NaN fails the comparison and is capped.
  const double wanted = std::max(1.0, std::ceil(step_ms / *w.latency_ms - 1e-9));
  const bool reachable = wanted <= cap;
  const int gpus = reachable ? static_cast<int>(wanted) : cap;
  Finding f = reason("recommend.latency");
  f.source = "nvidia-a100-datasheet";
  if (!reachable) {
    f.severity = Severity::kWarn;
    f.variant = "unreachable";
  } else if (gpus == 1) {
    f.variant = "within";
  }
  f.fact("weights", format_figure(weights_gb, 1) + " GB")
      .fact("bandwidth", num(bandwidth) + " GB/s")
      .fact("gpu", slowest->name, slowest->display_name_zh())
      .fact("step", format_figure(step_ms, 2) + " ms")
      .fact("latency", format_figure(*w.latency_ms, 2))
      .fact("gpus", num(gpus))
      .fact("share", format_figure(weights_gb / gpus, 1) + " GB")
      .fact("split", format_figure(step_ms / gpus, 2) + " ms");
  rec.why.push_back(f);
  return gpus;
}

// 2. GPUs × nodes: the rule is the floor, the memory arithmetic (and for inference the latency)
// decides above it; beyond the largest node, whole nodes of it (the why then says what one node holds).
void size_gpus(const Workload& w, const Catalog& cat, const std::vector<const Entry*>& family, bool training, int& gpus,
               int& nodes, Recommendation& rec) {
  const double gpu_memory_gb = family.front()->number("memory_gb");
  MemoryFit fit;
  if (training)
    fit = training_memory(w.params_b, w.method, gpu_memory_gb, cat);
  else
    fit = inference_memory(
        w.params_b, w.concurrency,
        w.task == Task::kInference ? w.context.value_or(cat.threshold("recommend.default_context_tokens")) : 0,
        gpu_memory_gb, cat);
  rec.why.push_back(fit.why);
  const int latency_gpus = w.task == Task::kInference && w.latency_ms ? gpus_for_latency(w, cat, family, rec) : 1;
  const int max_per_node = largest_node_gpus(cat);
  const int total = std::max({gpus * nodes, fit.gpus, latency_gpus});
  if (total <= max_per_node && nodes == 1) {
    gpus = total;
    return;
  }
  gpus = max_per_node;
  nodes = std::max(nodes, (total + max_per_node - 1) / max_per_node);
  if (training && fit.gpus > max_per_node) rec.why.push_back(node_capacity(fit, max_per_node, nodes));
}

// 10. Budget: the purchase total (buy) or monthly rent (rent) above it warns.
void check_budget(const Workload& w, Recommendation& rec) {
  if (!w.budget) return;
  {
    Range total = w.mode == Mode::kBuy ? rec.quote.total_buy : rec.quote.total_rent_monthly;
    if (total.low > *w.budget) {
      Finding f = reason("recommend.budget");
      f.severity = Severity::kWarn;
      f.fact("mode", {Phrase(w.mode == Mode::kBuy ? "recommend.mode.buy" : "recommend.mode.rent")})
          .fact("total", format_money_range(total, "CNY"))
          .fact("budget", format_money(*w.budget, "CNY"));
      rec.why.push_back(f);
    }
  }
}

}  // namespace

Result<Recommendation> recommend(const Workload& w, const Catalog& cat) {
  Recommendation rec;
  const bool training = w.task == Task::kFinetune || w.task == Task::kTrain || w.task == Task::kPretrain;

  const Entry* rule = find_rule(w, cat);
  if (!rule)
    return Error{
        {},
        0,
        "--params",
        Phrase("error.recommend.no_rule").fact("task", task_name(w.task)).fact("params", params_text(w.params_b))};
  int gpus = static_cast<int>(rule->number("gpus"));
  int nodes = static_cast<int>(rule->number("nodes"));
  Finding why_rule = reason("recommend.rule");
  why_rule.fact("task", task_name(w.task))
      .fact("params", params_text(w.params_b))
      .fact("rule", rule->id)
      .fact("gpus", std::to_string(gpus))
      .fact("nodes", std::to_string(nodes));
  rec.why.push_back(why_rule);

  std::vector<const Entry*> family;
  for (const Entry* g : cat.of_kind("gpu"))
    if (w.gpu.empty() ? g->text("family") == w.gpu_family : g->id == w.gpu) family.push_back(g);
  if (family.empty())
    return Error{{},
                 0,
                 w.gpu.empty() ? "--gpu-family" : "--gpu",
                 unknown_id("gpu", w.gpu.empty() ? w.gpu_family : w.gpu, cat.ids_of_kind("gpu"))};
  size_gpus(w, cat, family, training, gpus, nodes, rec);
  const double gpu_memory_gb = family.front()->number("memory_gb");

  // 3. Platform: the GPU count rounded up to the one the platform takes.
  const Entry* platform = choose_platform(cat, family, gpus, training);
  if (!platform)
    return Error{{}, 0, "--params", Phrase("error.recommend.no_platform").fact("gpus", std::to_string(gpus))};
  const int needed_per_node = gpus;
  gpus = static_cast<int>(platform->number("max_gpus"));
  const Entry* gpu = nullptr;
  for (const Entry* g : family)
    if (g->text("form_factor") == platform->text("gpu_form_factor")) gpu = g;

  ConfigInput in;
  ServerConfig& c = in.config;
  c.task = w.task;
  c.gpu = gpu->id;
  c.gpus = gpus;
  c.nodes = nodes;
  c.platform = platform->id;
  // Ids and figures only: the name is written into a configuration file and read in any language.
  c.name = std::string(task_name(w.task)) + " · " + params_text(w.params_b) + "B";
  Finding why_platform = reason("recommend.platform");
  if (needed_per_node < gpus) why_platform.variant = "rounded";
  why_platform.fact("needed", std::to_string(needed_per_node))
      .fact("gpus", std::to_string(gpus))
      .fact("platform", platform->name, platform->display_name_zh());
  rec.why.push_back(why_platform);

  choose_cpu(w, cat, platform, gpus, nodes, c, rec);

  // 5. Host memory: the training minimum and at least the GPUs' own memory.
  const double ratio = cat.threshold("recommend.host_to_gpu_memory_ratio");
  const double min_gb = cat.threshold("memory.min_gb");
  const double want_gb = std::max(min_gb, gpus * gpu_memory_gb * ratio);
  {
    const Entry& module = *cat.find("memory", platform->text("default_memory"));
    double per = module.number("size_gb");
    // Round to a power-of-two module count so channels stay balanced.
    int count = 1;
    while (count * per < want_gb) count *= 2;
    c.memory = {module.id, count};
    Finding f = reason("recommend.memory");
    f.fact("memory", num(count * per))
        .fact("min", num(min_gb))
        .fact("ratio", num(ratio, 1))
        .fact("gpu_memory", num(gpus * gpu_memory_gb));
    rec.why.push_back(f);
  }

  // 6. Data storage on NVMe.
  if (w.dataset_tb > 0 || training) {
    const double headroom = cat.threshold("recommend.dataset_headroom");
    const double min_tb = cat.threshold("recommend.min_data_tb");
    const double want_tb = std::max(min_tb, w.dataset_tb * headroom);
    const Entry& disk = *cat.find("disk", platform->text("default_data_disk"));
    const double disks = std::ceil(want_tb / disk.number("capacity_tb") - 1e-9);
    // More disks than anything is counted is a typo in the dataset size, not a server to price.
    if (auto p = bounds::count(disks, 1, bounds::shown(disks)))
      return Error{{}, 0, "--dataset-tb", Phrase("error.recommend.dataset_too_large").fact("got", num(w.dataset_tb)).fact("limit", num(bounds::kMaxCount))};
    const int count = static_cast<int>(disks);
    c.data_disk = {disk.id, count};
    Finding f = reason("recommend.storage");
    f.fact("disks", std::to_string(count))
        .fact("disk", disk.name, disk.display_name_zh())
        .fact("capacity", num(count * disk.number("capacity_tb"), 2))
        .fact("dataset", num(w.dataset_tb, 1))
        .fact("headroom", num(headroom))
        .fact("min", num(min_tb));
    rec.why.push_back(f);
  }

  // Inference nodes are replicas that serve alone: RDMA and a cluster manager only when one
  // replica (the weights and one request's cache) spans nodes; training always syncs across them.
  const bool replica_spans =
      training ||
      inference_memory(
          w.params_b, 1,
          w.task == Task::kInference ? w.context.value_or(cat.threshold("recommend.default_context_tokens")) : 0,
          gpu_memory_gb, cat)
              .gpus > gpus;
  if ((nodes > 1 && replica_spans) || rule->flag("rdma")) add_network(cat, rule, gpus, nodes, c, rec);

  if (w.latency_ms) choose_region(cat, *w.latency_ms, c, rec);

  auto resolved = resolve_config(in, cat);
  if (!resolved) return resolved.error();
  rec.config = *resolved;

  choose_rack(cat, rec);
  rec.quote = build_quote(rec.config, cat);
  if (!bounds::sane_money(rec.quote.total_buy) || !bounds::sane_money(rec.quote.total_rent_monthly))
    return Error{{}, 0, "--params", bounds::money_overflow(rec.quote.total_buy.high)};

  check_budget(w, rec);
  return rec;
}

}  // namespace gpuplan::plan
