#include "core/url.h"

namespace gpuplan {

std::string url_without_credentials(std::string_view url) {
  // The user information ends at the last '@' of the authority (RFC 3986 §3.2), which runs to the
  // first '/', '?' or '#'. A password typed with a raw '/' ("bob:pa/ss@host") hides that '@'
  // behind a '/': text with a ':' before its first '/' and an '@' later is taken as "user:password@"
  // too, so that it is never printed (a path like "host:9090/a@b" then loses its host, not a secret).
  const size_t scheme = url.find("://");
  const size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("?#", start);
  if (end == std::string_view::npos) end = url.size();
  const std::string_view rest = url.substr(start, end - start);
  const size_t at = rest.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  const size_t slash = rest.find('/');
  const size_t colon = rest.find(':');
  const bool in_authority = slash == std::string_view::npos || at < slash;
  const bool password_with_slash = colon != std::string_view::npos && colon < slash;
  if (!in_authority && !password_with_slash) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(url.substr(start + at + 1));
}

}  // namespace gpuplan
