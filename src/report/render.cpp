#include "report/render.h"

#include <cmath>

#include "core/money.h"
#include "report/plan_documents.h"

namespace gpuplan::report {
namespace {

using nlohmann::json;
using plan::Quote;

}  // namespace

std::optional<Format> parse_format(std::string_view s) {
  if (s == "table") return Format::kTable;
  if (s == "json") return Format::kJson;
  if (s == "md") return Format::kMarkdown;
  if (s == "html") return Format::kHtml;
  return std::nullopt;
}

json range_json(const Range& r) { return {{"low", r.low}, {"high", r.high}}; }
json money_json(double amount) { return round_to_fen(amount); }
json money_range_json(const Range& r) { return {{"low", money_json(r.low)}, {"high", money_json(r.high)}}; }

json rounded_figures(json j) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) return j;
    const double rounded = std::round(v * 1e4) / 1e4;
    return rounded == 0 ? 0.0 : rounded;  // no "-0.0"
  }
  if (j.is_structured())
    for (auto& item : j) item = rounded_figures(std::move(item));
  return j;
}

json config_json(const plan::ServerConfig& c) {
  auto part = [](const plan::PartCount& p) { return json{{"part", p.part}, {"count", p.count}}; };
  json nics = json::array();
  for (const auto& n : c.nics) nics.push_back(part(n));
  json j = {{"name", c.name},
            {"task", plan::task_name(c.task)},
            {"gpu", c.gpu},
            {"gpus", c.gpus},
            {"nodes", c.nodes},
            {"platform", c.platform},
            {"cpu", c.cpu},
            {"cpu_sockets", c.cpu_sockets},
            {"memory", {{"module", c.memory.part}, {"count", c.memory.count}}},
            {"system_disk", part(c.system_disk)},
            {"data_disk", part(c.data_disk)},
            {"nics", nics},
            {"switch", c.network_switch ? part(*c.network_switch) : json(nullptr)},
            {"cooling", c.cooling},
            {"rack", c.rack},
            {"servers_per_rack", c.servers_per_rack},
            {"region", c.region},
            {"public_bandwidth", c.public_bandwidth.empty() ? json(nullptr) : json(c.public_bandwidth)},
            {"software_image", c.software_image},
            {"licences", c.licences},
            {"support", c.support},
            {"cluster_manager", c.cluster_manager.empty() ? json(nullptr) : json(c.cluster_manager)},
            {"term_years", c.term_years},
            {"room_temp_c", c.room_temp_c ? json(*c.room_temp_c) : json(nullptr)}};
  json sw = json::object();
  auto version = [&](const char* k, const std::optional<std::string>& v) {
    if (v) sw[k] = *v;
  };
  version("driver", c.software.driver);
  version("cuda", c.software.cuda);
  version("cudnn", c.software.cudnn);
  version("pytorch", c.software.pytorch);
  version("tensorflow", c.software.tensorflow);
  j["software"] = sw;
  return j;
}

json price_age_json(const std::optional<plan::PriceAge>& age) {
  if (!age) return nullptr;
  return {{"today", age->today},
          {"as_of", age->as_of},
          {"kind", age->kind},
          {"id", age->id},
          {"entries", age->entries},
          {"months", age->months},
          {"max_months", age->max_months},
          {"stale", age->stale()}};
}

json finding_json(const Finding& f, Lang lang) {
  LocalizedFinding l = localize(f, lang);
  json evidence = json::object();
  for (const Fact& fact : f.facts) evidence[fact.key] = word(fact, lang);
  return {{"id", f.id},
          {"severity", severity_name(f.severity)},
          {"title", l.title},
          {"detail", l.detail},
          {"source", citation(f, lang)},
          {"evidence", evidence}};
}

json quote_json(const Quote& q, Lang lang) {
  json lines = json::array();
  for (const auto& l : q.lines)
    lines.push_back({{"id", l.id}, {"item", say(l.item, lang)}, {"qty", l.qty}, {"buy", money_range_json(l.buy)},
                     {"rent_monthly", money_range_json(l.rent_monthly)}, {"source", in_lang(l.source, l.source_zh, lang)}});
  json hidden = json::array();
  for (const auto& h : q.hidden_costs)
    hidden.push_back({{"id", h.id}, {"name", lang == Lang::kZh ? h.name_zh : h.name},
                      {"status", h.monthly ? "priced" : "not_included"},
                      {"monthly", h.monthly ? money_range_json(*h.monthly) : json(nullptr)}});
  json findings = json::array();
  for (const auto& f : q.findings) findings.push_back(finding_json(f, lang));
  json market = nullptr;
  if (q.market)
    market = {{"id", q.market->id}, {"gpus", q.market->gpus}, {"buy", money_range_json(q.market->buy)},
              {"rent_monthly", money_range_json(q.market->rent_monthly)},
              {"source", in_lang(q.market->source, q.market->source_zh, lang)}};
  return {
      {"currency", q.currency},
      {"config", config_json(q.config)},
      {"lines", lines},
      {"totals", {{"buy", money_range_json(q.total_buy)}, {"rent_monthly", money_range_json(q.total_rent_monthly)}}},
      {"per_gpu", {{"buy", money_range_json(q.buy_per_gpu)}, {"rent_monthly", money_range_json(q.rent_per_gpu_month)}}},
      {"market", market},
      {"budget", {{"amount", money_json(q.budget.amount)}, {"basis", q.budget.basis}}},
      {"price_age", price_age_json(q.price_age)},
      {"region_factor", range_json(q.region_factor)},
      {"power_w",
       {{"node_peak", q.power.peak_w()},
        {"gpus", q.power.gpus_w},
        {"cpus", q.power.cpus_w},
        {"memory", q.power.memory_w},
        {"disks", q.power.disks_w},
        {"nics", q.power.nics_w},
        {"platform", q.power.platform_w},
        {"parts", q.power.parts_w()},
        {"system", q.power.system_w},
        {"system_basis", q.power.system_basis},
        {"system_source", in_lang(q.power.system_source, q.power.system_source_zh, lang)},
        {"governs", q.power.system_governs() ? "system" : "parts"}}},
      {"hidden_costs", hidden},
      {"hidden_costs_monthly", money_range_json(q.hidden_monthly)},
      {"findings", findings}};
}

json recommendation_json(const plan::Recommendation& r, Lang lang) {
  json why = json::array();
  for (const auto& f : r.why) {
    json w = finding_json(f, lang);
    why.push_back({{"rule", f.id}, {"text", w["detail"]}, {"evidence", w["evidence"]}});
  }
  return {{"config", config_json(r.config)}, {"quote", quote_json(r.quote, lang)}, {"why", why}};
}

json audit_json(const plan::AuditResult& a, Lang lang) {
  json findings = json::array();
  for (const auto& f : a.findings) findings.push_back(finding_json(f, lang));
  json lines = json::array();
  for (const plan::AuditLine& l : a.lines)
    lines.push_back({{"item", l.item},
                     {"part", l.part.empty() ? json(nullptr) : json(l.part)},
                     {"qty", l.qty},
                     {"monthly", l.monthly},
                     {"line", l.line},
                     {"quoted", money_range_json(l.quoted)},
                     {"catalog", l.catalog ? money_range_json(*l.catalog) : json(nullptr)},
                     {"verdict", l.verdict},
                     {"over", money_json(l.over)}});
  return {{"vendor", a.vendor},
          {"lines", lines},
          {"overcharge", {{"once", money_json(a.overcharge_once)}, {"monthly", money_json(a.overcharge_monthly)}}},
          {"price_age", price_age_json(a.price_age)},
          {"verdict", a.failed() ? "fail" : "pass"},
          {"gpus", a.gpus},
          {"totals", {{"once", money_range_json(a.total_once)}, {"monthly", money_range_json(a.total_monthly)}}},
          {"per_gpu",
           {{"buy", a.buy_per_gpu ? money_range_json(*a.buy_per_gpu) : json(nullptr)},
            {"rent_monthly", a.rent_per_gpu_month ? money_range_json(*a.rent_per_gpu_month) : json(nullptr)}}},
          {"findings", findings}};
}

std::string render_quote(const Quote& q, Format format, const Style& style) {
  if (format == Format::kJson) return quote_json(q, style.lang).dump(2) + "\n";
  return write_report(quote_report(q, style.lang), format, style);
}

std::string render_recommendation(const plan::Recommendation& r, Format format, const Style& style) {
  if (format == Format::kJson) return json{{"recommendations", json::array({recommendation_json(r, style.lang)})}}.dump(2) + "\n";
  return write_reports(recommendation_reports(r, style.lang), format, style);
}

std::string render_audit(const plan::AuditResult& a, Format format, const Style& style) {
  if (format == Format::kJson) return audit_json(a, style.lang).dump(2) + "\n";
  return write_report(audit_report(a, style.lang), format, style);
}

}  // namespace gpuplan::report
