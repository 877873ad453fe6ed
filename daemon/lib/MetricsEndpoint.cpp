// SPDX-License-Identifier: Apache-2.0
#include "ebpf-gpu/Daemon/MetricsEndpoint.h"

#include "ebpf-gpu/Daemon/Sockets.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ebpfgpu::tools {

namespace {

/// A request head longer than this is refused (400) and closed.
constexpr size_t MaxHeadBytes = 8192;
constexpr auto ConnectionTime = std::chrono::seconds(5);

std::string response(const char *Status, const char *Type, const std::string &Body) {
  return std::string("HTTP/1.1 ") + Status + "\r\nContent-Type: " + Type +
         "\r\nContent-Length: " + std::to_string(Body.size()) + "\r\nConnection: close\r\n\r\n" +
         Body;
}

} // namespace

std::string metricsHttpAnswer(const std::string &Head,
                              const std::function<std::string()> &Metrics) {
  const char *Text = "text/plain; charset=utf-8";
  size_t Eol = Head.find("\r\n");
  std::string Line = Head.substr(0, Eol == std::string::npos ? Head.find('\n') : Eol);
  size_t Sp1 = Line.find(' '), Sp2 = Sp1 == std::string::npos ? Sp1 : Line.find(' ', Sp1 + 1);
  if (Sp2 == std::string::npos || Line.compare(Sp2 + 1, 5, "HTTP/") != 0)
    return response("400 Bad Request", Text, "not an HTTP request\n");
  std::string Method = Line.substr(0, Sp1), Target = Line.substr(Sp1 + 1, Sp2 - Sp1 - 1);
  std::string Path = Target.substr(0, Target.find('?'));
  if (Path != "/metrics")
    return response("404 Not Found", Text, "the metrics are at /metrics\n");
  if (Method != "GET")
    return response("405 Method Not Allowed", Text, "GET /metrics\n");
  return response("200 OK", "text/plain; version=0.0.4; charset=utf-8", Metrics());
}

Expected<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::listen(const std::string &Spec) {
  std::string Host = "127.0.0.1", Port = Spec;
  if (size_t Colon = Spec.rfind(':'); Colon != std::string::npos)
    Host = Spec.substr(0, Colon), Port = Spec.substr(Colon + 1);
  sockaddr_in A{};
  A.sin_family = AF_INET;
  char *End = nullptr;
  errno = 0;
  unsigned long P = Port.empty() ? 65536 : std::strtoul(Port.c_str(), &End, 10);
  if (P > 65535 || errno || (End && *End) || Port[0] == '-' || Port[0] == '+' ||
      inet_pton(AF_INET, Host.c_str(), &A.sin_addr) != 1)
    return Error("--metrics needs [ADDR:]PORT (an IPv4 address and a port from 0 to 65535), "
                 "not '" + Spec + "'");
  A.sin_port = htons(uint16_t(P));
  int Fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (Fd < 0)
    return Error(std::string("socket: ") + std::strerror(errno));
  int One = 1;
  setsockopt(Fd, SOL_SOCKET, SO_REUSEADDR, &One, sizeof(One));
  if (bind(Fd, reinterpret_cast<sockaddr *>(&A), sizeof(A)) != 0 || ::listen(Fd, 16) != 0) {
    int Err = errno;
    close(Fd);
    return Error("cannot listen on " + Host + ":" + Port + " for --metrics: " +
                 std::strerror(Err));
  }
  socklen_t Len = sizeof(A);
  getsockname(Fd, reinterpret_cast<sockaddr *>(&A), &Len);
  return std::unique_ptr<MetricsEndpoint>(
      new MetricsEndpoint(Fd, Host + ":" + std::to_string(ntohs(A.sin_port))));
}

MetricsEndpoint::~MetricsEndpoint() {
  for (const Connection &C : Open)
    close(C.Fd);
  close(Fd);
}

void MetricsEndpoint::addPollFds(std::vector<pollfd> &Fds) const {
  Fds.push_back({Fd, POLLIN, 0});
  for (const Connection &C : Open)
    Fds.push_back({C.Fd, POLLIN, 0});
}

void MetricsEndpoint::serve(const pollfd *Fds, const std::function<std::string()> &Metrics) {
  const auto Now = std::chrono::steady_clock::now();
  std::vector<Connection> Kept;
  for (size_t I = 0; I < Open.size(); ++I) {
    Connection &C = Open[I];
    bool Done = Now >= C.Deadline;
    if (!Done && Fds[1 + I].revents) {
      char Buf[4096];
      ssize_t N = recv(C.Fd, Buf, sizeof(Buf), MSG_DONTWAIT);
      if (N < 0 && (errno == EAGAIN || errno == EINTR)) {
        Kept.push_back(C);
        continue;
      }
      Done = true;
      if (N > 0) {
        C.In.append(Buf, size_t(N));
        size_t End = C.In.find("\r\n\r\n");
        if (End == std::string::npos)
          End = C.In.find("\n\n");
        if (End != std::string::npos)
          sendAll(C.Fd, metricsHttpAnswer(C.In.substr(0, End), Metrics));
        else if (C.In.size() > MaxHeadBytes)
          sendAll(C.Fd, metricsHttpAnswer("", Metrics));
        else
          Done = false;
      }
    }
    if (Done)
      close(C.Fd);
    else
      Kept.push_back(C);
  }
  Open = std::move(Kept);
  if (Fds[0].revents & POLLIN)
    for (int New; (New = accept4(Fd, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
      timeval Tv{5, 0}; // an answer the scraper does not read is given up
      setsockopt(New, SOL_SOCKET, SO_SNDTIMEO, &Tv, sizeof(Tv));
      Open.push_back({New, "", Now + ConnectionTime});
    }
}

int MetricsEndpoint::timeoutMs() const {
  if (Open.empty())
    return -1;
  auto First = Open.front().Deadline;
  for (const Connection &C : Open)
    First = std::min(First, C.Deadline);
  auto Ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                First - std::chrono::steady_clock::now())
                .count();
  return int(std::max<long long>(Ms, 0) + 1);
}

} // namespace ebpfgpu::tools
