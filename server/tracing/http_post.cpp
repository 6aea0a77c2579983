#include "server/tracing/http_post.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace llm {
namespace {

using MonotonicClock = std::chrono::steady_clock;

using Deadline = std::function<MonotonicClock::time_point()>;
constexpr int kPollSliceMs = 50;

// Waits until fd is ready for `events`; false on timeout or error.
bool wait_for(int fd, short events, const Deadline& deadline) {
  pollfd p{fd, events, 0};
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline() - MonotonicClock::now())
            .count();
    if (left <= 0) return false;
    const int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, kPollSliceMs)));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) return false;
  }
}

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

std::string connect_to(const std::string& host, int port, const Deadline& deadline, int* out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) return std::string("resolve ") + host + ": " + gai_strerror(rc);
  std::string error = "connect: no address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
        (errno == EINPROGRESS && wait_for(fd, POLLOUT, deadline))) {
      int so_error = 0;
      socklen_t len = sizeof so_error;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
      if (so_error == 0) {
        freeaddrinfo(found);
        *out = fd;
        return "";
      }
      error = std::string("connect: ") + std::strerror(so_error);
    } else {
      error = errno == EINPROGRESS ? "connect: timed out"
                                   : std::string("connect: ") + std::strerror(errno);
    }
    close(fd);
  }
  freeaddrinfo(found);
  return error;
}

}  // namespace

HttpPostResult http_post(const std::string& host, int port, const std::string& path,
                         const std::vector<std::pair<std::string, std::string>>& headers,
                         const std::string& body, const Deadline& deadline) {
  HttpPostResult result;
  int fd = -1;
  result.error = connect_to(host, port, deadline, &fd);
  if (!result.error.empty()) return result;
  Socket socket(fd);
  std::string request = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(port) +
                        "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\n";
  for (const auto& [k, v] : headers) request += k + ": " + v + "\r\n";
  request += "\r\n";
  request += body;
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(fd, POLLOUT, deadline)) {
        result.error = "send: timed out";
        return result;
      }
    } else {
      result.error = std::string("send: ") + std::strerror(errno);
      return result;
    }
  }
  // The status line is all we need; the rest of the response is not read.
  std::string response;
  char buffer[1024];
  while (response.find("\r\n") == std::string::npos) {
    if (!wait_for(fd, POLLIN, deadline)) {
      result.error = "no response: timed out";
      return result;
    }
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      response.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      continue;
    } else {
      result.error =
          n == 0 ? "no response: connection closed" : std::string("recv: ") + std::strerror(errno);
      return result;
    }
  }
  // "HTTP/1.1 200 OK"
  const size_t space = response.find(' ');
  if (response.rfind("HTTP/", 0) != 0 || space == std::string::npos ||
      space + 4 > response.size()) {
    result.error = "not an HTTP response";
    return result;
  }
  result.status = std::atoi(response.substr(space + 1, 3).c_str());
  return result;
}

}  // namespace llm
