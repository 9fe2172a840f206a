#include "probe/snapshot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "core/output_file.h"

namespace gpuplan::probe {
namespace fs = std::filesystem;
namespace {

using Writer = std::unique_ptr<archive, decltype(&archive_write_free)>;
using Reader = std::unique_ptr<archive, decltype(&archive_read_free)>;
using EntryPtr = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

// `key` with libarchive's error text as its "why", or error.unknown_reason when it has none.
Phrase archive_failure(const char* key, archive* a) {
  const char* why = archive_error_string(a);
  return why ? Phrase(key).fact("why", why) : Phrase(key).fact("why", {Phrase("error.unknown_reason")});
}

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

// `target` of an absolute link at `link` (both host paths) as the same path relative to the
// link's directory: "/etc/hostname" → "/etc/static/hostname" gives "static/hostname". The
// link's directory holds no link (the writer archives links at resolved paths), so climbing
// out of it with ".." and descending the directories it shares with the target is exact; the
// rest of the target is kept as written, since lexical clean-up past a link could change it.
std::string relative_target(const std::string& link, const std::string& target) {
  std::vector<std::string> dir = components(link);
  if (!dir.empty()) dir.pop_back();
  std::vector<std::string> to;
  for (auto& part : components(target))
    if (part != ".") to.push_back(std::move(part));
  size_t common = 0;
  while (common < dir.size() && common < to.size() && to[common] != ".." && to[common] == dir[common]) ++common;
  std::string out;
  for (size_t i = common; i < dir.size(); ++i) out += out.empty() ? ".." : "/..";
  for (size_t i = common; i < to.size(); ++i) out += (out.empty() ? "" : "/") + to[i];
  return out.empty() ? "." : out;
}

// "sys/./bus//x" → "sys/bus/x": the path libarchive writes, "." parts dropped.
std::string clean(const std::string& name) {
  std::string out;
  for (const auto& part : components(name))
    if (part != ".") out += (out.empty() ? "" : "/") + part;
  return out;
}

// Whether an archived path stays inside the unpack target: relative, no "..", and naming
// something below the target rather than the target itself ("./").
bool safe_name(const std::string& name) {
  if (name.empty() || name.front() == '/') return false;
  for (const auto& part : components(name))
    if (part == "..") return false;
  return !clean(name).empty();
}

// The links of one archive, to judge each new one against those before it. A target is walked
// textually from the link's directory (which holds no link on disk: libarchive's
// SECURE_SYMLINKS refuses to write through one). That walk is exact until it enters a path
// that is a link; a ".." after that climbs out of the link's target, not out of the path as
// written (x/l1 -> .. then x/l2 -> l1/.. reaches the target's parent), so it is refused. The
// paths a target descends into and climbs back out of are remembered too, so the same chain
// archived in the other order (x/l2 first) is refused when x/l1 arrives as a link.
class LinkGuard {
 public:
  // nullopt when `target` of the link archived as `name` stays inside; otherwise why not.
  std::optional<Phrase> check(const std::string& name, const std::string& target) {
    const std::string link = clean(name);
    if (climbed_through_.count(link)) return Phrase("error.snapshot.link_climbed_through");
    if (target.empty() || target.front() == '/') return Phrase("error.snapshot.link_outside");
    std::vector<std::string> here = components(link);
    here.pop_back();  // the link's directory
    std::vector<bool> descended(here.size(), false);
    std::vector<std::string> climbed;
    bool through_link = false;
    for (const auto& part : components(target)) {
      if (part == ".") continue;
      if (part == "..") {
        if (here.empty()) return Phrase("error.snapshot.link_outside");
        if (through_link) return Phrase("error.snapshot.link_through_link");
        if (descended.back()) climbed.push_back(join(here));
        here.pop_back();
        descended.pop_back();
        continue;
      }
      here.push_back(part);
      descended.push_back(true);
      if (links_.count(join(here))) through_link = true;
    }
    links_.insert(link);
    climbed_through_.insert(climbed.begin(), climbed.end());
    return std::nullopt;
  }

 private:
  static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
    return out;
  }

  std::set<std::string> links_;            // cleaned names of the links accepted so far
  std::set<std::string> climbed_through_;  // paths an accepted target entered and left with ".."
};

class SnapshotWriter {
 public:
  SnapshotWriter(const HostFs& fs, archive* a) : fs_(fs), a_(a) {}

  // Archives the links on the way to `host_path` and, when it ends in a regular file, the file;
  // with `keep_dir`, a directory it ends in too, so a link to it (a device's `driver`) does not
  // dangle in the unpacked tree when no file below it was read.
  void add_path(const std::string& host_path, bool keep_dir = false) {
    std::vector<std::string> todo = components(host_path);
    std::string current;
    int links_followed = 0;
    for (size_t i = 0; i < todo.size() && !failed_; ++i) {
      const std::string next = current + "/" + todo[i];
      const std::string real = fs_.root() == "/" ? next : fs_.root() + next;
      struct stat st {};
      if (lstat(real.c_str(), &st) != 0) return;
      if (S_ISLNK(st.st_mode)) {
        if (++links_followed > 40) return;  // a loop of links
        std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096), '\0');
        const ssize_t n = readlink(real.c_str(), target.data(), target.size());
        if (n <= 0) return;
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
      if (i + 1 == todo.size() && S_ISDIR(st.st_mode) && keep_dir) add_dir(current);
    }
  }

  void add_link_dir(const std::string& host_dir) {
    for (const std::string& name : fs_.list(host_dir)) add_path(host_dir + "/" + name);
  }

  void add_text(const std::string& name, const std::string& text) { add_file(name, text); }
  int entries() const { return entries_; }
  const std::vector<Phrase>& left_out() const { return left_out_; }
  // The first entry libarchive could not write (a full disk, an unwritable header); once set,
  // nothing more is written.
  const std::optional<Error>& failed() const { return failed_; }

  // An absolute target is archived relative to the link, so it stays inside an unpacked tree
  // (and passes unpack_snapshot's check) and still leads to the same host path.
  void add_link(const std::string& host_path, const std::string& target) {
    if (failed_ || !added_.insert(host_path).second) return;
    const std::string name = host_path.substr(1);
    const std::string archived = !target.empty() && target.front() == '/' ? relative_target(host_path, target) : target;
    // The same judge as unpack_snapshot, over the links in the order they go in: a link that
    // would point outside the unpacked tree (or that unpacking would refuse) is left out and said.
    if (guard_.check(name, archived)) {
      left_out_.push_back(Phrase("cli.snapshot.link_left_out").fact("path", host_path).fact("target", target));
      return;
    }
    EntryPtr e(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFLNK);
    archive_entry_set_perm(e.get(), 0777);
    archive_entry_set_symlink(e.get(), archived.c_str());
    if (archive_write_header(a_, e.get()) != ARCHIVE_OK) return fail(name);
    if (archive_write_finish_entry(a_) != ARCHIVE_OK) return fail(name);
    ++entries_;
  }

 private:
  void add_file_from_host(const std::string& host_path, const std::string& real) {
    if (added_.count(host_path)) return;
    // What the probe read, when it kept it: the snapshot then holds what the checks will judge.
    if (auto kept = fs_.first_read(host_path)) {
      add_file(host_path.substr(1), *kept);
      added_.insert(host_path);
      return;
    }
    // sysfs files claim 4096 bytes whatever they hold: read to the end instead of trusting st_size.
    std::ifstream in(real, std::ios::binary);
    if (!in) return;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return;
    add_file(host_path.substr(1), text.str());
    added_.insert(host_path);
  }

  void add_dir(const std::string& host_path) {
    if (failed_ || !added_.insert(host_path).second) return;
    const std::string name = host_path.substr(1);
    EntryPtr e(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFDIR);
    archive_entry_set_perm(e.get(), 0755);
    if (archive_write_header(a_, e.get()) != ARCHIVE_OK) return fail(name);
    if (archive_write_finish_entry(a_) != ARCHIVE_OK) return fail(name);
    ++entries_;
  }

  void add_file(const std::string& name, const std::string& text) {
    if (failed_) return;
    EntryPtr e(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(text.size()));
    if (archive_write_header(a_, e.get()) != ARCHIVE_OK) return fail(name);
    // archive_write_data may take less than offered; what it took is counted until all is in.
    for (size_t done = 0; done < text.size();) {
      const la_ssize_t n = archive_write_data(a_, text.data() + done, text.size() - done);
      if (n <= 0) return fail(name);
      done += static_cast<size_t>(n);
    }
    if (archive_write_finish_entry(a_) != ARCHIVE_OK) return fail(name);
    ++entries_;
  }

  void fail(const std::string& name) {
    failed_ = Error{"", 0, name, archive_failure("error.snapshot.cannot_write_entry", a_)};
  }

  const HostFs& fs_;
  archive* a_;
  std::set<std::string> added_;
  LinkGuard guard_;
  std::vector<Phrase> left_out_;
  int entries_ = 0;
  std::optional<Error> failed_;
};

// libarchive's write callback: the bytes go to the stream core/output_file gave (a temporary
// file beside `out`, renamed over it once complete); a stream that failed stops the archive.
la_ssize_t to_stream(archive*, void* stream, const void* buffer, size_t length) {
  auto& os = *static_cast<std::ostream*>(stream);
  os.write(static_cast<const char*>(buffer), static_cast<std::streamsize>(length));
  return os ? static_cast<la_ssize_t>(length) : -1;
}

}  // namespace

Result<int> write_snapshot(const HostFs& fs, const SnapshotContent& content, const std::string& out,
                           std::vector<Phrase>* left_out) {
  int entries = 0;
  auto written = write_output_file(out, {}, [&](std::ostream& os) -> Result<void> {
    Writer a(archive_write_new(), &archive_write_free);
    archive_write_add_filter_gzip(a.get());
    archive_write_set_format_pax_restricted(a.get());
    if (archive_write_open2(a.get(), &os, nullptr, to_stream, nullptr, nullptr) != ARCHIVE_OK)
      return Error{out, 0, {}, archive_failure("error.snapshot.cannot_write", a.get())};
    SnapshotWriter w(fs, a.get());
    for (const auto& [name, text] : content.captures) w.add_text("gpuplan/" + name, text);
    for (const auto& [link, target] : fs.links_followed()) w.add_link(link, target);
    for (const auto& dir : content.link_dirs) w.add_link_dir(dir);
    for (const auto& file : content.host_files) w.add_path(file, /*keep_dir=*/true);
    if (w.failed()) {
      Error e = *w.failed();
      e.file = out;
      return e;
    }
    if (archive_write_close(a.get()) != ARCHIVE_OK)
      return Error{out, 0, {}, archive_failure("error.snapshot.cannot_finish", a.get())};
    if (left_out) *left_out = w.left_out();
    entries = w.entries();
    return {};
  });
  if (!written) return written.error();
  return entries;
}

Result<int> unpack_snapshot(const std::string& path, const std::string& dir, const UnpackLimits& limits) {
  Reader a(archive_read_new(), &archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
    return Error{path, 0, {}, archive_failure("error.snapshot.cannot_read", a.get())};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{dir, 0, {}, Phrase("error.dir.cannot_create").fact("why", ec.message())};
  Writer disk(archive_write_disk_new(), &archive_write_free);
  archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
  auto disk_error = [&](const std::string& name) {
    return Error{path, 0, name, archive_failure("error.snapshot.cannot_unpack", disk.get())};
  };
  LinkGuard links;
  size_t entries = 0;
  uint64_t total_bytes = 0;
  archive_entry* e = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return Error{path, 0, {}, archive_failure("error.snapshot.unreadable", a.get())};
    const std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    const auto type = archive_entry_filetype(e);
    if (entries == limits.max_entries)
      return Error{path, 0, name,
                   Phrase("error.snapshot.too_many_entries").fact("max", std::to_string(limits.max_entries))};
    if (!safe_name(name)) return Error{path, 0, name, Phrase("error.snapshot.path_leaves")};
    if (type == AE_IFLNK) {
      const char* target = archive_entry_symlink(e);
      if (!target) return Error{path, 0, name, Phrase("error.snapshot.link_outside")};
      if (auto why = links.check(name, target)) return Error{path, 0, name, std::move(*why)};
    } else if (type != AE_IFREG && type != AE_IFDIR) {
      return Error{path, 0, name, Phrase("error.snapshot.not_file")};
    }
    if (archive_entry_hardlink(e)) return Error{path, 0, name, Phrase("error.snapshot.hard_link")};
    const auto fits = [&](uint64_t file_bytes) -> Result<void> {
      if (file_bytes > limits.max_file_bytes)
        return Error{path, 0, name,
                     Phrase("error.snapshot.file_too_large").fact("max", std::to_string(limits.max_file_bytes))};
      if (total_bytes + file_bytes > limits.max_total_bytes)
        return Error{path, 0, name,
                     Phrase("error.snapshot.total_too_large").fact("max", std::to_string(limits.max_total_bytes))};
      return {};
    };
    // The size the header declares is refused before anything is written; the blocks below are
    // counted too, since a sparse entry's blocks say where its data really ends.
    uint64_t file_bytes =
        archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ? static_cast<uint64_t>(archive_entry_size(e)) : 0;
    if (auto fit = fits(file_bytes); !fit) return fit.error();
    archive_entry_set_pathname(e, (dir + "/" + name).c_str());
    if (archive_write_header(disk.get(), e) != ARCHIVE_OK) return disk_error(name);
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int rr;
    while ((rr = archive_read_data_block(a.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      const uint64_t end = static_cast<uint64_t>(offset < 0 ? 0 : offset) + size;
      if (end > file_bytes) file_bytes = end;
      if (auto fit = fits(file_bytes); !fit) return fit.error();
      // A short or failed write (a full disk) comes back as ARCHIVE_WARN or worse: never a
      // silently truncated file.
      if (archive_write_data_block(disk.get(), block, size, offset) != ARCHIVE_OK) return disk_error(name);
    }
    if (rr != ARCHIVE_EOF) return Error{path, 0, name, archive_failure("error.snapshot.truncated", a.get())};
    if (archive_write_finish_entry(disk.get()) != ARCHIVE_OK) return disk_error(name);
    total_bytes += file_bytes;
    ++entries;
  }
  return static_cast<int>(entries);
}

}  // namespace gpuplan::probe
