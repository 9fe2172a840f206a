#include "accept/accept.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>
#include <set>

#include "accept/pci_address.h"
#include "core/civil_time.h"
#include "core/money.h"
#include "core/version.h"

namespace gpuplan::accept {

const char* status_name(Status s) {
  switch (s) {
    case Status::kPass:
      return "pass";
    case Status::kWarn:
      return "warn";
    case Status::kFail:
      return "fail";
    case Status::kNeedsEvidence:
      return "needs-evidence";
  }
  return "needs-evidence";
}

// ---------------------------------------------------------------------------------------------
// Log summaries

struct LogSummariser::Acc {
  bool seen = false;
  GpuLogSummary s;
  // Least squares of memory (MiB) against time (hours since the first memory sample).
  int64_t mem_t0_ms = 0;
  double n = 0, sum_t = 0, sum_m = 0, sum_tt = 0, sum_tm = 0;
  double mem_min_t = std::numeric_limits<double>::max(), mem_max_t = std::numeric_limits<double>::lowest();
  std::optional<double> prev_corrected, prev_uncorrected;
};

LogSummariser::LogSummariser(std::string file, double min_utilization_pct, double max_temperature_c)
    : file_(std::move(file)), min_utilization_pct_(min_utilization_pct), max_temperature_c_(max_temperature_c) {}

LogSummariser::~LogSummariser() = default;

void LogSummariser::add(const telemetry::Sample& x) {
  if (x.gpu >= acc_.size()) acc_.resize(x.gpu + 1);
  Acc& a = acc_[x.gpu];
  GpuLogSummary& s = a.s;
  if (!a.seen) {
    a.seen = true;
    s.first_ms = s.last_ms = x.time_ms;
  }
  ++s.samples;
  s.first_ms = std::min(s.first_ms, x.time_ms);
  s.last_ms = std::max(s.last_ms, x.time_ms);
  if (x.power_w) ++s.power_samples;
  if (x.temperature_c) {
    double t = *x.temperature_c;
    if (!s.max_temperature_c || t > *s.max_temperature_c) {
      s.max_temperature_c = t;
      s.max_temperature_ms = x.time_ms;
    }
    if (t > max_temperature_c_) ++s.samples_above_temperature;
  }
  if (x.utilization_pct) {
    double u = *x.utilization_pct;
    if (!s.min_utilization_pct || u < *s.min_utilization_pct) {
      s.min_utilization_pct = u;
      s.min_utilization_ms = x.time_ms;
    }
    ++s.utilization_samples;
    if (u < min_utilization_pct_) ++s.samples_below_utilization;
  }
  if (x.memory_used_mib) {
    double m = *x.memory_used_mib;
    if (a.n == 0) {
      a.mem_t0_ms = x.time_ms;
      s.memory_first_mib = m;
    }
    s.memory_last_mib = m;
    double t = (x.time_ms - a.mem_t0_ms) / 3.6e6;
    a.n += 1;
    a.sum_t += t;
    a.sum_m += m;
    a.sum_tt += t * t;
    a.sum_tm += t * m;
    a.mem_min_t = std::min(a.mem_min_t, t);
    a.mem_max_t = std::max(a.mem_max_t, t);
  }
  // ECC counts are cumulative: a rise between two samples of one GPU is a new error. A fall is a
  // driver reload resetting the volatile counters, not a repair.
  auto track = [&](const std::optional<float>& v, std::optional<double>& first, std::optional<double>& last,
                   std::optional<double>& prev, std::optional<int64_t>& first_rise) {
    if (!v) return;
    if (!first) first = *v;
    last = *v;
    if (prev && *v > *prev) {
      ++s.ecc_rises;
      if (!s.ecc_first_rise_ms || x.time_ms < s.ecc_first_rise_ms) s.ecc_first_rise_ms = x.time_ms;
      if (!first_rise) first_rise = x.time_ms;
    }
    prev = *v;
  };
  track(x.ecc_corrected, s.ecc_corrected_first, s.ecc_corrected_last, a.prev_corrected, s.ecc_corrected_first_rise_ms);
  track(x.ecc_uncorrected, s.ecc_uncorrected_first, s.ecc_uncorrected_last, a.prev_uncorrected,
        s.ecc_uncorrected_first_rise_ms);
}

LogSummary LogSummariser::finish(const telemetry::GpuRegistry& gpus, const telemetry::ReadStats& stats) const {
  LogSummary out;
  out.file = file_;
  out.stats = stats;
  for (size_t i = 0; i < acc_.size(); ++i) {
    const Acc& a = acc_[i];
    if (!a.seen) continue;
    GpuLogSummary s = a.s;
    s.gpu = i < gpus.names().size() ? gpus.names()[i] : "gpu" + std::to_string(i);
    double denom = a.n * a.sum_tt - a.sum_t * a.sum_t;
    if (a.n >= 2 && a.mem_max_t > a.mem_min_t && denom > 0)
      s.memory_growth_mib_per_h = (a.n * a.sum_tm - a.sum_t * a.sum_m) / denom;
    out.gpus.push_back(std::move(s));
  }
  return out;
}

double LogSummary::hours() const {
  if (gpus.empty()) return 0;
  int64_t first = gpus.front().first_ms, last = gpus.front().last_ms;
  for (const auto& g : gpus) {
    first = std::min(first, g.first_ms);
    last = std::max(last, g.last_ms);
  }
  return (last - first) / 3.6e6;
}

Result<LogSummary> summarise_log(const std::string& path, const catalog::Catalog& catalog,
                                 const telemetry::Progress& progress) {
  telemetry::GpuRegistry registry;
  LogSummariser summariser(path, catalog.threshold("accept.soak.min_utilization_pct"),
                           catalog.threshold("accept.soak.max_temperature_c"));
  auto stats = telemetry::read_samples(path, telemetry::SourceFormat::kAuto, registry, summariser, progress);
  if (!stats) return stats.error();
  return summariser.finish(registry, *stats);
}

// ---------------------------------------------------------------------------------------------
// Parsers for the buyer's files

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string base_name(std::string_view path) {
  size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool is_sha256(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::map<std::string, std::string>> parse_checksums(std::string_view text, const std::string& file) {
  std::map<std::string, std::string> out;
  int line_no = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(at, end - at));
    ++line_no;
    at = end + 1;
    if (line.empty() || line.front() == '#') continue;
    std::string hash, name;
    // BSD style, as `sha256sum --tag` and macOS `shasum` write it: "SHA256 (name) = hex".
    if (line.rfind("SHA256 (", 0) == 0) {
      size_t close = line.rfind(") = ");
      if (close != std::string_view::npos) {
        name = std::string(line.substr(8, close - 8));
        hash = std::string(trim(line.substr(close + 4)));
      }
    } else {
      size_t space = line.find_first_of(" \t");
      if (space != std::string_view::npos) {
        hash = std::string(line.substr(0, space));
        std::string_view rest = trim(line.substr(space));
        if (!rest.empty() && rest.front() == '*') rest.remove_prefix(1);  // binary-mode marker
        name = std::string(rest);
      }
    }
    if (!is_sha256(hash) || name.empty())
      return Error{file, line_no, "", "expected '<sha256>  <file name>' (64 hex digits, as sha256sum writes it)"};
    out[base_name(name)] = lower(hash);
  }
  return out;
}

namespace {

// Benchmark lines are short ("total images/sec: 1875.30"); std::regex recurses once per character
// it matches, so a multi-megabyte line (a progress bar without newlines, binary junk) could
// overflow the stack. Longer lines are skipped unread.
constexpr size_t kMaxBenchmarkLine = 1024;

// "14,800" → 14800; nullopt when the number does not fit a finite double (a 400-digit figure).
std::optional<double> figure_value(std::string digits) {
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> parse_images_per_second(std::string_view text) {
  // "images/sec: 1875.3" (tf_cnn_benchmarks) names the figure after its label; "1875 img/s" and
  // "throughput: 14800 images/s" after the number. A label followed by ':' belongs to the first
  // form, so "100 images/sec: 1870" (a step number before the label) is not read as 100.
  static const std::regex label_first(
      R"((?:images?|img)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?\s*[:=]\s*([0-9][0-9,]*(?:\.[0-9]+)?))", std::regex::icase);
  static const std::regex number_first(
      R"(([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:images?|img)s?\s*(?:/|per\s+)\s*s(?:ec(?:ond)?)?\b(?!\s*[:=]))",
      std::regex::icase);
  std::optional<double> best;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.size() > kMaxBenchmarkLine) continue;
    // The figure furthest right on the line; lines come in order, so the last line's wins.
    std::optional<double> in_line;
    std::ptrdiff_t best_at = -1;
    const std::string s(line);
    for (const std::regex* re : {&label_first, &number_first}) {
      for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator(); ++it) {
        std::ptrdiff_t pos = it->position(1);
        if (pos < best_at) continue;
        auto v = figure_value((*it)[1].str());
        if (!v) continue;
        in_line = v;
        best_at = pos;
      }
    }
    if (in_line) best = in_line;
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// The checks

namespace {

using catalog::Catalog;
using catalog::Entry;
using probe::PciDevice;
using probe::PciKind;

// More evidence lines than this are summarised as "… N more": a flapping link can log thousands.
constexpr size_t kMaxEvidence = 20;

std::string num(double v, int decimals = 0) {
  return format_number(v, decimals);
}

std::string clock_time(int64_t ms) { return civil_from_ms(ms).date_time(); }

// Severity order for combining findings inside one check: a failure outweighs a warning, a
// warning outweighs missing evidence (something was seen), and pass is the default.
int rank(Status s) {
  switch (s) {
    case Status::kPass:
      return 0;
    case Status::kNeedsEvidence:
      return 1;
    case Status::kWarn:
      return 2;
    case Status::kFail:
      return 3;
  }
  return 0;
}
void raise(Status& s, Status to) {
  if (rank(to) > rank(s)) s = to;
}

void add_capped(std::vector<std::string>& evidence, const std::vector<std::string>& lines) {
  for (size_t i = 0; i < lines.size() && i < kMaxEvidence; ++i) evidence.push_back(lines[i]);
  if (lines.size() > kMaxEvidence) evidence.push_back(fmt::format("… {} more", lines.size() - kMaxEvidence));
}

std::string join(const std::vector<std::string>& parts, std::string_view sep = "; ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

void needs(Check& c, std::string what) {
  c.status = Status::kNeedsEvidence;
  c.detail = std::move(what);
}

std::string log_name(const AcceptInputs& in) {
  return in.kernel_log_source.empty() ? "kernel log" : in.kernel_log_source;
}

// Whether the kernel log can be trusted to show every event: a log in no form gpuplan reads had
// none of its events read (needs-evidence), one with more malformed lines than
// accept.kernel_log.max_malformed_share may hide events in them (warn). Raises `status` and
// returns the sentence that says why, quoting the counts; "" when the log reads fine.
std::string judge_kernel_log(const AcceptInputs& in, const Catalog& cat, Status& status) {
  if (!in.kernel_log) return "";
  const probe::KernelLog& log = *in.kernel_log;
  const size_t malformed = log.malformed_lines.size();
  if (log.format == probe::KernelLogFormat::kUnknown) {
    raise(status, Status::kNeedsEvidence);
    if (malformed == 0)
      return fmt::format("{} is empty ({} lines): capture it with dmesg on the server.", log_name(in), log.lines);
    return fmt::format(
        "{} is in no form gpuplan reads ({} of {} lines unreadable), so its events could not be read: give raw "
        "/dev/kmsg records, plain `dmesg`, `dmesg --ctime` or `dmesg --time-format=iso` output.",
        log_name(in), malformed, log.lines);
  }
  const double max_share = cat.threshold("accept.kernel_log.max_malformed_share");
  if (log.lines <= 0) return "";
  const double share = static_cast<double>(malformed) / log.lines;
  if (share <= max_share) return "";
  raise(status, Status::kWarn);
  return fmt::format(
      "{} has {} malformed lines of {} ({}%, allowed {}%), read as {}: events may hide in the lines it could not "
      "read.",
      log_name(in), malformed, log.lines, num(share * 100, 1), num(max_share * 100, 1),
      probe::kernel_log_format_name(log.format));
}

// Bus and device without the function: the GPU's audio or USB functions share it.
std::string bus_device(std::string_view a) {
  std::string s = pci_address_key(a);
  size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(0, dot);
}

std::vector<const PciDevice*> pci_gpus(const AcceptInputs& in) {
  return in.facts ? in.facts->pci.of_kind(PciKind::kGpu) : std::vector<const PciDevice*>{};
}

const nvml::GpuFacts* nvml_gpu_at(const AcceptInputs& in, std::string_view address) {
  if (!in.nvml) return nullptr;
  for (const auto& g : in.nvml->gpus)
    if (pci_address_key(g.info.pci_bus_id) == pci_address_key(address)) return &g;
  return nullptr;
}

void summary_evidence(const LogSummary& log, std::vector<std::string>& ev) {
  ev.push_back(fmt::format("{}: {} samples, {} lines, {} skipped", log.file,
                           num(static_cast<double>(log.stats.samples)), num(static_cast<double>(log.stats.lines)),
                           num(static_cast<double>(log.stats.skipped_count))));
  for (const auto& sk : log.stats.skipped) ev.push_back(fmt::format("{}:{}: skipped: {}", sk.file, sk.line, sk.reason));
  for (const auto& g : log.gpus)
    ev.push_back(fmt::format("{}: {} samples {} – {}", g.gpu, num(static_cast<double>(g.samples)),
                             clock_time(g.first_ms), clock_time(g.last_ms)));
}

// Warns when more of a sample log's lines were skipped as malformed than
// accept.logs.max_skipped_share: the samples lost with them may be the ones that break a limit.
void judge_skipped(const LogSummary& log, const Catalog& cat, Status& status, std::vector<std::string>& problems) {
  const double max_share = cat.threshold("accept.logs.max_skipped_share");
  if (log.stats.lines <= 0) return;
  const double share = static_cast<double>(log.stats.skipped_count) / static_cast<double>(log.stats.lines);
  if (share <= max_share) return;
  raise(status, Status::kWarn);
  problems.push_back(
      fmt::format("{} had {} of {} lines skipped as malformed ({}%, allowed {}%): samples may be missing", log.file,
                  num(static_cast<double>(log.stats.skipped_count)), num(static_cast<double>(log.stats.lines)),
                  num(share * 100, 1), num(max_share * 100, 1)));
}

double span_hours(const GpuLogSummary& g) {
  return (g.last_ms - g.first_ms) / 3.6e6;
}

// G1 --------------------------------------------------------------------------------------------
void check_soak(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.soak) return needs(c, "No soak log: pass --soak FILE: an nvidia-smi -l 1 CSV or dmon log of the 72 h run.");
  const LogSummary& log = *in.soak;
  const double max_temp = cat.threshold("accept.soak.max_temperature_c");
  const double min_util = cat.threshold("accept.soak.min_utilization_pct");
  const double max_share = cat.threshold("accept.soak.max_below_share");
  const double hours_needed = cat.threshold("accept.soak.hours");
  summary_evidence(log, c.evidence);
  if (log.gpus.empty()) return needs(c, fmt::format("The soak log {} holds no samples.", log.file));
  std::vector<std::string> problems;
  c.status = Status::kPass;
  double shortest = span_hours(log.gpus.front());
  for (const auto& g : log.gpus) {
    // A GPU without a metric's samples never breaks its limit: that is missing evidence, not a pass.
    if (!g.max_temperature_c) {
      raise(c.status, Status::kNeedsEvidence);
      problems.push_back(fmt::format("{} has no temperature samples: its temperature cannot be judged", g.gpu));
    }
    if (g.utilization_samples == 0) {
      raise(c.status, Status::kNeedsEvidence);
      problems.push_back(fmt::format("{} has no utilization samples: its utilization cannot be judged", g.gpu));
    }
    if (g.samples_above_temperature > 0 && g.max_temperature_c) {
      raise(c.status, Status::kFail);
      problems.push_back(fmt::format("{} reached {} °C at {} ({} samples above {} °C)", g.gpu,
                                     num(*g.max_temperature_c), clock_time(g.max_temperature_ms),
                                     num(static_cast<double>(g.samples_above_temperature)), num(max_temp)));
    }
    if (g.utilization_samples > 0) {
      double share = static_cast<double>(g.samples_below_utilization) / static_cast<double>(g.utilization_samples);
      if (share > max_share) {
        raise(c.status, Status::kFail);
        problems.push_back(
            fmt::format("{} was below {}% utilization in {} of {} samples ({}%, allowed {}%); lowest {}% at {}", g.gpu,
                        num(min_util), num(static_cast<double>(g.samples_below_utilization)),
                        num(static_cast<double>(g.utilization_samples)), num(share * 100, 1), num(max_share * 100, 1),
                        num(g.min_utilization_pct.value_or(0)), clock_time(g.min_utilization_ms)));
      }
    }
    // Each GPU must have been soaked for the whole time: one GPU's 72 h do not cover another's 24.
    const double hours = span_hours(g);
    shortest = std::min(shortest, hours);
    if (hours < hours_needed) {
      raise(c.status, Status::kWarn);
      problems.push_back(fmt::format("{} spans {} h, not the {} h soak (not long enough to accept)", g.gpu,
                                     num(hours, 1), num(hours_needed)));
    }
  }
  // Every GPU in the server must be in the log: a GPU left out was never soaked.
  std::vector<std::string> shown;
  size_t most = 0;
  if (in.nvml) {
    shown.push_back(fmt::format("NVML shows {}", in.nvml->gpus.size()));
    most = std::max(most, in.nvml->gpus.size());
  }
  if (in.facts) {
    shown.push_back(fmt::format("the PCI bus shows {}", pci_gpus(in).size()));
    most = std::max(most, pci_gpus(in).size());
  }
  if (log.gpus.size() < most) {
    raise(c.status, Status::kWarn);
    problems.push_back(fmt::format("the soak log covers {} GPU(s) but {}: the others were not soaked", log.gpus.size(),
                                   join(shown, " and ")));
  }
  judge_skipped(log, cat, c.status, problems);
  if (problems.empty())
    c.detail = fmt::format(
        "{} GPUs over {} h: every sample at or below {} °C and at most {}% of samples below {}% utilization.",
        log.gpus.size(), num(shortest, 1), num(max_temp), num(max_share * 100, 1), num(min_util));
  else
    c.detail = join(problems) + ".";
}

// G2 --------------------------------------------------------------------------------------------
struct LinkFigures {
  int gen = 0, width = 0;
  double gbs = 0;
  bool known = false;
};
LinkFigures figures(const probe::PciLink& l) {
  LinkFigures f;
  if (auto g = l.generation()) f.gen = *g;
  if (l.width) f.width = *l.width;
  if (auto b = l.gbytes_per_s()) f.gbs = *b;
  f.known = f.gen > 0 && f.width > 0;
  return f;
}

// What a GPU's link can carry under load: its max link, or its current one when the max is not
// exposed.
const probe::PciLink& capability_link(const PciDevice& d) {
  return figures(d.max).known ? d.max : d.current;
}
LinkFigures capability(const PciDevice& d) {
  return figures(capability_link(d));
}

std::string hex4(uint16_t v) {
  return fmt::format("{:04x}", v);
}

// The catalog entry of a switch an HGX-style board is designed around, if this bridge is one.
const Entry* designed_switch(const PciDevice& d, const Catalog& cat) {
  for (const Entry* e : cat.of_kind("pcie_switch")) {
    auto id = [](std::string s) {
      s = lower(std::move(s));
      if (s.rfind("0x", 0) == 0) s = s.substr(2);
      while (s.size() < 4) s = "0" + s;
      return s;
    };
    if (id(e->text("vendor_id")) == hex4(d.vendor) && id(e->text("device_id")) == hex4(d.device)) return e;
  }
  return nullptr;
}

// "0000:05:00.0 (Gen3 x16) ← 0000:04:08.0 ← 0000:03:00.0 uplink Gen3 x8 ← root 0000:00:01.1"
std::string path_of(const PciDevice& gpu, const probe::PciTopology& pci, std::string_view slow_hop) {
  std::string out = fmt::format("{} ({})", gpu.address, gpu.current.str());
  for (const auto& addr : gpu.upstream) {
    const PciDevice* b = pci.find(addr);
    out += " ← ";
    if (b && b->root_port) out += "root ";
    out += addr;
    if (addr == slow_hop && b) out += " uplink " + b->current.str();
  }
  return out;
}

void check_pcie_topology(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.facts) return needs(c, "No host facts (" + in.facts_error + "): run on the server or pass --root SNAPSHOT.");
  const probe::PciTopology& pci = in.facts->pci;
  const int min_gen = static_cast<int>(cat.threshold("accept.pcie.min_gen"));
  const int min_width = static_cast<int>(cat.threshold("accept.pcie.min_width"));
  auto gpus = pci_gpus(in);
  if (gpus.empty()) {
    c.status = Status::kFail;
    c.detail = "No NVIDIA GPU on the PCI bus.";
    return;
  }
  c.status = Status::kPass;
  std::vector<std::string> problems, notes;
  for (const PciDevice* g : gpus) {
    // Slot → root port → NUMA node: the map SPEC G2 asks to record.
    std::string root = g->upstream.empty() ? "none" : g->upstream.back();
    c.evidence.push_back(fmt::format("{} {} → root port {} → NUMA node {} ({})", g->address, g->current.str(), root,
                                     g->numa_node ? std::to_string(*g->numa_node) : "?", g->sysfs_path));
    LinkFigures cur = figures(g->current), max = figures(g->max);
    if (!cur.known) {
      raise(c.status, Status::kWarn);
      problems.push_back(g->address + ": link speed or width not exposed");
      continue;
    }
    bool below_min = cur.gen < min_gen || cur.width < min_width;
    bool below_max = max.known && (cur.gen < max.gen || cur.width < max.width);
    if (below_min || below_max) {
      // An idle A100 trains its link down to save power; width does not change, speed does.
      const nvml::GpuFacts* n = nvml_gpu_at(in, g->address);
      bool idle_speed_only =
          cur.width >= std::max(min_width, max.width) && n && n->now.utilization_pct && *n->now.utilization_pct == 0;
      raise(c.status, idle_speed_only ? Status::kWarn : Status::kFail);
      problems.push_back(fmt::format("{} trained at {}{}{}", g->address, g->current.str(),
                                     below_min ? fmt::format(", below Gen{} x{}", min_gen, min_width) : "",
                                     below_max ? ", below its own max " + g->max.str() : "") +
                         (idle_speed_only
                              ? " while idle (0% utilization): an idle GPU lowers its link speed; re-check under load"
                              : ""));
    }
    // Every hop above the GPU must carry what the GPU can do under load: its capability (max
    // link), not its current link, which an idle GPU trains down (to Gen1 on an A100). The first
    // hop is the port at the other end of the GPU's own link and trains down with it: it is
    // held to the GPU's current link, the idle case being judged above.
    const LinkFigures cap = capability(*g);
    for (size_t i = 0; i < g->upstream.size(); ++i) {
      const std::string& addr = g->upstream[i];
      const PciDevice* b = pci.find(addr);
      if (!b) continue;
      LinkFigures hop = figures(b->current);
      if (!hop.known) continue;
      const LinkFigures& need = i == 0 ? cur : cap;
      if (hop.gen < need.gen || hop.width < need.width) {
        raise(c.status, Status::kFail);
        problems.push_back("slower hop: " + path_of(*g, pci, addr));
        break;
      }
    }
  }
  // A switch's upstream port (odd depth below a root port: root, upstream, downstream, upstream…)
  // carries every GPU below it; less bandwidth than their sum shares the uplink.
  for (const PciDevice& b : pci.devices) {
    if (b.kind != PciKind::kBridge || b.root_port || b.upstream.size() % 2 == 0) continue;
    std::vector<const PciDevice*> below;
    for (const PciDevice* d : pci.below(b.address))
      if (d->kind == PciKind::kGpu) below.push_back(d);
    if (below.size() < 2) continue;
    LinkFigures up = figures(b.current);
    if (!up.known) continue;
    // Demand is what the GPUs can draw under load (their max links): idle GPUs trained down to
    // Gen1 would hide a shared uplink that halves their bandwidth once the job starts.
    double sum = 0;
    std::set<std::string> links;
    for (const PciDevice* d : below) {
      sum += capability(*d).gbs;
      links.insert(capability_link(*d).str());
    }
    if (up.gbs + 1e-9 >= sum) continue;
    std::string who = links.size() == 1 ? fmt::format("{} GPUs × {}", below.size(), *links.begin())
                                        : fmt::format("{} GPUs ({})", below.size(), fmt::join(links, ", "));
    double share = up.gbs / sum;
    std::string effect = std::abs(share - 0.5) < 0.01
                             ? "halves each GPU's bandwidth"
                             : fmt::format("leaves each GPU {}% of its bandwidth", num(share * 100));
    if (const Entry* e = designed_switch(b, cat)) {
      notes.push_back(fmt::format("{} behind {} ({}, uplink {}) is the designed layout of {} [{}]", who, b.address,
                                  e->name, b.current.str(), e->text("designed_for"), e->id));
      continue;
    }
    raise(c.status, Status::kFail);
    problems.push_back(fmt::format("shared: {} behind one {} uplink {} ({}:{}) {}", who, b.current.str(), b.address,
                                   hex4(b.vendor), hex4(b.device), effect));
  }
  std::string text = problems.empty() ? fmt::format(
                                            "{} GPUs, each at Gen{} x{} or better and at its own maximum, no slower "
                                            "hop up to its root port, no shared uplink.",
                                            gpus.size(), min_gen, min_width)
                                      : join(problems) + ".";
  if (!notes.empty()) text += " " + join(notes) + ".";
  c.detail = text;
}

// G3 --------------------------------------------------------------------------------------------
void check_pcie_aer(const AcceptInputs& in, const Catalog& cat, Check& c) {
  bool sysfs = false;
  std::vector<std::string> fail, warn, ev;
  c.status = Status::kPass;
  if (in.facts) {
    for (const PciDevice& d : in.facts->pci.devices) {
      if (!d.aer) continue;
      sysfs = true;
      const auto& a = *d.aer;
      if (a.fatal == 0 && a.nonfatal == 0 && a.correctable == 0) continue;
      std::string line = fmt::format("{} ({}): fatal {}, non-fatal {}, correctable {} (sysfs aer_dev_*)", d.address,
                                     probe::pci_kind_name(d.kind), a.fatal, a.nonfatal, a.correctable);
      ev.push_back(line);
      if (a.fatal > 0 || a.nonfatal > 0) {
        raise(c.status, Status::kFail);
        fail.push_back(line);
      } else {
        raise(c.status, Status::kWarn);
        warn.push_back(line);
      }
    }
  }
  int events = 0;
  if (in.kernel_log) {
    for (const auto& e : in.kernel_log->events) {
      if (e.kind != probe::KernelEventKind::kAer) continue;
      ++events;
      bool uncorrected = e.severity.rfind("Uncorrected", 0) == 0 ||
                         (e.severity.empty() &&
                          (e.text.find("Uncorrect") != std::string::npos || e.text.find("Fatal") != std::string::npos));
      std::string line =
          fmt::format("{}:{}: {}{}", log_name(in), e.line, e.device.empty() ? "" : e.device + ": ", e.text);
      ev.push_back(line);
      raise(c.status, uncorrected ? Status::kFail : Status::kWarn);
      (uncorrected ? fail : warn).push_back(line);
    }
  }
  if (!sysfs && !in.kernel_log)
    return needs(c,
                 "Neither AER counters (sysfs aer_dev_*) nor a kernel log: run on the server, pass --root SNAPSHOT or "
                 "--kernel-log FILE.");
  add_capped(c.evidence, ev);
  const std::string log_problem = judge_kernel_log(in, cat, c.status);
  std::vector<std::string> parts;
  if (!fail.empty()) parts.push_back(fmt::format("{} uncorrected (fatal or non-fatal) AER report(s)", fail.size()));
  if (!warn.empty()) parts.push_back(fmt::format("{} corrected-only AER report(s)", warn.size()));
  std::string sources = sysfs && in.kernel_log ? "sysfs AER counters and " + log_name(in)
                        : sysfs                ? std::string("sysfs AER counters (no kernel log)")
                                               : log_name(in) + " (no sysfs AER counters)";
  c.detail = parts.empty() ? fmt::format("No AER errors in {} ({} kernel-log AER events).", sources, events)
                           : join(parts) + " in " + sources + ".";
  if (!log_problem.empty()) c.detail += " " + log_problem;
}

// G4 --------------------------------------------------------------------------------------------
void check_infiniband(const AcceptInputs& in, const Catalog&, Check& c) {
  if (!in.facts && !in.ibstat)
    return needs(c, "No host facts and no ibstat output: run on the server, pass --root SNAPSHOT or --ibstat FILE.");
  std::vector<std::string> fail;
  int ports = 0;
  if (in.facts) {
    for (const auto& p : in.facts->ib_ports) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") continue;
      ++ports;
      std::string line = fmt::format("{} port {}: {}, {}, {}", p.device, p.port, p.state, p.phys_state, p.rate);
      c.evidence.push_back("sysfs " + line);
      if (!p.active()) fail.push_back(line + " (not ACTIVE/LinkUp)");
    }
  }
  if (in.ibstat) {
    for (const auto& p : *in.ibstat) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") continue;
      ++ports;
      std::string line = fmt::format("{} port {}: {}, {}, SM lid {}", p.ca, p.port, p.state, p.physical_state,
                                     p.sm_lid ? std::to_string(*p.sm_lid) : "?");
      c.evidence.push_back("ibstat " + line);
      if (p.state != "Active" || p.physical_state != "LinkUp")
        fail.push_back(line + " (not Active/LinkUp)");
      else if (p.sm_lid && *p.sm_lid == 0)
        fail.push_back(line + " (no subnet manager answers)");
    }
  }
  if (ports == 0) {
    c.status = Status::kPass;
    c.detail = "No InfiniBand on this host.";
    return;
  }
  if (!fail.empty()) {
    c.status = Status::kFail;
    c.detail = join(fail) + ".";
    return;
  }
  // Subnet-manager configuration and adaptive routing live in the fabric, not in host files.
  auto att = in.attached.find("infiniband");
  if (att == in.attached.end())
    return needs(
        c, fmt::format(
               "{} InfiniBand port(s) up. Subnet-manager access and adaptive routing cannot be read from the host: "
               "attach `sminfo` output (the subnet manager answers and is configurable) and `ibdiagnet` output "
               "showing adaptive routing enabled with --attach infiniband=FILE.",
               ports));
  c.status = Status::kPass;
  c.evidence.push_back("attached: " + att->second);
  c.detail = fmt::format("{} InfiniBand port(s) active; subnet manager and adaptive routing evidence attached ({}).",
                         ports, att->second);
}

// G5 --------------------------------------------------------------------------------------------
// Versions compare through core/version.h: numeric per component ("12.10" > "12.2"), and an
// allowed "12.2" admits its releases ("12.2.140"), the same rule the quote uses.
void check_versions(const AcceptInputs& in, const Catalog& cat, Check& c) {
  std::map<std::string, std::pair<std::string, std::string>> known;  // component → (version, where from)
  if (in.facts && in.facts->driver && !in.facts->driver->version.empty())
    known["driver"] = {in.facts->driver->version, "/proc/driver/nvidia/version: " + in.facts->driver->line};
  else if (in.nvml && !in.nvml->driver_version.empty())
    known["driver"] = {in.nvml->driver_version, "NVML nvmlSystemGetDriverVersion"};
  // The driver's CUDA version is the newest toolkit it can run, not the toolkit installed: it is
  // recorded, and judged only against a declared toolkit (--cuda), never against the matrix.
  if (in.nvml && in.nvml->cuda_driver_version)
    known["cuda-driver"] = {*in.nvml->cuda_driver_version,
                            "NVML nvmlSystemGetCudaDriverVersion (the newest CUDA the driver supports)"};
  for (const auto& [k, v] : in.versions) known[lower(k)] = {v, "declared (--" + k + " " + v + ")"};
  if (!known.count("driver") && !known.count("cuda"))
    return needs(c,
                 "No driver or CUDA version known: run on the server, pass --root SNAPSHOT with nvml.json, or "
                 "--cuda 12.2.");
  c.status = Status::kPass;
  std::vector<std::string> problems, seen;
  for (const auto& [component, vs] : known) {
    c.evidence.push_back(fmt::format("{} {} ({})", component, vs.first, vs.second));
    seen.push_back(component + " " + vs.first);
    for (const Entry* e : cat.of_kind("software")) {
      if (e->text("component") != component) continue;
      if (e->has("min_version") && compare_versions(vs.first, e->text("min_version")) < 0) {
        raise(c.status, Status::kFail);
        problems.push_back(fmt::format("{} {} is below the minimum {} ({}, matrix as of {})", component, vs.first,
                                       e->text("min_version"), e->id, e->as_of));
      }
      if (e->has("allowed") && !version_in(vs.first, e->list("allowed"))) {
        raise(c.status, Status::kWarn);
        problems.push_back(fmt::format("{} {} is not in the matrix's {} ({}, as of {})", component, vs.first,
                                       fmt::join(e->list("allowed"), ", "), e->id, e->as_of));
      }
    }
  }
  if (known.count("cuda") && known.count("cuda-driver") &&
      compare_versions(known["cuda"].first, known["cuda-driver"].first) > 0) {
    raise(c.status, Status::kFail);
    problems.push_back(fmt::format("CUDA toolkit {} is newer than the {} the driver supports", known["cuda"].first,
                                   known["cuda-driver"].first));
  }
  c.detail = "Recorded " + join(seen, ", ") +
             (problems.empty() ? "; all within the compatibility matrix." : ". " + join(problems) + ".");
}

// G6 --------------------------------------------------------------------------------------------
constexpr double kMbPerMib = 1.048576;  // 1 MiB = 2^20 bytes = 1.048576 MB

void check_load(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.load)
    return needs(c,
                 "No load log: pass --load FILE: an nvidia-smi -l 1 CSV or dmon log of the 24 h real-load test (e.g. "
                 "Llama-2-13B, batch 8, seq 2048).");
  const LogSummary& log = *in.load;
  const double max_growth = cat.threshold("accept.load.max_memory_growth_mb_per_h");
  const double hours_needed = cat.threshold("accept.load.hours");
  const double max_wear = cat.threshold("accept.nvme.max_percentage_used");
  const double max_replays = cat.threshold("accept.pcie.max_replays");
  summary_evidence(log, c.evidence);
  c.status = Status::kPass;
  std::vector<std::string> problems, good;
  if (log.gpus.empty()) {
    raise(c.status, Status::kNeedsEvidence);
    problems.push_back(fmt::format("the load log {} holds no samples", log.file));
  }
  for (const auto& g : log.gpus) {
    // Without a growth figure the GPU's memory was never judged: say so rather than let the
    // summary claim its growth stayed under the limit.
    if (!g.memory_growth_mib_per_h) {
      raise(c.status, Status::kNeedsEvidence);
      problems.push_back(g.memory_first_mib
                             ? fmt::format("{} has too few memory samples to fit a growth (2 or more at different "
                                           "times needed)",
                                           g.gpu)
                             : fmt::format("{} has no memory samples: its memory growth cannot be judged", g.gpu));
      continue;
    }
    double mb = *g.memory_growth_mib_per_h * kMbPerMib;
    std::string line =
        fmt::format("{}: memory grew {} MiB/h = {} MB/h (least squares; 1 MiB = 1.048576 MB), {} → {} MiB", g.gpu,
                    num(*g.memory_growth_mib_per_h, 1), num(mb, 1), num(g.memory_first_mib.value_or(0)),
                    num(g.memory_last_mib.value_or(0)));
    c.evidence.push_back(line);
    if (mb > max_growth) {
      raise(c.status, Status::kFail);
      problems.push_back(fmt::format("{} memory grew {} MB/h, above {} MB/h", g.gpu, num(mb, 1), num(max_growth)));
    }
  }
  // Each GPU must have run the whole test, as in the soak.
  for (const auto& g : log.gpus) {
    const double hours = span_hours(g);
    if (hours < hours_needed) {
      raise(c.status, Status::kWarn);
      problems.push_back(fmt::format("{} spans {} h of the load log, not the {} h test (not long enough)", g.gpu,
                                     num(hours, 1), num(hours_needed)));
    }
  }
  for (const auto& [file, s] : in.smart) {
    c.evidence.push_back(fmt::format("{}: {} {} serial {} firmware {}: percentage used {}, media errors {}", file,
                                     s.device, s.model, s.serial, s.firmware,
                                     s.percentage_used ? std::to_string(*s.percentage_used) + "%" : "?",
                                     s.media_errors ? std::to_string(*s.media_errors) : "?"));
    if (s.percentage_used && *s.percentage_used > max_wear) {
      raise(c.status, Status::kFail);
      problems.push_back(
          fmt::format("{} wear {}% (Percentage Used), above {}%", s.device, *s.percentage_used, num(max_wear)));
    }
    if (s.media_errors && *s.media_errors > 0) {
      raise(c.status, Status::kFail);
      problems.push_back(fmt::format("{} reports {} media errors", s.device, *s.media_errors));
    }
  }
  if (in.nvml) {
    for (const auto& g : in.nvml->gpus) {
      if (!g.now.pcie_replays) continue;
      c.evidence.push_back(fmt::format("GPU {} {}: PCIe replay counter {} (NVML)", g.info.index, g.info.pci_bus_id,
                                       *g.now.pcie_replays));
      if (*g.now.pcie_replays > max_replays) {
        raise(c.status, Status::kWarn);
        problems.push_back(
            fmt::format("GPU {} ({}) shows {} PCIe replays", g.info.index, g.info.pci_bus_id, *g.now.pcie_replays));
      }
    }
  }
  judge_skipped(log, cat, c.status, problems);
  if (in.smart.empty()) good.push_back("no smartctl output given (--smartctl FILE) for NVMe wear");
  c.detail =
      problems.empty()
          ? fmt::format("{} GPUs over {} h, memory growth at most {} MB/h; NVMe wear and PCIe replays within limits.",
                        log.gpus.size(), num(log.hours(), 1), num(max_growth))
          : join(problems) + ".";
  if (!good.empty()) c.detail += " Note: " + join(good) + ".";
}

// G7 --------------------------------------------------------------------------------------------
void check_pcie_aspm(const AcceptInputs& in, const Catalog&, Check& c) {
  if (!in.facts) return needs(c, "No host facts (" + in.facts_error + "): run on the server or pass --root SNAPSHOT.");
  const std::string policy = in.facts->aspm_policy.value_or("");
  if (!policy.empty()) c.evidence.push_back("/sys/module/pcie_aspm/parameters/policy: " + policy);
  std::vector<std::string> on;
  bool all_exposed = true;
  auto gpus = pci_gpus(in);
  for (const PciDevice* g : gpus) {
    if (!g->aspm) {
      all_exposed = false;
      continue;
    }
    c.evidence.push_back(fmt::format("{} ASPM: {}", g->address, g->aspm->empty() ? "off" : *g->aspm));
    if (!g->aspm->empty()) on.push_back(g->address + " (" + *g->aspm + ")");
  }
  const char* why = "an ASPM link wakes in up to 20 ms (SPEC G7)";
  if (!on.empty()) {
    c.status = Status::kFail;
    c.detail = fmt::format("ASPM on for GPU link(s) {}: {}.", join(on, ", "), why);
  } else if (policy == "powersave" || policy == "powersupersave") {
    c.status = Status::kFail;
    c.detail = fmt::format("ASPM policy is {}: {}. Set pcie_aspm=off or the policy to performance.", policy, why);
  } else if (policy == "performance" || (all_exposed && !gpus.empty())) {
    c.status = Status::kPass;
    c.detail = policy == "performance" ? "ASPM policy is performance (links never enter L0s/L1)."
                                       : fmt::format("ASPM off on all {} GPU links.", gpus.size());
  } else if (policy.empty() && gpus.empty()) {
    needs(c, "Neither the ASPM policy nor any GPU link state is exposed.");
  } else {
    c.status = Status::kWarn;
    c.detail = fmt::format(
        "ASPM policy is {} and the GPU links' ASPM states are not exposed: the BIOS decides. Set pcie_aspm=off or the "
        "policy to performance.",
        policy.empty() ? "unknown" : policy);
  }
}

// G8 --------------------------------------------------------------------------------------------
void check_iommu(const AcceptInputs& in, const Catalog&, Check& c) {
  if (!in.facts && !in.kernel_log)
    return needs(c, "No host facts and no kernel log: run on the server or pass --root SNAPSHOT.");
  // On means the IOMMU translates DMA now: IOMMU groups exist, or the kernel said it enabled
  // one. intel_iommu=on / amd_iommu=on only asks for it (a BIOS with VT-d/AMD-Vi off ignores the
  // request), so the command line is evidence, never proof.
  std::vector<std::string> why_on, asked;
  if (in.kernel_log)
    for (const auto& e : in.kernel_log->events)
      if (e.kind == probe::KernelEventKind::kIommuEnabled) {
        why_on.push_back(fmt::format("{}:{}: {}", log_name(in), e.line, e.text));
        break;
      }
  if (in.facts) {
    if (!in.facts->iommu_groups.empty())
      why_on.push_back(fmt::format("{} IOMMU groups in /sys/kernel/iommu_groups", in.facts->iommu_groups.size()));
    for (const char* flag : {"intel_iommu=on", "amd_iommu=on"})
      if (in.facts->kernel_cmdline.find(flag) != std::string::npos) asked.push_back(flag);
  }
  c.evidence = why_on;
  for (const auto& flag : asked) c.evidence.push_back("/proc/cmdline: " + flag + " (asked for)");
  if (why_on.empty()) {
    c.status = Status::kFail;
    c.detail =
        asked.empty()
            ? "IOMMU not enabled: no IOMMU groups, no intel_iommu=on/amd_iommu=on on the kernel command line, no "
              "'IOMMU enabled' in the kernel log. Enable VT-d/AMD-Vi in the BIOS and the kernel."
            : fmt::format(
                  "IOMMU asked for ({} on the kernel command line) but not active: no IOMMU groups in "
                  "/sys/kernel/iommu_groups, no 'IOMMU enabled' in the kernel log. Enable VT-d/AMD-Vi in the BIOS.",
                  join(asked, ", "));
    return;
  }
  c.status = Status::kPass;
  std::vector<std::string> shared, unknown;
  auto gpus = pci_gpus(in);
  for (const PciDevice* g : gpus) {
    std::optional<int> group = g->iommu_group;
    if (!group && in.facts)
      for (const auto& [id, members] : in.facts->iommu_groups)
        if (std::find(members.begin(), members.end(), g->address) != members.end()) group = id;
    if (!group || !in.facts->iommu_groups.count(*group)) {
      unknown.push_back(g->address);
      continue;
    }
    std::vector<std::string> others;
    for (const auto& m : in.facts->iommu_groups.at(*group))
      if (bus_device(m) != bus_device(g->address)) others.push_back(m);
    c.evidence.push_back(
        fmt::format("{}: IOMMU group {} ({})", g->address, *group, join(in.facts->iommu_groups.at(*group), ", ")));
    if (!others.empty())
      shared.push_back(fmt::format("{} shares IOMMU group {} with {}", g->address, *group, join(others, ", ")));
  }
  if (!shared.empty()) {
    c.status = Status::kFail;
    c.detail = join(shared) + ": it cannot be passed through to a VM alone.";
  } else if (!unknown.empty()) {
    c.status = Status::kWarn;
    c.detail = "IOMMU enabled, but the IOMMU group of " + join(unknown, ", ") + " is not exposed.";
  } else {
    c.detail = fmt::format("IOMMU enabled; each of the {} GPUs is alone in its IOMMU group.", gpus.size());
  }
}

// G9 --------------------------------------------------------------------------------------------
void check_firmware_versions(const AcceptInputs& in, const Catalog&, Check& c) {
  std::vector<std::string> parts;
  c.status = Status::kPass;
  if (in.nvml) {
    std::map<std::string, std::set<std::string>> by_model;  // GPU name → VBIOS versions
    for (const auto& g : in.nvml->gpus) {
      std::string v = g.info.vbios.value_or("?");
      c.evidence.push_back(fmt::format("GPU {} {} {} serial {}: VBIOS {}", g.info.index, g.info.pci_bus_id, g.info.name,
                                       g.info.serial.value_or("?"), v));
      by_model[g.info.name].insert(v);
    }
    for (const auto& [model, versions] : by_model)
      if (versions.size() > 1) {
        raise(c.status, Status::kWarn);
        parts.push_back(fmt::format("{} GPUs carry different VBIOS versions ({}): ask the vendor why", model,
                                    fmt::join(versions, ", ")));
      }
    if (parts.empty()) parts.push_back(fmt::format("VBIOS of {} GPU(s) recorded", in.nvml->gpus.size()));
  } else {
    raise(c.status, Status::kNeedsEvidence);
    parts.push_back("VBIOS versions need NVML (" + in.nvml_error + ")");
  }
  auto att = in.attached.find("firmware.versions");
  if (att == in.attached.end()) {
    raise(c.status, Status::kNeedsEvidence);
    parts.push_back(
        "BMC and ME versions and the update path cannot be read from the host: attach `ipmitool mc info` output (BMC "
        "firmware), the ME version (e.g. from the BMC web page or `dmidecode`), and the vendor's documented firmware "
        "update path with --attach firmware.versions=FILE");
  } else {
    c.evidence.push_back("attached: " + att->second);
    parts.push_back("BMC/ME versions and update path attached (" + att->second + ")");
  }
  c.detail = join(parts) + ".";
}

// G10 -------------------------------------------------------------------------------------------
void check_performance(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.images_per_s)
    return needs(
        c, "No benchmark figure: pass --benchmark FILE with the output of ResNet-50 training at batch 256 (images/s).");
  const double min = cat.threshold("accept.performance.min_images_per_s_per_gpu");
  size_t gpus = in.nvml && !in.nvml->gpus.empty() ? in.nvml->gpus.size() : pci_gpus(in).size();
  if (gpus == 0 && in.expected_gpus) gpus = static_cast<size_t>(*in.expected_gpus);
  if (gpus == 0) return needs(c, "Benchmark figure given, but the GPU count is unknown: pass --gpus N.");
  const double per_gpu = *in.images_per_s / static_cast<double>(gpus);
  c.evidence.push_back(fmt::format("{}: {} images/s", in.benchmark_source.empty() ? "benchmark" : in.benchmark_source,
                                   num(*in.images_per_s, 1)));
  c.status = per_gpu < min ? Status::kFail : Status::kPass;
  c.detail = fmt::format(
      "{} images/s ÷ {} GPUs = {} images/s per GPU, {} the clause's {} (ResNet-50 training, batch 256){}.",
      num(*in.images_per_s), gpus, num(per_gpu, per_gpu == std::floor(per_gpu) ? 0 : 1),
      per_gpu < min ? "below" : "at or above", num(min), per_gpu < min ? ": the vendor replaces or compensates" : "");
}

// G11 -------------------------------------------------------------------------------------------
void check_firmware_hashes(const AcceptInputs& in, const Catalog&, Check& c) {
  if (in.firmware.empty())
    return needs(c,
                 "No firmware images: pass --firmware FILE (VBIOS, BMC, RAID images) and --checksums FILE (the "
                 "vendor's sha256 list).");
  c.status = Status::kPass;
  std::vector<std::string> problems;
  int matched = 0;
  for (const auto& img : in.firmware) {
    const std::string name = base_name(img.path);
    const std::string got = lower(img.sha256);
    auto it = in.expected_sha256.find(name);
    if (it == in.expected_sha256.end()) {
      raise(c.status, Status::kWarn);
      c.evidence.push_back(fmt::format("{} sha256 {} (no vendor checksum)", img.path, got));
      problems.push_back(
          fmt::format("{} has no vendor checksum{}", name, in.checksum_file.empty() ? "" : " in " + in.checksum_file));
    } else if (lower(it->second) != got) {
      raise(c.status, Status::kFail);
      c.evidence.push_back(
          fmt::format("{} sha256 {}, vendor {} ({})", img.path, got, lower(it->second), in.checksum_file));
      problems.push_back(fmt::format("{} sha256 {} does not match the vendor's {}", name, got, lower(it->second)));
    } else {
      ++matched;
      c.evidence.push_back(fmt::format("{} sha256 {} matches {}", img.path, got,
                                       in.checksum_file.empty() ? "the vendor checksum" : in.checksum_file));
    }
  }
  c.detail = problems.empty() ? fmt::format("All {} firmware image(s) match the vendor's sha256.", matched)
                              : join(problems) + fmt::format(" ({} of {} matched).", matched, in.firmware.size());
}

// G12 -------------------------------------------------------------------------------------------
void check_health_archive(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.archive)
    return needs(
        c,
        "No health archive: pass --archive FILE (nvidia-smi dmon -s pmue -d 5 output: p power and temperature, m "
        "memory, u utilization, e ECC; SPEC G12's -s mu records no power, temperature or ECC; or an nvidia-smi CSV "
        "log with those columns).");
  const LogSummary& log = *in.archive;
  const double max_interval = cat.threshold("accept.archive.max_interval_s");
  summary_evidence(log, c.evidence);
  if (log.gpus.empty()) return needs(c, fmt::format("The archive {} holds no samples.", log.file));
  c.status = Status::kPass;
  std::vector<std::string> problems;
  bool any_ecc = false;
  for (const auto& g : log.gpus) {
    if (g.samples >= 2) {
      double interval = (g.last_ms - g.first_ms) / 1000.0 / static_cast<double>(g.samples - 1);
      if (interval > max_interval + 1e-9) {
        raise(c.status, Status::kWarn);
        problems.push_back(fmt::format("{} sampled every {} s on average, not every {} s", g.gpu, num(interval, 1),
                                       num(max_interval)));
      }
    }
    if (g.ecc_uncorrected_last || g.ecc_corrected_last) any_ecc = true;
    if (g.ecc_uncorrected_first_rise_ms) {
      raise(c.status, Status::kFail);
      problems.push_back(fmt::format("{} uncorrected ECC rose from {} to {}, first at {}", g.gpu,
                                     num(g.ecc_uncorrected_first.value_or(0)), num(g.ecc_uncorrected_last.value_or(0)),
                                     clock_time(*g.ecc_uncorrected_first_rise_ms)));
    }
    if (g.ecc_corrected_first_rise_ms) {
      raise(c.status, Status::kWarn);
      problems.push_back(fmt::format("{} corrected ECC rose from {} to {}, first at {}", g.gpu,
                                     num(g.ecc_corrected_first.value_or(0)), num(g.ecc_corrected_last.value_or(0)),
                                     clock_time(*g.ecc_corrected_first_rise_ms)));
    }
  }
  // G12 keeps memory, power and temperature besides ECC: name what the archive lacks.
  std::vector<std::string> missing;
  auto lacks = [&](auto has_metric, const char* metric) {
    if (std::any_of(log.gpus.begin(), log.gpus.end(), [&](const GpuLogSummary& g) { return !has_metric(g); }))
      missing.push_back(metric);
  };
  lacks([](const GpuLogSummary& g) { return g.memory_first_mib.has_value(); }, "memory");
  lacks([](const GpuLogSummary& g) { return g.power_samples > 0; }, "power");
  lacks([](const GpuLogSummary& g) { return g.max_temperature_c.has_value(); }, "temperature");
  if (!missing.empty()) {
    raise(c.status, Status::kWarn);
    problems.push_back(fmt::format("the archive lacks {} samples for some GPUs (G12 keeps memory, power, "
                                   "temperature and ECC: nvidia-smi dmon -s pmue -d 5)",
                                   fmt::join(missing, ", ")));
  }
  if (!any_ecc) {
    raise(c.status, Status::kWarn);
    problems.push_back(
        "the archive holds no ECC counts (record them: nvidia-smi dmon -s pmue -d 5; -s mu records no power, "
        "temperature or ECC)");
  }
  judge_skipped(log, cat, c.status, problems);
  c.detail = problems.empty() ? fmt::format("{} GPUs over {} h, samples every {} s or less, ECC counts steady.",
                                            log.gpus.size(), num(log.hours(), 1), num(max_interval))
                              : join(problems) + ".";
}

// Xid -------------------------------------------------------------------------------------------
void check_xid(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.kernel_log) return needs(c, "No kernel log: run on the server, or pass --kernel-log FILE (dmesg output).");
  c.status = Status::kPass;
  std::map<std::string, int> counts;  // "Xid 79 (fail)" → times
  std::vector<std::string> ev;
  for (const auto& e : in.kernel_log->events) {
    if (e.kind != probe::KernelEventKind::kXid && e.kind != probe::KernelEventKind::kSxid) continue;
    const bool sxid = e.kind == probe::KernelEventKind::kSxid;
    const char* label = sxid ? "SXid" : "Xid";
    const Entry* known = nullptr;
    for (const Entry* x : cat.of_kind("xid"))
      if (e.code && x->number("code") == *e.code && x->text("scope") == (sxid ? "nvswitch" : "gpu")) known = x;
    std::string severity = known ? known->text("severity") : "warn";
    raise(c.status, severity == "fail" ? Status::kFail : severity == "warn" ? Status::kWarn : Status::kPass);
    std::string code = e.code ? std::to_string(*e.code) : "?";
    ++counts[fmt::format("{} {} ({})", label, code, known ? severity : "unknown code")];
    ev.push_back(fmt::format("{}:{}: {} {} {}: {} → action {}", log_name(in), e.line, e.device.empty() ? "?" : e.device,
                             label, code, known ? known->text("meaning") : "not in the catalog's Xid list",
                             known ? known->text("action") : "inspect"));
  }
  add_capped(c.evidence, ev);
  const std::string log_problem = judge_kernel_log(in, cat, c.status);
  if (counts.empty()) {
    c.detail = fmt::format("No Xid or SXid events in {} ({} lines).", log_name(in), in.kernel_log->lines);
  } else {
    std::vector<std::string> parts;
    for (const auto& [k, n] : counts) parts.push_back(fmt::format("{} × {}", n, k));
    c.detail = fmt::format("{} in {}.", join(parts, ", "), log_name(in));
  }
  if (!log_problem.empty()) c.detail += " " + log_problem;
}

// ECC -------------------------------------------------------------------------------------------
void check_ecc(const AcceptInputs& in, const Catalog& cat, Check& c) {
  if (!in.nvml)
    return needs(c, "No NVML facts (" + in.nvml_error +
                        "): run on the server with the NVIDIA driver, or pass --root SNAPSHOT with nvml.json.");
  const double max_corrected = cat.threshold("accept.ecc.max_corrected");
  c.status = Status::kPass;
  std::vector<std::string> problems;
  for (const auto& g : in.nvml->gpus) {
    const auto& d = g.now;
    auto v = [](const auto& o) { return o ? std::to_string(*o) : std::string("?"); };
    auto b = [](const std::optional<bool>& o) { return o ? (*o ? "yes" : "no") : "?"; };
    std::string who = fmt::format("GPU {} ({})", g.info.index, g.info.pci_bus_id);
    c.evidence.push_back(fmt::format(
        "{}: ECC {}; uncorrected volatile {} aggregate {}; corrected volatile {} aggregate {}; retired pages "
        "SBE {} DBE {} pending {}; remapped rows correctable {} uncorrectable {} pending {} failed {}",
        who, b(d.ecc_enabled), v(d.ecc_volatile_uncorrected), v(d.ecc_aggregate_uncorrected),
        v(d.ecc_volatile_corrected), v(d.ecc_aggregate_corrected), v(d.retired_pages_sbe), v(d.retired_pages_dbe),
        b(d.retired_pages_pending), v(d.remapped_rows_correctable), v(d.remapped_rows_uncorrectable),
        b(d.remapping_pending), b(d.remapping_failed)));
    uint64_t uncorrected = std::max(d.ecc_volatile_uncorrected.value_or(0), d.ecc_aggregate_uncorrected.value_or(0));
    uint64_t corrected = std::max(d.ecc_volatile_corrected.value_or(0), d.ecc_aggregate_corrected.value_or(0));
    auto fail = [&](std::string what) {
      raise(c.status, Status::kFail);
      problems.push_back(who + " " + what);
    };
    if (uncorrected > 0) fail(fmt::format("has {} uncorrected ECC errors", uncorrected));
    if (d.retired_pages_dbe.value_or(0) > 0)
      fail(fmt::format("retired {} pages for double-bit errors", *d.retired_pages_dbe));
    if (d.retired_pages_pending.value_or(false)) fail("has page retirement pending (needs a reset)");
    if (d.remapping_failed.value_or(false)) fail("failed a row remapping (the memory is out of spare rows)");
    if (d.remapping_pending.value_or(false)) {
      raise(c.status, Status::kWarn);
      problems.push_back(who + " has a row remapping pending (reset the GPU to apply it)");
    }
    if (static_cast<double>(corrected) > max_corrected) {
      raise(c.status, Status::kWarn);
      problems.push_back(fmt::format("{} corrected {} ECC errors (allowed {})", who, corrected, num(max_corrected)));
    }
    if (d.ecc_enabled && !*d.ecc_enabled) {
      raise(c.status, Status::kWarn);
      problems.push_back(who + " has ECC disabled");
    }
  }
  c.detail =
      problems.empty()
          ? fmt::format("{} GPU(s): no uncorrected ECC errors, no retired or pending pages, no failed remapping.",
                        in.nvml->gpus.size())
          : join(problems) + ".";
}

// GPU count -------------------------------------------------------------------------------------
void check_gpu_count(const AcceptInputs& in, const Catalog&, Check& c) {
  std::optional<size_t> pci, nvml;
  if (in.facts) pci = pci_gpus(in).size();
  if (in.nvml) nvml = in.nvml->gpus.size();
  std::optional<size_t> expected;
  if (in.expected_gpus) expected = static_cast<size_t>(*in.expected_gpus);
  if (!pci && !nvml)
    return needs(c, "Neither the PCI bus nor NVML was read: run on the server or pass --root SNAPSHOT.");
  auto str = [](const std::optional<size_t>& n) { return n ? std::to_string(*n) : std::string("unknown"); };
  c.evidence.push_back(fmt::format("PCI bus: {} GPUs; NVML: {} GPUs; expected: {}", str(pci), str(nvml),
                                   expected ? std::to_string(*expected) : "not given (--gpus)"));
  // "8 on the PCI bus, 8 seen by NVML, 8 expected", naming only the counts that are known.
  std::vector<std::string> parts;
  if (pci) parts.push_back(fmt::format("{} on the PCI bus", *pci));
  if (nvml) parts.push_back(fmt::format("{} seen by NVML", *nvml));
  if (expected) parts.push_back(fmt::format("{} expected", *expected));
  std::set<size_t> counts;
  for (const auto& n : {pci, nvml, expected})
    if (n) counts.insert(*n);
  if (counts.size() == 1 && *counts.begin() == 0) {
    c.status = Status::kFail;
    c.detail = "No GPU found.";
    return;
  }
  if (counts.size() > 1) {
    c.status = Status::kFail;
    c.detail = "GPU counts disagree: " + join(parts, ", ") + ".";
    return;
  }
  c.status = Status::kPass;
  c.detail = "GPUs: " + join(parts, ", ") + (expected ? "." : "; pass --gpus N to check the count the contract names.");
}

struct CheckDef {
  const char* id;
  const char* source;
  const char* title;
  void (*run)(const AcceptInputs&, const Catalog&, Check&);
};

// The acceptance checks, in report order (accept.h promises this order).
const CheckDef kChecks[] = {
    {"soak", "SPEC §G1 [S1 §5 #1]", "72-hour soak under load (G1)", check_soak},
    {"pcie.topology", "SPEC §G2 [S1 §5 #2]", "PCIe topology: CPU-direct x16, no shared uplinks (G2)",
     check_pcie_topology},
    {"pcie.aer", "SPEC §G3 [S1 §5 #3]", "PCIe/NVMe AER errors (G3)", check_pcie_aer},
    {"infiniband", "SPEC §G4 [S1 §5 #4]", "InfiniBand: ports, subnet manager, adaptive routing (G4)", check_infiniband},
    {"versions", "SPEC §G5 [S1 §5 #5]; catalog software matrix", "Driver, CUDA and NCCL versions (G5)", check_versions},
    {"load", "SPEC §G6 [S1 §5 #6]", "24-hour real-load test: memory growth, PCIe errors, NVMe wear (G6)", check_load},
    {"pcie.aspm", "SPEC §G7 [S1 §5 #7]", "PCIe ASPM disabled (G7)", check_pcie_aspm},
    {"iommu", "SPEC §G8 [S1 §5 #8]", "IOMMU on, each GPU alone in its group (G8)", check_iommu},
    {"firmware.versions", "SPEC §G9 [S1 §5 #9]", "Firmware versions and update path (G9)", check_firmware_versions},
    {"performance", "SPEC §G10 [S1 §5 #10]", "Performance clause: ResNet-50 images/s per GPU (G10)", check_performance},
    {"firmware.hashes", "SPEC §G11 [S1 §5 #11]", "Firmware image hashes against the vendor's checksums (G11)",
     check_firmware_hashes},
    {"health.archive", "SPEC §G12 [S1 §5 #12]", "Health archive: 5-second samples, ECC trend (G12)",
     check_health_archive},
    {"xid", "NVIDIA Xid catalog; SPEC §G3, §H", "Xid / SXid errors in the kernel log", check_xid},
    {"ecc", "NVML ECC, page retirement and row remapping; SPEC §G12, §H6", "GPU memory ECC health", check_ecc},
    {"gpu.count", "SPEC §G (every GPU paid for is present)", "GPU count: PCI bus, NVML, contract", check_gpu_count},
};

}  // namespace

AcceptReport run_acceptance(const AcceptInputs& in, const Catalog& catalog) {
  AcceptReport report;
  report.host = !in.host.empty() ? in.host : in.facts ? in.facts->hostname : "";
  for (const CheckDef& def : kChecks) {
    Check c;
    c.id = def.id;
    c.title = def.title;
    c.source = def.source;
    def.run(in, catalog, c);
    if (c.status == Status::kFail) report.passed = false;
    report.checks.push_back(std::move(c));
  }
  return report;
}

}  // namespace gpuplan::accept
