// The scenario parser's demand: busy GPUs hour by hour over the horizon, from a utilization,
// a weekly pattern or a CSV file (repeated when shorter than the horizon), with the phrase
// that tells the report where the demand came from; and the CSV reader itself.
#include <array>
#include <charconv>
#include <cmath>
#include <sstream>

#include "core/text.h"
#include "tco/scenario_parser.h"

namespace gpuplan::tco {
namespace {

using detail::number_text;
using detail::split_number;

namespace fs = std::filesystem;

const std::vector<std::string> kDemandKinds = {"utilization", "weekly", "file"};
const std::vector<std::string> kWeeklyKeys = {"days", "from", "to", "gpus"};

constexpr std::array<std::string_view, 7> kWeekdays = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
constexpr int kHoursPerWeek = 168;

// Phrases joined by "; " (“；” in Chinese): each but the last is followed by the rest.
Phrase semicolons(std::vector<Phrase> items) {
  Phrase out = std::move(items.back());
  for (size_t i = items.size() - 1; i-- > 0;)
    out = Phrase("tco.and_then").fact("first", {std::move(items[i])}).fact("rest", {std::move(out)});
  return out;
}

}  // namespace

void ScenarioParser::demand(const YAML::Node& root, Scenario& s) const {
  const YAML::Node n = root["demand"];
  r_.check_keys(n, "demand", kDemandKinds);
  if (n.size() == 0) r_.fail(n, "demand", Phrase("error.scenario.demand_empty"));
  if (n.size() > 1) {
    auto it = n.begin();
    ++it;
    r_.fail(it->first, "demand." + it->first.Scalar(), Phrase("error.scenario.demand_several"));
  }
  if (const auto f = n["file"]) {
    demand_file(f, root, s);
    return;
  }
  if (s.horizon_hours == 0) r_.fail(root, "horizon", Phrase("error.scenario.horizon_missing"));
  const auto hours = static_cast<size_t>(s.horizon_hours);
  if (const auto u = n["utilization"]) {
    const double share = unit_fraction(u, "demand.utilization");
    const double busy = share * s.owned.gpus;
    s.demand.assign(hours, busy);
    s.demand_description = Phrase("tco.demand.utilization")
                               .fact("share", number_text(share * 100))
                               .fact("gpus", std::to_string(s.owned.gpus))
                               .fact("busy", number_text(busy));
    return;
  }
  weekly(n["weekly"], s, hours);
}

void ScenarioParser::demand_file(const YAML::Node& f, const YAML::Node& root, Scenario& s) const {
  const std::string name = r_.text(f, "demand.file");
  const std::string path = relative_path(name);
  auto text = read_text_file(path);
  if (!text)
    r_.fail(f, "demand.file", Phrase("error.cannot_read").fact("path", path).fact("why", {text.error().message}));
  auto hourly = parse_demand_csv(*text, path);
  if (!hourly) throw ParseFailure{hourly.error()};
  const size_t rows = hourly->size();
  if (s.horizon_hours == 0 && !root["horizon"]) s.horizon_hours = static_cast<double>(rows);
  const auto hours = static_cast<size_t>(s.horizon_hours);
  s.demand.resize(hours);
  for (size_t h = 0; h < hours; ++h) s.demand[h] = (*hourly)[h % rows];
  const std::string base = fs::path(name).filename().string();
  if (rows == hours) {
    s.demand_description = Phrase("tco.demand.file").fact("file", base).fact("rows", number_text(rows));
  } else if (rows < hours) {
    s.demand_description = Phrase("tco.demand.file_repeated")
                               .fact("file", base)
                               .fact("rows", number_text(rows))
                               .fact("hours", number_text(hours))
                               .fact("times", number_text(static_cast<double>(hours) / rows));
  } else {
    s.demand_description = Phrase("tco.demand.file_first")
                               .fact("file", base)
                               .fact("rows", number_text(rows))
                               .fact("hours", number_text(hours));
  }
}

void ScenarioParser::weekly(const YAML::Node& n, Scenario& s, size_t hours) const {
  if (!n.IsSequence() || n.size() == 0)
    r_.fail(n, "demand.weekly", "error.scenario.weekly_not_list",
            {{"example", "{days: [mon, tue], from: 0, to: 24, gpus: 8}"}});
  std::array<double, kHoursPerWeek> week{};
  std::vector<Phrase> described;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string field = "demand.weekly[" + std::to_string(i) + "]";
    const YAML::Node e = n[i];
    r_.check_keys(e, field, kWeeklyKeys);
    if (!e["days"]) r_.fail(e, field + ".days", Phrase("error.scenario.weekly_days_missing"));
    if (!e["gpus"]) r_.fail(e, field + ".gpus", Phrase("error.scenario.weekly_gpus_missing"));
    std::vector<int> days;
    const YAML::Node d = e["days"];
    if (d.IsScalar()) {
      days.push_back(weekday(d, field + ".days"));
    } else if (d.IsSequence() && d.size() > 0) {
      for (size_t j = 0; j < d.size(); ++j) days.push_back(weekday(d[j], field + ".days[" + std::to_string(j) + "]"));
    } else {
      r_.fail(d, field + ".days", Phrase("error.scenario.not_weekdays"));
    }
    const int from = e["from"] ? hour_of_day(e["from"], field + ".from") : 0;
    const int to = e["to"] ? hour_of_day(e["to"], field + ".to") : 24;
    if (from >= to)
      r_.fail(e["to"] ? e["to"] : e, field + ".to", "error.scenario.to_not_after_from",
              {{"from", std::to_string(from)}, {"to", std::to_string(to)}});
    const double gpus = r_.non_negative(e["gpus"], field + ".gpus");
    std::vector<Phrase> names;
    for (int day : days) {
      names.push_back(Phrase("tco.weekday." + std::string(kWeekdays[day])));
      for (int h = from; h < to; ++h) week[day * 24 + h] += gpus;
    }
    described.push_back(Phrase("tco.demand.weekly_entry")
                            .fact("gpus", number_text(gpus))
                            .fact("days", std::move(names))
                            .fact("from", std::to_string(from))
                            .fact("to", std::to_string(to)));
  }
  double per_week = 0;
  for (double g : week) per_week += g;
  s.demand.resize(hours);
  for (size_t h = 0; h < hours; ++h) s.demand[h] = week[h % kHoursPerWeek];
  s.demand_description = Phrase("tco.demand.weekly")
                             .fact("entries", {semicolons(std::move(described))})
                             .fact("per_week", number_text(per_week));
}

int ScenarioParser::weekday(const YAML::Node& n, const std::string& field) const {
  const std::string day = lower(r_.text(n, field));
  for (size_t i = 0; i < kWeekdays.size(); ++i)
    if (kWeekdays[i] == day) return static_cast<int>(i);
  r_.fail(n, field, not_one_of(n.Scalar(), {kWeekdays.begin(), kWeekdays.end()}));
}

int ScenarioParser::hour_of_day(const YAML::Node& n, const std::string& field) const {
  double h = r_.number(n, field);
  if (h < 0 || h > 24) r_.fail(n, field, "error.scenario.hour_out_of_range", {{"got", n.Scalar()}});
  if (h != std::floor(h)) r_.fail(n, field, "error.scenario.hour_not_whole", {{"got", n.Scalar()}});
  return static_cast<int>(h);
}

Result<std::vector<double>> ScenarioParser::parse_demand_csv(const std::string& text, const std::string& path) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  bool seen_content = false;
  auto error = [&](const std::string& field, Phrase message) { return Error{path, line, field, std::move(message)}; };
  while (std::getline(in, raw)) {
    ++line;
    std::string_view s = raw;
    if (line == 1 && s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);  // a UTF-8 byte-order mark
    s = trim(s);
    if (s.empty() || s.front() == '#') continue;
    const bool first = !seen_content;
    seen_content = true;
    std::vector<std::string_view> fields;
    for (size_t start = 0;;) {
      size_t comma = s.find(',', start);
      fields.push_back(trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (fields.size() != 2)
      return error({}, Phrase("error.scenario.csv_fields").fact("got", std::to_string(fields.size())));
    long long hour = 0;
    auto [end, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), hour);
    if (ec != std::errc() || end != fields[0].data() + fields[0].size()) {
      if (first && !split_number(fields[0])) continue;  // the header
      return error("hour", Phrase("error.scenario.csv_hour_not_whole").fact("got", std::string(fields[0])));
    }
    const auto expected = static_cast<long long>(out.size());
    if (hour != expected) {
      if (out.empty()) return error("hour", Phrase("error.scenario.csv_first_hour").fact("got", std::to_string(hour)));
      const std::string previous = std::to_string(expected - 1);
      if (hour < expected)
        return error(
            "hour",
            Phrase("error.scenario.csv_hour_again").fact("hour", std::to_string(hour)).fact("previous", previous));
      Phrase gap(hour - expected == 1 ? "error.scenario.csv_hour_missing" : "error.scenario.csv_hours_missing");
      gap.fact("hour", std::to_string(hour)).fact("previous", previous).fact("first", std::to_string(expected));
      if (hour - expected > 1) gap.fact("last", std::to_string(hour - 1));
      return error("hour", std::move(gap));
    }
    auto parts = split_number(fields[1]);
    if (!parts || !parts->second.empty())
      return error("busy_gpus", Phrase("error.scenario.csv_not_number").fact("got", std::string(fields[1])));
    if (parts->first < 0)
      return error("busy_gpus", Phrase("error.scenario.negative").fact("got", std::string(fields[1])));
    out.push_back(parts->first);
  }
  if (out.empty()) return Error{path, 0, {}, Phrase("error.scenario.csv_empty")};
  return out;
}

}  // namespace gpuplan::tco
