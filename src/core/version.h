// Dotted version strings ("535.129.03", "12.2", "2.18.3"): one comparison for the whole tool, so
// the quote's software rule and acceptance's G5 check judge a version the same way.
//
// A caller may rely on: components compare as unsigned decimal numbers of any length (no
// overflow: "99999999999999999999" is compared digit by digit, never parsed into an integer);
// leading zeros do not count ("535.129.03" == "535.129.3"); a missing component counts as 0
// ("12.1" == "12.1.0"); a component's digits end at its first non-digit ("2.1.0+cu121" reads as
// 2.1.0), and a component without leading digits counts as 0.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

// -1, 0 or 1 as `a` is older than, the same as or newer than `b`.
int compare_versions(std::string_view a, std::string_view b);

// Whether `v` is one of `allowed` or a release of one: equal (as compare_versions sees it) or a
// dotted extension of it ("12.2.140" is release 12.2 of an allowed "12.2"; "12.20" is not).
bool version_in(std::string_view v, const std::vector<std::string>& allowed);

}  // namespace gpuplan
