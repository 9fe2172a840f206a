#include "cli/host_verbs.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "accept/accept.h"
#include "cli/evidence.h"
#include "core/sha256.h"
#include "diagnose/diagnose.h"
#include "nvml/nvml.h"
#include "probe/host.h"
#include "probe/kernel_log.h"
#include "probe/snapshot.h"
#include "probe/tools.h"
#include "report/accept_render.h"
#include "report/document.h"
#include "telemetry/readers.h"

namespace gpuplan::cli {
namespace fs = std::filesystem;

struct HostVerbs::Args {
  // shared by the three verbs
  std::string root = "/";
  std::string kernel_log;
  std::string nvml = "auto";  // auto (live on /, the snapshot's otherwise), live, snapshot, off
  std::string output;
  // accept
  std::string soak, load, archive, ibstat, topo, benchmark, benchmark_cmd, checksums, host, evidence, cuda, nccl;
  std::vector<std::string> smartctl, firmware, attach;
  std::optional<int> gpus;
  // diagnose
  std::vector<std::string> logs;
  // snapshot
  std::string snapshot_out;
  double sample_seconds = 0;
  double sample_interval = 1;
};

HostVerbs::HostVerbs() : args_(std::make_unique<Args>()) {}
HostVerbs::~HostVerbs() = default;

namespace {

// Where a snapshot or fixture keeps gpuplan's own captures.
constexpr const char* kCaptureDir = "/gpuplan";

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What a command printed (standard output and error together) and how it ended.
struct CommandResult {
  bool started = false;
  int exit_code = -1;  // -1: killed by a signal or not started
  std::string out;
  bool ok() const { return started && exit_code == 0; }
};

// 'text' for sh, with each ' written as '\''.
std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Runs `command` under `timeout` so a hung tool (nvidia-smi after an Xid 79) cannot hang us.
CommandResult run_command(const std::string& command, int timeout_s = 120) {
  CommandResult r;
  FILE* pipe = popen(("timeout " + std::to_string(timeout_s) + " sh -c " + shell_quote(command) + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  r.started = true;
  std::array<char, 4096> buffer{};
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A tool's output worth keeping: it ran and succeeded (a failing nvidia-smi prints its complaint
// on stdout; that is no topology).
std::optional<std::string> tool_output(const std::string& command) {
  CommandResult r = run_command(command);
  if (!r.ok() || r.out.empty()) return std::nullopt;
  return r.out;
}

// Whether `name` is an executable on PATH.
bool have_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

// The live kernel log: /dev/kmsg records (read without blocking), else `dmesg`.
std::optional<std::pair<std::string, std::string>> read_live_kernel_log() {
  const int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
  if (fd >= 0) {
    std::string text;
    std::array<char, 8192> record{};
    for (;;) {
      const ssize_t n = read(fd, record.data(), record.size());
      if (n > 0) {
        text.append(record.data(), static_cast<size_t>(n));
        if (text.back() != '\n') text += '\n';
      } else if (n < 0 && errno == EPIPE) {
        continue;  // the oldest records were overwritten while reading: go on with the next
      } else {
        break;  // EAGAIN: no more records
      }
    }
    close(fd);
    if (!text.empty()) return std::make_pair(text, std::string("/dev/kmsg"));
  }
  if (auto text = tool_output("dmesg")) return std::make_pair(*text, std::string("dmesg"));
  return std::nullopt;
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A root given as a snapshot archive is unpacked into a temporary directory first.
struct PreparedRoot {
  std::string dir;
  bool live = true;
  std::string unpacked;  // temporary directory to remove, when one was made

  PreparedRoot() = default;
  PreparedRoot(const PreparedRoot&) = delete;
  PreparedRoot& operator=(const PreparedRoot&) = delete;
  ~PreparedRoot() {
    std::error_code ec;
    if (!unpacked.empty()) fs::remove_all(unpacked, ec);
  }
};

std::optional<Error> prepare_root(const std::string& root, PreparedRoot& out) {
  std::error_code ec;
  if (root == "/" || root.empty()) {
    out.dir = "/";
    return std::nullopt;
  }
  out.live = false;
  if (fs::is_directory(root, ec)) {
    out.dir = root;
    return std::nullopt;
  }
  if (!fs::exists(root, ec)) return Error{root, 0, "--root", Phrase("cli.root.missing")};
  std::string tmpl = (fs::temp_directory_path() / "gpuplan-snapshot-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return Error{root, 0, "--root", Phrase("cli.root.no_temp_dir")};
  out.unpacked = tmpl;
  auto unpacked = probe::unpack_snapshot(root, tmpl);
  if (!unpacked) return unpacked.error();
  out.dir = tmpl;
  return std::nullopt;
}

// Everything the probes, the kernel log, NVML and the tools show about one host.
struct HostView {
  probe::HostFs fs;
  std::optional<probe::HostFacts> facts;
  Phrase facts_error;
  std::optional<probe::KernelLog> kernel_log;
  std::string kernel_log_text, kernel_log_source;
  std::optional<nvml::NvmlFacts> nvml;
  std::string nvml_json;
  Phrase nvml_error;
  std::map<std::string, std::string> tool_outputs;  // "ibstat.txt" → text

  explicit HostView(std::string root) : fs(std::move(root)) {}
};

std::optional<Error> gather_host(const HostVerbs::Args& a, const PreparedRoot& root, HostView& view) {
  auto facts = probe::probe_host(view.fs);
  if (facts) view.facts = std::move(*facts);
  else view.facts_error = facts.error().phrase();

  // Kernel log: --kernel-log, else the snapshot's capture, else the live log.
  if (!a.kernel_log.empty()) {
    auto text = read_file(a.kernel_log);
    if (!text) return Error{a.kernel_log, 0, "--kernel-log", Phrase("cli.file.cannot_read")};
    view.kernel_log_text = *text;
    view.kernel_log_source = a.kernel_log;
  } else if (!root.live) {
    if (auto text = view.fs.read(std::string(kCaptureDir) + "/kernel.log")) {
      view.kernel_log_text = *text;
      view.kernel_log_source = "gpuplan/kernel.log";
    }
  } else if (auto live = read_live_kernel_log()) {
    view.kernel_log_text = live->first;
    view.kernel_log_source = live->second;
  }
  if (!view.kernel_log_source.empty()) view.kernel_log = probe::parse_kernel_log(view.kernel_log_text);

  // NVML: the snapshot's facts offline, the library live.
  const bool live_nvml = a.nvml == "live" || (a.nvml == "auto" && root.live);
  if (a.nvml == "off") {
    view.nvml_error = Phrase("accept.nvml.off");
  } else if (!live_nvml) {
    const std::string file = std::string(kCaptureDir) + "/nvml.json";
    if (auto text = view.fs.read(file)) {
      auto j = nlohmann::json::parse(*text, nullptr, false);
      if (j.is_discarded()) return Error{view.fs.real(file), 0, {}, Phrase("cli.file.not_json")};
      auto parsed = nvml::facts_from_json(j, view.fs.real(file));
      if (!parsed) return parsed.error();
      view.nvml = std::move(*parsed);
      view.nvml_json = *text;
    } else {
      view.nvml_error = Phrase("accept.nvml.not_in_snapshot");
    }
  } else {
    auto lib = nvml::Nvml::open();
    if (lib) {
      view.nvml = (*lib)->read_facts();
      view.nvml_json = report::json_text(nvml::facts_to_json(*view.nvml));
    } else {
      view.nvml_error = lib.error().phrase();
    }
  }

  // Optional tools: the snapshot's captures offline, the tools themselves live when installed.
  if (!root.live) {
    for (const std::string& name : view.fs.list(std::string(kCaptureDir) + "/tools"))
      if (auto text = view.fs.read(std::string(kCaptureDir) + "/tools/" + name)) view.tool_outputs[name] = *text;
  } else {
    if (have_tool("ibstat"))
      if (auto out = tool_output("ibstat")) view.tool_outputs["ibstat.txt"] = *out;
    if (have_tool("nvidia-smi")) {
      if (auto out = tool_output("nvidia-smi topo -m")) view.tool_outputs["topo.txt"] = *out;
      if (auto out = tool_output("nvidia-smi nvlink --status")) view.tool_outputs["nvlink-status.txt"] = *out;
    }
    if (have_tool("smartctl") && view.facts)
      for (const auto& n : view.facts->nvme)
        // smartctl's exit status is a bit mask of health findings: keep any JSON it printed.
        if (auto r = run_command("smartctl --json -a /dev/" + n.name); r.started && !r.out.empty() && r.out.front() == '{')
          view.tool_outputs["smartctl-" + n.name + ".json"] = r.out;
  }
  return std::nullopt;
}

// The report's host: --host, else the host's own name, else what --root named.
std::string host_name(const HostVerbs::Args& a, const PreparedRoot& root, const HostView& view) {
  if (!a.host.empty()) return a.host;
  if (view.facts && !view.facts->hostname.empty()) return view.facts->hostname;
  return root.live ? ui("cli.this_host") : a.root;
}

// --- accept ----------------------------------------------------------------------------

const std::vector<std::string> kAttachable = {"infiniband", "firmware.versions", "soak", "load", "performance",
                                              "versions", "health.archive"};

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

void note_skipped(const telemetry::Skipped& skip) {
  note(
      Phrase("cli.skipped_line").fact("where", skip.file + ":" + std::to_string(skip.line)).fact("why", {skip.reason}));
}

int run_accept(const Common& common, const HostVerbs::Args& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  const std::string started = now_iso();
  PreparedRoot root;
  if (auto e = prepare_root(a.root, root)) return bad_input(*e);
  HostView view(root.dir);
  if (auto e = gather_host(a, root, view)) return bad_input(*e);

  accept::AcceptInputs in;
  in.host = host_name(a, root, view);
  in.facts = view.facts;
  in.facts_error = view.facts_error;
  in.kernel_log = view.kernel_log;
  in.kernel_log_source = view.kernel_log_source;
  in.nvml = view.nvml;
  in.nvml_error = view.nvml_error;
  std::vector<EvidenceItem> items;

  auto summarise = [&](const std::string& path, const char* flag, std::optional<accept::LogSummary>& out) -> int {
    if (path.empty()) return kOk;
    auto s = accept::summarise_log(path, ctx.catalog, progress_bar(false));
    if (!s) return bad_input(Error{s.error().file, s.error().line, s.error().field.empty() ? flag : s.error().field, s.error().message});
    for (const auto& skip : s->stats.skipped) note_skipped(skip);
    out = std::move(*s);
    items.push_back({std::string("inputs/") + (flag + 2) + "-" + base_name(path), path, {}});
    return kOk;
  };
  if (int r = summarise(a.soak, "--soak", in.soak)) return r;
  if (int r = summarise(a.load, "--load", in.load)) return r;
  if (int r = summarise(a.archive, "--archive", in.archive)) return r;

  // Tool outputs: files given on the command line win over the snapshot's or live captures. A
  // named file that does not parse is bad input; a capture that does not parse is left out with
  // a note (the evidence keeps it), so a broken tool on the server cannot stop the verdict.
  std::optional<Error> problem;
  auto parse_tool = [&](const std::string& file, const char* flag, const std::string& capture, auto parser) {
    using Parsed = std::decay_t<decltype(*parser(std::string_view()))>;
    std::optional<Parsed> out;
    if (!file.empty()) {
      auto text = read_file(file);
      if (!text) {
        problem = Error{file, 0, flag, Phrase("cli.file.cannot_read")};
        return out;
      }
      items.push_back({"inputs/" + base_name(file), file, {}});
      auto parsed = parser(*text);
      if (!parsed) problem = Error{file, parsed.error().line, parsed.error().field, parsed.error().message};
      else out = std::move(*parsed);
      return out;
    }
    auto it = view.tool_outputs.find(capture);
    if (it == view.tool_outputs.end()) return out;
    auto parsed = parser(it->second);
    if (parsed) out = std::move(*parsed);
    else
      note(Phrase("cli.accept.capture_not_used")
               .fact("capture", "gpuplan/tools/" + capture)
               .fact("why", {parsed.error().phrase()}));
    return out;
  };
  for (const auto& path : a.smartctl) {
    auto smart = parse_tool(path, "--smartctl", "", probe::parse_smartctl_json);
    if (problem) return bad_input(*problem);
    in.smart.emplace_back(path, *smart);
  }
  if (a.smartctl.empty())
    for (const auto& [capture, text] : view.tool_outputs)
      if (capture.rfind("smartctl", 0) == 0)
        if (auto smart = parse_tool("", "", capture, probe::parse_smartctl_json))
          in.smart.emplace_back("gpuplan/tools/" + capture, *smart);
  in.ibstat = parse_tool(a.ibstat, "--ibstat", "ibstat.txt", probe::parse_ibstat);
  if (problem) return bad_input(*problem);
  in.topo = parse_tool(a.topo, "--topo", "topo.txt", probe::parse_topo_matrix);
  if (problem) return bad_input(*problem);

  // G10: a benchmark's output, from a file or a command run now.
  if (!a.benchmark.empty() || !a.benchmark_cmd.empty()) {
    std::optional<std::string> text;
    if (!a.benchmark.empty()) {
      text = read_file(a.benchmark);
      if (!text) return bad_input(Error{a.benchmark, 0, "--benchmark", Phrase("cli.file.cannot_read")});
      in.benchmark_source = a.benchmark;
      items.push_back({"inputs/" + base_name(a.benchmark), a.benchmark, {}});
    } else {
      if (!root.live) return bad_input(Error{{}, 0, "--benchmark-cmd", Phrase("cli.accept.benchmark_elsewhere")});
      note(Phrase("cli.accept.running_benchmark").fact("command", a.benchmark_cmd));
      CommandResult run = run_command(a.benchmark_cmd, 7 * 24 * 3600);
      items.push_back({"captures/benchmark-output.txt", {}, "$ " + a.benchmark_cmd + "\n" + run.out +
                                                              "[exit status " + std::to_string(run.exit_code) + "]\n"});
      // A benchmark that died after its warm-up lines printed a figure that proves nothing.
      if (!run.ok())
        return bad_input(Error{{},
                               0,
                               "--benchmark-cmd",
                               Phrase("cli.accept.benchmark_failed")
                                   .fact("status", std::to_string(run.exit_code))
                                   .fact("command", a.benchmark_cmd)});
      text = run.out;
      in.benchmark_source = a.benchmark_cmd;
    }
    in.images_per_s = accept::parse_images_per_second(*text);
    if (!in.images_per_s)
      return bad_input(Error{in.benchmark_source, 0, "--benchmark", Phrase("cli.accept.no_images_per_s")});
  }

  // G11: firmware images against the vendor's checksum file.
  for (const auto& path : a.firmware) {
    auto hash = sha256_file(path);
    if (!hash) return bad_input(Error{path, 0, "--firmware", hash.error().message});
    in.firmware.push_back({path, *hash});
  }
  if (!a.checksums.empty()) {
    auto text = read_file(a.checksums);
    if (!text) return bad_input(Error{a.checksums, 0, "--checksums", Phrase("cli.file.cannot_read")});
    auto sums = accept::parse_checksums(*text, a.checksums);
    if (!sums) return bad_input(sums.error());
    in.expected_sha256 = *sums;
    in.checksum_file = a.checksums;
    items.push_back({"inputs/" + base_name(a.checksums), a.checksums, {}});
  }
  if (!a.cuda.empty()) in.versions["cuda"] = a.cuda;
  if (!a.nccl.empty()) in.versions["nccl"] = a.nccl;
  for (const auto& spec : a.attach) {
    const auto eq = spec.find('=');
    const std::string check = spec.substr(0, eq);
    if (eq == std::string::npos || std::find(kAttachable.begin(), kAttachable.end(), check) == kAttachable.end()) {
      std::string checks;
      for (const auto& c : kAttachable) checks += (checks.empty() ? "" : ", ") + c;
      return bad_input(
          Error{{}, 0, "--attach", Phrase("cli.accept.attach_malformed").fact("spec", spec).fact("checks", checks)});
    }
    const std::string file = spec.substr(eq + 1);
    if (!fs::is_regular_file(file)) return bad_input(Error{file, 0, "--attach", Phrase("cli.file.no_such_file")});
    auto hash = sha256_file(file);
    if (!hash) return bad_input(hash.error());
    in.attached[check] = file + " (sha256 " + *hash + ")";
    items.push_back({"inputs/attached-" + check + "-" + base_name(file), file, {}});
  }
  if (a.gpus) {
    if (*a.gpus < 1 || *a.gpus > 64)
      return bad_input(between("cli.value.between", "--gpus", "1", "64", std::to_string(*a.gpus)));
    in.expected_gpus = *a.gpus;
  }

  const accept::AcceptReport report = accept::run_acceptance(in, ctx.catalog);
  const std::string text = report::render_accept(report, ctx.format, ctx.style);

  if (!a.evidence.empty()) {
    if (!a.kernel_log.empty()) items.push_back({"inputs/" + base_name(a.kernel_log), a.kernel_log, {}});
    else if (!view.kernel_log_source.empty()) items.push_back({"captures/kernel.log", {}, view.kernel_log_text});
    if (!view.nvml_json.empty()) items.push_back({"captures/nvml.json", {}, view.nvml_json});
    for (const auto& [tool, out] : view.tool_outputs) items.push_back({"captures/tools/" + tool, {}, out});
    // The bytes the checks judged (a live AER or ECC counter may have moved since).
    for (const auto& file : view.fs.files_read()) {
      if (file.rfind(kCaptureDir, 0) == 0) continue;
      auto content = view.fs.first_read(file);
      if (!content) content = read_file(view.fs.real(file));
      if (content) items.push_back({"host" + file, {}, *content});
    }
    report::Style plain = ctx.style;
    plain.colour = false;
    items.push_back({"report.json", {}, report::json_text(report::accept_json(report, ctx.style.lang))});
    items.push_back({"report.md", {}, report::render_accept(report, report::Format::kMarkdown, plain)});
    items.push_back({"report.html", {}, report::render_accept(report, report::Format::kHtml, plain)});
    nlohmann::json stamps = {{"started", started},
                             {"finished", now_iso()},
                             {"gpuplan", GPUPLAN_VERSION},
                             {"root", a.root},
                             {"kernel_log", view.kernel_log_source},
                             {"nvml", view.nvml ? view.nvml->library : report::say(view.nvml_error, ctx.style.lang)}};
    items.push_back({"timestamps.json", {}, report::json_text(stamps)});
    auto written = write_evidence(a.evidence, items);
    if (!written) return bad_input(written.error());
    note(Phrase("cli.accept.wrote_evidence").fact("count", std::to_string(*written)).fact("dir", a.evidence));
  }
  if (int r = emit(text, a.output)) return r;
  return report.passed ? kOk : kVerdictFailed;
}

// --- diagnose --------------------------------------------------------------------------

class CollectSamples : public telemetry::SampleSink {
 public:
  explicit CollectSamples(std::vector<telemetry::Sample>& out) : out_(out) {}
  void add(const telemetry::Sample& s) override { out_.push_back(s); }

 private:
  std::vector<telemetry::Sample>& out_;
};

int run_diagnose(const Common& common, const HostVerbs::Args& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  PreparedRoot root;
  if (auto e = prepare_root(a.root, root)) return bad_input(*e);
  HostView view(root.dir);
  if (auto e = gather_host(a, root, view)) return bad_input(*e);
  diagnose::DiagnoseInputs in;
  in.facts = view.facts;
  in.nvml = view.nvml;
  telemetry::GpuRegistry gpus;
  CollectSamples sink(in.samples);
  for (const auto& path : a.logs) {
    auto stats = telemetry::read_samples(path, telemetry::SourceFormat::kAuto, gpus, sink);
    if (!stats) return bad_input(stats.error());
    for (const auto& skip : stats->skipped) note_skipped(skip);
  }
  in.gpu_names = gpus.names();
  // Negated comparisons so that NaN is refused too.
  if (!(a.sample_seconds >= 0 && a.sample_seconds <= 7 * 24 * 3600))
    return bad_input(between("cli.value.between_seconds", "--sample", "0", "604,800", shown(a.sample_seconds),
                             {Phrase("cli.value.a_week")}));
  if (!(a.sample_interval >= 0.1 && a.sample_interval <= 3600))
    return bad_input(between("cli.value.between_seconds", "--interval", "0.1", "3,600", shown(a.sample_interval)));
  // Live: sample NVML for a while when asked, as the logs would have.
  if (a.sample_seconds > 0 && a.nvml != "off" && a.nvml != "snapshot") {
    auto lib = nvml::Nvml::open();
    if (!lib) return bad_input(lib.error());
    const auto interval = std::chrono::milliseconds(static_cast<int64_t>(a.sample_interval * 1000));
    const auto duration = std::chrono::milliseconds(static_cast<int64_t>(a.sample_seconds * 1000));
    const bool tty = isatty(STDERR_FILENO);
    auto samples = nvml::sample_gpus(
        **lib, duration, interval, [] { return std::chrono::system_clock::now(); },
        [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); },
        [tty](int round, int rounds) {
          if (tty)
            std::fprintf(stderr, "\r%s",
                         say(Phrase("cli.diagnose.sampling")
                                 .fact("round", std::to_string(round))
                                 .fact("rounds", std::to_string(rounds)))
                             .c_str());
        });
    if (tty) std::fprintf(stderr, "\n");
    const uint32_t base = static_cast<uint32_t>(in.gpu_names.size());
    for (unsigned i = 0; i < (*lib)->count(); ++i) in.gpu_names.push_back("nvml/" + std::to_string(i));
    for (auto s : samples) {
      s.gpu += base;
      in.samples.push_back(s);
    }
  }
  if (!a.topo.empty()) {
    auto text = read_file(a.topo);
    if (!text) return bad_input(Error{a.topo, 0, "--topo", Phrase("cli.file.cannot_read")});
    auto parsed = probe::parse_topo_matrix(*text);
    if (!parsed) return bad_input(Error{a.topo, parsed.error().line, parsed.error().field, parsed.error().message});
    in.topo = *parsed;
  } else if (auto it = view.tool_outputs.find("topo.txt"); it != view.tool_outputs.end()) {
    if (auto parsed = probe::parse_topo_matrix(it->second)) in.topo = *parsed;
  }
  const std::vector<Finding> findings = diagnose::diagnose(in, ctx.catalog);
  const std::string host = host_name(a, root, view);
  if (int r = emit(report::render_diagnose(host, findings, ctx.format, ctx.style), a.output)) return r;
  return any_fail(findings) ? kVerdictFailed : kOk;
}

// --- snapshot --------------------------------------------------------------------------

int run_snapshot(const HostVerbs::Args& a) {
  if (a.snapshot_out.empty()) return bad_input(Phrase("cli.snapshot.needs_out"));
  PreparedRoot root;
  if (auto e = prepare_root(a.root, root)) return bad_input(*e);
  HostView view(root.dir);
  if (auto e = gather_host(a, root, view)) return bad_input(*e);
  if (!view.facts) return bad_input(Error{a.root, 0, "--root", view.facts_error});

  probe::SnapshotContent content;
  content.host_files = view.fs.files_read();
  content.link_dirs.push_back("/sys/bus/pci/devices");
  for (const auto& [group, members] : view.facts->iommu_groups)
    content.link_dirs.push_back("/sys/kernel/iommu_groups/" + std::to_string(group) + "/devices");
  for (const auto& d : view.facts->pci.devices) {
    content.host_files.push_back("/sys/bus/pci/devices/" + d.address + "/driver");
    content.host_files.push_back("/sys/bus/pci/devices/" + d.address + "/iommu_group");
  }
  content.link_dirs.push_back("/sys/class/infiniband");
  for (const auto& port : view.facts->ib_ports) content.host_files.push_back("/sys/class/infiniband/" + port.device + "/device");
  content.link_dirs.push_back("/sys/class/nvme");
  for (const auto& n : view.facts->nvme) content.host_files.push_back("/sys/class/nvme/" + n.name + "/device");

  if (!view.kernel_log_source.empty()) content.captures["kernel.log"] = view.kernel_log_text;
  if (!view.nvml_json.empty()) content.captures["nvml.json"] = view.nvml_json;
  for (const auto& [tool, out] : view.tool_outputs) content.captures["tools/" + tool] = out;
  nlohmann::json meta = {{"taken", now_iso()},
                         {"gpuplan", GPUPLAN_VERSION},
                         {"host", view.facts->hostname},
                         {"root", a.root},
                         {"kernel_log", view.kernel_log_source},
                         {"nvml", view.nvml ? view.nvml->library : report::say(view.nvml_error, report::Lang::kEn)}};
  content.captures["snapshot.json"] = report::json_text(meta);
  auto written = probe::write_snapshot(view.fs, content, a.snapshot_out);
  if (!written) return bad_input(written.error());
  Phrase summary("cli.snapshot.wrote");
  summary.fact("path", a.snapshot_out).fact("entries", std::to_string(*written));
  if (view.kernel_log_source.empty())
    summary.fact("kernel_log", {Phrase("cli.none")});
  else
    summary.fact("kernel_log", view.kernel_log_source);
  if (view.nvml)
    summary.fact("nvml", {Phrase("cli.snapshot.gpus").fact("count", std::to_string(view.nvml->gpus.size()))});
  else
    summary.fact("nvml", {view.nvml_error});
  note(summary);
  return kOk;
}

}  // namespace

void HostVerbs::add_to(CLI::App& app) {
  Args& a = *args_;
  auto host_flags = [&a](CLI::App* sub) {
    sub->add_option("--root", a.root, ui("cli.help.host.root"))->type_name("DIR|SNAPSHOT");
    sub->add_option("--kernel-log", a.kernel_log, ui("cli.help.host.kernel_log"))->type_name("FILE");
    sub->add_option("--nvml", a.nvml, ui("cli.help.host.nvml"))
        ->check(CLI::IsMember({"auto", "live", "snapshot", "off"}));
    sub->add_option("--host", a.host, ui("cli.help.host.host"));
  };

  accept_ = app.add_subcommand("accept", ui("cli.help.accept"));
  host_flags(accept_);
  accept_->add_option("--soak", a.soak, ui("cli.help.accept.soak"))->type_name("FILE");
  accept_->add_option("--load", a.load, ui("cli.help.accept.load"))->type_name("FILE");
  accept_->add_option("--archive", a.archive, ui("cli.help.accept.archive"))->type_name("FILE");
  accept_->add_option("--smartctl", a.smartctl, ui("cli.help.accept.smartctl"))->type_name("FILE");
  accept_->add_option("--ibstat", a.ibstat, ui("cli.help.accept.ibstat"))->type_name("FILE");
  accept_->add_option("--topo", a.topo, ui("cli.help.accept.topo"))->type_name("FILE");
  accept_->add_option("--benchmark", a.benchmark, ui("cli.help.accept.benchmark"))->type_name("FILE");
  accept_->add_option("--benchmark-cmd", a.benchmark_cmd, ui("cli.help.accept.benchmark_cmd"))->type_name("CMD");
  accept_->add_option("--firmware", a.firmware, ui("cli.help.accept.firmware"))->type_name("FILE");
  accept_->add_option("--checksums", a.checksums, ui("cli.help.accept.checksums"))->type_name("FILE");
  accept_->add_option("--cuda", a.cuda, ui("cli.help.accept.cuda"));
  accept_->add_option("--nccl", a.nccl, ui("cli.help.accept.nccl"));
  accept_->add_option("--attach", a.attach, ui("cli.help.accept.attach"));
  accept_->add_option("--gpus", a.gpus, ui("cli.help.accept.gpus"));
  accept_->add_option("--evidence", a.evidence, ui("cli.help.accept.evidence"))->type_name("DIR");
  accept_->add_option("--output", a.output, ui("cli.help.output"))->type_name("FILE");
  accept_->footer(
      examples({"gpuplan accept --soak soak.csv --load load.csv --benchmark resnet50.txt --evidence acceptance/",
                "gpuplan accept --root server-42.tar.gz --format json"}) +
      "\n" + ui("cli.label.checks") + label_end() +
      "soak pcie.topology pcie.aer infiniband versions load pcie.aspm iommu firmware.versions\n"
      "        performance firmware.hashes health.archive xid ecc gpu.count");

  diagnose_ = app.add_subcommand("diagnose", ui("cli.help.diagnose"));
  host_flags(diagnose_);
  diagnose_->add_option("logs", a.logs, ui("cli.help.diagnose.logs"))->type_name("LOG");
  diagnose_->add_option("--topo", a.topo, ui("cli.help.accept.topo"))->type_name("FILE");
  diagnose_->add_option("--sample", a.sample_seconds, ui("cli.help.diagnose.sample"));
  diagnose_->add_option("--interval", a.sample_interval, ui("cli.help.diagnose.interval"));
  diagnose_->add_option("--output", a.output, ui("cli.help.output"))->type_name("FILE");
  diagnose_->footer(examples({"gpuplan diagnose gpu-log.csv", "gpuplan diagnose --sample 60"}));

  snapshot_ = app.add_subcommand("snapshot", ui("cli.help.snapshot"));
  host_flags(snapshot_);
  snapshot_->add_option("out", a.snapshot_out, ui("cli.help.snapshot.out"))->required()->type_name("OUT.tar.gz");
  snapshot_->footer(examples({"sudo gpuplan snapshot server-42.tar.gz && gpuplan accept --root server-42.tar.gz"}));
  for (CLI::App* sub : {accept_, diagnose_, snapshot_}) sub->fallthrough();
}

bool HostVerbs::run(const Common& common, int& exit_code) {
  if (accept_ && *accept_) exit_code = run_accept(common, *args_);
  else if (diagnose_ && *diagnose_) exit_code = run_diagnose(common, *args_);
  else if (snapshot_ && *snapshot_) exit_code = run_snapshot(*args_);
  else return false;
  return true;
}

}  // namespace gpuplan::cli
