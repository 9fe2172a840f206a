// The parts of the message table, one per verb family. Each entry gives a key and its words in
// English and Chinese; a finding's entry also gives a title in both. report/messages.cpp
// gathers them into one lookup, in which each key appears once.
#pragma once

#include <span>
#include <string_view>

namespace gpuplan::report::messages {

struct Words {
  std::string_view key, en, zh;
};

struct FindingWords {
  std::string_view key, en_title, en, zh_title, zh;
};

std::span<const FindingWords> plan_findings();      // quote rules, audit, recommend (plan.cpp)
std::span<const FindingWords> accept_findings();    // acceptance checks (accept.cpp)
std::span<const FindingWords> diagnose_findings();  // troubleshooting (diagnose.cpp)
std::span<const Words> plan_words();                 // terms in plan findings, configuration and quote errors
std::span<const Words> diagnose_words();             // phrases in troubleshooting facts (diagnose.cpp)
std::span<const Words> accept_words();              // acceptance phrases and evidence (accept.cpp)
std::span<const Words> report_words();              // headings and labels of every report (report.cpp)
std::span<const Words> tco_words();                 // tco and usage phrases (tco.cpp)
std::span<const Words> cli_words();                 // --help and command-line words (cli.cpp)
std::span<const Words> error_words();               // error messages (errors.cpp)
std::span<const Words> jobs_words();                // job accounting → GPU demand errors and skips (jobs.cpp)
std::span<const Words> watch_daemon_words();        // gpuplan watch: sampling, its log and errors (watch_daemon.cpp)
std::span<const Words> watch_archive_words();       // the archive, its export and readers (watch_archive.cpp)
std::span<const Words> watch_exporter_words();      // /metrics, web config, alert rules (watch_exporter.cpp)

}  // namespace gpuplan::report::messages
