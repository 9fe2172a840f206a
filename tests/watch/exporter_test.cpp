// The exporter's HTTP server on an ephemeral 127.0.0.1 port: /metrics and /healthz, 404 and
// 405, basic auth from a web-config file (the Prometheus guide's hash of "test"), TLS with a
// certificate the test makes with the openssl CLI, and the errors of --listen and web config.
#include "watch/exporter.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include "test_support.h"
#include "watch/exporter_shell.h"
#include "watch/exposition.h"

namespace gpuplan::watch {
namespace {

WatchState one_gpu() {
  WatchState s;
  s.host = "node-1";
  GpuState g;
  g.info.uuid = "GPU-1";
  nvml::GpuDynamic d;
  d.temperature_c = 40;
  g.now = d;
  s.gpus = {g};
  return s;
}

ExporterOptions loopback(std::optional<std::string> web_config = std::nullopt) {
  ExporterOptions o;
  o.listen = {"127.0.0.1", 0};
  o.web_config = std::move(web_config);
  return o;
}

TEST(ExporterListen, ParsesHostPortAndRefusesTheRest) {
  auto v4 = parse_listen(kDefaultListen);
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 9400);
  auto v6 = parse_listen("[::1]:9500");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 9500);
  for (const char* bad : {"localhost", ":9400", "::1:9400", "[::1]9400"}) {
    auto r = parse_listen(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().field, "--listen");
    EXPECT_EQ(r.error().message.key, "watch.exporter.bad_listen") << bad;
  }
  for (const char* bad : {"127.0.0.1:65536", "127.0.0.1:http", "127.0.0.1:"}) {
    auto r = parse_listen(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message.key, "watch.exporter.bad_port") << bad;
  }
}

TEST(ExporterServer, ServesMetricsHealthzAndNothingElse) {
  const WatchState state = one_gpu();
  Exporter exporter;
  ASSERT_TRUE(exporter.start(loopback(), [&] { return state; }).ok());
  httplib::Client client("127.0.0.1", exporter.port());
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(metrics->body, render_metrics(state));
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok");
  auto missing = client.Get("/metrics/extra");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  auto post = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  exporter.stop();
  exporter.stop();  // twice is fine
}

TEST(ExporterServer, APortInUseIsAnError) {
  Exporter first, second;
  ASSERT_TRUE(first.start(loopback(), one_gpu).ok());
  ExporterOptions same = loopback();
  same.listen.port = first.port();
  auto r = second.start(same, one_gpu);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "watch.exporter.bind_failed");
  EXPECT_EQ(*r.error().message.value("address"), "127.0.0.1:" + std::to_string(first.port()));
}

TEST(ExporterAuth, BasicAuthAsksThenAdmitsTheRightPassword) {
  Exporter exporter;
  ASSERT_TRUE(
      exporter.start(loopback(testing::source_path("tests/fixtures/watch/web-config-basic-auth.yml")), one_gpu).ok());
  httplib::Client client("127.0.0.1", exporter.port());
  auto none = client.Get("/metrics");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Basic");
  client.set_basic_auth("admin", "wrong");
  EXPECT_EQ(client.Get("/metrics")->status, 401);
  client.set_basic_auth("nobody", "test");
  EXPECT_EQ(client.Get("/healthz")->status, 401);
  client.set_basic_auth("admin", "test");
  auto ok = client.Get("/metrics");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, render_metrics(one_gpu()));
}

TEST(ExporterTls, ServesOverTlsWithTheConfiguredCertificate) {
  const std::string dir = testing::temp_dir();
  auto [rc, out] = testing::shell(
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext "
      "subjectAltName=IP:127.0.0.1 -keyout " +
      dir + "/tls.key -out " + dir + "/tls.crt");
  ASSERT_EQ(rc, 0) << out;
  const std::string config =
      testing::write_file(dir, "web.yml", "tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n");
  Exporter exporter;
  auto started = exporter.start(loopback(config), one_gpu);
  ASSERT_TRUE(started.ok()) << started.error().str();
  httplib::SSLClient client("127.0.0.1", exporter.port());
  client.set_ca_cert_path((dir + "/tls.crt").c_str());
  client.enable_server_certificate_verification(true);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->body, "ok");
  httplib::Client plain("127.0.0.1", exporter.port());  // plain HTTP to a TLS port gets no answer
  EXPECT_FALSE(plain.Get("/healthz"));
}

TEST(ExporterWebConfig, ErrorsNameFileLineAndField) {
  const std::string dir = testing::temp_dir();
  struct Case {
    const char* text;
    int line;
    const char* field;
    const char* key;
  } cases[] = {
      {"basic_auth_users:\n  admin: test\n", 2, "basic_auth_users.admin", "watch.web_config.not_bcrypt"},
      {"tls_server_config:\n  cert_file: a.crt\n", 2, "tls_server_config.key_file",
       "watch.web_config.cert_without_key"},
      {"tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_ca_file: ca.crt\n", 4,
       "tls_server_config.client_ca_file", "watch.web_config.unknown_field"},
      {"\nhttp2: true\n", 2, "http2", "watch.web_config.unknown_field"},
      // A key that is a list, not a name: an error naming it, never an exception.
      {"basic_auth_users:\n  [admin]: $2y$10$x\n", 2, "basic_auth_users", "watch.web_config.not_text"},
      {"? [tls_server_config]\n: {}\n", 1, "", "watch.web_config.not_text"},
  };
  for (const Case& c : cases) {
    const std::string file = testing::write_file(dir, "web.yml", c.text);
    auto r = read_web_config(file);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().file, file);
    EXPECT_EQ(r.error().line, c.line) << c.text;
    EXPECT_EQ(r.error().field, c.field) << c.text;
    EXPECT_EQ(r.error().message.key, c.key) << c.text;
  }
  auto missing = read_web_config(dir + "/absent.yml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.key, "watch.web_config.unreadable");
}

TEST(ExporterWebConfig, BadCertificateIsAnErrorNotAServer) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir, "bad.crt", "not a certificate\n");
  testing::write_file(dir, "bad.key", "not a key\n");
  const std::string config =
      testing::write_file(dir, "web-bad.yml", "tls_server_config:\n  cert_file: bad.crt\n  key_file: bad.key\n");
  Exporter exporter;
  auto r = exporter.start(loopback(config), one_gpu);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.key, "watch.web_config.tls_load");
}

TEST(ExporterAuth, PasswordMatchesKnowsBcrypt) {
  const std::string hash = "$2b$12$hNf2lSsxfm0.i4a.1kVpSOVyBCfIB51VRjgBUyv6kdnyTlgWj81Ay";  // "test", Prometheus guide
  EXPECT_TRUE(password_matches("test", hash));
  EXPECT_FALSE(password_matches("Test", hash));
  EXPECT_FALSE(password_matches("test", "not-a-hash"));
}

}  // namespace
}  // namespace gpuplan::watch
