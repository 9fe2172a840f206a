// Error and Result: expected failures (bad input, missing file, unknown id) are values that
// carry where they happened (file:line:field), never exceptions crossing module boundaries.
// What went wrong is a phrase (a message id and its facts): report/messages words it in the
// reader's language (report::error_text).
//
// The one idiom for an operation that can fail:
//   - Result<T>: the value or the Error. Result<void> (a specialization) is the same for an
//     operation that gives nothing back but can fail: `return {};` is success. Both are
//     [[nodiscard]]: ignoring one is a bug, or needs an explicit `(void)` with a comment saying why.
//   - std::optional<T>: a parse of a name or a small value whose failure needs no reason
//     (report::parse_format, usage::parse_synth_pattern); the caller words the error, usually
//     not_one_of with the names it takes.
// Kept on purpose, outside that idiom:
//   - ParseFailure (below), thrown only inside one parser by deep field readers and turned into
//     an Error at the parser's public boundary; it never crosses a module.
//   - std::vector<Error> where one pass collects every problem rather than stopping at the first
//     (catalog::Catalog::load, so that `catalog check` lists them all).
//   - std::optional<Phrase> from a check whose caller knows where it happened and builds the Error
//     (the catalog's field checks, the snapshot's link check), and a reader's recorded failure
//     (telemetry::ByteSource::failure): the words of a problem, not yet an Error.
//   - bool with an out-parameter in telemetry's per-field scanners (number_parse.h,
//     smi_timestamp.h, gpu_lookup.h, the shaped-line readers), which run once a field of
//     multi-gigabyte logs, and in the kernel log's per-line matchers (probe/kernel_log.cpp), which
//     fill in a line or event the caller has begun; a miss needs no reason in either.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "core/phrase.h"

namespace gpuplan {

struct Error {
  std::string file;   // may be empty (e.g. a command-line flag)
  int line = 0;       // 1-based; 0 when unknown
  std::string field;  // dotted path, e.g. "nics[1].part", or a flag "--gpus"
  Phrase message;     // e.g. {"error.unknown_id", {kind: nic, id: ib-hdr-20g, …}}

  Error() = default;
  Error(std::string file, int line, std::string field, Phrase message)
      : file(std::move(file)), line(line), field(std::move(field)), message(std::move(message)) {}

  // The error as one phrase, "error.located": where it happened ("config.yaml:12: nics[1].part: ",
  // a fact shown as it is) and what went wrong; so that an error can stand inside a report.
  Phrase phrase() const;
  // "config.yaml:12: nics[1].part: " then the message id and its facts, for logs and test
  // failures; users read report::error_text.
  std::string str() const;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;                                // success
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

// Thrown only inside a parser and turned into an Error at its public boundary, so that deep
// field readers can stop a parse without threading a Result through every call.
struct ParseFailure {
  Error error;
};

}  // namespace gpuplan
