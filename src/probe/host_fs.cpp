#include "probe/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace gpuplan::probe {
namespace {

// The kernel's own limit (MAXSYMLINKS): a chain longer than this is a loop, not a layout.
constexpr int kMaxLinks = 40;

// "/a/b//c/" → {"a", "b", "c"}.
std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out;
}

std::optional<std::string> read_link(const std::string& real_path) {
  std::string target(256, '\0');
  while (true) {
    ssize_t n = ::readlink(real_path.c_str(), target.data(), target.size());
    if (n < 0) return std::nullopt;
    if (static_cast<size_t>(n) < target.size()) {
      target.resize(static_cast<size_t>(n));
      return target;
    }
    target.resize(target.size() * 2);  // may have been cut short: try again with more room
  }
}

}  // namespace

HostFs::HostFs(std::string root, size_t max_read_bytes) : root_(std::move(root)), max_read_bytes_(max_read_bytes) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "/";
}

std::string HostFs::real(std::string_view host_path) const {
  std::string out = root_ == "/" ? "" : root_;
  if (host_path.empty() || host_path.front() != '/') out += '/';
  out += host_path;
  return out;
}

std::optional<std::string> HostFs::resolve(std::string_view host_path) const {
  // Walked one component at a time, as the kernel does, but with the root as "/": an absolute
  // target restarts at the root and ".." stops there instead of reaching the real filesystem.
  std::vector<std::string> done;  // resolved so far: no component is a link
  std::vector<std::string> todo = components(host_path);
  std::reverse(todo.begin(), todo.end());  // next component at the back
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (done.empty()) return std::nullopt;  // climbs above the root
      done.pop_back();
      continue;
    }
    done.push_back(std::move(part));
    std::string here = join(done);
    struct stat st {};
    if (::lstat(real(here).c_str(), &st) != 0) return std::nullopt;
    if (S_ISLNK(st.st_mode)) {
      if (++links > kMaxLinks) return std::nullopt;
      auto target = read_link(real(here));
      if (!target || target->empty()) return std::nullopt;
      if (links_seen_.insert(here).second) links_followed_.emplace_back(here, *target);
      done.pop_back();
      if (target->front() == '/') done.clear();
      auto more = components(*target);
      todo.insert(todo.end(), more.rbegin(), more.rend());
    } else if (!todo.empty() && !S_ISDIR(st.st_mode)) {
      return std::nullopt;  // "file/more": a regular file has no children
    }
  }
  return join(done);
}

bool HostFs::exists(std::string_view host_path) const {
  return resolve(host_path).has_value();
}

std::optional<std::string> HostFs::read(std::string_view host_path) const {
  auto resolved = resolve(host_path);
  if (!resolved) return std::nullopt;
  // resolve() left no link in the path; O_NOFOLLOW keeps one swapped in since then out, and
  // O_NONBLOCK keeps open() from waiting on a FIFO before fstat can refuse it.
  int fd = ::open(real(*resolved).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > max_read_bytes_) {
    ::close(fd);
    return std::nullopt;
  }
  // sysfs and procfs report sizes of 4096 or 0 whatever the content: read to the end instead,
  // and stop once past the cap.
  std::string text;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {  // EIO from a sysfs attribute the device cannot answer
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    if (static_cast<size_t>(n) > max_read_bytes_ - text.size()) {
      ::close(fd);
      return std::nullopt;
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  remember(*resolved, text);
  return text;
}

std::optional<std::string> HostFs::read_line(std::string_view host_path) const {
  auto text = read(host_path);
  if (!text) return std::nullopt;
  std::string line = text->substr(0, text->find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
  return line;
}

std::vector<std::string> HostFs::list(std::string_view host_dir) const {
  std::vector<std::string> names;
  auto resolved = resolve(host_dir);
  if (!resolved) return names;
  DIR* dir = ::opendir(real(*resolved).c_str());
  if (!dir) return names;
  while (const dirent* e = ::readdir(dir)) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

void HostFs::remember(std::string_view host_path, const std::string& text) const {
  std::string path(host_path);
  auto [it, first] = first_reads_.try_emplace(path);
  if (!first) return;
  if (text.size() <= kMaxKeptBytes) it->second = text;
  files_read_.push_back(std::move(path));
}

std::optional<std::string> HostFs::first_read(const std::string& resolved_host_path) const {
  auto it = first_reads_.find(resolved_host_path);
  return it == first_reads_.end() ? std::nullopt : it->second;
}

}  // namespace gpuplan::probe
