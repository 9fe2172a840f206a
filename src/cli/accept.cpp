// gpuplan accept: the 12 acceptance actions on a delivered server (live or a snapshot), with an
// evidence bundle a dispute can be settled from.
#include <memory>
#include <nlohmann/json.hpp>

#include "accept/request.h"
#include "cli/host_flags.h"
#include "cli/verb.h"
#include "core/dates.h"
#include "core/text.h"
#include "report/accept_render.h"

namespace gpuplan::cli {
namespace {

struct AcceptArgs {
  HostFlags host;
  accept::AcceptRequest request;
  std::optional<int> gpus;
  bool require_complete = false;  // incomplete exits 1 too
  std::string evidence, output;
};

// The evidence bundle: the named files, what the host showed, the report in three forms and
// when it all happened.
Result<void> write_evidence(const AcceptArgs& a, const GatheredHost& host, const accept::AcceptReport& report,
                            std::vector<BundleFile> files, const std::string& started, const Context& ctx) {
  for (auto& f : probe::host_evidence(*host.input, host.view, host.options)) files.push_back(std::move(f));
  report::Style plain = ctx.style;
  plain.colour = false;
  files.push_back({"report.json", {}, report::json_text(report::accept_json(report, ctx.style.lang))});
  files.push_back({"report.md", {}, report::render_accept(report, report::Format::kMarkdown, plain)});
  files.push_back({"report.html", {}, report::render_accept(report, report::Format::kHtml, plain)});
  const probe::HostView& view = host.view;
  nlohmann::json stamps = {{"started", started},
                           {"finished", iso_utc(host.input->now())},
                           {"gpuplan", GPUPLAN_VERSION},
                           {"root", a.host.root},
                           {"kernel_log", view.kernel_log_source},
                           {"nvml", view.nvml ? view.nvml->library : report::say(view.nvml_error, ctx.style.lang)}};
  files.push_back({"timestamps.json", {}, report::json_text(stamps)});
  auto written = write_bundle(a.evidence, files);
  if (!written) return written.error();
  note(Phrase("cli.accept.wrote_evidence")
           .fact("count", std::to_string(*written))
           .fact("dir", shell_quoted(a.evidence)));
  return {};
}

int run_accept(const Common& common, const AcceptArgs& a) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  auto host = gather(a.host);
  if (!host) return bad_input(host.error());
  const std::string started = iso_utc(host->input->now());
  accept::AcceptRequest request = a.request;
  request.host = host_name(a.host, *host);
  // A run may span several servers (the figure is then for all of them), hence the wide range.
  if (request.benchmark_gpus && (*request.benchmark_gpus < 1 || *request.benchmark_gpus > 4096))
    return bad_input(
        between("cli.value.between", "--benchmark-gpus", "1", "4096", std::to_string(*request.benchmark_gpus)));
  if (request.benchmark_batch && (*request.benchmark_batch < 1 || *request.benchmark_batch > 65536))
    return bad_input(
        between("cli.value.between", "--benchmark-batch", "1", "65536", std::to_string(*request.benchmark_batch)));
  auto prepared = accept::prepare_acceptance(request, *host->input, host->view, ctx.catalog, note, progress_bar(false));
  if (!prepared) return bad_input(prepared.error());
  if (a.gpus) {
    if (*a.gpus < 1 || *a.gpus > 64)
      return bad_input(between("cli.value.between", "--gpus", "1", "64", std::to_string(*a.gpus)));
    prepared->inputs.expected_gpus = *a.gpus;
  }
  const accept::AcceptReport report = accept::run_acceptance(prepared->inputs, ctx.catalog);
  const std::string text = report::render_accept(report, ctx.format, ctx.style);
  if (!a.evidence.empty())
    if (auto written = write_evidence(a, *host, report, std::move(prepared->evidence), started, ctx); !written)
      return bad_input(written.error());
  if (int r = emit(text, a.output)) return r;
  if (report.verdict == accept::Verdict::kFail) return kVerdictFailed;
  if (report.verdict == accept::Verdict::kIncomplete && a.require_complete) return kVerdictFailed;
  return kOk;
}

}  // namespace

Run add_accept(CLI::App& cmd) {
  auto args = std::make_shared<AcceptArgs>();
  accept::AcceptRequest& r = args->request;
  add_host_flags(cmd, args->host);
  cmd.add_option("--soak", r.soak, ui("cli.help.accept.soak"))->type_name("FILE");
  cmd.add_option("--load", r.load, ui("cli.help.accept.load"))->type_name("FILE");
  cmd.add_option("--archive", r.archive, ui("cli.help.accept.archive"))->type_name("FILE");
  cmd.add_option("--smartctl", r.smartctl, ui("cli.help.accept.smartctl"))->type_name("FILE");
  cmd.add_option("--ibstat", r.ibstat, ui("cli.help.accept.ibstat"))->type_name("FILE");
  cmd.add_option("--topo", r.topo, ui("cli.help.accept.topo"))->type_name("FILE");
  cmd.add_option("--benchmark", r.benchmark, ui("cli.help.accept.benchmark"))->type_name("FILE");
  cmd.add_option("--benchmark-cmd", r.benchmark_cmd, ui("cli.help.accept.benchmark_cmd"))->type_name("CMD");
  cmd.add_option("--benchmark-scope", r.benchmark_scope, ui("cli.help.accept.benchmark_scope"))->type_name("SCOPE");
  cmd.add_option("--benchmark-gpus", r.benchmark_gpus, ui("cli.help.accept.benchmark_gpus"))->type_name("N");
  cmd.add_option("--benchmark-model", r.benchmark_model, ui("cli.help.accept.benchmark_model"))->type_name("MODEL");
  cmd.add_option("--benchmark-mode", r.benchmark_mode, ui("cli.help.accept.benchmark_mode"))->type_name("MODE");
  cmd.add_option("--benchmark-batch", r.benchmark_batch, ui("cli.help.accept.benchmark_batch"))->type_name("N");
  cmd.add_option("--firmware", r.firmware, ui("cli.help.accept.firmware"))->type_name("FILE");
  cmd.add_option("--checksums", r.checksums, ui("cli.help.accept.checksums"))->type_name("FILE");
  cmd.add_option("--cuda", r.cuda, ui("cli.help.accept.cuda"));
  cmd.add_option("--nccl", r.nccl, ui("cli.help.accept.nccl"));
  cmd.add_option("--attach", r.attach, ui("cli.help.accept.attach"));
  cmd.add_option("--contract", r.contract, ui("cli.help.accept.contract"))->type_name("QUOTE.yaml");
  cmd.add_option("--gpus", args->gpus, ui("cli.help.accept.gpus"));
  cmd.add_flag("--require-complete", args->require_complete, ui("cli.help.accept.require_complete"));
  cmd.add_option("--evidence", args->evidence, ui("cli.help.accept.evidence"))->type_name("DIR");
  cmd.add_option("--output", args->output, ui("cli.help.output"))->type_name("FILE");
  cmd.footer(examples({"gpuplan accept --soak soak.csv --load load.csv --benchmark resnet50.txt --evidence acceptance/",
                       "gpuplan accept --root server-42.tar.gz --format json",
                       "gpuplan accept --contract vendor-quote.yaml --soak soak.csv --evidence acceptance/"}) +
             "\n" + ui("cli.label.checks") + label_end() +
             "soak pcie.topology pcie.aer infiniband versions load pcie.aspm iommu firmware.versions\n"
             "        performance firmware.hashes health.archive xid ecc gpu.count\n"
             "        contract.delivery (" + ui("cli.label.with_contract") + ")");
  return [args](const Common& common) { return run_accept(common, *args); };
}

}  // namespace gpuplan::cli
