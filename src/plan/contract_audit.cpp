#include "plan/contract_audit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "core/money.h"
#include "core/units.h"
#include "core/version.h"
#include "plan/software_matrix.h"

namespace gpuplan::plan {
namespace {

using catalog::Catalog;
using catalog::Entry;

// Catalog kinds a line may name that are services, not hardware: they draw no power, so
// contract.rack passes over them without calling them uncounted.
const char* const kServiceKinds[] = {"licence", "support", "cluster_manager", "software_image"};

bool is_service(const Entry& e) {
  return std::any_of(std::begin(kServiceKinds), std::end(kServiceKinds), [&](const char* k) { return e.kind == k; });
}

std::string at(const VendorQuote& q, int line) {
  return q.file + ":" + std::to_string(line);
}

// A term as quoted in a finding: one too long to read (kMaxTermBytes) is cut at a character
// boundary, so that a 50 kB term does not print 50 kB.
std::string quoted(const std::string& text) {
  const size_t kQuoteBytes = 120;  // about a line of the report
  if (text.size() <= kMaxTermBytes) return text;
  size_t cut = kQuoteBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return text.substr(0, cut) + "…";
}

// A finding about the term written under `field`, naming it as written and where.
Finding term_finding(const VendorQuote& q, const std::string& field, const char* id, Severity s,
                     const std::string& variant, const char* source) {
  Finding f = make_finding(id, s, variant, source);
  auto it = q.terms.written.find(field);
  const WrittenTerm w = it == q.terms.written.end() ? WrittenTerm{} : it->second;
  f.fact("field", field).fact("term", quoted(w.text)).fact("at", at(q, w.line));
  return f;
}

// A written figure as written: "8", "2.5".
std::string figure(double v) {
  return format_figure(v, 1);
}

std::string hours_text(double h) {
  return figure(h) + " h";
}

// Lowercase letters and digits only: "TensorRT-LLM" and "tensorrt llm" name the same module.
std::string folded(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

// contract.driver: the written driver against the software matrix's minimum and the CUDA it must run.
void judge_driver(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ContractTerms& t = q.terms;
  // A driver that is not a version ("latest") is the parser's to report, never a version 0 here.
  if (!t.driver || t.driver->empty() || !std::isdigit(static_cast<unsigned char>(t.driver->front()))) return;
  std::map<std::string, std::string> versions{{"driver", *t.driver}};
  if (t.cuda) versions["cuda"] = *t.cuda;
  const Finding* below = nullptr;
  const Finding* cuda = nullptr;
  const std::vector<Finding> matrix = judge_versions(versions, cat);
  for (const Finding& m : matrix) {
    if (m.variant == "below_min" && *m.find_fact("component") == "driver") below = &m;
    if (m.variant == "cuda_driver") cuda = &m;
  }
  if (!below && !cuda) return;
  const char* source = "S0 §3.4; nvidia-cuda-compatibility";
  Finding f = term_finding(q, "driver", "contract.driver", Severity::kFail, below ? "below_min" : "cuda", source);
  if (below) f.fact("min", *below->find_fact("min")).fact("as_of", *below->find_fact("as_of"));
  if (cuda) {
    Phrase p("contract.note.driver_cuda");
    p.fact("cuda", *cuda->find_fact("cuda")).fact("major", *cuda->find_fact("major"));
    p.fact("min_driver", *cuda->find_fact("min_driver"));
    if (below)
      f.note(p);
    else
      f.fact("cuda", *cuda->find_fact("cuda"))
          .fact("major", *cuda->find_fact("major"))
          .fact("min_driver", *cuda->find_fact("min_driver"));
  }
  out.push_back(std::move(f));
}

// contract.rack: the circuit's continuous capacity against the quoted server's peak draw.
void judge_rack(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  if (!q.terms.rack) return;
  const RackTerm& rack = *q.terms.rack;
  const char* source = "S0 §3.3";
  std::optional<double> volts = rack.voltage_v;
  const Entry* standard = cat.find("threshold", "rack.default_volts");
  if (!volts && standard) volts = standard->number("value");
  if (!volts) {
    out.push_back(term_finding(q, "rack", "contract.rack", Severity::kWarn, "no_voltage", source));
    return;
  }
  const QuotedPower power = quoted_server_power(q, cat);
  const double peak = power.budget.peak_w();
  if (peak <= 0) {
    out.push_back(term_finding(q, "rack", "contract.rack", Severity::kWarn, "no_power", source));
    return;
  }
  const double fraction = cat.threshold("rack.continuous_fraction");
  const double capacity = rack.current_a * *volts;
  const double continuous = capacity * fraction;
  if (peak <= continuous) return;
  // As power.rack judges the same peak: over the breaker's rating fails, over the continuous-load
  // share only warns. With no platform line the whole quote is taken as one server: an
  // assumption, so it warns.
  Finding f = !power.platform_priced ? term_finding(q, "rack", "contract.rack", Severity::kWarn, "over_assumed", source)
              : peak > capacity      ? term_finding(q, "rack", "contract.rack", Severity::kFail, "over", source)
                                     : term_finding(q, "rack", "contract.rack", Severity::kWarn, "near", source);
  f.fact("amps", figure(rack.current_a))
      .fact("volts", figure(*volts))
      .fact("capacity", format_watts(capacity))
      .fact("continuous", format_watts(continuous))
      .fact("fraction", format_number(fraction * 100) + "%")
      .fact("peak", format_watts(peak))
      .fact("gpu_draw", format_watts(power.budget.gpus_w));
  if (!rack.voltage_v)
    f.note(Phrase("contract.note.rack_voltage")
               .fact("volts", figure(*volts))
               .fact("source", standard->source, standard->display_source_zh()));
  if (!power.not_counted.empty()) f.note(Phrase("contract.note.not_counted").fact(list_of("items", power.not_counted)));
  out.push_back(std::move(f));
}

// contract.bandwidth: metered public traffic, priced at the catalog's egress price.
void judge_bandwidth(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  const auto& bw = q.terms.public_bandwidth;
  if (!bw || bw->billing != Billing::kMetered) return;
  const double price_gb = cat.threshold("egress.price_gb");
  const char* source = "S0 §2.3; S1 §4";
  // 1 TB = 1,000 GB, as [S1 §4] prices 100 TB at ¥0.8/GB ≈ ¥80,000.
  const double per_tb = price_gb * 1000;
  Finding f = term_finding(q, "public_bandwidth", "contract.bandwidth", Severity::kWarn,
                           bw->traffic_tb_month ? "metered" : "metered_no_volume", source);
  f.fact("price_gb", format_money(price_gb, "CNY", 1)).fact("per_tb", format_money(per_tb, "CNY"));
  if (bw->traffic_tb_month)
    f.fact("tb", figure(*bw->traffic_tb_month)).fact("monthly", format_money(*bw->traffic_tb_month * per_tb, "CNY"));
  out.push_back(std::move(f));
}

// The support tier the quote prices: its first line naming a catalog support entry.
const Entry* priced_tier(const VendorQuote& q, const Catalog& cat) {
  for (const VendorLine& line : q.lines)
    if (const Entry* e = line.part.empty() ? nullptr : cat.find("support", line.part)) return e;
  return nullptr;
}

// The catalog's basic tier: the one that costs nothing over basic warranty (the cheapest).
const Entry* basic_tier(const Catalog& cat) {
  const Entry* best = nullptr;
  for (const Entry* e : cat.of_kind("support"))
    if (!best || e->range("per_year").low < best->range("per_year").low) best = e;
  return best;
}

// contract.service: response and MTTR against the priced tier, the penalty, the service hours.
void judge_service(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  const ServiceTerms& s = q.terms.service;
  const char* source = "S1 §3";
  const Entry* priced = priced_tier(q, cat);
  const Entry* tier = priced ? priced : basic_tier(cat);
  auto against = [&](const std::optional<double>& written, const char* field, const char* tier_key, const char* variant,
                     const char* basic_variant) {
    if (!written || !tier || *written <= tier->number(tier_key)) return;
    // Worse than what the quote pays for fails; with no tier priced, the basic tier is only a
    // yardstick the buyer may not have asked for, so it warns.
    Finding f = term_finding(q, field, "contract.service", priced ? Severity::kFail : Severity::kWarn,
                             priced ? variant : basic_variant, source);
    f.fact("written", hours_text(*written))
        .fact("tier_h", hours_text(tier->number(tier_key)))
        .fact("tier", tier->name, tier->display_name_zh());
    out.push_back(std::move(f));
  };
  against(s.response_h, "service.response_h", "response_h", "response", "response_basic");
  against(s.mttr_h, "service.mttr_h", "fix_h", "mttr", "mttr_basic");
  if (s.penalty && s.penalty->none)
    out.push_back(term_finding(q, "service.penalty", "contract.service", Severity::kFail, "no_penalty", source));
  else if (s.penalty && !s.penalty->has_amount)
    out.push_back(term_finding(q, "service.penalty", "contract.service", Severity::kWarn, "penalty_no_amount", source));
  if (s.hours == ServiceHours::k5x8 && priced && priced->has("hours") && priced->text("hours") == "7x24") {
    Finding f = term_finding(q, "service.hours", "contract.service", Severity::kWarn, "hours", source);
    f.fact("tier", priced->name, priced->display_name_zh());
    out.push_back(std::move(f));
  }
}

// A version written as a year ("2022") rather than a release number.
bool is_year(const std::string& v) {
  return v.size() == 4 && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
}

// contract.licence: a licence's release against the catalog's supported releases, and its modules
// against those LLM inference needs. Both warn, never fail: a subscription usually entitles the
// buyer to the current releases, and the catalog's list of supported releases is dated and ages,
// so an old release number is a question for the vendor rather than proof of a useless licence
// (a false fail is worse than a missing check).
void judge_licences(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  const char* source = "S1 §3";
  for (const VendorLicence& l : q.licences) {
    const Entry* entry = nullptr;
    for (const Entry* e : cat.of_kind("licence"))
      if (folded(l.name).find(folded(e->name)) != std::string::npos || folded(l.name) == folded(e->id)) entry = e;
    if (!entry || !l.version) continue;  // no version: audit.licence already fails it
    const std::string& v = *l.version;
    const std::string as_written = l.name + " " + v;
    bool old = false;
    if (is_year(v) && entry->has("supported_from_year"))
      old = std::stod(v) < entry->number("supported_from_year");
    else if (!v.empty() && !is_year(v) && entry->has("supported_from") &&
             std::isdigit(static_cast<unsigned char>(v.front())))
      old = compare_versions(v, entry->text("supported_from")) < 0;
    std::vector<std::string> missing;
    for (const std::string& needed : entry->list("llm_inference_modules"))
      if (std::none_of(l.modules.begin(), l.modules.end(),
                       [&](const std::string& m) { return folded(m) == folded(needed); }))
        missing.push_back(needed);
    if (l.modules.empty()) missing.clear();  // no modules at all: audit.licence already warns
    if (!old && missing.empty()) continue;
    // One finding per licence: an old release that also lacks a module says so in a note.
    Finding f = make_finding("contract.licence", Severity::kWarn, old ? "old_release" : "missing_module", source);
    f.fact("term", as_written).fact("at", at(q, l.line));
    if (old) {
      f.fact("supported_from", entry->text("supported_from"))
          .fact("year", std::to_string(static_cast<int>(entry->opt_number("supported_from_year").value_or(0))));
      if (!missing.empty())
        f.note(Phrase("contract.note.licence_missing")
                   .fact(list_of("modules", l.modules))
                   .fact(list_of("missing", missing)));
    } else {
      f.fact(list_of("modules", l.modules)).fact(list_of("missing", missing));
    }
    out.push_back(std::move(f));
  }
}

// The GPUs the quote's lines price: catalog gpu id → quantity.
std::map<std::string, double> quoted_gpus(const VendorQuote& q, const Catalog& cat) {
  std::map<std::string, double> gpus;
  for (const VendorLine& line : q.lines)
    if (!line.part.empty() && cat.find("gpu", line.part)) gpus[line.part] += line.qty;
  return gpus;
}

// The quote's GPU: the contract's model, else the quote's `gpu`, else its only GPU line.
const Entry* quote_gpu(const VendorQuote& q, const Catalog& cat) {
  if (q.terms.gpu && !q.terms.gpu->model.empty()) return cat.find("gpu", q.terms.gpu->model);
  if (!q.gpu.empty()) return cat.find("gpu", q.gpu);
  const auto gpus = quoted_gpus(q, cat);
  return gpus.size() == 1 ? cat.find("gpu", gpus.begin()->first) : nullptr;
}

// contract.performance: the clause's per-GPU figure against the catalog's for the quote's GPU.
void judge_performance(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  const auto& perf = q.terms.performance;
  if (!perf || perf->min_images_per_gpu <= 0) return;  // missing: contract.performance_clause
  const Entry* gpu = quote_gpu(q, cat);
  if (!gpu || !gpu->has("resnet50_images_per_s")) return;
  const double reference = gpu->number("resnet50_images_per_s");
  if (perf->min_images_per_gpu >= reference) return;
  Finding f = term_finding(q, "performance", "contract.performance", Severity::kWarn, "", "S1 §5 #10");
  f.fact("written", figure(perf->min_images_per_gpu))
      .fact("reference", format_number(reference))
      .fact("gpu", gpu->name, gpu->display_name_zh());
  out.push_back(std::move(f));
}

// contract.gpu: the contract's model and count against the GPUs the quote prices.
void judge_gpu(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  if (!q.terms.gpu || q.terms.gpu->model.empty()) return;
  const GpuTerm& g = *q.terms.gpu;
  const char* source = "S0 §5";
  const auto lines = quoted_gpus(q, cat);
  std::vector<std::string> quoted;
  for (const auto& [id, qty] : lines) quoted.push_back(id);
  if (quoted.empty() && !q.gpu.empty()) quoted.push_back(q.gpu);
  if (!quoted.empty() && (quoted.size() > 1 || quoted.front() != g.model)) {
    Finding f = term_finding(q, "gpu", "contract.gpu", Severity::kFail, "model", source);
    f.fact("model", g.model).fact(list_of("quoted", quoted));
    out.push_back(std::move(f));
    return;
  }
  if (!g.count) return;
  const double servers = quoted_server_power(q, cat).servers;
  const double per_server = (lines.empty() ? q.gpus : lines.begin()->second) / servers;
  if (per_server == *g.count) return;
  // With no platform line the count of servers (one) is assumed: the quote may price several.
  const bool assumed = !quoted_server_power(q, cat).platform_priced;
  Finding f = term_finding(q, "gpu", "contract.gpu", assumed ? Severity::kWarn : Severity::kFail,
                           assumed ? "count_assumed" : "count", source);
  f.fact("count", std::to_string(*g.count)).fact("quoted", figure(per_server));
  out.push_back(std::move(f));
}

}  // namespace

QuotedPower quoted_server_power(const VendorQuote& q, const Catalog& cat) {
  QuotedPower p;
  double platforms = 0;
  for (const VendorLine& line : q.lines)
    if (!line.part.empty() && cat.find("platform", line.part)) platforms += line.qty;
  if (platforms > 0) {
    p.servers = platforms;
    p.platform_priced = true;
  }
  const Entry* platform = nullptr;
  for (const VendorLine& line : q.lines) {
    const Entry* part = line.part.empty() ? nullptr : cat.find(line.part);
    if (part && is_service(*part)) continue;
    if (part && part->kind == "platform") platform = part;
    if (!part || !add_part_power(p.budget, *part, line.qty / p.servers)) p.not_counted.push_back(line.item);
  }
  // The same system-level figure as `gpuplan quote`, so a quote and its audit agree on the peak.
  set_system_power(p.budget, platform, cat);
  return p;
}

void judge_contract_terms(const VendorQuote& q, const Catalog& cat, std::vector<Finding>& out) {
  judge_driver(q, cat, out);
  judge_rack(q, cat, out);
  judge_bandwidth(q, cat, out);
  judge_service(q, cat, out);
  judge_licences(q, cat, out);
  judge_performance(q, cat, out);
  judge_gpu(q, cat, out);
  for (const std::string& field : q.terms.unparsed)
    out.push_back(term_finding(q, field, "contract.unparsed", Severity::kWarn, "", "S0 §5"));
}

}  // namespace gpuplan::plan
