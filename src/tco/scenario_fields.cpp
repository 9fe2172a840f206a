// The scenario parser's field readers: durations and the horizon, fractions and percentages,
// PUE, ranges with a default, paths relative to the scenario, catalog entries a default comes
// from; and the text helpers (numbers as the messages write them) the parser's files share.
#include <array>
#include <charconv>
#include <cmath>

#include "core/money.h"
#include "core/text.h"
#include "core/units.h"
#include "tco/scenario_parser.h"

namespace gpuplan::tco {
namespace detail {

std::optional<std::pair<double, std::string>> split_number(std::string_view s) {
  s = trim(s);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  return std::pair{value, std::string(trim(std::string_view(end, s.data() + s.size() - end)))};
}

std::string number_text(double v) {
  std::string s = format_number(v, 2);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string range_text(const Range& r) {
  std::string low = number_text(r.low), high = number_text(r.high);
  return low == high ? low : low + "–" + high;
}

std::string joined(const std::vector<std::string>& symbols) {
  std::string out;
  for (const auto& s : symbols) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace detail

namespace {

using detail::joined;
using detail::number_text;
using detail::range_text;
using detail::split_number;

namespace fs = std::filesystem;

// Calendar units core does not have (core/units.h knows s, min, h, d); SPEC §J: a year is
// 8,760 h and a month a twelfth of it.
struct LongTimeUnit {
  std::string_view symbol;
  double hours;
};
constexpr std::array<LongTimeUnit, 10> kLongTimeUnits = {{
    {"hour", 1},
    {"hours", 1},
    {"day", 24},
    {"days", 24},
    {"week", 168},
    {"weeks", 168},
    {"month", kHoursPerMonth},
    {"months", kHoursPerMonth},
    {"year", kHoursPerYear},
    {"years", kHoursPerYear},
}};
const std::vector<std::string> kDurationUnitNames = {"h", "d", "weeks", "months", "years"};
const std::string kDurationUnits = joined(kDurationUnitNames);
const std::vector<std::string> kDurationSuggestions = {"h", "d", "min", "hours", "days", "weeks", "months", "years"};
constexpr double kMaxHorizonHours = 50 * kHoursPerYear;

}  // namespace

// "36 months", "156 weeks", "26280 h": hours, more than 0.
double ScenarioParser::duration_hours(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) r_.fail(n, field, "error.scenario.not_duration", {{"units", kDurationUnits}});
  const std::string& text = n.Scalar();
  auto parts = split_number(text);
  if (!parts) r_.fail(n, field, "error.scenario.not_duration_text", {{"text", text}, {"units", kDurationUnits}});
  const auto& [value, unit] = *parts;
  if (unit.empty()) r_.fail(n, field, "error.scenario.needs_unit", {{"text", text}, {"units", kDurationUnits}});
  std::optional<double> hours;
  for (const auto& u : kLongTimeUnits)
    if (u.symbol == unit) hours = value * u.hours;
  if (!hours) {
    auto q = parse_quantity(text, Dimension::kTime);
    if (!q) r_.fail(n, field, unknown_unit(unit, text, kDurationUnits, kDurationSuggestions));
    hours = *q;
  }
  if (*hours <= 0) r_.fail(n, field, "error.scenario.not_positive", {{"got", text}});
  return *hours;
}

double ScenarioParser::horizon(const YAML::Node& n) const {
  double hours = duration_hours(n, "horizon");
  if (std::fabs(hours - std::round(hours)) > 1e-6) {
    const std::string in_hours = number_text(hours) + " h";
    if (in_hours == n.Scalar()) r_.fail(n, "horizon", "error.scenario.horizon_not_whole", {{"got", n.Scalar()}});
    r_.fail(n, "horizon", "error.scenario.horizon_not_whole_in_hours", {{"got", n.Scalar()}, {"hours", in_hours}});
  }
  if (hours > kMaxHorizonHours)
    r_.fail(n, "horizon", "error.scenario.horizon_too_long",
            {{"got", n.Scalar()}, {"max_years", number_text(kMaxHorizonHours / kHoursPerYear)}});
  return std::round(hours);
}

// "50%" or a fraction such as 0.5.
double ScenarioParser::fraction(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) r_.fail(n, field, Phrase("error.scenario.not_fraction"));
  std::string_view s = trim(n.Scalar());
  if (!s.empty() && s.back() == '%') {
    auto parts = split_number(s.substr(0, s.size() - 1));
    if (!parts || !parts->second.empty()) r_.fail(n, field, "error.scenario.not_percentage", {{"got", n.Scalar()}});
    return parts->first / 100;
  }
  return r_.number(n, field);
}

// A fraction between 0 and 1 (written 0..1 or 0–100%).
double ScenarioParser::unit_fraction(const YAML::Node& n, const std::string& field) const {
  double v = fraction(n, field);
  if (v < 0 || v > 1) {
    const bool percent = n.Scalar().find('%') != std::string::npos;
    if (percent || v < 0) r_.fail(n, field, "error.scenario.not_share", {{"got", n.Scalar()}});
    r_.fail(n, field, "error.scenario.not_share_needs_sign", {{"got", n.Scalar()}});
  }
  return v;
}

Range ScenarioParser::unit_fraction_range(const YAML::Node& n, const std::string& field) const {
  if (n.IsSequence()) {
    if (n.size() != 2) r_.fail(n, field, Phrase("error.scenario.not_range"));
    Range out{unit_fraction(n[0], field), unit_fraction(n[1], field)};
    if (out.low > out.high) r_.fail(n, field, Phrase("error.scenario.low_above_high"));
    return out;
  }
  return Range::point(unit_fraction(n, field));
}

// A PUE: facility power over IT power, so never below 1.
Range ScenarioParser::pue_range(const YAML::Node& n, const std::string& field) const {
  Range pue = r_.range(n, field);
  if (pue.low < 1) r_.fail(n, field, "error.scenario.pue_below_one", {{"got", range_text(pue)}});
  return pue;
}

double ScenarioParser::pue_number(const YAML::Node& n, const std::string& field) const {
  double pue = r_.number(n, field);
  if (pue < 1) r_.fail(n, field, "error.scenario.pue_below_one", {{"got", n.Scalar()}});
  return pue;
}

Range ScenarioParser::optional_range(const YAML::Node& n, const std::string& field, Range fallback) const {
  return n ? r_.range(n, field) : fallback;
}

std::string ScenarioParser::relative_path(const std::string& path) const {
  fs::path p(path);
  return p.is_absolute() || dir_.empty() ? p.string() : (dir_ / p).string();
}

const catalog::Entry& ScenarioParser::catalog_entry(const YAML::Node& at, const std::string& field,
                                                    const std::string& kind, const std::string& id) const {
  const catalog::Entry* e = catalog_.find(kind, id);
  if (!e) r_.fail(at, field, "error.scenario.no_catalog_default", {{"kind", kind}, {"id", id}, {"field", field}});
  return *e;
}

}  // namespace gpuplan::tco
