#include "probe/snapshot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

namespace gpuplan::probe {
namespace fs = std::filesystem;
namespace {

using Writer = std::unique_ptr<archive, decltype(&archive_write_free)>;
using Reader = std::unique_ptr<archive, decltype(&archive_read_free)>;
using EntryPtr = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

// "/a/b/../c" → "/a/c"; never climbs above "/".
std::string normalise(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else {
      parts.push_back(part);
    }
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/'))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

class SnapshotWriter {
 public:
  SnapshotWriter(const HostFs& fs, archive* a) : fs_(fs), a_(a) {}

  // Archives the links on the way to `host_path` and, when it ends in a regular file, the file.
  void add_path(const std::string& host_path) {
    std::vector<std::string> todo = components(host_path);
    std::string current;
    int links_followed = 0;
    for (size_t i = 0; i < todo.size(); ++i) {
      const std::string next = current + "/" + todo[i];
      const std::string real = fs_.root() == "/" ? next : fs_.root() + next;
      struct stat st {};
      if (lstat(real.c_str(), &st) != 0) return;
      if (S_ISLNK(st.st_mode)) {
        if (++links_followed > 40) return;  // a loop of links
        std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096), '\0');
        const ssize_t n = readlink(real.c_str(), target.data(), target.size());
        if (n < 0) return;
        target.resize(static_cast<size_t>(n));
        add_link(next, target);
        const std::string resolved = target.front() == '/' ? normalise(target) : normalise(current + "/" + target);
        std::vector<std::string> rest = components(resolved);
        rest.insert(rest.end(), todo.begin() + static_cast<long>(i) + 1, todo.end());
        todo = std::move(rest);
        current.clear();
        i = static_cast<size_t>(-1);
        continue;
      }
      current = next;
      if (i + 1 == todo.size() && S_ISREG(st.st_mode)) add_file_from_host(current, real);
    }
  }

  void add_link_dir(const std::string& host_dir) {
    for (const std::string& name : fs_.list(host_dir)) add_path(host_dir + "/" + name);
  }

  void add_text(const std::string& name, const std::string& text) { add_file(name, text); }
  int entries() const { return entries_; }

  void add_link(const std::string& host_path, const std::string& target) {
    if (!added_.insert(host_path).second) return;
    EntryPtr e(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(e.get(), host_path.substr(1).c_str());
    archive_entry_set_filetype(e.get(), AE_IFLNK);
    archive_entry_set_perm(e.get(), 0777);
    archive_entry_set_symlink(e.get(), target.c_str());
    archive_write_header(a_, e.get());
    ++entries_;
  }


 private:
  void add_file_from_host(const std::string& host_path, const std::string& real) {
    if (added_.count(host_path)) return;
    // sysfs files claim 4096 bytes whatever they hold: read to the end instead of trusting st_size.
    std::ifstream in(real, std::ios::binary);
    if (!in) return;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return;
    add_file(host_path.substr(1), text.str());
    added_.insert(host_path);
  }

  void add_file(const std::string& name, const std::string& text) {
    EntryPtr e(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(text.size()));
    archive_write_header(a_, e.get());
    archive_write_data(a_, text.data(), text.size());
    ++entries_;
  }

  const HostFs& fs_;
  archive* a_;
  std::set<std::string> added_;
  int entries_ = 0;
};

// Whether an archived path, and a link's target seen from it, stay inside the unpack target.
bool safe_name(const std::string& name) {
  if (name.empty() || name.front() == '/') return false;
  for (const auto& part : components(name))
    if (part == "..") return false;
  return true;
}

bool safe_link(const std::string& name, const std::string& target) {
  if (target.empty() || target.front() == '/') return false;
  int depth = static_cast<int>(components(name).size()) - 1;  // directories above the link
  for (const auto& part : components(target)) {
    if (part == "..") {
      if (--depth < 0) return false;
    } else if (part != ".") {
      ++depth;
    }
  }
  return true;
}

}  // namespace

Result<int> write_snapshot(const HostFs& fs, const SnapshotContent& content, const std::string& out) {
  Writer a(archive_write_new(), &archive_write_free);
  archive_write_add_filter_gzip(a.get());
  archive_write_set_format_pax_restricted(a.get());
  if (archive_write_open_filename(a.get(), out.c_str()) != ARCHIVE_OK)
    return Error{out, 0, {}, std::string("cannot write the snapshot: ") + archive_error_string(a.get())};
  SnapshotWriter w(fs, a.get());
  for (const auto& [name, text] : content.captures) w.add_text("gpuplan/" + name, text);
  for (const auto& [link, target] : fs.links_followed()) w.add_link(link, target);
  for (const auto& dir : content.link_dirs) w.add_link_dir(dir);
  for (const auto& file : content.host_files) w.add_path(file);
  if (archive_write_close(a.get()) != ARCHIVE_OK)
    return Error{out, 0, {}, std::string("cannot finish the snapshot: ") + archive_error_string(a.get())};
  return w.entries();
}

Result<int> unpack_snapshot(const std::string& path, const std::string& dir) {
  Reader a(archive_read_new(), &archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
    return Error{path, 0, {}, std::string("cannot read the snapshot: ") + archive_error_string(a.get())};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{dir, 0, {}, "cannot create the directory: " + ec.message()};
  Writer disk(archive_write_disk_new(), &archive_write_free);
  archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
  int entries = 0;
  archive_entry* e = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK)
      return Error{path, 0, {}, std::string("not a readable snapshot: ") + archive_error_string(a.get())};
    const std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    const auto type = archive_entry_filetype(e);
    if (!safe_name(name)) return Error{path, 0, name, "refused: the path leaves the snapshot"};
    if (type == AE_IFLNK) {
      const char* target = archive_entry_symlink(e);
      if (!target || !safe_link(name, target))
        return Error{path, 0, name, "refused: the link points outside the snapshot"};
    } else if (type != AE_IFREG && type != AE_IFDIR) {
      return Error{path, 0, name, "refused: only files, directories and links belong in a snapshot"};
    }
    if (archive_entry_hardlink(e)) return Error{path, 0, name, "refused: hard links do not belong in a snapshot"};
    archive_entry_set_pathname(e, (dir + "/" + name).c_str());
    if (archive_write_header(disk.get(), e) != ARCHIVE_OK)
      return Error{path, 0, name, std::string("cannot unpack: ") + archive_error_string(disk.get())};
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int rr;
    while ((rr = archive_read_data_block(a.get(), &block, &size, &offset)) == ARCHIVE_OK)
      archive_write_data_block(disk.get(), block, size, offset);
    if (rr != ARCHIVE_EOF)
      return Error{path, 0, name, std::string("truncated snapshot: ") + archive_error_string(a.get())};
    archive_write_finish_entry(disk.get());
    ++entries;
  }
  return entries;
}

}  // namespace gpuplan::probe
