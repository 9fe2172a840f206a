#include "report/render.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/money.h"
#include "core/units.h"
#include "report/table.h"

namespace gpuplan::report {
namespace {

using nlohmann::json;
using plan::Quote;

std::string money(const Range& r, const std::string& currency) {
  if (r.low == 0 && r.high == 0) return "—";
  return format_money_range(r, currency);
}

const char* colour_of(Severity s) {
  switch (s) {
    case Severity::kFail: return "\x1b[1;31m";
    case Severity::kWarn: return "\x1b[33m";
    case Severity::kInfo: return "\x1b[36m";
    case Severity::kPass: return "\x1b[32m";
    case Severity::kNeedsEvidence: return "\x1b[36m";
  }
  return "";
}

// "FAIL" / "失败", padded to `width` display cells.
std::string severity_tag(Severity s, const Style& style, size_t width) {
  std::string tag = severity_label(s, style.lang);
  tag += std::string(width > display_width(tag) ? width - display_width(tag) : 0, ' ');
  return style.colour ? std::string(colour_of(s)) + tag + "\x1b[0m" : tag;
}

// The English or Chinese form of a catalog text.
const std::string& in_lang(const std::string& en, const std::string& zh, Lang lang) {
  return lang == Lang::kZh && !zh.empty() ? zh : en;
}

std::string md_cell(std::string s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string findings_markdown(const std::vector<Finding>& findings, Lang lang) {
  std::string out = "## " + ui("findings", lang) + "\n\n";
  if (findings.empty()) return out + ui("no_findings", lang) + "\n";
  out += "| " + ui("severity", lang) + " | " + ui("id", lang) + " | " + ui("finding", lang) + " | " + ui("source", lang) + " |\n";
  out += "|---|---|---|---|\n";
  for (const Finding& f : findings) {
    LocalizedFinding l = localize(f, lang);
    out += fmt::format("| {} | `{}` | **{}** {} | {} |\n", severity_label(f.severity, lang), f.id, md_cell(l.title),
                       md_cell(l.detail), md_cell(citation(f, lang)));
  }
  return out;
}

std::string config_summary(const plan::ServerConfig& c, Lang lang) {
  return say(Phrase("quote.summary")
                 .fact("gpus", std::to_string(c.gpus))
                 .fact("gpu", c.gpu)
                 .fact("nodes", {Phrase(c.nodes == 1 ? "quote.one_node" : "quote.nodes").fact("count", std::to_string(c.nodes))})
                 .fact("platform", c.platform)
                 .fact("region", c.region)
                 .fact("task", plan::task_name(c.task)),
             lang);
}

std::string power_line(const plan::PowerBudget& p, Lang lang) {
  return say(Phrase("quote.power")
                 .fact("total", format_watts(p.total_w()))
                 .fact("gpus", format_watts(p.gpus_w))
                 .fact("cpus", format_watts(p.cpus_w))
                 .fact("memory", format_watts(p.memory_w))
                 .fact("disks", format_watts(p.disks_w))
                 .fact("nics", format_watts(p.nics_w))
                 .fact("platform", format_watts(p.platform_w)),
             lang);
}

std::string quote_table(const Quote& q, const Style& style) {
  const Lang lang = style.lang;
  std::string out = ui("quote", lang) + colon(lang) + (q.config.name.empty() ? config_summary(q.config, lang) : q.config.name) + "\n";
  if (!q.config.name.empty()) out += config_summary(q.config, lang) + "\n";
  out += ui("prices_note", lang) + "\n\n";
  using A = TextTable::Align;
  TextTable t({ui("line", lang), ui("qty", lang), ui("buy", lang), ui("rent_monthly", lang), ui("source", lang)},
              {A::kLeft, A::kRight, A::kRight, A::kRight, A::kLeft});
  // Sources are long; the table cites them by number and lists them below.
  std::vector<std::string> sources;
  auto cite = [&](const std::string& source) {
    auto it = std::find(sources.begin(), sources.end(), source);
    if (it == sources.end()) it = sources.insert(sources.end(), source);
    return "[" + std::to_string(it - sources.begin() + 1) + "]";
  };
  for (const auto& line : q.lines)
    t.add_row({say(line.item, lang), format_number(line.qty, line.qty == static_cast<long>(line.qty) ? 0 : 2),
               money(line.buy, q.currency), money(line.rent_monthly, q.currency), cite(in_lang(line.source, line.source_zh, lang))});
  t.add_rule();
  t.add_row({ui("total", lang), "", money(q.total_buy, q.currency), money(q.total_rent_monthly, q.currency), ""});
  t.add_row({ui("per_gpu", lang), std::to_string(q.config.total_gpus()), money(q.buy_per_gpu, q.currency),
             money(q.rent_per_gpu_month, q.currency), cite(cite_reference("S0 §3.2", lang))});
  if (q.market)
    t.add_row({say(Phrase("quote.market_row").fact("gpus", std::to_string(q.market->gpus)), lang), "", money(q.market->buy, q.currency),
               money(q.market->rent_monthly, q.currency), cite(in_lang(q.market->source, q.market->source_zh, lang))});
  out += t.str() + "\n";
  for (size_t i = 0; i < sources.size(); ++i) out += fmt::format("  [{}] {}\n", i + 1, sources[i]);
  out += "\n" + ui("power", lang) + colon(lang) + power_line(q.power, lang) + "\n";
  out += "\n" + ui("hidden_costs", lang) + colon(lang, false) + "\n";
  size_t name_width = 0;
  for (const auto& h : q.hidden_costs) name_width = std::max(name_width, display_width(lang == Lang::kZh ? h.name_zh : h.name));
  for (const auto& h : q.hidden_costs) {
    std::string name = lang == Lang::kZh ? h.name_zh : h.name;
    out += "  " + name + std::string(name_width + 2 - display_width(name), ' ') +
           (h.monthly ? format_money_range(*h.monthly, q.currency) + ui("per_month", lang) : ui("not_included", lang)) + "\n";
  }
  out += "\n" + findings_text(q.findings, style);
  return out;
}

std::string quote_markdown(const Quote& q, Lang lang) {
  std::string out = "# " + ui("quote", lang) + colon(lang) + (q.config.name.empty() ? config_summary(q.config, lang) : q.config.name) + "\n\n";
  out += config_summary(q.config, lang) + "\n\n" + ui("prices_note", lang) + "\n\n";
  out += "| " + ui("line", lang) + " | " + ui("qty", lang) + " | " + ui("buy", lang) + " | " + ui("rent_monthly", lang) +
         " | " + ui("source", lang) + " |\n|---|--:|--:|--:|---|\n";
  for (const auto& line : q.lines)
    out += fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(say(line.item, lang)), format_number(line.qty, 0),
                       money(line.buy, q.currency), money(line.rent_monthly, q.currency),
                       md_cell(in_lang(line.source, line.source_zh, lang)));
  out += fmt::format("| **{}** | | **{}** | **{}** | |\n", ui("total", lang), money(q.total_buy, q.currency),
                     money(q.total_rent_monthly, q.currency));
  out += fmt::format("| {} | {} | {} | {} | {} |\n", ui("per_gpu", lang), q.config.total_gpus(),
                     money(q.buy_per_gpu, q.currency), money(q.rent_per_gpu_month, q.currency),
                     md_cell(cite_reference("S0 §3.2", lang)));
  if (q.market)
    out += fmt::format("| {} | | {} | {} | {} |\n", say(Phrase("quote.market_row").fact("gpus", std::to_string(q.market->gpus)), lang),
                       money(q.market->buy, q.currency), money(q.market->rent_monthly, q.currency),
                       md_cell(in_lang(q.market->source, q.market->source_zh, lang)));
  out += "\n" + ui("power", lang) + colon(lang) + power_line(q.power, lang) + "\n\n## " + ui("hidden_costs", lang) + "\n\n";
  for (const auto& h : q.hidden_costs)
    out += fmt::format("- {}: {}\n", lang == Lang::kZh ? h.name_zh : h.name,
                       h.monthly ? format_money_range(*h.monthly, q.currency) + ui("per_month", lang) : ui("not_included", lang));
  return out + "\n" + findings_markdown(q.findings, lang);
}

}  // namespace

std::optional<Format> parse_format(std::string_view s) {
  if (s == "table") return Format::kTable;
  if (s == "json") return Format::kJson;
  if (s == "md") return Format::kMarkdown;
  if (s == "html") return Format::kHtml;
  return std::nullopt;
}

json range_json(const Range& r) { return {{"low", r.low}, {"high", r.high}}; }

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
    lines.push_back({{"id", l.id}, {"item", say(l.item, lang)}, {"qty", l.qty}, {"buy", range_json(l.buy)},
                     {"rent_monthly", range_json(l.rent_monthly)}, {"source", in_lang(l.source, l.source_zh, lang)}});
  json hidden = json::array();
  for (const auto& h : q.hidden_costs)
    hidden.push_back({{"id", h.id}, {"name", lang == Lang::kZh ? h.name_zh : h.name},
                      {"status", h.monthly ? "priced" : "not_included"},
                      {"monthly", h.monthly ? range_json(*h.monthly) : json(nullptr)}});
  json findings = json::array();
  for (const auto& f : q.findings) findings.push_back(finding_json(f, lang));
  json market = nullptr;
  if (q.market)
    market = {{"id", q.market->id}, {"gpus", q.market->gpus}, {"buy", range_json(q.market->buy)},
              {"rent_monthly", range_json(q.market->rent_monthly)},
              {"source", in_lang(q.market->source, q.market->source_zh, lang)}};
  return {{"currency", q.currency},
          {"config", config_json(q.config)},
          {"lines", lines},
          {"totals", {{"buy", range_json(q.total_buy)}, {"rent_monthly", range_json(q.total_rent_monthly)}}},
          {"per_gpu", {{"buy", range_json(q.buy_per_gpu)}, {"rent_monthly", range_json(q.rent_per_gpu_month)}}},
          {"market", market},
          {"region_factor", range_json(q.region_factor)},
          {"power_w", {{"node_peak", q.power.total_w()}, {"gpus", q.power.gpus_w}, {"cpus", q.power.cpus_w},
                       {"memory", q.power.memory_w}, {"disks", q.power.disks_w}, {"nics", q.power.nics_w},
                       {"platform", q.power.platform_w}}},
          {"hidden_costs", hidden},
          {"hidden_costs_monthly", range_json(q.hidden_monthly)},
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
  return {{"vendor", a.vendor},
          {"verdict", a.failed() ? "fail" : "pass"},
          {"gpus", a.gpus},
          {"totals", {{"once", range_json(a.total_once)}, {"monthly", range_json(a.total_monthly)}}},
          {"per_gpu", {{"buy", a.buy_per_gpu ? range_json(*a.buy_per_gpu) : json(nullptr)},
                       {"rent_monthly", a.rent_per_gpu_month ? range_json(*a.rent_per_gpu_month) : json(nullptr)}}},
          {"findings", findings}};
}

std::string findings_text(const std::vector<Finding>& findings, const Style& style) {
  std::string out = ui("findings", style.lang) + colon(style.lang, false) + "\n";
  if (findings.empty()) return out + "  " + ui("no_findings", style.lang) + "\n";
  for (const Finding& f : findings) {
    LocalizedFinding l = localize(f, style.lang);
    out += fmt::format("  {}  {:<28} {}\n", severity_tag(f.severity, style, 4), f.id, l.title);
    if (!l.detail.empty()) out += "        " + l.detail + "\n";
    out += "        [" + citation(f, style.lang) + "]\n";
  }
  return out;
}

std::string render_quote(const Quote& q, Format format, const Style& style) {
  switch (format) {
    case Format::kJson: return quote_json(q, style.lang).dump(2) + "\n";
    case Format::kMarkdown:
    case Format::kHtml:  // the CLI offers HTML for tco only
      return quote_markdown(q, style.lang);
    case Format::kTable: return quote_table(q, style);
  }
  return {};
}

std::string render_recommendation(const plan::Recommendation& r, Format format, const Style& style) {
  if (format == Format::kJson) return json{{"recommendations", json::array({recommendation_json(r, style.lang)})}}.dump(2) + "\n";
  const bool md = format == Format::kMarkdown;
  std::string out = (md ? "# " : "") + ui("recommendation", style.lang) + colon(style.lang) + config_summary(r.config, style.lang) + "\n\n";
  out += (md ? "## " : "") + ui("why", style.lang) + colon(style.lang, false) + "\n" + (md ? "\n" : "");
  for (const auto& f : r.why) out += (md ? "- " : "  • ") + localize(f, style.lang).detail + "\n";
  out += "\n";
  return out + (md ? quote_markdown(r.quote, style.lang) : quote_table(r.quote, style));
}

std::string render_audit(const plan::AuditResult& a, Format format, const Style& style) {
  const Lang lang = style.lang;
  if (format == Format::kJson) return audit_json(a, lang).dump(2) + "\n";
  const std::string verdict = ui(a.failed() ? "fail" : "pass", lang);
  if (format == Format::kMarkdown) {
    std::string out = "# " + ui("audit", lang) + colon(lang) + a.vendor + "\n\n**" + ui("verdict", lang) + colon(lang) + verdict + "**\n\n";
    out += "- " + say(Phrase("audit.once").fact("amount", money(a.total_once, "CNY")), lang) + "\n- " +
           say(Phrase("audit.monthly").fact("amount", money(a.total_monthly, "CNY")), lang) + "\n\n";
    return out + findings_markdown(a.findings, lang);
  }
  std::string tag = verdict;
  if (style.colour) tag = std::string(a.failed() ? "\x1b[1;31m" : "\x1b[1;32m") + verdict + "\x1b[0m";
  std::string out = ui("audit", lang) + colon(lang) + a.vendor + "\n" + ui("verdict", lang) + colon(lang) + tag + "\n";
  out += say(Phrase("audit.totals")
                 .fact("gpus", std::to_string(a.gpus))
                 .fact("once", money(a.total_once, "CNY"))
                 .fact("monthly", money(a.total_monthly, "CNY")),
             lang) +
         "\n";
  if (a.buy_per_gpu)
    out += say(Phrase("audit.per_gpu_buy").fact("amount", money(*a.buy_per_gpu, "CNY")), lang) + "\n";
  if (a.rent_per_gpu_month)
    out += say(Phrase("audit.per_gpu_rent").fact("amount", money(*a.rent_per_gpu_month, "CNY")), lang) + "\n";
  return out + "\n" + findings_text(a.findings, style);
}

}  // namespace gpuplan::report
