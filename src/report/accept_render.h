// Acceptance and diagnosis reports: the checks of `gpuplan accept` and the findings of
// `gpuplan diagnose` as a terminal table, JSON, Markdown or one HTML page. Pure functions.
//
// Public JSON shapes (README):
//   accept:   {"host","verdict":"pass|incomplete|fail","counts":{"pass","warn","fail","needs-evidence"},
//              "checks":[{"id","status","title","detail","evidence":[…],"source"}]}
//   diagnose: {"host","findings":[{"id","severity","title","detail","source","evidence":{…}}]}
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accept/accept.h"
#include "core/finding.h"
#include "report/render.h"

namespace gpuplan::report {

// j.dump(2) + "\n", with invalid UTF-8 replaced (U+FFFD) instead of thrown: host files, kernel
// logs and NVML strings from a board can hold any bytes.
std::string json_text(const nlohmann::json& j);

nlohmann::json accept_json(const accept::AcceptReport& r, Lang lang);
std::string render_accept(const accept::AcceptReport& r, Format format, const Style& style);

nlohmann::json diagnose_json(const std::string& host, const std::vector<Finding>& findings, Lang lang);
std::string render_diagnose(const std::string& host, const std::vector<Finding>& findings, Format format,
                            const Style& style);

}  // namespace gpuplan::report
