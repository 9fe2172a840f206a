// Bounds: the one place where a number from a flag, a YAML field, a catalog entry or a log is
// checked before it becomes a count, a quantity or money. Each check gives the problem as a
// phrase naming the value as given (nullopt when the value is fine); the flag forms give an
// Error naming the flag. The limits are documented in README ("Limits"): a value past them is a
// typo, and within them every product this program forms (a count × a count × an amount) stays
// a finite double, so no total can become negative, NaN or infinite.
#pragma once

#include <optional>
#include <string>

#include "core/error.h"
#include "core/phrase.h"
#include "core/range.h"

namespace gpuplan::bounds {

// The most of anything counted: GPUs, servers, modules, disks, requests, tokens.
inline constexpr int kMaxCount = 100000;
// The largest amount: money in any currency, a quantity in its unit (GB, kW, TB, hours).
// 1e12 GB is an exabyte; ¥1e12 is a trillion.
inline constexpr double kMaxAmount = 1e12;

// Finite (not NaN, not ±infinity).
std::optional<Phrase> finite(double v, const std::string& got);
// Finite, at least 0 and at most kMaxAmount.
std::optional<Phrase> amount(double v, const std::string& got);
// Finite, more than 0 and at most kMaxAmount.
std::optional<Phrase> positive(double v, const std::string& got);
// Finite, whole, at least `min` and at most kMaxCount.
std::optional<Phrase> count(double v, int min, const std::string& got);
// Finite and within [min, max]; `key` words it (cli.value.between, between_seconds …), with
// `min_text` and `max_text` as shown to the reader.
std::optional<Phrase> between(double v, double min, double max, const std::string& got, const std::string& key,
                              const std::string& min_text, const std::string& max_text);

// The same checks for a command-line flag: the value, or an Error naming the flag.
Result<double> flag_amount(const std::string& flag, double v);
Result<double> flag_positive(const std::string& flag, double v);
Result<int> flag_count(const std::string& flag, long long v, int min);

// A figure as given on the command line: "0.001", "1e+30", "nan".
std::string shown(double v);

// A money total that is a finite, non-negative number (both ends of a range).
bool sane_money(double v);
bool sane_money(const Range& r);
// The problem for a total that is not: what it came to.
Phrase money_overflow(double got);

}  // namespace gpuplan::bounds
