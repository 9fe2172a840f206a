#include "core/bundle.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/output_file.h"
#include "core/sha256.h"
#include "core/temp_dirs.h"

namespace gpuplan {
namespace fs = std::filesystem;

namespace {

// Writes every item and the manifest into `dir` (a new empty directory); returns the file count.
Result<int> fill_bundle(const fs::path& dir, const std::vector<BundleFile>& items) {
  std::error_code ec;
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (const BundleFile& item : items) {
    const fs::path relative(item.name);
    const bool unsafe = item.name.empty() || relative.is_absolute() ||
                        std::any_of(relative.begin(), relative.end(), [](const fs::path& p) { return p == ".."; });
    if (unsafe) return Error{item.name, 0, "--evidence", Phrase("cli.evidence.outside")};
    // Two inputs with the same file name (x/smart.json, y/smart.json) both go in: "smart-2.json".
    std::string name = item.name;
    for (int n = 2; !taken.insert(name).second; ++n)
      name = (relative.parent_path() /
              (relative.stem().string() + "-" + std::to_string(n) + relative.extension().string()))
                 .string();
    const fs::path target = dir / name;
    fs::create_directories(target.parent_path(), ec);
    if (!item.copy_from.empty()) {
      fs::copy_file(item.copy_from, target, fs::copy_options::overwrite_existing, ec);
      if (ec) return Error{item.copy_from, 0, {}, Phrase("cli.evidence.cannot_copy").fact("why", ec.message())};
    } else if (auto written = write_output_file(target.string(), item.text, "--evidence"); !written) {
      return written.error();
    }
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string manifest;
  for (const std::string& name : names) {
    auto hash = sha256_file((dir / name).string());
    if (!hash) return hash.error();
    manifest += *hash + "  " + name + "\n";
  }
  if (auto written = write_output_file((dir / "MANIFEST.sha256").string(), manifest, "--evidence"); !written)
    return written.error();
  return static_cast<int>(names.size()) + 1;
}

}  // namespace

Result<int> write_bundle(const std::string& dir, const std::vector<BundleFile>& items) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    return Error{dir, 0, "--evidence", Phrase("cli.evidence.not_empty")};
  // Built in a temporary directory beside `dir` and renamed into place when complete, so that a
  // run stopped half way leaves no `dir` for the next run to refuse.
  fs::path final_dir = fs::path(dir).lexically_normal();
  if (!final_dir.has_filename()) final_dir = final_dir.parent_path();  // "acceptance/"
  const fs::path parent = final_dir.has_parent_path() ? final_dir.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) return Error{dir, 0, "--evidence", Phrase("cli.evidence.cannot_create").fact("why", ec.message())};
  const std::string temp = make_temp_dir((parent / ("." + final_dir.filename().string() + ".tmp-XXXXXX")).string());
  if (temp.empty())
    return Error{dir, 0, "--evidence", Phrase("cli.evidence.cannot_create").fact("why", std::strerror(errno))};
  Result<int> count = fill_bundle(temp, items);
  // The mode a plain new directory gets (0777 less the umask), not mkdtemp's 0700.
  if (count && (::chmod(temp.c_str(), 0777 & ~process_umask()) != 0 || ::rename(temp.c_str(), final_dir.c_str()) != 0))
    count = Error{dir, 0, "--evidence", Phrase("cli.evidence.cannot_create").fact("why", std::strerror(errno))};
  if (count)
    forget_temp_dir(temp);
  else
    remove_temp_dir(temp);
  return count;
}

}  // namespace gpuplan
