// The server behind /metrics. Routing, methods and basic auth are decided in one pre-routing
// handler, so that no request reaches a handler unauthenticated and every path answers as the
// header says (404 unknown path, 405 a method other than GET/HEAD).
#include "watch/exporter.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <chrono>
#include <filesystem>

#include "core/files.h"
#include "core/yaml_reader.h"
#include "watch/exposition.h"

namespace gpuplan::watch {
namespace {

// Bounds on one request: a scrape is a small GET, so anything large or slow is not one.
constexpr size_t kMaxPayload = 64 * 1024;
constexpr time_t kReadTimeoutS = 10;
constexpr time_t kWriteTimeoutS = 10;
constexpr time_t kKeepAliveS = 30;

Error listen_error(std::string phrase, const std::string& got) {
  return Error("", 0, "--listen", Phrase(std::move(phrase)).fact("got", got));
}

std::optional<std::string> base64_decode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

bool authorized(const WebConfig& cfg, const httplib::Request& req) {
  if (cfg.basic_auth_users.empty()) return true;
  const std::string header = req.get_header_value("Authorization");
  constexpr std::string_view kBasic = "Basic ";
  if (header.rfind(kBasic, 0) != 0) return false;
  auto decoded = base64_decode(std::string_view(header).substr(kBasic.size()));
  if (!decoded) return false;
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) return false;
  auto user = cfg.basic_auth_users.find(decoded->substr(0, colon));
  return user != cfg.basic_auth_users.end() && password_matches(decoded->substr(colon + 1), user->second);
}

std::string resolve(const std::string& config_path, const std::string& file) {
  std::filesystem::path p(file);
  return p.is_absolute() ? file : (std::filesystem::path(config_path).parent_path() / p).string();
}

// One text field of the web config; an Error names the file, its line and the field.
Result<std::string> text_field(const std::string& path, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) return Error(path, n.Mark().line + 1, field, Phrase("watch.web_config.not_text"));
  return n.as<std::string>();
}

Result<void> read_tls(const std::string& path, const YAML::Node& tls, WebConfig& cfg) {
  if (!tls.IsMap()) return Error(path, tls.Mark().line + 1, "tls_server_config", Phrase("watch.web_config.not_map"));
  for (const auto& kv : tls) {
    auto named = text_field(path, kv.first, "tls_server_config");
    if (!named) return named.error();
    const std::string key = *named;
    const std::string field = "tls_server_config." + key;
    if (key != "cert_file" && key != "key_file")
      return Error(path, kv.first.Mark().line + 1, field, Phrase("watch.web_config.unknown_field"));
    auto v = text_field(path, kv.second, field);
    if (!v) return v.error();
    (key == "cert_file" ? cfg.cert_file : cfg.key_file) = resolve(path, *v);
  }
  if (cfg.cert_file.has_value() != cfg.key_file.has_value())
    return Error(path, tls.Mark().line + 1,
                 cfg.cert_file ? "tls_server_config.key_file" : "tls_server_config.cert_file",
                 Phrase("watch.web_config.cert_without_key"));
  return {};
}

Result<void> read_users(const std::string& path, const YAML::Node& users, WebConfig& cfg) {
  if (!users.IsMap()) return Error(path, users.Mark().line + 1, "basic_auth_users", Phrase("watch.web_config.not_map"));
  for (const auto& kv : users) {
    auto named = text_field(path, kv.first, "basic_auth_users");
    if (!named) return named.error();
    const std::string user = *named;
    const std::string field = "basic_auth_users." + user;
    auto hash = text_field(path, kv.second, field);
    if (!hash) return hash.error();
    // exporter-toolkit accepts bcrypt only; a plain password here would be a secret in the clear.
    if (hash->rfind("$2y$", 0) != 0 && hash->rfind("$2b$", 0) != 0 && hash->rfind("$2a$", 0) != 0)
      return Error(path, kv.second.Mark().line + 1, field, Phrase("watch.web_config.not_bcrypt").fact("user", user));
    cfg.basic_auth_users[user] = *hash;
  }
  return {};
}

}  // namespace

Result<ListenAddress> parse_listen(const std::string& text) {
  ListenAddress a;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return listen_error("watch.exporter.bad_listen", text);
    a.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) return listen_error("watch.exporter.bad_listen", text);
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (a.host.empty()) return listen_error("watch.exporter.bad_listen", text);
  // A host of digits and dots is an IPv4 address, not a name to look up: 999.1.1.1 is refused here,
  // not at bind time after NVML is loaded.
  in_addr v4{};
  if (a.host.find_first_not_of("0123456789.") == std::string::npos && inet_pton(AF_INET, a.host.c_str(), &v4) != 1)
    return listen_error("watch.exporter.bad_listen", text);
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || a.port < 0 || a.port > 65535)
    return listen_error("watch.exporter.bad_port", port);
  return a;
}

Result<WebConfig> read_web_config(const std::string& path) {
  // Read as every input file is (a FIFO or /dev/zero refused, the size capped), and held to the
  // same shape: no key given twice, one document, no aliases.
  auto text = read_text_file(path);
  if (!text) return Error(path, 0, "", Phrase("watch.web_config.unreadable").fact("why", {text.error().message}));
  if (auto shape = yaml_shape_problem(*text, /*aliases_ok=*/false))
    return Error(path, shape->line, shape->field, shape->message);
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return Error(path, e.mark.line + 1, "", Phrase("watch.web_config.not_yaml").fact("why", e.msg));
  }
  WebConfig cfg;
  if (root.IsNull()) return cfg;  // an empty file: plain HTTP, no auth, as exporter-toolkit reads it
  if (!root.IsMap()) return Error(path, root.Mark().line + 1, "", Phrase("watch.web_config.not_map"));
  for (const auto& kv : root) {
    auto named = text_field(path, kv.first, "");
    if (!named) return named.error();
    const std::string key = *named;
    Result<void> r;
    if (key == "tls_server_config")
      r = read_tls(path, kv.second, cfg);
    else if (key == "basic_auth_users")
      r = read_users(path, kv.second, cfg);
    else
      r = Error(path, kv.first.Mark().line + 1, key, Phrase("watch.web_config.unknown_field"));
    if (!r) return r.error();
  }
  return cfg;
}

bool password_matches(const std::string& password, const std::string& hash) {
  crypt_data data{};
  const char* out = crypt_r(password.c_str(), hash.c_str(), &data);
  if (!out || out[0] == '*') return false;  // libcrypt's failure tokens start with '*'
  const std::string_view got(out);
  if (got.size() != hash.size()) return false;
  unsigned char diff = 0;  // compare every byte, so the time taken does not tell how much matched
  for (size_t i = 0; i < got.size(); ++i) diff |= static_cast<unsigned char>(got[i] ^ hash[i]);
  return diff == 0;
}

Exporter::Exporter() = default;
Exporter::~Exporter() {
  stop();
}

Result<void> Exporter::start(const ExporterOptions& options, StateFn state) {
  WebConfig cfg;
  if (options.web_config) {
    auto read = read_web_config(*options.web_config);
    if (!read) return read.error();
    cfg = *read;
  }
  std::unique_ptr<httplib::Server> server;
  if (cfg.cert_file) {
    auto tls = std::make_unique<httplib::SSLServer>(cfg.cert_file->c_str(), cfg.key_file->c_str());
    if (!tls->is_valid())
      return Error(*options.web_config, 0, "tls_server_config",
                   Phrase("watch.web_config.tls_load").fact("cert", *cfg.cert_file).fact("key", *cfg.key_file));
    server = std::move(tls);
  } else {
    server = std::make_unique<httplib::Server>();
  }
  // cpp-httplib's default also sets SO_REUSEPORT, with which a second watch (or anything else)
  // would share the port silently; SO_REUSEADDR alone still allows a quick restart.
  server->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server->set_payload_max_length(kMaxPayload);
  server->set_read_timeout(kReadTimeoutS);
  server->set_write_timeout(kWriteTimeoutS);
  server->set_keep_alive_timeout(kKeepAliveS);
  server->set_pre_routing_handler([cfg](const httplib::Request& req, httplib::Response& res) {
    if (req.path != "/metrics" && req.path != "/healthz") {
      res.status = 404;
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!authorized(cfg, req)) {
      res.status = 401;
      res.set_header("WWW-Authenticate", "Basic");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server->Get("/metrics", [state](const httplib::Request&, httplib::Response& res) {
    res.set_content(render_metrics(state()), std::string(kExpositionContentType).c_str());
  });
  server->Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  const ListenAddress& at = options.listen;
  const int port =
      at.port == 0 ? server->bind_to_any_port(at.host) : (server->bind_to_port(at.host, at.port) ? at.port : -1);
  if (port <= 0) {
    const std::string shown = at.host.find(':') != std::string::npos ? "[" + at.host + "]" : at.host;
    return Error("", 0, "--listen",
                 Phrase("watch.exporter.bind_failed").fact("address", shown + ":" + std::to_string(at.port)));
  }
  port_ = port;
  server_ = std::move(server);
  thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
  // cpp-httplib's stop() does nothing before the accept loop runs, so a stop() right after
  // start() would leave the thread listening and the join hanging: wait for the loop first.
  for (int waited_ms = 0; !server_->is_running() && waited_ms < 5000; ++waited_ms)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return {};
}

void Exporter::stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace gpuplan::watch
