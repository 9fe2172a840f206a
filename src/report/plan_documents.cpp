#include "report/plan_documents.h"

#include "core/money.h"
#include "core/units.h"

namespace gpuplan::report {
namespace {

using A = TextTable::Align;
using plan::Quote;

// A quantity as a line shows it: whole counts without decimals, fractions (TB, years) with two.
std::string quantity(double qty) {
  return format_number(qty, qty == static_cast<long>(qty) ? 0 : 2);
}

std::string money(const Range& r, const std::string& currency) {
  if (r.low == 0 && r.high == 0) return "—";
  return format_money_range(r, currency);
}

const char* colour_of(Severity s) {
  switch (s) {
    case Severity::kFail:
      return "\x1b[1;31m";
    case Severity::kWarn:
      return "\x1b[33m";
    case Severity::kInfo:
      return "\x1b[36m";
    case Severity::kPass:
      return "\x1b[32m";
    case Severity::kNeedsEvidence:
      return "\x1b[36m";
  }
  return "";
}

std::string config_summary(const plan::ServerConfig& c, Lang lang) {
  return say(Phrase("quote.summary")
                 .fact("gpus", std::to_string(c.gpus))
                 .fact("gpu", c.gpu)
                 .fact("nodes",
                       {Phrase(c.nodes == 1 ? "quote.one_node" : "quote.nodes").fact("count", std::to_string(c.nodes))})
                 .fact("platform", c.platform)
                 .fact("region", c.region)
                 .fact("task", plan::task_name(c.task)),
             lang);
}

// The peak, which figure governs it, and both figures with the system one's basis and source.
std::string power_line(const plan::PowerBudget& p, Lang lang) {
  return say(Phrase("quote.power")
                 .fact("total", format_watts(p.peak_w()))
                 .fact("governs", {plan::governing_power(p)})
                 .fact("parts", format_watts(p.parts_w()))
                 .fact("system", format_watts(p.system_w))
                 .fact("basis", {Phrase("quote.power.basis." + p.system_basis)})
                 .fact("source", p.system_source, p.system_source_zh)
                 .fact("gpus", format_watts(p.gpus_w))
                 .fact("cpus", format_watts(p.cpus_w))
                 .fact("memory", format_watts(p.memory_w))
                 .fact("disks", format_watts(p.disks_w))
                 .fact("nics", format_watts(p.nics_w))
                 .fact("platform", format_watts(p.platform_w)),
             lang);
}

// The priced lines, a rule, the totals (in bold on the pages), per GPU and the market's whole
// server. Sources are long: the terminal cites them by number and lists them below.
Block lines_block(const Quote& q, Lang lang) {
  Block b;
  b.columns = {ui("line", lang), ui("qty", lang), ui("buy", lang), ui("rent_monthly", lang), ui("source", lang)};
  b.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kLeft};
  b.sources_column = 4;
  for (const auto& line : q.lines)
    b.rows.push_back({say(line.item, lang), quantity(line.qty), money(line.buy, q.currency),
                      money(line.rent_monthly, q.currency), in_lang(line.source, line.source_zh, lang)});
  b.rules_before = {b.rows.size()};
  b.strong.assign(b.rows.size(), false);
  b.rows.push_back(
      {ui("total", lang), "", money(q.total_buy, q.currency), money(q.total_rent_monthly, q.currency), ""});
  b.strong.push_back(true);
  b.rows.push_back({ui("per_gpu", lang), std::to_string(q.config.total_gpus()), money(q.buy_per_gpu, q.currency),
                    money(q.rent_per_gpu_month, q.currency), cite_reference("S0 §3.2", lang)});
  if (q.market)
    b.rows.push_back({say(Phrase("quote.market_row").fact("gpus", std::to_string(q.market->gpus)), lang), "",
                      money(q.market->buy, q.currency), money(q.market->rent_monthly, q.currency),
                      in_lang(q.market->source, q.market->source_zh, lang)});
  b.rows.push_back({ui("budget", lang), "", format_money(q.budget.amount, q.currency), "",
                    ui("quote.budget.basis." + q.budget.basis, lang)});
  return b;
}

Block hidden_costs_block(const Quote& q, Lang lang) {
  Block b;
  b.heading = ui("hidden_costs", lang);
  for (const auto& h : q.hidden_costs)
    b.entries.push_back(
        {lang == Lang::kZh ? h.name_zh : h.name,
         h.monthly ? format_money_range(*h.monthly, q.currency) + ui("per_month", lang) : ui("not_included", lang)});
  return b;
}

Line shown_only(std::string text, Shown shown, bool bullet = false) {
  Line l(std::move(text), bullet);
  l.shown = shown;
  return l;
}

Severity line_status(const std::string& verdict) {
  if (verdict == "above") return Severity::kFail;
  if (verdict == "below") return Severity::kWarn;
  if (verdict == "within") return Severity::kPass;
  return Severity::kInfo;
}

// Each quoted line beside the catalog's unit price, what it is over or under, and the total
// overcharge (the sum of what the lines above the catalog pay over its dearest figure).
Block audit_lines_block(const plan::AuditResult& a, Lang lang) {
  Block b;
  b.heading = ui("audit.lines", lang);
  b.columns = {ui("audit.col.verdict", lang), ui("line", lang),          ui("qty", lang), ui("audit.col.quoted", lang),
               ui("audit.col.catalog", lang), ui("audit.col.over", lang)};
  b.align = {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight};
  const std::string month = ui("per_month", lang);
  for (const plan::AuditLine& l : a.lines) {
    const std::string per = l.monthly ? month : "";
    std::string over = "—";
    if (l.over > 0) over = "+" + format_money(l.over, "CNY") + per;
    if (l.over < 0) over = "−" + format_money(-l.over, "CNY") + per;
    b.rows.push_back({ui("audit.verdict." + l.verdict, lang), l.item, quantity(l.qty),
                      format_money_range(l.quoted, "CNY") + per,
                      l.catalog ? format_money_range(*l.catalog, "CNY") + per : "—", over});
    b.status.push_back(line_status(l.verdict));
    b.strong.push_back(false);
  }
  b.rules_before = {b.rows.size()};
  std::string total = format_money(a.overcharge_once, "CNY");
  if (a.overcharge_monthly > 0) total += " + " + format_money(a.overcharge_monthly, "CNY") + month;
  b.rows.push_back({"", ui("audit.overcharge", lang), "", "", "", total});
  b.status.push_back(std::nullopt);
  b.strong.push_back(true);
  return b;
}

}  // namespace

Report plain_report(std::string title, Lang lang) {
  Report doc;
  doc.title = std::move(title);
  doc.look = Look::kQuote;
  doc.heading_end = colon(lang, false);
  return doc;
}

const std::string& in_lang(const std::string& en, const std::string& zh, Lang lang) {
  return lang == Lang::kZh && !zh.empty() ? zh : en;
}

std::optional<Line> price_age_line(const std::optional<plan::PriceAge>& age, Lang lang) {
  if (!age) return std::nullopt;
  Phrase p(age->stale() ? "price_age/stale" : "price_age");
  p.fact("as_of", age->as_of)
      .fact("entries", std::to_string(age->entries))
      .fact("kind", age->kind)
      .fact("id", age->id)
      .fact("months", std::to_string(age->months))
      .fact("today", age->today)
      .fact("max", std::to_string(age->max_months));
  Line line(say(p, lang));
  if (age->stale()) {
    line.strong = true;
    line.colour = "\x1b[1;33m" + line.text + "\x1b[0m";
  }
  return line;
}

Block findings_block(const std::vector<Finding>& findings, Lang lang) {
  Block b;
  b.heading = ui("findings", lang);
  if (findings.empty()) {
    b.lines.push_back(ui("no_findings", lang));
    return b;
  }
  FindingList list;
  list.columns = {ui("severity", lang), ui("id", lang), ui("finding", lang), ui("source", lang)};
  for (const Finding& f : findings) {
    LocalizedFinding l = localize(f, lang);
    list.rows.push_back({f.severity,
                         severity_label(f.severity, lang),
                         colour_of(f.severity),
                         f.id,
                         l.title,
                         l.detail,
                         {},
                         citation(f, lang)});
  }
  b.findings = std::move(list);
  return b;
}

Report quote_report(const Quote& q, Lang lang) {
  const std::string summary = config_summary(q.config, lang);
  Report doc = plain_report(ui("quote", lang) + colon(lang) + (q.config.name.empty() ? summary : q.config.name), lang);
  // An unnamed quote's title is its summary already; the pages say it again under the title.
  doc.subtitle.push_back(shown_only(summary, q.config.name.empty() ? Shown::kPages : Shown::kEverywhere));
  doc.subtitle.push_back(ui("prices_note", lang));
  if (auto age = price_age_line(q.price_age, lang)) doc.subtitle.push_back(*age);
  doc.blocks.push_back(lines_block(q, lang));
  Block power;
  power.lines.push_back(ui("power", lang) + colon(lang) + power_line(q.power, lang));
  doc.blocks.push_back(std::move(power));
  doc.blocks.push_back(hidden_costs_block(q, lang));
  doc.blocks.push_back(findings_block(q.findings, lang));
  return doc;
}

std::vector<Report> recommendation_reports(const plan::Recommendation& r, Lang lang) {
  Report doc = plain_report(ui("recommendation", lang) + colon(lang) + config_summary(r.config, lang), lang);
  doc.heading_end.clear();  // Markdown has always written "## Why:" too
  Block why;
  why.heading = ui("why", lang) + colon(lang, false);
  for (const auto& f : r.why) why.lines.push_back({localize(f, lang).detail, true});
  doc.blocks.push_back(std::move(why));
  return {doc, quote_report(r.quote, lang)};
}

Report audit_report(const plan::AuditResult& a, Lang lang) {
  Report doc = plain_report(ui("audit", lang) + colon(lang) + a.vendor, lang);
  const std::string verdict = ui(a.failed() ? "fail" : "pass", lang);
  Line verdict_line(ui("verdict", lang) + colon(lang) + verdict);
  verdict_line.strong = true;
  verdict_line.colour =
      ui("verdict", lang) + colon(lang) + (a.failed() ? "\x1b[1;31m" : "\x1b[1;32m") + verdict + "\x1b[0m";
  doc.subtitle.push_back(std::move(verdict_line));
  // The terminal gives the GPU count and per-GPU figures; the pages list the two totals.
  doc.subtitle.push_back(shown_only(say(Phrase("audit.totals")
                                            .fact("gpus", std::to_string(a.gpus))
                                            .fact("once", money(a.total_once, "CNY"))
                                            .fact("monthly", money(a.total_monthly, "CNY")),
                                        lang),
                                    Shown::kTerminal));
  if (a.buy_per_gpu)
    doc.subtitle.push_back(shown_only(
        say(Phrase("audit.per_gpu_buy").fact("amount", money(*a.buy_per_gpu, "CNY")), lang), Shown::kTerminal));
  if (a.rent_per_gpu_month)
    doc.subtitle.push_back(shown_only(
        say(Phrase("audit.per_gpu_rent").fact("amount", money(*a.rent_per_gpu_month, "CNY")), lang), Shown::kTerminal));
  doc.subtitle.push_back(
      shown_only(say(Phrase("audit.once").fact("amount", money(a.total_once, "CNY")), lang), Shown::kPages, true));
  doc.subtitle.push_back(shown_only(say(Phrase("audit.monthly").fact("amount", money(a.total_monthly, "CNY")), lang),
                                    Shown::kPages, true));
  if (auto age = price_age_line(a.price_age, lang)) doc.subtitle.push_back(*age);
  if (!a.lines.empty()) doc.blocks.push_back(audit_lines_block(a, lang));
  doc.blocks.push_back(findings_block(a.findings, lang));
  return doc;
}

}  // namespace gpuplan::report
