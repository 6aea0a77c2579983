// Test helper (server/http's tests): HttpServer without the API behind it. FakeHandler routes with
// the test's function and shapes errors as plain text ("STATUS MESSAGE"; a failure's stream ends
// with "data: failed: WHAT"); FakeJob is a job whose output the test sets, finished at start or
// left running until the client leaves or the test fails it.
// Thread-safety: FakeHandler's routes function runs on the I/O threads, concurrently. A FakeJob's
// HttpJob methods run on its session's strand; started(), cancelled() and fail() from any thread.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "server/http/http_handler.h"
#include "server/http/http_message.h"

namespace llm::testing {

inline HttpResponse text_response(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

class FakeHandler final : public HttpHandler {
 public:
  using Routes = std::function<RouteResult(const HttpRequest&)>;
  explicit FakeHandler(Routes routes) : routes_(std::move(routes)) {}

  RouteResult route(const HttpRequest& request) override { return routes_(request); }
  HttpResponse error_response(int status, std::string message) const override {
    return text_response(status, std::to_string(status) + " " + message);
  }
  HttpFailure failure(const std::exception_ptr& error) const override {
    std::string what = "unknown";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    return HttpFailure{500, "failed: " + what, "data: failed: " + what + "\n\n"};
  }

 private:
  Routes routes_;
};

class FakeJob final : public HttpJob, public std::enable_shared_from_this<FakeJob> {
 public:
  // `output`: the stream's bytes, or the response's body. With `finish_at_start` the job is done
  // as soon as its first update runs; otherwise it runs until cancelled or failed.
  FakeJob(bool streaming, std::string output, bool finish_at_start)
      : streaming_(streaming), output_(std::move(output)), finish_at_start_(finish_at_start) {}

  bool start(Post post, std::function<void()> progress) override {
    started_ = true;
    if (finish_at_start_) {
      post([self = shared_from_this(), progress] {
        self->done_ = true;
        progress();
      });
      return true;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    post_ = std::move(post);  // dropped by cancel(): they hold the session
    return true;
  }
  void cancel() override {
    cancelled_ = true;
    std::lock_guard<std::mutex> lock(mutex_);
    post_ = nullptr;
  }
  bool streaming() const override { return streaming_; }
  const std::vector<std::pair<std::string, std::string>>& headers() const override {
    return headers_;
  }
  std::string take_output() override { return done_ ? std::exchange(output_, {}) : ""; }
  bool done() const override { return done_; }
  HttpResponse response() const override { return text_response(200, output_); }
  std::string stream_error_tail(const std::exception_ptr&) override { return ""; }

  bool started() const { return started_; }
  bool cancelled() const { return cancelled_; }
  // An update that throws `what` on the strand (a running job only): the server's boundary ends
  // the request.
  void fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (post_) post_([what] { throw std::runtime_error(what); });
  }

 private:
  const bool streaming_;
  std::string output_;  // on the strand
  const bool finish_at_start_;
  bool done_ = false;  // on the strand
  std::vector<std::pair<std::string, std::string>> headers_;
  std::atomic<bool> started_{false};
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;  // guards post_
  Post post_;
};

inline RouteResult job_result(std::shared_ptr<FakeJob> job) {
  RouteResult r;
  r.job = std::move(job);
  return r;
}

}  // namespace llm::testing
