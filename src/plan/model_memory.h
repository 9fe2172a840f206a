// GPU memory a workload needs and the GPUs that hold it (SPEC C; issue 14 item 2). Training and
// fine-tuning: parameters × bytes per parameter of the method (full: weights, gradients and Adam
// state; LoRA: frozen 16-bit weights and small adapters; QLoRA: 4-bit weights), plus an
// activations margin. Inference: 16-bit weights plus the KV cache of the smallest catalog
// reference model (model_shape) either side of the size asked with the larger cache a token. Every factor is a catalog
// threshold; the returned finding shows the arithmetic. A caller may rely on `gpus` ≥ 1 being
// ceil(needed_gb ÷ usable_gb), before any rounding to a platform.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"

namespace gpuplan::plan {

enum class Method { kFull, kLora, kQlora };

const char* method_name(Method m);  // "full" / "lora" / "qlora"
std::optional<Method> parse_method(std::string_view text);
std::vector<std::string> method_names();

struct MemoryFit {
  double needed_gb = 0;        // GPU memory the whole model needs (1e9 bytes)
  double usable_gb = 0;        // usable on one GPU
  double bytes_per_param = 0;  // training: the state per parameter; inference: the weights'
  double margin = 0;           // training: the activations margin, a fraction of the state
  double kv_gb = 0;            // inference: the KV cache
  int gpus = 1;                // ceil(needed_gb ÷ usable_gb), at least 1
  Finding why;                 // recommend.memory_fit (training), its variant "inference" or "weights"
};

// `method` is full for training and pre-training.
MemoryFit training_memory(double params_b, Method method, double gpu_memory_gb, const catalog::Catalog& cat);

// `concurrency` requests (at least one) of `context_tokens` each; a context of 0 counts the
// weights alone (scientific simulation: no KV cache).
MemoryFit inference_memory(double params_b, int concurrency, double context_tokens, double gpu_memory_gb,
                           const catalog::Catalog& cat);

// recommend.node_capacity: how many billions of parameters of training state one node of
// `gpus_per_node` GPUs holds, without and with the activations margin, when the model needs more.
Finding node_capacity(const MemoryFit& fit, int gpus_per_node, int nodes);

}  // namespace gpuplan::plan
