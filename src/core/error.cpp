#include "core/error.h"

namespace gpuplan {
namespace {

std::string facts_text(const Facts& facts) {
  std::string out;
  for (const Fact& f : facts) {
    out += out.empty() ? " (" : ", ";
    out += f.key + "=";
    if (f.phrases.empty() || !f.value.empty()) {  // a listed or named fact keeps its plain form too
      out += f.value;
      continue;
    }
    for (size_t i = 0; i < f.phrases.size(); ++i)
      out += (i ? "|" : "") + f.phrases[i].key + facts_text(f.phrases[i].facts);
  }
  return out.empty() ? out : out + ")";
}

std::string where(const Error& e) {
  std::string out;
  if (!e.file.empty()) {
    out += e.file;
    if (e.line > 0) out += ":" + std::to_string(e.line);
    out += ": ";
  }
  if (!e.field.empty()) out += e.field + ": ";
  return out;
}

}  // namespace

Phrase Error::phrase() const {
  return Phrase("error.located").fact("where", where(*this)).fact("what", {message});
}

std::string Error::str() const {
  return where(*this) + message.key + facts_text(message.facts);
}

}  // namespace gpuplan
