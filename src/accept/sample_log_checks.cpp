// The acceptance checks that judge a sample log (accept/log_summary.h): soak (G1: every GPU
// under load for the whole time, cool enough, busy enough), load (G6: no GPU's memory growing
// over the whole test; NVMe wear, media errors, critical warnings and PCIe replays within limits) and
// health.archive (G12: samples dense enough, no ECC count rising, every metric kept). Each names
// the log's span and skipped lines in its evidence and warns when too many lines were skipped.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "accept/check_helpers.h"
#include "accept/checks.h"
#include "core/dates.h"

namespace gpuplan::accept::detail {

namespace {

void summary_evidence(const LogSummary& log, std::vector<Phrase>& ev) {
  ev.push_back(phrase("accept.ev.log_summary")
                   .fact("file", log.file)
                   .fact("samples", count(log.stats.samples))
                   .fact("lines", count(log.stats.lines))
                   .fact("skipped", count(log.stats.skipped_count)));
  for (const auto& sk : log.stats.skipped)
    ev.push_back(phrase("accept.ev.skipped_line")
                     .fact("file", sk.file)
                     .fact("line", std::to_string(sk.line))
                     .fact("reason", std::vector<Phrase>{sk.reason}));
  for (const auto& g : log.gpus)
    ev.push_back(phrase("accept.ev.gpu_span")
                     .fact("gpu", g.gpu)
                     .fact("samples", count(g.samples))
                     .fact("first", clock_time(g.first_ms))
                     .fact("last", clock_time(g.last_ms)));
}

// Warns when more of a sample log's lines were skipped as malformed than
// accept.logs.max_skipped_share: the samples lost with them may be the ones that break a limit.
void judge_skipped(const LogSummary& log, const Catalog& cat, Finding& c) {
  const double max_share = cat.threshold("accept.logs.max_skipped_share");
  if (log.stats.lines <= 0) return;
  const double share = static_cast<double>(log.stats.skipped_count) / static_cast<double>(log.stats.lines);
  if (share <= max_share) return;
  escalate(c.severity, Severity::kWarn);
  c.note(phrase("accept.log.skipped")
             .fact("file", log.file)
             .fact("skipped", count(log.stats.skipped_count))
             .fact("lines", count(log.stats.lines))
             .fact("share", percent(share))
             .fact("allowed", percent(max_share)));
}

double covered_hours(const GpuLogSummary& g) {
  return static_cast<double>(g.covered_ms()) / 3.6e6;
}

// A length of time as "72 h", "71 h 59 min 50 s", "3 min 20 s" or "10 s": exact to the second,
// so that one sampling interval short never reads as the length needed.
Phrase duration(int64_t ms) {
  const int64_t h = ms / 3'600'000, m = ms % 3'600'000 / 60'000;
  const double sec = static_cast<double>(ms % 60'000) / 1000.0;
  const std::string s = num(sec, sec == static_cast<double>(static_cast<int64_t>(sec)) ? 0 : 1);
  if (ms % 3'600'000 == 0) return phrase("accept.duration.h").fact("h", count(h));
  if (h > 0) return phrase("accept.duration.hms").fact("h", count(h)).fact("m", count(m)).fact("s", s);
  if (m > 0) return phrase("accept.duration.ms").fact("m", count(m)).fact("s", s);
  return phrase("accept.duration.s").fact("s", s);
}

// Warns (with `short_key`) when a GPU's samples cover less than `hours_needed`: each GPU must
// have run the whole time, one GPU's 72 h do not cover another's 24. A shortfall under half the
// sampling interval is the stamps' jitter (`nvidia-smi -l 1` drifts by milliseconds), not a
// missing sample: the next sample would have come after the end.
void judge_coverage(const GpuLogSummary& g, double hours_needed, const char* short_key, Finding& c) {
  const auto needed_ms = static_cast<int64_t>(hours_needed * 3.6e6 + 0.5);
  if (g.covered_ms() >= needed_ms) return;
  if (g.median_interval_ms && 2 * (needed_ms - g.covered_ms()) < *g.median_interval_ms) return;
  escalate(c.severity, Severity::kWarn);
  if (!g.median_interval_ms) {
    c.note(phrase("accept.log.single_sample").fact("gpu", g.gpu).fact("at", clock_time(g.first_ms)));
    return;
  }
  c.note(phrase(short_key)
             .fact("gpu", g.gpu)
             .fact("covered", {duration(g.covered_ms())})
             .fact("interval", {duration(*g.median_interval_ms)})
             .fact("short", {duration(needed_ms - g.covered_ms())})
             .fact("needed", num(hours_needed)));
}

// G6's NVMe wear (`smartctl`: Percentage Used, media errors). A server whose PCI bus shows no
// NVMe controller has none to wear; otherwise wear not read is evidence missing, never "within limits".
void judge_nvme_wear(const AcceptInputs& in, double max_wear, Finding& c) {
  bool worn = false;
  for (const auto& [file, s] : in.smart) {
    c.evidence.push_back(phrase("accept.ev.smart")
                             .fact("file", file)
                             .fact("device", s.device)
                             .fact("model", s.model)
                             .fact("serial", s.serial)
                             .fact("firmware", s.firmware)
                             .fact("used", s.percentage_used ? std::to_string(*s.percentage_used) + "%" : "?")
                             .fact("media_errors", s.media_errors ? std::to_string(*s.media_errors) : "?"));
    if (s.percentage_used && *s.percentage_used > max_wear) {
      escalate(c.severity, Severity::kFail);
      worn = true;
      c.note(phrase("accept.load.nvme_wear")
                 .fact("device", s.device)
                 .fact("used", std::to_string(*s.percentage_used) + "%")
                 .fact("limit", num(max_wear) + "%"));
    }
    if (s.media_errors && *s.media_errors > 0) {
      escalate(c.severity, Severity::kFail);
      worn = true;
      c.note(
          phrase("accept.load.media_errors").fact("device", s.device).fact("count", std::to_string(*s.media_errors)));
    }
    if (s.critical_warning && *s.critical_warning != 0) {
      // NVMe's Critical Warning bits (NVM Express Base, SMART / Health log byte 0). A drive that is
      // only too warm (0x02) may be cooled; the others are the drive's own word that it is failing.
      static const std::pair<uint64_t, const char*> kBits[] = {
          {0x01, "accept.load.cw.spare"},       {0x02, "accept.load.cw.temperature"},
          {0x04, "accept.load.cw.reliability"}, {0x08, "accept.load.cw.read_only"},
          {0x10, "accept.load.cw.backup"},      {0x20, "accept.load.cw.pmr"}};
      std::vector<Phrase> bits;
      for (const auto& [bit, key] : kBits)
        if (*s.critical_warning & bit) bits.push_back(Phrase(key));
      escalate(c.severity, *s.critical_warning == 0x02 ? Severity::kWarn : Severity::kFail);
      worn = true;
      c.note(phrase("accept.load.critical_warning")
                 .fact("device", s.device)
                 .fact("value", fmt::format("0x{:02x}", *s.critical_warning))
                 .fact("bits", bits));
    }
    if (s.smart_passed && !*s.smart_passed) {
      escalate(c.severity, Severity::kFail);
      worn = true;
      c.note(phrase("accept.load.smart_failed").fact("device", s.device));
    }
  }
  if (!in.smart.empty()) {
    if (!worn)
      c.note(phrase("accept.load.nvme_ok").fact("count", std::to_string(in.smart.size())).fact("limit", num(max_wear) + "%"));
    return;
  }
  const bool pci_read = in.facts && !in.facts->pci.devices.empty();
  const bool has_nvme =
      !pci_read || !in.facts->nvme.empty() ||
      std::any_of(in.facts->pci.devices.begin(), in.facts->pci.devices.end(),
                  [](const PciDevice& d) { return d.kind == PciKind::kNvme; });
  if (!has_nvme) {
    c.note(phrase("accept.load.no_nvme"));
    return;
  }
  escalate(c.severity, Severity::kNeedsEvidence);
  c.note(phrase("accept.load.no_smartctl"));
}

// G6's PCIe error counters: NVML's replay count per GPU. Not read is evidence missing.
void judge_pcie_replays(const AcceptInputs& in, double max_replays, Finding& c) {
  int read = 0;
  bool over = false;
  if (in.nvml)
    for (const auto& g : in.nvml->gpus) {
      if (!g.now.pcie_replays) continue;
      ++read;
      c.evidence.push_back(
          phrase("accept.ev.replays").fact("gpu", nvml_gpu(g)).fact("count", std::to_string(*g.now.pcie_replays)));
      if (*g.now.pcie_replays > max_replays) {
        escalate(c.severity, Severity::kWarn);
        over = true;
        c.note(
            phrase("accept.load.replays").fact("gpu", nvml_gpu(g)).fact("count", std::to_string(*g.now.pcie_replays)));
      }
    }
  if (read == 0) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.load.no_replays").fact("why", {in.nvml ? phrase("accept.load.replays_unsupported") : in.nvml_error}));
  } else if (!over) {
    c.note(phrase("accept.load.replays_ok").fact("gpus", std::to_string(read)).fact("limit", num(max_replays)));
  }
}

}  // namespace

// G1 --------------------------------------------------------------------------------------------
void check_soak(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  const double hours_needed = cat.threshold("accept.soak.hours");
  if (!in.soak) return needs(c, phrase("accept.soak.no_log").fact("hours", num(hours_needed)));
  const LogSummary& log = *in.soak;
  const double max_temp = cat.threshold("accept.soak.max_temperature_c");
  const double min_util = cat.threshold("accept.soak.min_utilization_pct");
  const double max_share = cat.threshold("accept.soak.max_below_share");
  summary_evidence(log, c.evidence);
  if (log.gpus.empty()) return needs(c, phrase("accept.log.empty").fact("file", log.file));
  c.severity = Severity::kPass;
  double shortest = covered_hours(log.gpus.front());
  for (const auto& g : log.gpus) {
    // A GPU without a metric's samples never breaks its limit: that is missing evidence, not a pass.
    if (!g.max_temperature_c) {
      escalate(c.severity, Severity::kNeedsEvidence);
      c.note(phrase("accept.log.no_temperature").fact("gpu", g.gpu));
    }
    if (g.utilization_samples == 0) {
      escalate(c.severity, Severity::kNeedsEvidence);
      c.note(phrase("accept.log.no_utilization").fact("gpu", g.gpu));
    }
    if (g.samples_above_temperature > 0 && g.max_temperature_c) {
      escalate(c.severity, Severity::kFail);
      c.note(phrase("accept.soak.hot")
                 .fact("gpu", g.gpu)
                 .fact("peak", num(*g.max_temperature_c))
                 .fact("at", clock_time(g.max_temperature_ms))
                 .fact("samples", count(g.samples_above_temperature))
                 .fact("limit", num(max_temp)));
    }
    if (g.utilization_samples > 0) {
      double share = static_cast<double>(g.samples_below_utilization) / static_cast<double>(g.utilization_samples);
      if (share > max_share) {
        escalate(c.severity, Severity::kFail);
        c.note(phrase("accept.soak.low_utilization")
                   .fact("gpu", g.gpu)
                   .fact("limit", num(min_util))
                   .fact("below", count(g.samples_below_utilization))
                   .fact("samples", count(g.utilization_samples))
                   .fact("share", percent(share))
                   .fact("allowed", percent(max_share))
                   .fact("lowest", num(g.min_utilization_pct.value_or(0)))
                   .fact("at", clock_time(g.min_utilization_ms)));
      }
    }
    shortest = std::min(shortest, covered_hours(g));
    judge_coverage(g, hours_needed, "accept.soak.short", c);
  }
  // Every GPU in the server must be in the log: a GPU left out was never soaked.
  std::vector<Phrase> shown;
  size_t most = 0;
  if (in.nvml) {
    shown.push_back(phrase("accept.shown.nvml").fact("count", std::to_string(in.nvml->gpus.size())));
    most = std::max(most, in.nvml->gpus.size());
  }
  if (in.facts) {
    shown.push_back(phrase("accept.shown.pci").fact("count", std::to_string(pci_gpus(in).size())));
    most = std::max(most, pci_gpus(in).size());
  }
  if (log.gpus.size() < most) {
    escalate(c.severity, Severity::kWarn);
    c.note(phrase("accept.soak.gpus_missing").fact("logged", std::to_string(log.gpus.size())).fact("shown", shown));
  }
  judge_skipped(log, cat, c);
  if (c.notes.empty())
    c.note(phrase("accept.soak.ok")
               .fact("gpus", std::to_string(log.gpus.size()))
               .fact("hours", num(shortest, 1))
               .fact("max_temp", num(max_temp))
               .fact("allowed", percent(max_share))
               .fact("min_util", num(min_util)));
}

// G6 --------------------------------------------------------------------------------------------
constexpr double kMbPerMib = 1.048576;  // 1 MiB = 2^20 bytes = 1.048576 MB

void check_load(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  const double hours_needed = cat.threshold("accept.load.hours");
  if (!in.load) return needs(c, phrase("accept.load.no_log").fact("hours", num(hours_needed)));
  const LogSummary& log = *in.load;
  const double max_growth = cat.threshold("accept.load.max_memory_growth_mb_per_h");
  const double max_wear = cat.threshold("accept.nvme.max_percentage_used");
  const double max_replays = cat.threshold("accept.pcie.max_replays");
  summary_evidence(log, c.evidence);
  c.severity = Severity::kPass;
  if (log.gpus.empty()) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.log.empty").fact("file", log.file));
  }
  for (const auto& g : log.gpus) {
    // Without a growth figure the GPU's memory was never judged: say so rather than let the
    // summary claim its growth stayed under the limit.
    if (!g.memory_growth_mib_per_h) {
      escalate(c.severity, Severity::kNeedsEvidence);
      c.note(phrase(g.memory_first_mib ? "accept.load.too_few_memory_samples" : "accept.log.no_memory")
                 .fact("gpu", g.gpu));
      continue;
    }
    const double mb = *g.memory_growth_mib_per_h * kMbPerMib;
    c.evidence.push_back(phrase("accept.ev.memory_growth")
                             .fact("gpu", g.gpu)
                             .fact("mib", num(*g.memory_growth_mib_per_h, 1))
                             .fact("mb", num(mb, 1))
                             .fact("first", num(g.memory_first_mib.value_or(0)))
                             .fact("last", num(g.memory_last_mib.value_or(0))));
    if (mb > max_growth) {
      escalate(c.severity, Severity::kFail);
      c.note(
          phrase("accept.load.memory_growth").fact("gpu", g.gpu).fact("mb", num(mb, 1)).fact("limit", num(max_growth)));
    }
  }
  // Each GPU must have run the whole test, as in the soak.
  for (const auto& g : log.gpus) judge_coverage(g, hours_needed, "accept.load.short", c);
  judge_skipped(log, cat, c);
  if (c.notes.empty())
    c.note(phrase("accept.load.ok")
               .fact("gpus", std::to_string(log.gpus.size()))
               .fact("hours", num(log.hours(), 1))
               .fact("limit", num(max_growth)));
  judge_nvme_wear(in, max_wear, c);
  judge_pcie_replays(in, max_replays, c);
}

// G12 -------------------------------------------------------------------------------------------
namespace {

// The last rising hours a trend note lists; the count and the total cover every hour.
constexpr size_t kTrendHoursShown = 6;

Phrase trend_note(const char* key, const GpuEccTrend& t, const std::vector<EccRiseHour>& rises) {
  uint64_t total = 0;
  for (const EccRiseHour& h : rises) total += h.rise;
  std::vector<std::string> shown;
  for (size_t i = rises.size() > kTrendHoursShown ? rises.size() - kTrendHoursShown : 0; i < rises.size(); ++i) {
    const CivilTime hour = civil_from_ms(rises[i].hour_ms);
    shown.push_back(hour.date() + " " + hour.hour_minute() + " +" + std::to_string(rises[i].rise));
  }
  return phrase(key)
      .fact("gpu", t.gpu)
      .fact("hours", std::to_string(rises.size()))
      .fact("of", std::to_string(t.hours))
      .fact("total", std::to_string(total))
      .fact(list_of("rises", shown));
}

// The hourly ECC trend of a gpuplan archive (aggregate counts, which survive driver reloads): an
// uncorrected rise fails, a corrected one warns, as the raw samples' rises do.
void judge_trend(const ArchiveTrend& trend, Finding& c) {
  for (const GpuEccTrend& t : trend.gpus) {
    if (!t.uncorrected.empty()) {
      escalate(c.severity, Severity::kFail);
      c.note(trend_note("accept.archive.trend_uncorrected", t, t.uncorrected));
    }
    if (!t.corrected.empty()) {
      escalate(c.severity, Severity::kWarn);
      c.note(trend_note("accept.archive.trend_corrected", t, t.corrected));
    }
  }
}

}  // namespace

void check_health_archive(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  if (!in.archive) return needs(c, phrase("accept.archive.no_archive"));
  const LogSummary& log = *in.archive;
  const double max_interval = cat.threshold("accept.archive.max_interval_s");
  summary_evidence(log, c.evidence);
  if (log.gpus.empty()) return needs(c, phrase("accept.log.empty").fact("file", log.file));
  c.severity = Severity::kPass;
  bool any_ecc = false;
  for (const auto& g : log.gpus) {
    if (g.samples >= 2) {
      double interval = (g.last_ms - g.first_ms) / 1000.0 / static_cast<double>(g.samples - 1);
      if (interval > max_interval + 1e-9) {
        escalate(c.severity, Severity::kWarn);
        c.note(phrase("accept.archive.sparse")
                   .fact("gpu", g.gpu)
                   .fact("interval", num(interval, 1))
                   .fact("max", num(max_interval)));
      }
    }
    if (g.ecc_uncorrected_last || g.ecc_corrected_last) any_ecc = true;
    if (g.ecc_uncorrected_first_rise_ms) {
      escalate(c.severity, Severity::kFail);
      c.note(phrase("accept.archive.uncorrected_rose")
                 .fact("gpu", g.gpu)
                 .fact("from", std::to_string(g.ecc_uncorrected_first.value_or(0)))
                 .fact("to", std::to_string(g.ecc_uncorrected_last.value_or(0)))
                 .fact("at", clock_time(*g.ecc_uncorrected_first_rise_ms)));
    }
    if (g.ecc_corrected_first_rise_ms) {
      escalate(c.severity, Severity::kWarn);
      c.note(phrase("accept.archive.corrected_rose")
                 .fact("gpu", g.gpu)
                 .fact("from", std::to_string(g.ecc_corrected_first.value_or(0)))
                 .fact("to", std::to_string(g.ecc_corrected_last.value_or(0)))
                 .fact("at", clock_time(*g.ecc_corrected_first_rise_ms)));
    }
  }
  if (in.archive_trend) judge_trend(*in.archive_trend, c);
  // The health archive keeps memory, power and temperature besides ECC: name what it lacks.
  std::vector<Phrase> missing;
  auto lacks = [&](auto has_metric, const char* metric) {
    if (std::any_of(log.gpus.begin(), log.gpus.end(), [&](const GpuLogSummary& g) { return !has_metric(g); }))
      missing.push_back(phrase(metric));
  };
  lacks([](const GpuLogSummary& g) { return g.memory_first_mib.has_value(); }, "accept.metric.memory");
  lacks([](const GpuLogSummary& g) { return g.power_samples > 0; }, "accept.metric.power");
  lacks([](const GpuLogSummary& g) { return g.max_temperature_c.has_value(); }, "accept.metric.temperature");
  if (!missing.empty()) {
    escalate(c.severity, Severity::kWarn);
    c.note(phrase("accept.archive.lacks").fact("metrics", missing));
  }
  if (!any_ecc) {
    escalate(c.severity, Severity::kWarn);
    c.note(phrase("accept.archive.no_ecc"));
  }
  judge_skipped(log, cat, c);
  if (c.notes.empty())
    c.note(phrase("accept.archive.ok")
               .fact("gpus", std::to_string(log.gpus.size()))
               .fact("hours", num(log.hours(), 1))
               .fact("max", num(max_interval)));
}

}  // namespace gpuplan::accept::detail
