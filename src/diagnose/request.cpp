#include "diagnose/request.h"

#include <optional>

#include "core/files.h"
#include "telemetry/readers.h"

namespace gpuplan::diagnose {
namespace {

class CollectSamples : public telemetry::SampleSink {
 public:
  explicit CollectSamples(std::vector<telemetry::Sample>& out) : out_(out) {}
  void add(const telemetry::Sample& s) override { out_.push_back(s); }

 private:
  std::vector<telemetry::Sample>& out_;
};

// Live: NVML sampled for a while, as the logs would have been; its GPUs follow the logs' ones.
Result<void> sample_live(const DiagnoseRequest& request, probe::HostInput& host, const probe::SampleProgress& progress,
                         DiagnoseInputs& in) {
  if (request.sample.count() <= 0 || request.nvml == probe::NvmlSource::kOff ||
      request.nvml == probe::NvmlSource::kSnapshot)
    return {};
  auto sampled = host.sample_nvml(request.sample, request.interval, progress);
  if (!sampled) return sampled.error();
  const uint32_t base = static_cast<uint32_t>(in.gpu_names.size());
  for (unsigned i = 0; i < sampled->gpus; ++i) in.gpu_names.push_back("nvml/" + std::to_string(i));
  for (auto s : sampled->samples) {
    s.gpu += base;
    in.samples.push_back(s);
  }
  return {};
}

}  // namespace

Result<DiagnoseInputs> prepare_diagnosis(const DiagnoseRequest& request, probe::HostInput& host,
                                         const probe::HostView& view, const Note& note,
                                         const probe::SampleProgress& progress) {
  DiagnoseInputs in;
  in.facts = view.facts;
  in.nvml = view.nvml;
  telemetry::GpuRegistry gpus;
  CollectSamples sink(in.samples);
  for (const auto& path : request.logs) {
    auto stats = telemetry::read_samples(path, telemetry::SourceFormat::kAuto, gpus, sink);
    if (!stats) return stats.error();
    for (const auto& skip : stats->skipped)
      note(Phrase("cli.skipped_line")
               .fact("where", skip.file + ":" + std::to_string(skip.line))
               .fact("why", {skip.reason}));
  }
  in.gpu_names = gpus.names();
  if (auto sampled = sample_live(request, host, progress, in); !sampled) return sampled.error();
  if (!request.topo.empty()) {
    auto text = read_text_file(request.topo);
    if (!text) return Error{request.topo, 0, "--topo", Phrase("cli.file.cannot_read")};
    auto parsed = probe::parse_topo_matrix(*text);
    if (!parsed) return Error{request.topo, parsed.error().line, parsed.error().field, parsed.error().message};
    in.topo = *parsed;
  } else if (auto it = view.tool_outputs.find("topo.txt"); it != view.tool_outputs.end()) {
    if (auto parsed = probe::parse_topo_matrix(it->second)) in.topo = *parsed;
  }
  if (auto it = view.tool_outputs.find("nvlink-status.txt"); it != view.tool_outputs.end())
    if (auto parsed = probe::parse_nvlink_status(it->second)) in.nvlink = *parsed;
  return in;
}

}  // namespace gpuplan::diagnose
