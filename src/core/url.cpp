#include "core/url.h"

namespace gpuplan {

std::string url_without_credentials(std::string_view url) {
  // The authority runs from after "scheme://" (or the start, for "user:pass@host:9090") to the
  // first '/', '?' or '#'; its user information ends at the last '@' in it (RFC 3986 §3.2).
  const size_t scheme = url.find("://");
  const size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string_view::npos) end = url.size();
  const size_t at = url.substr(start, end - start).rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(url.substr(start + at + 1));
}

}  // namespace gpuplan
