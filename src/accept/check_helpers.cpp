#include "accept/check_helpers.h"

#include <fmt/format.h>

#include "core/dates.h"
#include "core/money.h"

namespace gpuplan::accept::detail {

namespace {

// More evidence lines than this are summarised as "… N more": a flapping link can log thousands.
constexpr size_t kMaxEvidence = 20;

}  // namespace

std::string num(double v, int decimals) {
  return format_number(v, decimals);
}

std::string count(int64_t v) {
  return format_number(static_cast<double>(v));
}

std::string percent(double share) {
  return num(share * 100, 1) + "%";
}

std::string clock_time(int64_t ms) {
  return civil_from_ms(ms).date_time();
}

Phrase phrase(const char* key) {
  return Phrase(key);
}

void add_capped(std::vector<Phrase>& evidence, const std::vector<Phrase>& lines) {
  for (size_t i = 0; i < lines.size() && i < kMaxEvidence; ++i) evidence.push_back(lines[i]);
  if (lines.size() > kMaxEvidence)
    evidence.push_back(phrase("accept.ev.more").fact("count", std::to_string(lines.size() - kMaxEvidence)));
}

void needs(Finding& c, Phrase what) {
  c.severity = Severity::kNeedsEvidence;
  c.note(std::move(what));
}

std::string log_name(const AcceptInputs& in) {
  return in.kernel_log_source.empty() ? "—" : in.kernel_log_source;
}

namespace {

// One log of the kernel log: a log in no known form leaves its events unread (needs evidence);
// one with too many malformed lines may hide events in them (warn).
void judge_log_part(const probe::KernelLogPart& part, double max_share, Finding& c) {
  const size_t malformed = part.malformed_lines.size();
  if (part.format == probe::KernelLogFormat::kUnknown) {
    escalate(c.severity, Severity::kNeedsEvidence);
    if (malformed == 0)
      c.note(phrase("accept.klog.empty").fact("log", part.source).fact("lines", std::to_string(part.lines)));
    else
      c.note(phrase("accept.klog.unreadable")
                 .fact("log", part.source)
                 .fact("malformed", std::to_string(malformed))
                 .fact("lines", std::to_string(part.lines)));
    return;
  }
  if (part.lines <= 0) return;
  const double share = static_cast<double>(malformed) / part.lines;
  if (share <= max_share) return;
  escalate(c.severity, Severity::kWarn);
  c.note(phrase("accept.klog.malformed")
             .fact("log", part.source)
             .fact("malformed", std::to_string(malformed))
             .fact("lines", std::to_string(part.lines))
             .fact("share", percent(share))
             .fact("allowed", percent(max_share))
             .fact("format", probe::kernel_log_format_name(part.format)));
}

}  // namespace

void judge_kernel_log(const AcceptInputs& in, const Catalog& cat, Finding& c) {
  if (!in.kernel_log) return;
  const probe::KernelLog& log = *in.kernel_log;
  const double max_share = cat.threshold("accept.kernel_log.max_malformed_share");
  // Each log on its own (a rotated kern.log.2.gz in no known form is not made good by a readable
  // /dev/kmsg); a log built without parts is judged whole.
  std::vector<probe::KernelLogPart> parts = log.parts;
  if (parts.empty()) parts.push_back({"", log.format, log.lines, log.malformed_lines});
  for (auto& part : parts) {
    if (part.source.empty() || parts.size() == 1) part.source = log_name(in);
    judge_log_part(part, max_share, c);
  }
}

std::vector<const PciDevice*> pci_gpus(const AcceptInputs& in) {
  return in.facts ? in.facts->pci.of_kind(PciKind::kGpu) : std::vector<const PciDevice*>{};
}

std::string nvml_gpu(const nvml::GpuFacts& g) {
  return fmt::format("GPU {} ({})", g.info.index, g.info.pci_bus_id);
}

std::string base_name(std::string_view path) {
  size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

Phrase contract_term_note(const char* key, const plan::VendorQuote& contract, const std::string& field) {
  const auto it = contract.terms.written.find(field);
  const bool written = it != contract.terms.written.end();
  return phrase(key)
      .fact("text", written ? it->second.text : "—")
      .fact("where", contract.file + (written ? ":" + std::to_string(it->second.line) : ""));
}

Phrase quoted_line(const std::string& file, int64_t line, const std::string& text) {
  return phrase("accept.ev.line").fact("file", file).fact("line", std::to_string(line)).fact("text", text);
}

}  // namespace gpuplan::accept::detail
