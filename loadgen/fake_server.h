// A tiny fake OpenAI-compatible server for llmbench's tests and for measuring llmbench itself
// (`llmbench fake-server`). It answers POST /v1/completions and /v1/chat/completions with a fixed
// script: `chunks` content chunks (or max_tokens of the request when chunks is 0), the first after
// first_delay, then one every gap, then a usage chunk and [DONE]; non-streaming requests get one
// JSON body with usage. GET /v1/models lists "fake-model". Failure modes for tests: an HTTP error
// status, an SSE error frame after the first chunk, closing the connection mid-stream, or closing
// kept-alive connections left idle too long (as a server's idle timeout does).
// Thread-safety: the server runs on its own threads; the accessors are safe from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace llm::loadgen {

struct FakeServerOptions {
  int64_t chunks = 0;                        // 0: the request's max_tokens
  std::chrono::microseconds first_delay{0};  // before the first content chunk
  std::chrono::microseconds gap{0};          // between content chunks
  int status = 200;                          // other than 200: an error JSON with this status
  bool sse_error = false;                    // an error frame after the first content chunk
  bool close_mid_stream = false;             // close after half of the chunks
  std::chrono::microseconds idle_close{0};   // close a kept-alive connection idle this long
  int threads = 1;
};

class FakeOpenAiServer {
 public:
  // Listens on 127.0.0.1:port (0: any free port) and starts serving.
  explicit FakeOpenAiServer(FakeServerOptions options, uint16_t port = 0);
  ~FakeOpenAiServer();
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  uint16_t port() const;
  int64_t requests() const;       // requests received
  int64_t max_in_flight() const;  // most requests being answered at once
  int64_t connections() const;    // connections accepted
  void stop();
  void wait();  // blocks until stop() (for the command-line server)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm::loadgen
