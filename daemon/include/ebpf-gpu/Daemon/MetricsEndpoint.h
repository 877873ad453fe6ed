// SPDX-License-Identifier: Apache-2.0
//
// `daemon --metrics [ADDR:]PORT`: a small HTTP/1.1 listener on a TCP
// address (127.0.0.1 unless one is named) that answers `GET /metrics` with
// the daemon's counters in Prometheus's text format and closes each
// connection after its answer. It runs in the daemon's control loop: its
// descriptors are polled with the control socket's, a scrape is answered
// between two requests, and a connection that has not sent a whole request
// within 5 s is closed (it cannot hold the loop up).

#ifndef EBPF_GPU_DAEMON_METRICSENDPOINT_H
#define EBPF_GPU_DAEMON_METRICSENDPOINT_H

#include "ebpf-gpu/Support/Error.h"

#include <chrono>
#include <functional>
#include <memory>
#include <poll.h>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

/// The answer to one HTTP request head (request line and header lines, up
/// to the blank line): 200 with `Metrics()` for GET /metrics, 404 for
/// another path, 405 for another method, 400 for what is not a request.
std::string metricsHttpAnswer(const std::string &Head,
                              const std::function<std::string()> &Metrics);

class MetricsEndpoint {
public:
  /// Binds and listens on "PORT" (127.0.0.1) or "ADDR:PORT" (an IPv4
  /// address); port 0: one the kernel picks (address() says which).
  static Expected<std::unique_ptr<MetricsEndpoint>> listen(const std::string &Spec);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint &) = delete;
  MetricsEndpoint &operator=(const MetricsEndpoint &) = delete;

  /// "ADDR:PORT" as bound.
  const std::string &address() const { return Address; }
  /// Appends the descriptors to poll: the listener, then each connection.
  void addPollFds(std::vector<pollfd> &Fds) const;
  /// After poll(), with the entries addPollFds appended (from `Fds`):
  /// accepts, reads, answers whole requests and closes what is done or
  /// out of time.
  void serve(const pollfd *Fds, const std::function<std::string()> &Metrics);
  /// Milliseconds until the first connection runs out of time; -1: none.
  int timeoutMs() const;

private:
  explicit MetricsEndpoint(int Fd, std::string Address) : Fd(Fd), Address(std::move(Address)) {}
  struct Connection {
    int Fd = -1;
    std::string In;
    std::chrono::steady_clock::time_point Deadline;
  };
  int Fd;
  std::string Address;
  std::vector<Connection> Open;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_DAEMON_METRICSENDPOINT_H
