// The acceptance checks of the GPUs themselves: performance (G10: a benchmark's images/s per
// GPU, its scope as the output or the buyer states it), xid (Xid and SXid events in the kernel
// log, judged by the catalog's Xid table), ecc (NVML's ECC counts, retired pages and row
// remapping) and gpu.count (the PCI bus, NVML and the contract agree on how many GPUs there are).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "accept/attachment_helpers.h"
#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "core/money.h"

namespace gpuplan::accept::detail {

// G10 -------------------------------------------------------------------------------------------
namespace {

// A benchmark figure as exact as the tool printed it, to two decimals ("138.95", not "138.9").
std::string figure(double v) {
  return format_figure(v, 2);
}

// Where the figure's scope or GPU count came from: the buyer's flag, or a line of the output.
Phrase stated_by(bool by_flag, const char* flag, int line) {
  if (by_flag) return phrase("accept.performance.by_flag").fact("flag", flag);
  return phrase("accept.performance.by_output").fact("line", std::to_string(line));
}

// What the clause asks the run to be: ResNet-50 training (the catalog's reference benchmark, and
// the only one a contract may name), at the clause's batch per GPU when it states one. Without a
// contract clause, the catalog's clause and its batch.
struct ClauseRun {
  std::string model = "resnet50";
  BenchmarkMode mode = BenchmarkMode::kTraining;
  std::optional<int> batch;
};

Phrase clause_words(const ClauseRun& run) {
  return run.batch ? phrase("accept.performance.clause").fact("batch", std::to_string(*run.batch))
                   : phrase("accept.performance.clause_any_batch");
}

Phrase mode_word(BenchmarkMode mode) {
  return Phrase(mode == BenchmarkMode::kTraining ? "accept.performance.mode.training"
                                                 : "accept.performance.mode.inference");
}

// What the run was, each fact as the buyer's flag or the output states it (the flag outranks the
// output); a batch stated for the whole run is each GPU's once divided by the run's GPUs.
struct RunFacts {
  std::optional<Stated<std::string>> model;
  std::optional<Stated<BenchmarkMode>> mode;
  std::optional<Stated<int>> batch;  // per GPU
  bool model_by_flag = false, mode_by_flag = false, batch_by_flag = false;
};

RunFacts run_facts(const AcceptInputs& in, const BenchmarkFigure& f, std::optional<int> gpus) {
  RunFacts r;
  r.model = in.benchmark_model ? Stated<std::string>{*in.benchmark_model, 0} : f.model;
  r.mode = in.benchmark_mode ? Stated<BenchmarkMode>{*in.benchmark_mode, 0} : f.mode;
  r.model_by_flag = in.benchmark_model.has_value();
  r.mode_by_flag = in.benchmark_mode.has_value();
  if (in.benchmark_batch) {
    r.batch = Stated<int>{*in.benchmark_batch, 0};
    r.batch_by_flag = true;
  } else if (f.batch && !f.batch->global) {
    r.batch = Stated<int>{f.batch->size, f.batch->line};
  } else if (f.batch && gpus && f.batch->size % *gpus == 0) {
    r.batch = Stated<int>{f.batch->size / *gpus, f.batch->line};
  }
  return r;
}

// Where the run's differences from the clause are, or what the run never says it was.
struct RunAgainstClause {
  std::vector<Phrase> differences;
  std::vector<Phrase> unstated;
  std::vector<Phrase> stated;
};

RunAgainstClause compare_run(const RunFacts& r, const ClauseRun& clause) {
  RunAgainstClause out;
  if (!r.model) {
    out.unstated.push_back(Phrase("accept.performance.unstated.model"));
  } else {
    Phrase from = stated_by(r.model_by_flag, "--benchmark-model", r.model->line);
    Phrase fact = phrase("accept.performance.fact.model").fact("model", r.model->value).fact("from", {from});
    if (r.model->value != clause.model)
      out.differences.push_back(phrase("accept.performance.diff.model")
                                    .fact("model", r.model->value)
                                    .fact("from", {from})
                                    .fact("clause", clause.model));
    out.stated.push_back(std::move(fact));
  }
  if (!r.mode) {
    out.unstated.push_back(Phrase("accept.performance.unstated.mode"));
  } else {
    Phrase from = stated_by(r.mode_by_flag, "--benchmark-mode", r.mode->line);
    if (r.mode->value != clause.mode)
      out.differences.push_back(phrase("accept.performance.diff.mode")
                                    .fact("mode", {mode_word(r.mode->value)})
                                    .fact("from", {from})
                                    .fact("clause", {mode_word(clause.mode)}));
    out.stated.push_back(
        phrase("accept.performance.fact.mode").fact("mode", {mode_word(r.mode->value)}).fact("from", {from}));
  }
  if (clause.batch) {
    if (!r.batch) {
      out.unstated.push_back(Phrase("accept.performance.unstated.batch"));
    } else {
      Phrase from = stated_by(r.batch_by_flag, "--benchmark-batch", r.batch->line);
      if (r.batch->value != *clause.batch)
        out.differences.push_back(phrase("accept.performance.diff.batch")
                                      .fact("batch", std::to_string(r.batch->value))
                                      .fact("from", {from})
                                      .fact("clause", std::to_string(*clause.batch)));
      out.stated.push_back(
          phrase("accept.performance.fact.batch").fact("batch", std::to_string(r.batch->value)).fact("from", {from}));
    }
  }
  return out;
}

}  // namespace

// The clause is per GPU. A figure the output (or the buyer) calls per GPU is judged as it is; a
// figure for the whole run is divided by the GPUs the run used, as the output or the buyer
// states them — never by the host's GPU count, which the run may not have used (tf_cnn_benchmarks
// runs on one GPU unless told otherwise). The run must be the clause's: another model, mode or
// batch neither meets nor misses it (needs evidence); a run that does not say what it was is
// judged, but never passes or fails outright (warn), naming what would settle it.
void check_performance(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  if (!in.benchmark) return needs(c, phrase("accept.performance.no_figure"));
  const BenchmarkFigure& f = *in.benchmark;
  c.evidence.push_back(phrase("accept.ev.line")
                           .fact("file", in.benchmark_source.empty() ? "benchmark" : in.benchmark_source)
                           .fact("line", std::to_string(f.line))
                           .fact("text", f.text));
  // The contract's clause, when it states one, is the buyer's threshold; else the catalog's.
  const plan::PerformanceTerm* contract_clause =
      in.contract && in.contract->terms.performance && in.contract->terms.performance->min_images_per_gpu > 0
          ? &*in.contract->terms.performance
          : nullptr;
  ClauseRun clause;
  clause.batch = contract_clause
                     ? contract_clause->batch
                     : std::optional<int>(static_cast<int>(cat.threshold("accept.performance.batch_per_gpu")));
  const std::optional<int> gpus = in.benchmark_gpus ? in.benchmark_gpus : f.gpus;
  const RunAgainstClause run = compare_run(run_facts(in, f, gpus), clause);
  if (!run.differences.empty())
    return needs(c, phrase("accept.performance.other_run")
                        .fact("images", figure(f.images_per_s))
                        .fact("differences", run.differences)
                        .fact("clause", {clause_words(clause)}));
  const std::optional<BenchmarkScope> scope = in.benchmark_scope ? in.benchmark_scope : f.scope;
  if (!scope) return needs(c, phrase("accept.performance.no_scope").fact("images", figure(f.images_per_s)));
  const Phrase scope_from = stated_by(in.benchmark_scope.has_value(), "--benchmark-scope", f.line);
  const double min = contract_clause ? contract_clause->min_images_per_gpu
                                     : cat.threshold("accept.performance.min_images_per_s_per_gpu");
  double per_gpu = f.images_per_s;
  Phrase how = phrase("accept.performance.per_gpu_figure")
                   .fact("images", figure(f.images_per_s))
                   .fact("from", std::vector<Phrase>{scope_from});
  if (*scope == BenchmarkScope::kTotal) {
    if (!gpus)
      return needs(c, phrase("accept.performance.no_benchmark_gpus")
                          .fact("images", figure(f.images_per_s))
                          .fact("from", std::vector<Phrase>{scope_from}));
    per_gpu = f.images_per_s / static_cast<double>(*gpus);
    how = phrase("accept.performance.total_figure")
              .fact("images", figure(f.images_per_s))
              .fact("from", std::vector<Phrase>{scope_from})
              .fact("gpus", std::to_string(*gpus))
              .fact("gpus_from",
                    std::vector<Phrase>{stated_by(in.benchmark_gpus.has_value(), "--benchmark-gpus", f.gpus_line)})
              .fact("per_gpu", figure(per_gpu));
  }
  c.severity = per_gpu < min ? Severity::kFail : Severity::kPass;
  c.note(phrase(per_gpu < min ? "accept.performance.below" : "accept.performance.ok")
             .fact("how", std::vector<Phrase>{how})
             .fact("per_gpu", figure(per_gpu))
             .fact("min", num(min))
             .fact("clause", {clause_words(clause)}));
  if (!run.stated.empty()) c.note(phrase("accept.performance.run").fact("facts", run.stated));
  if (!run.unstated.empty()) {
    c.severity = Severity::kWarn;
    c.note(phrase("accept.performance.run_unstated").fact("what", run.unstated).fact("clause", {clause_words(clause)}));
  }
  if (contract_clause)
    c.note(contract_term_note("accept.performance.contract_min", *in.contract, "performance").fact("min", num(min)));
}

// Xid -------------------------------------------------------------------------------------------
namespace {

// The catalog's entry for an Xid (an SXid when `sxid`); nullptr when it lists none.
const Entry* xid_entry(const Catalog& cat, int code, bool sxid) {
  const Entry* found = nullptr;
  for (const Entry* x : cat.of_kind("xid"))
    if (x->number("code") == code && x->text("scope") == (sxid ? "nvswitch" : "gpu")) found = x;
  return found;
}

// The graver of two catalog severities: fail > warn > info.
std::string graver(const std::string& a, const std::string& b) {
  auto weight = [](const std::string& s) { return s == "fail" ? 2 : s == "warn" ? 1 : 0; };
  return weight(b) > weight(a) ? b : a;
}

}  // namespace

void check_xid(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  if (!in.kernel_log) return needs(c, phrase("accept.needs.kernel_log"));
  c.severity = Severity::kPass;
  struct Tally {
    int times = 0;
    Phrase what;
  };
  std::map<std::string, Tally> counts;  // "Xid 79 fail" → times
  std::vector<Phrase> ev;
  for (const auto& e : in.kernel_log->events) {
    if (e.kind != probe::KernelEventKind::kXid && e.kind != probe::KernelEventKind::kSxid) continue;
    const bool sxid = e.kind == probe::KernelEventKind::kSxid;
    const char* label = sxid ? "SXid" : "Xid";
    const Entry* known = e.code ? xid_entry(cat, *e.code, sxid) : nullptr;
    std::string severity = known ? known->text("severity") : "warn";
    // "Xid 45 ... caused by previous Xid 149": the cleanup is as grave as its cause (an unknown
    // cause is investigated, as an unknown Xid is).
    const Entry* cause = e.cause_code ? xid_entry(cat, *e.cause_code, false) : nullptr;
    if (e.cause_code) severity = graver(severity, cause ? cause->text("severity") : "warn");
    escalate(c.severity, severity == "fail" ? Severity::kFail : severity == "warn" ? Severity::kWarn : Severity::kPass);
    const std::string code = e.code ? std::to_string(*e.code) : "?";
    const std::string caused_by = e.cause_code ? std::to_string(*e.cause_code) : "";
    Tally& t = counts[fmt::format("{} {} {} {}", label, code, caused_by, known ? severity : "unknown")];
    ++t.times;
    // The catalog's severity (info, warn, fail) is a word the reader reads in their language.
    t.what = phrase(e.cause_code ? "accept.xid.caused"
                    : known      ? "accept.xid.code"
                                 : "accept.xid.unknown_code")
                 .fact("label", label)
                 .fact("code", code)
                 .fact("severity", {Phrase("accept.xid.severity." + severity)});
    if (e.cause_code) t.what.fact("cause", caused_by);
    Phrase line = phrase(known ? "accept.ev.xid" : "accept.ev.xid_unknown")
                      .fact("log", e.source.empty() ? log_name(in) : e.source)
                      .fact("line", std::to_string(e.line))
                      .fact("device", e.device.empty() ? "?" : e.device)
                      .fact("label", label)
                      .fact("code", code);
    if (known)
      line.fact("meaning", known->text("meaning"), known->text_zh("meaning"))
          .fact(Fact{"action",
                     known->text("action"),
                     std::nullopt,
                     {Phrase("accept.xid.action." + known->text("action"))},
                     {}});
    ev.push_back(std::move(line));
  }
  // The driver lost a GPU without an Xid line (or before one): a GPU off the bus is not accepted.
  // One that has an Xid 79 in the same log is the same loss, already counted.
  std::set<std::string> xid79_devices;
  for (const auto& e : in.kernel_log->events)
    if (e.kind == probe::KernelEventKind::kXid && e.code == 79) xid79_devices.insert(e.device);
  for (const auto& e : in.kernel_log->events) {
    if (e.kind != probe::KernelEventKind::kGpuLost || xid79_devices.count(e.device)) continue;
    escalate(c.severity, Severity::kFail);
    Tally& t = counts["GPU lost " + e.device];
    ++t.times;
    t.what = phrase("accept.xid.gpu_lost").fact("device", e.device);
    ev.push_back(quoted_line(e.source.empty() ? log_name(in) : e.source, e.line, e.text));
  }
  add_capped(c.evidence, ev);
  if (counts.empty()) {
    c.note(phrase("accept.xid.none").fact("log", log_name(in)).fact("lines", std::to_string(in.kernel_log->lines)));
  } else {
    std::vector<Phrase> parts;
    for (auto& [k, t] : counts)
      parts.push_back(phrase("accept.xid.times").fact("times", std::to_string(t.times)).fact("what", {t.what}));
    c.note(phrase("accept.xid.found").fact("counts", parts).fact("log", log_name(in)));
  }
  judge_kernel_log(in, cat, c);
}

// ECC -------------------------------------------------------------------------------------------
namespace {

// The host's memory as the kernel log reports it: EDAC's UE lines and GHES memory records that
// were not corrected fail, corrected ones (EDAC CE, GHES "corrected") warn. A new server's DIMMs
// should report neither.
void judge_host_memory(const AcceptInputs& in, Finding& c) {
  if (!in.kernel_log) return;
  int64_t uncorrected = 0, corrected = 0;
  std::vector<Phrase> ev;
  for (const auto& e : in.kernel_log->events) {
    const bool edac = e.kind == probe::KernelEventKind::kEdac;
    const bool ghes = e.kind == probe::KernelEventKind::kGhes && e.section.find("memory") != std::string::npos;
    if (!edac && !ghes) continue;
    const bool bad = edac ? e.severity == "UE" : e.severity == "fatal" || e.severity == "recoverable";
    (bad ? uncorrected : corrected) += edac ? e.count.value_or(1) : 1;
    escalate(c.severity, bad ? Severity::kFail : Severity::kWarn);
    const std::string log = e.source.empty() ? log_name(in) : e.source;
    ev.push_back(edac ? quoted_line(log, e.line, e.text)
                      : phrase("accept.ev.ghes")
                            .fact("log", log)
                            .fact("line", std::to_string(e.line))
                            .fact("device", "?")
                            .fact("severity", e.severity.empty() ? "?" : e.severity)
                            .fact("section", e.section));
  }
  add_capped(c.evidence, ev);
  if (uncorrected > 0) c.note(phrase("accept.ecc.host_uncorrected").fact("count", count(uncorrected)).fact("log", log_name(in)));
  if (corrected > 0) c.note(phrase("accept.ecc.host_corrected").fact("count", count(corrected)).fact("log", log_name(in)));
}

// One GPU's memory health, from NVML or from an attached `nvidia-smi -q`, against the limits.
void judge_gpu_memory(const std::string& who, const nvml::GpuDynamic& d, double max_corrected, Finding& c) {
  auto v = [](const auto& o) { return o ? std::to_string(*o) : std::string("?"); };
  auto b = [](const std::optional<bool>& o) {
    return o ? (*o ? phrase("accept.yes") : phrase("accept.no")) : phrase("accept.unknown");
  };
  c.evidence.push_back(phrase("accept.ev.ecc")
                           .fact("gpu", who)
                           .fact("enabled", {b(d.ecc_enabled)})
                           .fact("uncorrected_volatile", v(d.ecc_volatile_uncorrected))
                           .fact("uncorrected_aggregate", v(d.ecc_aggregate_uncorrected))
                           .fact("corrected_volatile", v(d.ecc_volatile_corrected))
                           .fact("corrected_aggregate", v(d.ecc_aggregate_corrected))
                           .fact("sbe", v(d.retired_pages_sbe))
                           .fact("dbe", v(d.retired_pages_dbe))
                           .fact("retire_pending", {b(d.retired_pages_pending)})
                           .fact("rows_correctable", v(d.remapped_rows_correctable))
                           .fact("rows_uncorrectable", v(d.remapped_rows_uncorrectable))
                           .fact("remap_pending", {b(d.remapping_pending)})
                           .fact("remap_failed", {b(d.remapping_failed)}));
  const uint64_t uncorrected = std::max(d.ecc_volatile_uncorrected.value_or(0), d.ecc_aggregate_uncorrected.value_or(0));
  const uint64_t corrected = std::max(d.ecc_volatile_corrected.value_or(0), d.ecc_aggregate_corrected.value_or(0));
  auto judge = [&](Severity s, Phrase p) {
    escalate(c.severity, s);
    c.note(std::move(p.fact("gpu", who)));
  };
  if (uncorrected > 0) judge(Severity::kFail, phrase("accept.ecc.uncorrected").fact("count", std::to_string(uncorrected)));
  if (d.retired_pages_dbe.value_or(0) > 0)
    judge(Severity::kFail, phrase("accept.ecc.dbe_retired").fact("count", std::to_string(*d.retired_pages_dbe)));
  if (d.retired_pages_pending.value_or(false)) judge(Severity::kFail, phrase("accept.ecc.retire_pending"));
  if (d.remapping_failed.value_or(false)) judge(Severity::kFail, phrase("accept.ecc.remap_failed"));
  if (d.remapping_pending.value_or(false)) judge(Severity::kWarn, phrase("accept.ecc.remap_pending"));
  if (static_cast<double>(corrected) > max_corrected)
    judge(Severity::kWarn,
          phrase("accept.ecc.corrected").fact("count", std::to_string(corrected)).fact("allowed", num(max_corrected)));
  if (d.ecc_enabled && !*d.ecc_enabled) judge(Severity::kWarn, phrase("accept.ecc.disabled"));
}

// The same fields as NVML's, from `nvidia-smi -q` text.
nvml::GpuDynamic now_of(const probe::GpuMemoryHealth& h) {
  nvml::GpuDynamic d;
  d.ecc_volatile_uncorrected = h.volatile_uncorrected;
  d.ecc_aggregate_uncorrected = h.aggregate_uncorrected;
  d.ecc_volatile_corrected = h.volatile_corrected;
  d.ecc_aggregate_corrected = h.aggregate_corrected;
  d.retired_pages_sbe = h.retired_sbe;
  d.retired_pages_dbe = h.retired_dbe;
  d.retired_pages_pending = h.retire_pending;
  d.remapped_rows_correctable = h.rows_correctable;
  d.remapped_rows_uncorrectable = h.rows_uncorrectable;
  d.remapping_pending = h.remap_pending;
  d.remapping_failed = h.remap_failed;
  return d;
}

}  // namespace

void check_ecc(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  c.severity = Severity::kPass;
  judge_host_memory(in, c);
  const size_t host_notes = c.notes.size();
  const double max_corrected = cat.threshold("accept.ecc.max_corrected");
  if (in.nvml) {
    for (const auto& g : in.nvml->gpus) judge_gpu_memory(nvml_gpu(g), g.now, max_corrected, c);
    if (c.notes.size() == host_notes) c.note(phrase("accept.ecc.ok").fact("gpus", std::to_string(in.nvml->gpus.size())));
    return;
  }
  // Without NVML, an attached `nvidia-smi -q` shows the same counters (row remapping, retired
  // pages) as the driver printed them.
  size_t attached_gpus = 0;
  std::vector<std::string> files;
  for (const Attachment* a : attachments_for(in, "ecc")) {
    if (a->memory.empty()) {
      c.note(phrase("accept.ecc.attachment_unread").fact("file", a->file));
      continue;
    }
    files.push_back(a->file);
    c.evidence.push_back(
        phrase("accept.ev.attached_read").fact("file", attachment_label(*a)).fact(list_of("forms", {"nvidia-smi -q"})));
    for (const auto& h : a->memory) {
      judge_gpu_memory(a->file + ": GPU " + h.bus_id, now_of(h), max_corrected, c);
      ++attached_gpus;
    }
  }
  if (attached_gpus == 0) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.needs.nvml").fact("why", {in.nvml_error}));
    return;
  }
  c.note(phrase("accept.ecc.from_attachment").fact("gpus", std::to_string(attached_gpus)).fact(list_of("files", files)));
}

// GPU count -------------------------------------------------------------------------------------
void check_gpu_count(const AcceptInputs& in, const Catalog&, Finding& c) {
  std::optional<size_t> pci, nvml;
  if (in.facts) pci = pci_gpus(in).size();
  if (in.nvml) nvml = in.nvml->gpus.size();
  std::optional<size_t> expected;
  if (in.expected_gpus) expected = static_cast<size_t>(*in.expected_gpus);
  if (!pci && !nvml) return needs(c, phrase("accept.needs.gpu_count"));
  auto str = [](const std::optional<size_t>& n) { return n ? std::to_string(*n) : std::string("?"); };
  c.evidence.push_back(phrase(expected ? "accept.ev.gpu_counts" : "accept.ev.gpu_counts_no_contract")
                           .fact("pci", str(pci))
                           .fact("nvml", str(nvml))
                           .fact("expected", str(expected)));
  // "8 on the PCI bus, 8 seen by NVML, 8 expected", naming only the counts that are known.
  std::vector<Phrase> parts;
  if (pci) parts.push_back(phrase("accept.gpus.on_pci").fact("count", std::to_string(*pci)));
  if (nvml) parts.push_back(phrase("accept.gpus.in_nvml").fact("count", std::to_string(*nvml)));
  if (expected) parts.push_back(phrase("accept.gpus.expected").fact("count", std::to_string(*expected)));
  std::set<size_t> counts;
  for (const auto& n : {pci, nvml, expected})
    if (n) counts.insert(*n);
  if (counts.size() == 1 && *counts.begin() == 0) {
    c.severity = Severity::kFail;
    c.note(phrase("accept.gpus.none"));
    return;
  }
  if (counts.size() > 1) {
    c.severity = Severity::kFail;
    c.note(phrase("accept.gpus.disagree").fact("counts", parts));
    return;
  }
  c.severity = Severity::kPass;
  c.note(phrase(expected ? "accept.gpus.ok" : "accept.gpus.ok_no_contract").fact("counts", parts));
}

}  // namespace gpuplan::accept::detail
