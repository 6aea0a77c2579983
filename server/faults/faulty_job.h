// A generation (HttpJob) with latency injected on purpose, for llmserve as a test double
// (docs/test-double.md): it passes the wrapped job's output on one Server-Sent Event at a time,
// event k (from 0) held until ttft + k * itl after it was produced (plus the stall once k reaches
// stall_after), and after cut_after events it asks the server to drop the connection and cancels
// the wrapped job. A whole (non-streaming) response is held for ttft + itl per completion token
// (plus the stall when it has more than stall_after tokens); with cut_after, one of more than
// cut_after tokens is never sent: the connection closes instead.
// Thread-safety: as HttpJob: used from its session's strand; DelayTimer's thread only posts to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/faults/delay_timer.h"
#include "server/http/http_handler.h"

namespace llm {

struct LatencyPlan {
  int64_t ttft_ms = 0;
  int64_t itl_ms = 0;
  int64_t stall_after = -1;
  int64_t stall_ms = 0;
  int64_t cut_after = -1;
  bool any() const {
    return ttft_ms > 0 || itl_ms > 0 || (stall_after >= 0 && stall_ms > 0) || cut_after >= 0;
  }
};

class FaultyJob final : public HttpJob, public std::enable_shared_from_this<FaultyJob> {
 public:
  // `timer` must outlive the job's pending delays (the server's FaultState owns it).
  FaultyJob(std::shared_ptr<HttpJob> inner, LatencyPlan plan, DelayTimer& timer)
      : inner_(std::move(inner)), plan_(plan), timer_(timer) {}

  bool start(Post post, std::function<void()> progress) override;
  void cancel() override;
  bool streaming() const override { return inner_->streaming(); }
  const std::vector<std::pair<std::string, std::string>>& headers() const override {
    return inner_->headers();
  }
  std::string take_output() override;
  bool done() const override { return finished_; }
  HttpResponse response() const override { return inner_->response(); }
  std::string stream_error_tail(const std::exception_ptr& error) override {
    return inner_->stream_error_tail(error);
  }
  bool drop_connection() const override { return cut_; }

 private:
  using Clock = DelayTimer::Clock;
  struct Event {
    std::string bytes;
    Clock::time_point produced;
  };
  void on_inner_progress();
  void pump();  // releases what is due; arms the timer for the next one
  void finish_whole_response();
  void wake_at(Clock::time_point deadline);
  Clock::duration delay_of(int64_t k) const;

  std::shared_ptr<HttpJob> inner_;
  LatencyPlan plan_;
  DelayTimer& timer_;
  Post post_;
  std::function<void()> progress_;
  std::string partial_;       // the wrapped job's output past its last complete event
  std::deque<Event> events_;  // complete events not yet released
  std::string out_;           // released, for take_output()
  int64_t released_ = 0;      // events released so far
  Clock::time_point last_release_{};
  bool inner_done_ = false;
  bool whole_pending_ = false;  // non-streaming: the response is held by the timer
  bool timer_armed_ = false;
  bool finished_ = false;
  bool cut_ = false;
  bool cancelled_ = false;
};

}  // namespace llm
