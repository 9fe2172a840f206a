// The exporter's HTTP server: GET /metrics (the WatchState as the Prometheus text format) and
// GET /healthz ("ok") on a thread of its own; any other path is 404, another method 405. It
// listens on `host:port` (default 127.0.0.1:9400: loopback unless the user names another
// address) and, given a web-config file in the Prometheus exporter-toolkit form, serves TLS
// and asks for basic auth (bcrypt hashes, checked with crypt_r). Requests are bounded in size
// and time. A caller may rely on: start() either listens or returns an Error (bad address,
// port in use, bad web config naming file, line and field) and starts nothing; stop() is safe
// to call twice and from the destructor.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/error.h"
#include "watch/state.h"

namespace httplib {
class Server;
}

namespace gpuplan::watch {

struct ListenAddress {
  std::string host;  // "127.0.0.1", "::1" (brackets dropped), "0.0.0.0"
  int port = 0;      // 0: any free port (tests)
};

inline constexpr const char* kDefaultListen = "127.0.0.1:9400";

// "host:port" or "[v6]:port"; an Error on --listen naming what is wrong.
Result<ListenAddress> parse_listen(const std::string& text);

// What a web-config file says (exporter-toolkit's web.yml, the parts gpuplan serves).
struct WebConfig {
  std::optional<std::string> cert_file, key_file;       // both or neither; relative to the file
  std::map<std::string, std::string> basic_auth_users;  // user → bcrypt hash
};

Result<WebConfig> read_web_config(const std::string& path);

// Whether `password` matches a crypt(3) hash ($2y$/$2b$ bcrypt and what libcrypt knows).
bool password_matches(const std::string& password, const std::string& hash);

struct ExporterOptions {
  ListenAddress listen;
  std::optional<std::string> web_config;  // a web-config file; none: plain HTTP, no auth
};

class Exporter {
 public:
  using StateFn = std::function<WatchState()>;  // a copy of what the daemon knows now

  Exporter();
  ~Exporter();
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  Result<void> start(const ExporterOptions& options, StateFn state);
  void stop();
  int port() const { return port_; }  // the port listened on (the one chosen when 0 was asked)

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace gpuplan::watch
