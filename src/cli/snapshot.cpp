// gpuplan snapshot: what `accept --root` needs from a server, saved as one .tar.gz.
#include "probe/snapshot.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/host_flags.h"
#include "cli/verb.h"
#include "core/dates.h"
#include "report/accept_render.h"

namespace gpuplan::cli {
namespace {

struct SnapshotArgs {
  HostFlags host;
  std::string out;
};

Phrase summary(const SnapshotArgs& a, const probe::HostView& view, int entries) {
  Phrase p("cli.snapshot.wrote");
  p.fact("path", a.out).fact("entries", std::to_string(entries));
  if (view.kernel_log_source.empty())
    p.fact("kernel_log", {Phrase("cli.none")});
  else
    p.fact("kernel_log", view.kernel_log_source);
  if (view.nvml)
    p.fact("nvml", {Phrase("cli.snapshot.gpus").fact("count", std::to_string(view.nvml->gpus.size()))});
  else
    p.fact("nvml", {view.nvml_error});
  return p;
}

int run_snapshot(const SnapshotArgs& a) {
  if (a.out.empty()) return bad_input(Phrase("cli.snapshot.needs_out"));
  auto host = gather(a.host);
  if (!host) return bad_input(host.error());
  const probe::HostView& view = host->view;
  if (!view.facts) return bad_input(Error{a.host.root, 0, "--root", view.facts_error});
  probe::SnapshotContent content = probe::snapshot_content(*host->input, view);
  nlohmann::json meta = {{"taken", iso_utc(host->input->now())},
                         {"gpuplan", GPUPLAN_VERSION},
                         {"host", view.facts->hostname},
                         {"root", a.host.root},
                         {"kernel_log", view.kernel_log_source},
                         {"nvml", view.nvml ? view.nvml->library : report::say(view.nvml_error, report::Lang::kEn)}};
  content.captures["snapshot.json"] = report::json_text(meta);
  std::vector<Phrase> left_out;
  auto written = probe::write_snapshot(host->input->fs(), content, a.out, &left_out);
  if (!written) return bad_input(written.error());
  for (const Phrase& link : left_out) note(link);
  note(summary(a, view, *written));
  return kOk;
}

}  // namespace

Run add_snapshot(CLI::App& cmd) {
  auto args = std::make_shared<SnapshotArgs>();
  add_host_flags(cmd, args->host);
  cmd.add_option("out", args->out, ui("cli.help.snapshot.out"))->required()->type_name("OUT.tar.gz");
  cmd.footer(examples({"sudo gpuplan snapshot server-42.tar.gz && gpuplan accept --root server-42.tar.gz"}));
  return [args](const Common&) { return run_snapshot(*args); };
}

}  // namespace gpuplan::cli
