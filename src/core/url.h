// URLs as they may be shown. A caller may rely on: url_without_credentials drops the user
// information ("user:password@") of a URL's authority and leaves everything else as written, so
// that a password given in --prometheus http://user:pass@host/ never reaches an error message,
// a log or a report; a URL without user information comes back unchanged.
#pragma once

#include <string>
#include <string_view>

namespace gpuplan {

std::string url_without_credentials(std::string_view url);

}  // namespace gpuplan
