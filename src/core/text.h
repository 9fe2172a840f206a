// Small text helpers shared by parsers: nearest-name suggestions for typos.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/phrase.h"

namespace gpuplan {

size_t edit_distance(std::string_view a, std::string_view b);

// `s` with ASCII letters in lower case.
std::string lower(std::string s);

// The candidate closest to `word`, or "" when none is close enough to be a likely typo.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// The fact "hint": the phrase error.did_you_mean {nearest} (" (did you mean 'x'?)") when a
// candidate is close to `word`, else empty. Messages place it as "{hint}".
Fact did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// error.unknown_id: "unknown {kind} '{id}'{hint}", the hint from `candidates`; the kind is worded
// by the message "kind.<kind>" (a catalog kind, "kind", "catalog_entry", "catalog_part").
Phrase unknown_id(std::string kind, std::string id, const std::vector<std::string>& candidates);
// error.unknown_unit: "unknown unit '{unit}' in '{text}' (use one of {units}){hint}".
Phrase unknown_unit(std::string unit, std::string text, std::string units, const std::vector<std::string>& candidates);
// error.not_one_of: "'{got}' is not one of {allowed}{hint}", the allowed values as a list.
Phrase not_one_of(std::string got, const std::vector<std::string>& allowed);

}  // namespace gpuplan
