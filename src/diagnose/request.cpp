#include "diagnose/request.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
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

// The hosts the logs' GPUs belong to ("host/gpu" names: a scrape's host label, else the file's
// name), each once, in reading order.
std::vector<std::string> log_hosts(const DiagnoseInputs& in) {
  std::vector<std::string> out;
  for (const telemetry::Sample& s : in.samples) {
    if (s.gpu >= in.gpu_names.size()) continue;
    const std::string& name = in.gpu_names[s.gpu];
    std::string host = name.substr(0, std::min(name.size(), name.rfind('/')));
    if (std::find(out.begin(), out.end(), host) == out.end()) out.push_back(std::move(host));
  }
  return out;
}

// A plain `nvidia-smi` output given among the logs (its banner in the first lines), read whole;
// nullopt for any other file (a sample log, read by telemetry's readers).
std::optional<Result<telemetry::SmiTable>> smi_capture(const std::string& path) {
  std::error_code ec;
  // A directory of scrapes, or a missing file: telemetry's readers say what they make of it.
  if (std::filesystem::is_directory(path, ec) || !std::filesystem::exists(path, ec)) return std::nullopt;
  // A FIFO or device is refused before a blocking read (issue 16).
  auto file = open_regular_file(path);
  if (!file) return Result<telemetry::SmiTable>(file.error());
  std::string head(4096, '\0');
  const ssize_t got = ::pread(file->fd, head.data(), head.size(), 0);
  ::close(file->fd);
  head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  if (!telemetry::looks_like_smi_table(head)) return std::nullopt;
  auto text = read_text_file(path);
  if (!text) return Result<telemetry::SmiTable>(text.error());
  return Result<telemetry::SmiTable>(telemetry::parse_smi_table(*text));
}

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

// A host's tool capture, parsed; one that does not parse is left out, and the user told why (a
// silently dropped NVLink capture let an inactive link pass).
template <class Parser>
auto captured(std::map<std::string, std::string>::const_iterator it, Parser parser, const Note& note)
    -> std::optional<std::decay_t<decltype(*parser(std::string_view()))>> {
  auto parsed = parser(it->second);
  if (parsed) return std::move(*parsed);
  note(Phrase("cli.accept.capture_not_used").fact("capture", "gpuplan/tools/" + it->first).fact("why", {parsed.error().phrase()}));
  return std::nullopt;
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
    if (auto capture = smi_capture(path)) {
      if (!*capture) return capture->error();
      in.smi_tables.push_back({path, **capture});
      continue;
    }
    const size_t first = in.samples.size();
    auto stats = telemetry::read_samples(path, telemetry::SourceFormat::kAuto, gpus, sink);
    if (!stats) return stats.error();
    in.sources.push_back({path, first, in.samples.size()});
    for (const auto& skip : stats->skipped)
      note(Phrase("cli.skipped_line")
               .fact("where", skip.file + ":" + std::to_string(skip.line))
               .fact("why", {skip.reason}));
  }
  in.gpu_names = gpus.names();
  in.log_hosts = log_hosts(in);
  // A plain nvidia-smi names no host either: its file's name stands in when no log named one.
  if (in.log_hosts.empty())
    for (const SmiCapture& c : in.smi_tables) in.log_hosts.push_back(std::filesystem::path(c.path).stem().string());
  if (auto sampled = sample_live(request, host, progress, in); !sampled) return sampled.error();
  if (!request.topo.empty()) {
    auto text = read_text_file(request.topo);
    if (!text) {
      Error e = text.error();  // its reason: missing, not a regular file, too large
      e.field = "--topo";
      return e;
    }
    auto parsed = probe::parse_topo_matrix(*text);
    if (!parsed) return Error{request.topo, parsed.error().line, parsed.error().field, parsed.error().message};
    if (const probe::PastedPreamble pre = probe::pasted_preamble(*text, "nvidia-smi"); pre.lines > 0)
      note(Phrase("cli.tool.preamble_skipped")
               .fact("file", request.topo)
               .fact("lines", std::to_string(pre.lines))
               .fact("last", pre.last));
    in.topo = *parsed;
  } else if (auto it = view.tool_outputs.find("topo.txt"); it != view.tool_outputs.end()) {
    in.topo = captured(it, probe::parse_topo_matrix, note);
  }
  if (auto it = view.tool_outputs.find("nvlink-status.txt"); it != view.tool_outputs.end())
    in.nvlink = captured(it, probe::parse_nvlink_status, note);
  return in;
}

}  // namespace gpuplan::diagnose
