#include "cli/host_flags.h"

#include "cli/common.h"

namespace gpuplan::cli {

void add_host_flags(CLI::App& cmd, HostFlags& flags) {
  cmd.add_option("--root", flags.root, ui("cli.help.host.root"))
      ->type_name("DIR|SNAPSHOT")
      ->each([&flags](const std::string&) { flags.root_named = true; });
  // One file an occurrence, so a file never swallows the verb's positional arguments.
  cmd.add_option("--kernel-log", flags.kernel_logs, ui("cli.help.host.kernel_log"))
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--nvml", flags.nvml, ui("cli.help.host.nvml"))
      ->check(CLI::IsMember({"auto", "live", "snapshot", "off"}));
  cmd.add_option("--host", flags.host, ui("cli.help.host.host"));
}

probe::NvmlSource nvml_source(const HostFlags& flags) {
  // CLI11 let only the four names through; no --nvml is auto.
  return probe::parse_nvml_source(flags.nvml).value_or(probe::NvmlSource::kAuto);
}

Result<GatheredHost> gather(const HostFlags& flags) {
  GatheredHost out;
  auto input = probe::open_host(flags.root);
  if (!input) return input.error();
  out.input = std::move(*input);
  out.options.kernel_log_files = flags.kernel_logs;
  out.options.nvml = nvml_source(flags);
  auto view = probe::gather_host(*out.input, out.options);
  if (!view) return view.error();
  out.view = std::move(*view);
  return out;
}

std::string host_name(const HostFlags& flags, const GatheredHost& host) {
  if (!flags.host.empty()) return flags.host;
  if (host.view.facts && !host.view.facts->hostname.empty()) return host.view.facts->hostname;
  return host.input->live() ? ui("cli.this_host") : flags.root;
}

}  // namespace gpuplan::cli
