// Small text helpers shared by parsers: trimming, lower case, nearest-name suggestions for typos.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/phrase.h"

namespace gpuplan {

size_t edit_distance(std::string_view a, std::string_view b);

// `s` without ASCII whitespace (" \t\n\v\f\r", std::isspace in the C locale) at either end.
std::string_view trim(std::string_view s);

// `s` without the characters of `front` at its start and of `back` at its end: for readers that
// strip only some whitespace (a citation only spaces; sysfs readers a CRLF file's '\r' at the end,
// while a '\v' stays and fails the parse).
std::string_view trim_chars(std::string_view s, std::string_view front, std::string_view back);
inline std::string_view trim_chars(std::string_view s, std::string_view chars) {
  return trim_chars(s, chars, chars);
}

// A word a POSIX shell reads back as exactly `text`: `text` unchanged when it holds only
// characters a shell takes literally, otherwise in single quotes (a ' inside written as '\'').
std::string shell_quoted(std::string_view text);

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
