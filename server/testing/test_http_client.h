// Test helper (the server's tests only): a tiny blocking HTTP/1.1 client over POSIX sockets on
// 127.0.0.1, so the integration tests see the exact bytes on the wire (chunk framing decoded)
// and can drop connections at any point. server/app/testing/test_server.h starts an in-process
// LlmServer for it.
// Thread-safety: one Connection per thread.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace llm::testing {

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // de-chunked
  bool chunked = false;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class Connection {
 public:
  explicit Connection(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      throw std::runtime_error("connect failed");
    }
  }
  ~Connection() { close(); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      sent += static_cast<size_t>(n);
    }
  }

  void send_request(const std::string& method, const std::string& path, const std::string& body,
                    const std::map<std::string, std::string>& headers = {}) {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (const auto& [k, v] : headers) req += k + ": " + v + "\r\n";
    if (!body.empty() || method == "POST") {
      req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n";
    }
    req += "\r\n" + body;
    send(req);
  }

  // Reads until `needle` is in the received bytes (or EOF / 10 s); returns everything so far.
  bool read_until(const std::string& needle) {
    while (raw_.find(needle) == std::string::npos) {
      if (!fill()) return false;
    }
    return true;
  }
  const std::string& raw() const { return raw_; }

  // Reads one whole response.
  Response read_response() {
    Response r;
    if (!read_until("\r\n\r\n")) throw std::runtime_error("no response head: " + raw_);
    const size_t head_end = raw_.find("\r\n\r\n");
    const std::string head = raw_.substr(0, head_end);
    raw_.erase(0, head_end + 4);
    r.status = std::stoi(head.substr(9, 3));
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos && pos < head.size()) {
      const size_t next = head.find("\r\n", pos + 2);
      const std::string line =
          head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        r.headers[name] = line.substr(colon + 2);
      }
      pos = next;
    }
    if (r.header("transfer-encoding") == "chunked") {
      r.chunked = true;
      while (true) {
        if (!read_until("\r\n")) throw std::runtime_error("truncated chunk");
        const size_t eol = raw_.find("\r\n");
        const size_t size = std::stoul(raw_.substr(0, eol), nullptr, 16);
        while (raw_.size() < eol + 2 + size + 2) {
          if (!fill()) throw std::runtime_error("truncated chunk body");
        }
        r.body += raw_.substr(eol + 2, size);
        raw_.erase(0, eol + 2 + size + 2);
        if (size == 0) break;
      }
    } else {
      const size_t length =
          std::stoul(r.header("content-length").empty() ? "0" : r.header("content-length"));
      while (raw_.size() < length) {
        if (!fill()) throw std::runtime_error("truncated body");
      }
      r.body = raw_.substr(0, length);
      raw_.erase(0, length);
    }
    return r;
  }

  // True when the server closed the connection (EOF or reset) within `ms`.
  bool closed_by_peer(int ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) return false;
    char buf[256];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    return n <= 0;
  }

 private:
  bool fill() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    raw_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string raw_;
};

inline Response request(uint16_t port, const std::string& method, const std::string& path,
                        const std::string& body = "",
                        const std::map<std::string, std::string>& headers = {}) {
  Connection c(port);
  c.send_request(method, path, body, headers);
  return c.read_response();
}

// The value of one series in the /metrics text (-1 when absent), e.g.
// metric(port, R"(vllm:num_requests_waiting{engine="0",model_name="m"})").
inline double metric(uint16_t port, const std::string& series) {
  const std::string text = request(port, "GET", "/metrics").body;
  const size_t pos = text.find(series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(text.substr(pos + series.size() + 1));
}

// Polls `pred` every 5 ms for up to `ms`.
template <typename Pred>
bool eventually(Pred pred, int ms = 5000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

}  // namespace llm::testing
