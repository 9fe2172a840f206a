#include "plan/model_memory.h"

#include <algorithm>
#include <cmath>

#include "core/money.h"

namespace gpuplan::plan {
namespace {

using catalog::Catalog;
using catalog::Entry;

// Each method with its name and the threshold of its bytes per parameter.
struct MethodRow {
  Method method;
  const char* name;
  const char* bytes_threshold;
};
constexpr MethodRow kMethods[] = {
    {Method::kFull, "full", "recommend.bytes_per_param_training"},
    {Method::kLora, "lora", "recommend.bytes_per_param_lora"},
    {Method::kQlora, "qlora", "recommend.bytes_per_param_qlora"},
};

const MethodRow& row_of(Method m) {
  for (const MethodRow& row : kMethods)
    if (row.method == m) return row;
  return kMethods[0];
}

std::string figure(double v, int decimals = 1) {
  return format_figure(v, decimals);
}
std::string gb(double v) {
  return format_figure(v, 1) + " GB";
}

// The GPUs that hold `needed` at `usable` each; the epsilon keeps an exact fit from rounding up.
int gpus_for(double needed, double usable) {
  return std::max(1, static_cast<int>(std::ceil(needed / usable - 1e-9)));
}

Finding memory_finding(const char* variant, const char* source) {
  return make_finding("recommend.memory_fit", Severity::kInfo, variant, source);
}

// The per-GPU half of the arithmetic, shared by both variants.
void per_gpu_facts(MemoryFit& fit, double gpu_memory_gb, double fraction) {
  fit.why.fact("needed", gb(fit.needed_gb))
      .fact("gpu_memory", gb(gpu_memory_gb))
      .fact("fraction", figure(fraction, 2))
      .fact("per_gpu", gb(fit.usable_gb))
      .fact("ratio", figure(fit.needed_gb / fit.usable_gb, 2))
      .fact("gpus", std::to_string(fit.gpus));
}

// Of the reference models either side of `params_b` (the largest at most as big, the smallest at
// least as big), the one with the larger KV cache a token (layers × kv_width): a bigger model then
// never gets a smaller cache (Llama 2 70B's grouped-query attention keeps less than 13B's).
// Beyond the largest, the largest.
const Entry* reference_shape(const Catalog& cat, double params_b) {
  const Entry* below = nullptr;
  const Entry* above = nullptr;
  for (const Entry* m : cat.of_kind("model_shape")) {
    const double p = m->number("params_b");
    if (p <= params_b && (!below || p > below->number("params_b"))) below = m;
    if (p >= params_b && (!above || p < above->number("params_b"))) above = m;
  }
  if (!below || !above) return below ? below : above;
  auto per_token = [](const Entry* m) { return m->number("layers") * m->number("kv_width"); };
  return per_token(below) > per_token(above) ? below : above;
}

}  // namespace

const char* method_name(Method m) {
  return row_of(m).name;
}

std::optional<Method> parse_method(std::string_view text) {
  for (const MethodRow& row : kMethods)
    if (text == row.name) return row.method;
  return std::nullopt;
}

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodRow& row : kMethods) names.emplace_back(row.name);
  return names;
}

MemoryFit training_memory(double params_b, Method method, double gpu_memory_gb, const Catalog& cat) {
  MemoryFit fit;
  const double fraction = cat.threshold("recommend.gpu_memory_usable_fraction");
  fit.bytes_per_param = cat.threshold(row_of(method).bytes_threshold);
  fit.margin = cat.threshold("recommend.activation_margin");
  const double state_gb = params_b * fit.bytes_per_param;  // 1e9 parameters × bytes = GB
  fit.needed_gb = state_gb * (1 + fit.margin);
  fit.usable_gb = gpu_memory_gb * fraction;
  fit.gpus = gpus_for(fit.needed_gb, fit.usable_gb);
  fit.why = memory_finding("", "S0 §2.1; S0 §3.1");
  fit.why.fact("params", figure(params_b))
      .fact("bytes", figure(fit.bytes_per_param, 2))
      .fact("method", {Phrase(std::string("recommend.method.") + method_name(method))})
      .fact("state", gb(state_gb))
      .fact("margin", figure(fit.margin * 100, 1) + "%");
  per_gpu_facts(fit, gpu_memory_gb, fraction);
  return fit;
}

MemoryFit inference_memory(double params_b, int concurrency, double context_tokens, double gpu_memory_gb,
                           const Catalog& cat) {
  MemoryFit fit;
  const double fraction = cat.threshold("recommend.gpu_memory_usable_fraction");
  fit.bytes_per_param = cat.threshold("recommend.bytes_per_param_inference");
  const double weights_gb = params_b * fit.bytes_per_param;
  const Entry* shape = context_tokens > 0 ? reference_shape(cat, params_b) : nullptr;
  fit.why = memory_finding(shape ? "inference" : "weights", "S0 §3.1");
  fit.why.fact("params", figure(params_b))
      .fact("bytes", figure(fit.bytes_per_param, 2))
      .fact("weights", gb(weights_gb));
  if (shape) {
    const double kv_bytes = cat.threshold("recommend.kv_bytes_per_value");
    const int requests = std::max(1, concurrency);
    // Keys and values (2) for every layer, token and request.
    fit.kv_gb = 2 * shape->number("layers") * shape->number("kv_width") * kv_bytes * context_tokens * requests / 1e9;
    fit.why.fact("layers", figure(shape->number("layers"), 0))
        .fact("kv_width", figure(shape->number("kv_width"), 0))
        .fact("kv_bytes", figure(kv_bytes, 2))
        .fact("context", figure(context_tokens, 0))
        .fact("concurrency", std::to_string(requests))
        .fact("kv", gb(fit.kv_gb))
        .fact("model", shape->name, shape->display_name_zh());
    const auto shapes = cat.of_kind("model_shape");
    const bool beyond_all = std::none_of(shapes.begin(), shapes.end(),
                                         [&](const Entry* m) { return m->number("params_b") >= params_b; });
    if (beyond_all)
      fit.why.note(Phrase("recommend.note.shape_smaller").fact("model", shape->name).fact("params", figure(params_b)));
  }
  fit.needed_gb = weights_gb + fit.kv_gb;
  fit.usable_gb = gpu_memory_gb * fraction;
  fit.gpus = gpus_for(fit.needed_gb, fit.usable_gb);
  per_gpu_facts(fit, gpu_memory_gb, fraction);
  return fit;
}

Finding node_capacity(const MemoryFit& fit, int gpus_per_node, int nodes) {
  const double node_gb = gpus_per_node * fit.usable_gb;
  Finding f = make_finding("recommend.node_capacity", Severity::kInfo, "", "S0 §3.1");
  f.fact("per_node", std::to_string(gpus_per_node))
      .fact("per_gpu", gb(fit.usable_gb))
      .fact("bytes", figure(fit.bytes_per_param, 2))
      .fact("max_state", figure(node_gb / fit.bytes_per_param))
      .fact("bytes_margin", figure(fit.bytes_per_param * (1 + fit.margin), 2))
      .fact("max_params", figure(node_gb / (fit.bytes_per_param * (1 + fit.margin))))
      .fact("gpus", std::to_string(fit.gpus))
      .fact("nodes", std::to_string(nodes));
  return f;
}

}  // namespace gpuplan::plan
