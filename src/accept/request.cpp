#include "accept/request.h"

#include <algorithm>
#include <filesystem>

#include "core/files.h"
#include "core/phrase.h"
#include "core/sha256.h"
#include "core/text.h"

namespace gpuplan::accept {
namespace {

namespace fs = std::filesystem;

// A file that could not be read, with the reason the reader gave (missing, not a regular file,
// too large), named by the flag that gave it.
Error flagged(Error e, const char* flag) {
  e.field = flag;
  return e;
}

std::string base_name(const std::string& path) {
  return fs::path(path).filename().string();
}

Phrase skipped_line(const telemetry::Skipped& skip) {
  return Phrase("cli.skipped_line")
      .fact("where", skip.file + ":" + std::to_string(skip.line))
      .fact("why", {skip.reason});
}

// Reading one request into inputs and evidence; each step returns the first problem.
class Preparation {
 public:
  Preparation(const AcceptRequest& request, probe::HostInput& host, const probe::HostView& view,
              const catalog::Catalog& catalog, const Note& note, const telemetry::Progress& progress)
      : request_(request), host_(host), view_(view), catalog_(catalog), note_(note), progress_(progress) {}

  Result<PreparedAcceptance> run() {
    AcceptInputs& in = out_.inputs;
    in.host = request_.host;
    in.facts = view_.facts;
    in.facts_error = view_.facts_error;
    in.kernel_log = view_.kernel_log;
    in.kernel_log_source = view_.kernel_log_source;
    in.nvml = view_.nvml;
    in.nvml_error = view_.nvml_error;
    if (auto step = summarise(request_.soak, "--soak", in.soak); !step) return step.error();
    if (auto step = summarise(request_.load, "--load", in.load); !step) return step.error();
    if (auto step = summarise(request_.archive, "--archive", in.archive); !step) return step.error();
    if (auto step = read_trend(); !step) return step.error();
    if (auto step = read_tools(); !step) return step.error();
    if (auto step = read_benchmark(); !step) return step.error();
    if (auto step = read_firmware(); !step) return step.error();
    if (!request_.cuda.empty()) in.versions["cuda"] = request_.cuda;
    if (!request_.nccl.empty()) in.versions["nccl"] = request_.nccl;
    if (auto step = read_attachments(); !step) return step.error();
    if (auto step = read_contract(); !step) return step.error();
    in.expected_gpus = request_.expected_gpus;
    return std::move(out_);
  }

 private:
  void keep(const std::string& name, const std::string& path) { out_.evidence.push_back({name, path, {}}); }

  Result<void> summarise(const std::string& path, const char* flag, std::optional<LogSummary>& out) {
    if (path.empty()) return {};
    auto s = summarise_log(path, catalog_, progress_);
    if (!s) {
      const Error& e = s.error();
      return Error{e.file, e.line, e.field.empty() ? flag : e.field, e.message};
    }
    for (const auto& skip : s->stats.skipped) note_(skipped_line(skip));
    out = std::move(*s);
    keep(std::string("inputs/") + (flag + 2) + "-" + base_name(path), path);
    return {};
  }

  // A gpuplan health archive also gives G12 its hourly ECC trend.
  Result<void> read_trend() {
    if (request_.archive.empty()) return {};
    auto trend = read_archive_trend(request_.archive);
    if (!trend) return Error{trend.error().file, 0, "--archive", trend.error().message};
    out_.inputs.archive_trend = std::move(*trend);
    return {};
  }

  // A tool's output: the file named on the command line wins over the host's capture. A named
  // file that does not parse is bad input; a capture that does not parse is left out with a note.
  // `tool` names the command a paste may carry above the output (probe::pasted_preamble); "" for
  // JSON, which has none.
  template <class Parser>
  auto parse_tool(const std::string& file, const char* flag, const std::string& capture, Parser parser,
                  std::string_view tool = "")
      -> Result<std::optional<std::decay_t<decltype(*parser(std::string_view()))>>> {
    using Parsed = std::decay_t<decltype(*parser(std::string_view()))>;
    if (!file.empty()) {
      auto text = read_text_file(file);
      if (!text) return flagged(text.error(), flag);
      keep("inputs/" + base_name(file), file);
      auto parsed = parser(*text);
      if (!parsed) return Error{file, parsed.error().line, parsed.error().field, parsed.error().message};
      if (!tool.empty())
        if (const probe::PastedPreamble pre = probe::pasted_preamble(*text, tool); pre.lines > 0)
          note_(Phrase("cli.tool.preamble_skipped")
                    .fact("file", file)
                    .fact("lines", std::to_string(pre.lines))
                    .fact("last", pre.last));
      return std::optional<Parsed>(std::move(*parsed));
    }
    auto it = view_.tool_outputs.find(capture);
    if (it == view_.tool_outputs.end()) return std::optional<Parsed>();
    auto parsed = parser(it->second);
    if (parsed) return std::optional<Parsed>(std::move(*parsed));
    note_(Phrase("cli.accept.capture_not_used")
              .fact("capture", "gpuplan/tools/" + capture)
              .fact("why", {parsed.error().phrase()}));
    return std::optional<Parsed>();
  }

  Result<void> read_tools() {
    AcceptInputs& in = out_.inputs;
    for (const auto& path : request_.smartctl) {
      auto smart = parse_tool(path, "--smartctl", "", probe::parse_smartctl);
      if (!smart) return smart.error();
      // smartctl's terminal output names no device unless its command was pasted with it.
      if ((*smart)->device.empty()) (*smart)->device = base_name(path);
      in.smart.emplace_back(path, **smart);
    }
    if (request_.smartctl.empty())
      for (const auto& [capture, text] : view_.tool_outputs)
        if (capture.rfind("smartctl", 0) == 0)
          if (auto smart = parse_tool("", "", capture, probe::parse_smartctl); smart && *smart)
            in.smart.emplace_back("gpuplan/tools/" + capture, **smart);
    auto ibstat = parse_tool(request_.ibstat, "--ibstat", "ibstat.txt", probe::parse_ibstat, "ibstat");
    if (!ibstat) return ibstat.error();
    in.ibstat = *ibstat;
    auto topo = parse_tool(request_.topo, "--topo", "topo.txt", probe::parse_topo_matrix, "nvidia-smi");
    if (!topo) return topo.error();
    in.topo = *topo;
    return {};
  }

  // G10: a benchmark's output, from a file or a command run now, and what the buyer states of
  // its scope and GPUs.
  Result<void> read_benchmark() {
    AcceptInputs& in = out_.inputs;
    if (!request_.benchmark_scope.empty()) {
      if (request_.benchmark_scope == "per-gpu")
        in.benchmark_scope = BenchmarkScope::kPerGpu;
      else if (request_.benchmark_scope == "total")
        in.benchmark_scope = BenchmarkScope::kTotal;
      else
        return Error{{}, 0, "--benchmark-scope", not_one_of(request_.benchmark_scope, {"per-gpu", "total"})};
    }
    in.benchmark_gpus = request_.benchmark_gpus;
    if (!request_.benchmark_model.empty()) {
      const std::string model = normalise_model(request_.benchmark_model);
      if (model.empty())
        return Error{
            {}, 0, "--benchmark-model", Phrase("error.benchmark.model").fact("value", request_.benchmark_model)};
      in.benchmark_model = model;
    }
    if (!request_.benchmark_mode.empty()) {
      if (request_.benchmark_mode == "training")
        in.benchmark_mode = BenchmarkMode::kTraining;
      else if (request_.benchmark_mode == "inference")
        in.benchmark_mode = BenchmarkMode::kInference;
      else
        return Error{{}, 0, "--benchmark-mode", not_one_of(request_.benchmark_mode, {"training", "inference"})};
    }
    in.benchmark_batch = request_.benchmark_batch;
    if (request_.benchmark.empty() && request_.benchmark_cmd.empty()) return {};
    std::optional<std::string> text;
    if (!request_.benchmark.empty()) {
      auto file = read_text_file(request_.benchmark);
      if (!file) return flagged(file.error(), "--benchmark");
      text = std::move(*file);
      in.benchmark_source = request_.benchmark;
      keep("inputs/" + base_name(request_.benchmark), request_.benchmark);
    } else {
      const std::string& command = request_.benchmark_cmd;
      if (!host_.live()) return Error{{}, 0, "--benchmark-cmd", Phrase("cli.accept.benchmark_elsewhere")};
      note_(Phrase("cli.accept.running_benchmark").fact("command", command));
      probe::ToolRun run = host_.run(command, kBenchmarkTimeout);
      out_.evidence.push_back(
          {"captures/benchmark-output.txt",
           {},
           "$ " + command + "\n" + run.out + "[exit status " + std::to_string(run.exit_code) + "]\n"});
      // A benchmark that died after its warm-up lines printed a figure that proves nothing.
      if (!run.ok())
        return Error{{},
                     0,
                     "--benchmark-cmd",
                     Phrase("cli.accept.benchmark_failed")
                         .fact("status", std::to_string(run.exit_code))
                         .fact("command", command)};
      text = run.out;
      in.benchmark_source = command;
    }
    in.benchmark = parse_benchmark(*text);
    if (!in.benchmark) return Error{in.benchmark_source, 0, "--benchmark", Phrase("cli.accept.no_images_per_s")};
    return {};
  }

  // G11: firmware images against the vendor's checksum file.
  Result<void> read_firmware() {
    AcceptInputs& in = out_.inputs;
    for (const auto& path : request_.firmware) {
      auto hash = sha256_file(path);
      if (!hash) return Error{path, 0, "--firmware", hash.error().message};
      in.firmware.push_back({path, *hash});
    }
    if (request_.checksums.empty()) return {};
    auto text = read_text_file(request_.checksums);
    if (!text) return flagged(text.error(), "--checksums");
    auto sums = parse_checksums(*text, request_.checksums);
    if (!sums) return sums.error();
    in.expected_sha256 = *sums;
    in.checksum_file = request_.checksums;
    keep("inputs/" + base_name(request_.checksums), request_.checksums);
    return {};
  }

  // The contract, read and its parts checked as `gpuplan audit` reads them; the file goes into
  // the evidence, so the terms the checks quote can be read beside what was found.
  Result<void> read_contract() {
    if (request_.contract.empty()) return {};
    auto quote = plan::read_vendor_quote(request_.contract, catalog_);
    if (!quote) return quote.error();
    if (auto parts = plan::check_parts(*quote, catalog_); !parts) return parts.error();
    out_.inputs.contract = std::move(*quote);
    keep("inputs/contract-" + base_name(request_.contract), request_.contract);
    return {};
  }

  Result<void> read_attachments() {
    const auto& allowed = attachable_checks();
    for (const auto& spec : request_.attach) {
      const auto eq = spec.find('=');
      const std::string check = spec.substr(0, eq);
      if (eq == std::string::npos || std::find(allowed.begin(), allowed.end(), check) == allowed.end()) {
        std::string checks;
        for (const auto& c : allowed) checks += (checks.empty() ? "" : ", ") + c;
        return Error{
            {}, 0, "--attach", Phrase("cli.accept.attach_malformed").fact("spec", spec).fact("checks", checks)};
      }
      const std::string file = spec.substr(eq + 1);
      if (!fs::is_regular_file(file)) return Error{file, 0, "--attach", Phrase("cli.file.no_such_file")};
      auto hash = sha256_file(file);
      if (!hash) return hash.error();
      auto text = read_text_file(file);
      if (!text) return flagged(text.error(), "--attach");
      Attachment a;
      a.check = check;
      a.file = file;
      a.sha256 = *hash;
      a.empty = text->find_first_not_of(" \t\r\n") == std::string::npos;
      // Only these checks have readers; the others' files are for a person to judge.
      if (check == "infiniband") a.ib = probe::read_ib_evidence(*text);
      if (check == "firmware.versions") a.firmware = probe::read_firmware_evidence(*text);
      if (check == "ecc") a.memory = probe::read_memory_health(*text);
      if (check == "contract.delivery") {
        // A file that is not dmidecode memory output would count as a server without DIMMs.
        auto dimms = probe::parse_dmidecode_memory(*text);
        if (!dimms) {
          const Error& e = dimms.error();
          return Error{file, e.line, e.field.empty() ? "--attach" : e.field, e.message};
        }
        a.dimms = std::move(*dimms);
      }
      if (check == "pcie.topology" || check == "pcie.aer") {
        // lspci -vvv: a file without a single LnkSta line would read as a bus without a fault.
        auto devices = probe::parse_lspci_vvv(*text);
        if (!devices) {
          const Error& e = devices.error();
          return Error{file, e.line, e.field.empty() ? "--attach" : e.field, e.message};
        }
        a.lspci = std::move(*devices);
      }
      out_.inputs.attachments.push_back(std::move(a));
      keep("inputs/attached-" + check + "-" + base_name(file), file);
    }
    return {};
  }

  const AcceptRequest& request_;
  probe::HostInput& host_;
  const probe::HostView& view_;
  const catalog::Catalog& catalog_;
  const Note& note_;
  const telemetry::Progress& progress_;
  PreparedAcceptance out_;
};

}  // namespace

const std::vector<std::string>& attachable_checks() {
  static const std::vector<std::string> checks = {"pcie.topology",  "pcie.aer", "infiniband",       "firmware.versions",
                                                  "soak",           "load",     "performance",      "versions",
                                                  "health.archive", "ecc",      "contract.delivery"};
  return checks;
}

Result<PreparedAcceptance> prepare_acceptance(const AcceptRequest& request, probe::HostInput& host,
                                              const probe::HostView& view, const catalog::Catalog& catalog,
                                              const Note& note, const telemetry::Progress& progress) {
  return Preparation(request, host, view, catalog, note, progress).run();
}

}  // namespace gpuplan::accept
