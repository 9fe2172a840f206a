#include "core/bundle.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/sha256.h"

namespace gpuplan {
namespace fs = std::filesystem;

Result<int> write_bundle(const std::string& dir, const std::vector<BundleFile>& items) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    return Error{dir, 0, "--evidence", Phrase("cli.evidence.not_empty")};
  fs::create_directories(dir, ec);
  if (ec) return Error{dir, 0, "--evidence", Phrase("cli.evidence.cannot_create").fact("why", ec.message())};
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
    const fs::path target = fs::path(dir) / name;
    fs::create_directories(target.parent_path(), ec);
    if (!item.copy_from.empty()) {
      fs::copy_file(item.copy_from, target, fs::copy_options::overwrite_existing, ec);
      if (ec) return Error{item.copy_from, 0, {}, Phrase("cli.evidence.cannot_copy").fact("why", ec.message())};
    } else {
      std::ofstream out(target, std::ios::binary);
      out << item.text;
      if (!out) return Error{target.string(), 0, {}, Phrase("cli.evidence.cannot_write")};
    }
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string manifest;
  for (const std::string& name : names) {
    auto hash = sha256_file((fs::path(dir) / name).string());
    if (!hash) return hash.error();
    manifest += *hash + "  " + name + "\n";
  }
  std::ofstream out(fs::path(dir) / "MANIFEST.sha256");
  out << manifest;
  if (!out) return Error{dir, 0, {}, Phrase("cli.evidence.cannot_write_manifest")};
  return static_cast<int>(names.size()) + 1;
}

}  // namespace gpuplan
