// A bundle: files written into one new directory with a sha256 manifest. The acceptance
// evidence is one (everything an acceptance run rests on, in one directory a dispute can be
// settled from):
//   report.json, report.md, report.html   the verdict and every check
//   inputs/NAME                           copies of the files given on the command line
//   host/PATH                             the host files the probes read (sysfs, /proc)
//   captures/NAME                         what gpuplan captured: kernel.log, nvml.json, tool outputs
//   timestamps.json                       when the run started and ended, gpuplan's version, the command
//   MANIFEST.sha256                       sha256 of every file above (`sha256sum -c MANIFEST.sha256`)
// A caller may rely on: the bundle is written into a temporary directory beside DIR (".DIR.tmp-XXXXXX",
// removed on failure and on SIGINT/SIGTERM) and renamed to DIR only when complete, so DIR either does
// not exist or holds the whole bundle; an existing non-empty directory is refused (nothing is overwritten);
// two items with the same name both go in (the later one as NAME-2.EXT); a name that would
// leave the directory is an Error.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"

namespace gpuplan {

struct BundleFile {
  std::string name;       // path inside the bundle, "inputs/soak.csv"
  std::string copy_from;  // a file to copy, or empty to write `text`
  std::string text;
};

// Writes every item, then MANIFEST.sha256 over all of them; returns the number of files.
[[nodiscard]] Result<int> write_bundle(const std::string& dir, const std::vector<BundleFile>& items);

}  // namespace gpuplan
