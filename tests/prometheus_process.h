// Running Debian's real Prometheus (and promtool) from a test: spawn a command with its output in
// a log, a server stopped whatever happens, readiness on a free loopback port, HTTP GETs.
// A caller may rely on: start_prometheus() returns a ready server's URL or "" (the log says why);
// every process is stopped when its object goes.
#pragma once

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gpuplan::testing {

constexpr const char* kPrometheus = "/usr/bin/prometheus";
constexpr const char* kPromtool = "/usr/bin/promtool";

// Starts argv[0] with its output in `log`; the arguments are laid out before the fork, so the
// child only calls what is safe after forking a threaded process.
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Runs a command to completion; its exit status.
inline int run_command(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = spawn(argv, log);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The last 4000 bytes of a log, for a failure message.
inline std::string log_tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > 4000 ? "…" + text.substr(text.size() - 4000) : text;
}

// A Prometheus server started for one test and stopped, whatever happens, when it goes.
class PrometheusProcess {
 public:
  PrometheusProcess(const std::vector<std::string>& argv, const std::string& log) : log_(log), pid_(spawn(argv, log)) {}
  ~PrometheusProcess() {
    if (pid_ <= 0 || exited_) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // up to 5 s for a clean shutdown, then SIGKILL
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;
  bool running() {
    if (!exited_ && ::waitpid(pid_, nullptr, WNOHANG) == pid_) exited_ = true;
    return !exited_;
  }
  std::string log() const { return log_tail(log_); }

 private:
  std::string log_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

inline size_t discard_body(char*, size_t size, size_t n, void*) {
  return size * n;
}

// The HTTP status of a GET of `url`; 0 when there was no answer within a second.
inline long http_status(const std::string& url) {
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 1000L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
  long status = 0;
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  return status;
}

inline size_t append_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// The body of a GET of `url` when it answered 200 within 5 s; "" otherwise.
inline std::string http_get(const std::string& url) {
  CURL* c = curl_easy_init();
  std::string body;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  long status = 0;
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  return status == 200 ? body : "";
}

// A loopback port free a moment ago (another process may take it: callers retry on failure).
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Starts Prometheus with `config` and `data_dir` (plus `extra` flags) on a free loopback port,
// trying another port if one was taken; the ready server's URL in `url`, "" when none became
// ready within 60 s (then `server`'s log says why).
inline std::string start_prometheus(std::unique_ptr<PrometheusProcess>& server, const std::string& config,
                                    const std::string& data_dir, const std::string& log,
                                    const std::vector<std::string>& extra = {}) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    int port = free_port();
    std::vector<std::string> argv{kPrometheus, "--config.file=" + config, "--storage.tsdb.path=" + data_dir,
                                  "--web.listen-address=127.0.0.1:" + std::to_string(port)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    server = std::make_unique<PrometheusProcess>(argv, log);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string candidate = "http://127.0.0.1:" + std::to_string(port);
    while (std::chrono::steady_clock::now() < deadline && server->running()) {
      if (http_status(candidate + "/-/ready") == 200) return candidate;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return "";
}

}  // namespace gpuplan::testing
