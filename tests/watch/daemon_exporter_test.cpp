// gpuplan watch serving /metrics while it samples: the port it reports, and scrapers that hang up
// mid-answer (a Prometheus scrape timeout, `curl | head`) leave the daemon running.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "test_support.h"
#include "watch/daemon_process.h"

namespace gpuplan::testing {
namespace {

// Sends a request with a small receive window, reads the first bytes of the answer and resets the
// connection (SO_LINGER 0: RST, not FIN) while the server is still writing the rest, which then
// meets a closed socket.
void request_and_reset(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // A small window, so the answer cannot be sent whole before the reset.
  int window = 1024;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &window, sizeof window);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const char request[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    (void)!::write(fd, request, sizeof request - 1);
    char first[64];
    (void)!::recv(fd, first, sizeof first, 0);
    linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  }
  ::close(fd);
}

TEST(DaemonExporter, LogsItsPortAndOutlivesScrapersThatResetMidAnswer) {
  const std::string dir = temp_dir();
  const std::string log = dir + "/watch.log";
  WatchProcess watch({"--interval", "100ms", "--commit-every", "200ms", "--archive", dir + "/a.db", "--log", log,
                      "--kernel-log", "off", "--listen", "127.0.0.1:0"},
                     source_path("tests/fixtures/nvml/healthy-8xa100.yaml"));
  ASSERT_TRUE(watch.started());
  ASSERT_TRUE(eventually([&] { return served_port(log) > 0 || !watch.running(); })) << read_file(log);
  const int port = served_port(log);
  ASSERT_GT(port, 0) << read_file(log);
  for (int i = 0; i < 50; ++i) request_and_reset(port);
  // Still sampling: a batch committed after the resets.
  const size_t batches = committed_batches(log).size();
  EXPECT_TRUE(eventually([&] { return committed_batches(log).size() > batches + 1 || !watch.running(); }));
  ASSERT_TRUE(watch.running()) << read_file(log);
  watch.signal(SIGTERM);
  const int status = watch.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << "\n" << read_file(log);
}

}  // namespace
}  // namespace gpuplan::testing
