// Error and Result: expected failures (bad input, missing file, unknown id) are values that
// carry where they happened (file:line:field), never exceptions crossing module boundaries.
// What went wrong is a phrase (a message id and its facts): report/messages words it in the
// reader's language (report::error_text).
#pragma once

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
class Result {
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

// Thrown only inside a parser and turned into an Error at its public boundary, so that deep
// field readers can stop a parse without threading a Result through every call.
struct ParseFailure {
  Error error;
};

}  // namespace gpuplan
