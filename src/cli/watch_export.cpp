// gpuplan watch export: the health archive written back as an nvidia-smi CSV or dmon log, to
// standard output or to -o FILE (written beside it under a temporary name, then renamed, so that
// a failed export never leaves a partial or empty FILE).
#include <iostream>
#include <memory>

#include "archive/export.h"
#include "cli/watch.h"
#include "core/dates.h"
#include "core/output_file.h"
#include "core/text.h"

namespace gpuplan::cli {
namespace {

struct ExportArgs {
  std::string archive, format = "smi-csv", from, to, output;
};

Error not_a_date(std::string flag, std::string got) {
  return Error{{}, 0, std::move(flag), Phrase("cli.value.not_a_date").fact("got", std::move(got))};
}

// Writes through a temporary file beside `target` (core/output_file), renamed over it once
// written, fsynced and closed without error.
Result<void> write_to_file(const ExportArgs& a, archive::ExportFormat format, int64_t from, int64_t to) {
  return write_output_file(a.output, "-o", [&](std::ostream& out) -> Result<void> {
    auto written = archive::export_readings(a.archive, format, from, to, out);
    if (!written) return written.error();
    return {};
  });
}

int run_export(const ExportArgs& a) {
  archive::ExportFormat format = archive::ExportFormat::kSmiCsv;
  if (a.format == "dmon")
    format = archive::ExportFormat::kDmon;
  else if (a.format != "smi-csv")
    return bad_input(Error{{}, 0, "--format", not_one_of(a.format, {"smi-csv", "dmon"})});
  int64_t from = INT64_MIN, to = INT64_MAX;
  if (!a.from.empty()) {
    auto t = parse_utc_time(a.from);
    if (!t) return bad_input(not_a_date("--from", a.from));
    from = *t * 1000;
  }
  if (!a.to.empty()) {
    auto t = parse_utc_time(a.to);
    if (!t) return bad_input(not_a_date("--to", a.to));
    to = *t * 1000;
  }
  if (from >= to) return bad_input(Error{{}, 0, "--from", Phrase("cli.value.from_not_before_to")});
  if (a.output.empty()) {
    auto written = archive::export_readings(a.archive, format, from, to, std::cout);
    std::cout.flush();
    if (!written) return bad_input(written.error());
    return std::cout ? kOk : bad_input(Error{{}, 0, {}, Phrase("cli.file.cannot_write")});
  }
  if (auto ok = write_to_file(a, format, from, to); !ok) return bad_input(ok.error());
  return kOk;
}

}  // namespace

Run add_watch_export(CLI::App& sub) {
  auto a = std::make_shared<ExportArgs>();
  sub.add_option("archive", a->archive, ui("cli.help.watch.export.archive"))->required()->type_name("ARCHIVE.db");
  sub.add_option("--format", a->format, ui("cli.help.watch.export.format"))->type_name("smi-csv|dmon");
  sub.add_option("--from", a->from, ui("cli.help.watch.export.from"))->type_name("TIME");
  sub.add_option("--to", a->to, ui("cli.help.watch.export.to"))->type_name("TIME");
  sub.add_option("-o,--output", a->output, ui("cli.help.output_instead"))->type_name("FILE");
  sub.footer(examples({"gpuplan watch export --format dmon --from 2026-03-01 /var/lib/gpuplan/archive.db -o gpu.log",
                       "gpuplan watch export /var/lib/gpuplan/archive.db > gpu.csv"}));
  return [a](const Common&) { return run_export(*a); };
}

}  // namespace gpuplan::cli
