// Running `gpuplan watch` as a child process for the daemon tests: started with the fake NVML,
// signalled, waited for; and its log read back ("batch N committed" lines, in English).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace gpuplan::testing {

class WatchProcess {
 public:
  // `args` after "watch"; the fake NVML serves `scenario`.
  WatchProcess(const std::vector<std::string>& args, const std::string& scenario) {
    pid_ = fork();
    if (pid_ == 0) {
      setenv("GPUPLAN_NVML_LIBRARY", GPUPLAN_FAKE_NVML, 1);
      setenv("GPUPLAN_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
      unsetenv("GPUPLAN_FAKE_NVML_CLOCK_FILE");
      std::vector<std::string> all = {GPUPLAN_BINARY, "--lang", "en", "watch"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(GPUPLAN_BINARY, argv.data());
      _exit(127);
    }
  }
  ~WatchProcess() {
    if (pid_ > 0 && !done_) {
      kill(pid_, SIGKILL);
      wait();
    }
  }
  WatchProcess(const WatchProcess&) = delete;
  WatchProcess& operator=(const WatchProcess&) = delete;

  bool started() const { return pid_ > 0; }
  // Still running (not exited, not killed).
  bool running() {
    int status = 0;
    if (done_) return false;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      done_ = true;
      status_ = status;
      return false;
    }
    return true;
  }
  void signal(int sig) { kill(pid_, sig); }
  // The raw wait status; -1 when waiting failed.
  int wait() {
    if (done_) return status_;
    int status = 0;
    if (waitpid(pid_, &status, 0) != pid_) return -1;
    done_ = true;
    return status;
  }

 private:
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = 0;
};

// The batch numbers the log says were committed.
inline std::vector<long long> committed_batches(const std::string& log) {
  std::vector<long long> out;
  static const std::regex line(R"(batch (\d+) committed: (\d+) readings)");
  const std::string text = read_file(log);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it)
    out.push_back(std::stoll((*it)[1]));
  return out;
}

// The port of the log's "serving /metrics and /healthz on 127.0.0.1:PORT" line; 0 until it is there.
inline int served_port(const std::string& log) {
  static const std::regex line(R"(serving /metrics and /healthz on 127\.0\.0\.1:(\d+))");
  std::smatch m;
  const std::string text = read_file(log);
  return std::regex_search(text, m, line) ? std::stoi(m[1]) : 0;
}

// Polls `done` every 20 ms for up to `limit`.
template <class F>
bool eventually(F done, std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  for (auto waited = std::chrono::milliseconds(0); waited < limit; waited += std::chrono::milliseconds(20)) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

}  // namespace gpuplan::testing
