#include "probe/gather.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/files.h"

namespace gpuplan::probe {
namespace {

// Where a snapshot or fixture keeps gpuplan's own captures.
const std::string kCaptureDir = "/gpuplan";

std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// "kernel-logs/kern.log" for the first file of that name, "kernel-logs/N-kern.log" (N its place
// among the files) for a later one: rotated logs of two hosts keep the same names.
std::string capture_name(const std::string& path, const std::vector<KernelLogCapture>& before) {
  std::string name = "kernel-logs/" + std::filesystem::path(path).filename().string();
  for (const auto& c : before)
    if (c.capture == name) return "kernel-logs/" + std::to_string(before.size() + 1) + "-" + name.substr(12);
  return name;
}

// The journal's kernel log of this boot: only its JSON lines (the tool's stdout and stderr come
// together, and journalctl may print a hint); nothing when it is not installed, fails, or keeps
// no kernel log ("-- No entries --").
std::string journal_kernel_log(HostInput& host) {
  if (!host.has_tool("journalctl")) return "";
  ToolRun r = host.run(kJournalKernelCommand, kToolTimeout);
  if (!r.ok()) return "";
  std::string json;
  size_t at = 0;
  while (at < r.out.size()) {
    size_t nl = r.out.find('\n', at);
    std::string_view line = std::string_view(r.out).substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (!line.empty() && line.front() == '{') (json += line) += '\n';
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return json;
}

// Kernel logs: the named files, else the snapshot's captures, else the live log and journal.
Result<void> read_kernel_log(HostInput& host, const GatherOptions& options, HostView& view) {
  auto& logs = view.kernel_logs;
  if (!options.kernel_log_files.empty()) {
    for (const std::string& file : options.kernel_log_files) {
      auto text = read_kernel_log_file(file);
      if (!text) return text.error();
      logs.push_back({file, capture_name(file, logs), std::move(*text)});
    }
  } else if (!host.live()) {
    std::vector<std::string> names = {"kernel.log", "journal-kernel.json"};
    for (const std::string& name : host.fs().list(kCaptureDir + "/kernel-logs")) names.push_back("kernel-logs/" + name);
    for (const std::string& name : names)
      if (auto text = host.fs().read(kCaptureDir + "/" + name)) logs.push_back({"gpuplan/" + name, name, *text});
  } else {
    if (auto live = host.live_kernel_log()) logs.push_back({live->source, "kernel.log", std::move(live->text)});
    if (std::string journal = journal_kernel_log(host); !journal.empty())
      logs.push_back({"journalctl -k -b", "journal-kernel.json", std::move(journal)});
  }
  if (logs.empty()) return {};
  std::vector<KernelLogText> texts;
  for (const auto& log : logs) {
    texts.push_back({log.text, log.source});
    view.kernel_log_source += (view.kernel_log_source.empty() ? "" : ", ") + log.source;
  }
  view.kernel_log = parse_kernel_logs(texts);
  return {};
}

// NVML: the snapshot's facts offline, the library live.
Result<void> read_nvml(HostInput& host, NvmlSource source, HostView& view) {
  if (source == NvmlSource::kOff) {
    view.nvml_error = Phrase("accept.nvml.off");
    return {};
  }
  const bool live = source == NvmlSource::kLive || (source == NvmlSource::kAuto && host.live());
  if (live) {
    auto facts = host.nvml_facts();
    if (!facts) {
      view.nvml_error = facts.error().phrase();
      return {};
    }
    view.nvml = std::move(*facts);
    view.nvml_json = json_text(nvml::facts_to_json(*view.nvml));
    return {};
  }
  const std::string file = kCaptureDir + "/nvml.json";
  auto text = host.fs().read(file);
  if (!text) {
    view.nvml_error = Phrase("accept.nvml.not_in_snapshot");
    return {};
  }
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Error{host.fs().real(file), 0, {}, Phrase("cli.file.not_json")};
  auto parsed = nvml::facts_from_json(j, host.fs().real(file));
  if (!parsed) return parsed.error();
  view.nvml = std::move(*parsed);
  view.nvml_json = *text;
  return {};
}

// A tool's output worth keeping: it ran and succeeded (a failing nvidia-smi prints its complaint
// on stdout; that is no topology).
void keep_tool_output(HostInput& host, const std::string& command, const std::string& capture, HostView& view) {
  if (ToolRun r = host.run(command, kToolTimeout); r.ok() && !r.out.empty()) view.tool_outputs[capture] = r.out;
}

// Optional tools: the snapshot's captures offline, the tools themselves live when installed.
void read_tools(HostInput& host, HostView& view) {
  if (!host.live()) {
    for (const std::string& name : host.fs().list(kCaptureDir + "/tools"))
      if (auto text = host.fs().read(kCaptureDir + "/tools/" + name)) view.tool_outputs[name] = *text;
    return;
  }
  if (host.has_tool("ibstat")) keep_tool_output(host, "ibstat", "ibstat.txt", view);
  if (host.has_tool("nvidia-smi")) {
    keep_tool_output(host, "nvidia-smi topo -m", "topo.txt", view);
    keep_tool_output(host, "nvidia-smi nvlink --status", "nvlink-status.txt", view);
  }
  if (!host.has_tool("smartctl") || !view.facts) return;
  for (const auto& n : view.facts->nvme) {
    // smartctl's exit status is a bit mask of health findings: keep any JSON it printed.
    ToolRun r = host.run("smartctl --json -a /dev/" + n.name, kToolTimeout);
    if (r.started && !r.timed_out && !r.out.empty() && r.out.front() == '{')
      view.tool_outputs["smartctl-" + n.name + ".json"] = r.out;
  }
}

}  // namespace

std::optional<NvmlSource> parse_nvml_source(const std::string& name) {
  if (name == "auto") return NvmlSource::kAuto;
  if (name == "live") return NvmlSource::kLive;
  if (name == "snapshot") return NvmlSource::kSnapshot;
  if (name == "off") return NvmlSource::kOff;
  return std::nullopt;
}

Result<HostView> gather_host(HostInput& host, const GatherOptions& options) {
  HostView view;
  auto facts = probe_host(host.fs());
  if (facts)
    view.facts = std::move(*facts);
  else
    view.facts_error = facts.error().phrase();
  if (auto read = read_kernel_log(host, options, view); !read) return read.error();
  if (auto read = read_nvml(host, options.nvml, view); !read) return read.error();
  read_tools(host, view);
  return view;
}

SnapshotContent snapshot_content(const HostInput& host, const HostView& view) {
  SnapshotContent content;
  content.host_files = host.fs().files_read();
  if (view.facts) {
    const HostFacts& facts = *view.facts;
    content.link_dirs.push_back("/sys/bus/pci/devices");
    // Kept even when empty: an empty one is the evidence that the IOMMU is off.
    if (facts.iommu_groups_dir) content.host_files.push_back("/sys/kernel/iommu_groups");
    for (const auto& [group, members] : facts.iommu_groups)
      content.link_dirs.push_back("/sys/kernel/iommu_groups/" + std::to_string(group) + "/devices");
    for (const auto& d : facts.pci.devices) {
      content.host_files.push_back("/sys/bus/pci/devices/" + d.address + "/driver");
      content.host_files.push_back("/sys/bus/pci/devices/" + d.address + "/iommu_group");
    }
    content.link_dirs.push_back("/sys/class/infiniband");
    for (const auto& port : facts.ib_ports)
      content.host_files.push_back("/sys/class/infiniband/" + port.device + "/device");
    content.link_dirs.push_back("/sys/class/nvme");
    for (const auto& n : facts.nvme) content.host_files.push_back("/sys/class/nvme/" + n.name + "/device");
    // Every disk and interface as a link, the ones the inventory left out too (lo, a bridge):
    // an unpacked snapshot then lists what the host listed (probe/inventory.h).
    content.link_dirs.push_back("/sys/block");
    content.link_dirs.push_back("/sys/class/net");
    for (const auto& n : facts.inventory.nics)
      content.host_files.push_back("/sys/class/net/" + n.name + "/device/driver");
  }
  for (const auto& log : view.kernel_logs) content.captures[log.capture] = log.text;
  if (!view.nvml_json.empty()) content.captures["nvml.json"] = view.nvml_json;
  for (const auto& [tool, out] : view.tool_outputs) content.captures["tools/" + tool] = out;
  return content;
}

std::vector<BundleFile> host_evidence(const HostInput& host, const HostView& view, const GatherOptions& options) {
  std::vector<BundleFile> files;
  for (const auto& log : view.kernel_logs) {
    if (options.kernel_log_files.empty())
      files.push_back({"captures/" + log.capture, {}, log.text});
    else  // the file as given (a .gz stays one); its inflated name is its capture's
      files.push_back({"inputs/" + log.capture.substr(12), log.source, {}});
  }
  if (!view.nvml_json.empty()) files.push_back({"captures/nvml.json", {}, view.nvml_json});
  for (const auto& [tool, out] : view.tool_outputs) files.push_back({"captures/tools/" + tool, {}, out});
  // The bytes the checks judged (a live AER or ECC counter may have moved since).
  for (const auto& file : host.fs().files_read()) {
    if (file.rfind(kCaptureDir, 0) == 0) continue;
    auto content = host.fs().first_read(file);
    if (!content)
      if (auto text = read_text_file(host.fs().real(file))) content = std::move(*text);
    if (content) files.push_back({"host" + file, {}, *content});
  }
  return files;
}

}  // namespace gpuplan::probe
