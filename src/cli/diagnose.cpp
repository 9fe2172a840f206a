// gpuplan diagnose: why training is slow or failing, from telemetry logs, live NVML samples and
// host facts.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cli/host_flags.h"
#include "cli/verb.h"
#include "diagnose/request.h"
#include "report/accept_render.h"

namespace gpuplan::cli {
namespace {

struct DiagnoseArgs {
  HostFlags host;
  std::vector<std::string> logs;
  std::string topo, output;
  double sample_seconds = 0;
  double sample_interval = 1;
};

// "sampling round 3 of 60" on a terminal, overwritten in place.
probe::SampleProgress sampling_progress() {
  if (!isatty(STDERR_FILENO)) return {};
  return [](int round, int rounds) {
    std::fprintf(
        stderr, "\r%s",
        say(Phrase("cli.diagnose.sampling").fact("round", std::to_string(round)).fact("rounds", std::to_string(rounds)))
            .c_str());
  };
}

// Logs diagnosed where no host is named (no --root, no live sampling, no --nvml live) may come from
// any server: this machine's PCIe facts, NVML and tools are then left out, so that none of its
// findings lands in another host's report. `--root /` says the logs are this machine's.
bool logs_only(const DiagnoseArgs& a) {
  return !a.logs.empty() && !a.host.root_named && a.sample_seconds == 0 && a.host.nvml != "live";
}

// The host named by --root, gathered; for logs only, the machine gpuplan runs on, not gathered.
Result<GatheredHost> open_or_gather(const DiagnoseArgs& a) {
  if (!logs_only(a)) return gather(a.host);
  GatheredHost out;
  auto input = probe::open_host(a.host.root);
  if (!input) return input.error();
  out.input = std::move(*input);
  note(Phrase("cli.diagnose.logs_only"));
  return out;
}

// The host the report is about: --host; else, for logs only, the hosts the logs name — not the
// machine gpuplan runs on; else the gathered host's name.
std::string report_host(const DiagnoseArgs& a, const GatheredHost& host, const diagnose::DiagnoseInputs& in) {
  if (!a.host.host.empty()) return a.host.host;
  if (logs_only(a) && !in.log_hosts.empty()) {
    std::string hosts;
    for (const auto& h : in.log_hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    return hosts;
  }
  return host_name(a.host, host);
}

int run_diagnose(const Common& common, const DiagnoseArgs& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  auto host = open_or_gather(a);
  if (!host) return bad_input(host.error());
  // Negated comparisons so that NaN is refused too.
  if (!(a.sample_seconds >= 0 && a.sample_seconds <= 7 * 24 * 3600))
    return bad_input(between("cli.value.between_seconds", "--sample", "0", "604,800", shown(a.sample_seconds),
                             {Phrase("cli.value.a_week")}));
  if (!(a.sample_interval >= 0.1 && a.sample_interval <= 3600))
    return bad_input(between("cli.value.between_seconds", "--interval", "0.1", "3,600", shown(a.sample_interval)));
  diagnose::DiagnoseRequest request;
  request.logs = a.logs;
  request.topo = a.topo;
  request.sample = std::chrono::milliseconds(static_cast<int64_t>(a.sample_seconds * 1000));
  request.interval = std::chrono::milliseconds(static_cast<int64_t>(a.sample_interval * 1000));
  request.nvml = nvml_source(a.host);
  const bool tty = isatty(STDERR_FILENO);
  auto in = diagnose::prepare_diagnosis(request, *host->input, host->view, note, sampling_progress());
  if (tty && request.sample.count() > 0) std::fprintf(stderr, "\n");
  if (!in) return bad_input(in.error());
  if (!diagnose::examined_anything(*in)) {
    if (!a.logs.empty())  // every line skipped (said above), and nothing else looked at
      return bad_input(Phrase("cli.diagnose.logs_held_nothing").fact(list_of("files", a.logs)));
    return bad_input(Phrase("cli.diagnose.nothing_examined")
                         .fact("root", a.host.root)
                         .fact("why", {host->view.nvml ? Phrase("cli.diagnose.nvml_no_gpu") : host->view.nvml_error}));
  }
  const std::vector<Finding> findings = diagnose::diagnose(*in, ctx.catalog);
  if (int r = emit(report::render_diagnose(report_host(a, *host, *in), findings, ctx.format, ctx.style), a.output))
    return r;
  return any_fail(findings) ? kVerdictFailed : kOk;
}

}  // namespace

Run add_diagnose(CLI::App& cmd) {
  auto args = std::make_shared<DiagnoseArgs>();
  add_host_flags(cmd, args->host);
  cmd.add_option("logs", args->logs, ui("cli.help.diagnose.logs"))->type_name("LOG");
  cmd.add_option("--topo", args->topo, ui("cli.help.accept.topo"))->type_name("FILE");
  cmd.add_option("--sample", args->sample_seconds, ui("cli.help.diagnose.sample"));
  cmd.add_option("--interval", args->sample_interval, ui("cli.help.diagnose.interval"));
  cmd.add_option("--output", args->output, ui("cli.help.output"))->type_name("FILE");
  cmd.footer(examples({"gpuplan diagnose gpu-log.csv", "gpuplan diagnose --sample 60"}));
  return [args](const Common& common) { return run_diagnose(common, *args); };
}

}  // namespace gpuplan::cli
