#include "core/bounds.h"

#include <cmath>
#include <cstdio>

namespace gpuplan::bounds {

std::optional<Phrase> finite(double v, const std::string& got) {
  if (!std::isfinite(v)) return Phrase("error.yaml.not_finite").fact("got", got);
  return std::nullopt;
}

std::optional<Phrase> amount(double v, const std::string& got) {
  if (auto p = finite(v, got)) return p;
  if (v < 0) return Phrase("error.yaml.negative").fact("got", got);
  if (v > kMaxAmount) return Phrase("error.yaml.implausible").fact("got", got);
  return std::nullopt;
}

std::optional<Phrase> positive(double v, const std::string& got) {
  if (auto p = amount(v, got)) return p;
  if (v == 0) return Phrase("cli.value.above").fact("min", "0").fact("got", got);
  return std::nullopt;
}

std::optional<Phrase> count(double v, int min, const std::string& got) {
  if (auto p = finite(v, got)) return p;
  if (v != std::floor(v)) return Phrase("error.yaml.not_whole").fact("got", got);
  if (v < min) return Phrase("error.yaml.below_min").fact("min", std::to_string(min)).fact("got", got);
  if (v > kMaxCount) return Phrase("error.yaml.implausible").fact("got", got);
  return std::nullopt;
}

std::optional<Phrase> between(double v, double min, double max, const std::string& got, const std::string& key,
                              const std::string& min_text, const std::string& max_text) {
  // `!(a <= v)` rather than `v < a`: NaN fails every comparison and must not pass.
  if (!std::isfinite(v) || !(v >= min) || !(v <= max))
    return Phrase(key).fact("min", min_text).fact("max", max_text).fact("got", got).fact("note", std::vector<Phrase>{});
  return std::nullopt;
}

Result<double> flag_amount(const std::string& flag, double v) {
  if (auto p = amount(v, shown(v))) return Error{{}, 0, flag, std::move(*p)};
  return v;
}

Result<double> flag_positive(const std::string& flag, double v) {
  if (auto p = positive(v, shown(v))) return Error{{}, 0, flag, std::move(*p)};
  return v;
}

Result<int> flag_count(const std::string& flag, long long v, int min) {
  if (auto p = count(static_cast<double>(v), min, std::to_string(v))) return Error{{}, 0, flag, std::move(*p)};
  return static_cast<int>(v);
}

std::string shown(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool sane_money(double v) {
  return std::isfinite(v) && v >= 0;
}

bool sane_money(const Range& r) {
  return sane_money(r.low) && sane_money(r.high);
}

Phrase money_overflow(double got) {
  return Phrase("error.value.money_overflow").fact("got", shown(got));
}

}  // namespace gpuplan::bounds
