#include "server/faults/faulty_job.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace llm {

bool FaultyJob::start(Post post, std::function<void()> progress) {
  post_ = post;
  progress_ = std::move(progress);
  std::weak_ptr<FaultyJob> weak = weak_from_this();
  return inner_->start(std::move(post), [weak] {
    if (auto self = weak.lock()) self->on_inner_progress();
  });
}

void FaultyJob::cancel() {
  if (cancelled_) return;
  cancelled_ = true;
  inner_->cancel();
}

std::string FaultyJob::take_output() { return std::exchange(out_, std::string()); }

FaultyJob::Clock::duration FaultyJob::delay_of(int64_t k) const {
  int64_t ms = plan_.ttft_ms + k * plan_.itl_ms;
  if (plan_.stall_after >= 0 && k >= plan_.stall_after) ms += plan_.stall_ms;
  return std::chrono::milliseconds(ms);
}

void FaultyJob::on_inner_progress() {
  if (cancelled_ || cut_) return;
  inner_done_ = inner_->done();
  if (!inner_->streaming()) {
    if (inner_done_ && !whole_pending_ && !finished_) finish_whole_response();
    return;
  }
  partial_ += inner_->take_output();
  const Clock::time_point now = Clock::now();
  size_t start = 0;
  for (size_t end; (end = partial_.find("\n\n", start)) != std::string::npos; start = end + 2) {
    events_.push_back({partial_.substr(start, end + 2 - start), now});
  }
  partial_.erase(0, start);
  if (inner_done_ && !partial_.empty()) events_.push_back({std::exchange(partial_, {}), now});
  pump();
}

void FaultyJob::finish_whole_response() {
  int64_t tokens = 0;
  const HttpResponse r = inner_->response();
  if (r.status == 200) {
    const nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
    if (body.is_object() && body.contains("usage") && body["usage"].is_object()) {
      const auto& usage = body["usage"];
      for (const char* key : {"completion_tokens", "output_tokens"}) {
        if (usage.contains(key) && usage[key].is_number_integer()) tokens = usage[key];
      }
    }
  }
  if (r.status == 200 && plan_.cut_after >= 0 && tokens > plan_.cut_after) {
    cut_ = true;
    progress_();
    return;
  }
  int64_t ms = plan_.ttft_ms + tokens * plan_.itl_ms;
  if (plan_.stall_after >= 0 && tokens > plan_.stall_after) ms += plan_.stall_ms;
  whole_pending_ = true;
  if (ms <= 0) {
    finished_ = true;
    progress_();
    return;
  }
  wake_at(Clock::now() + std::chrono::milliseconds(ms));
}

void FaultyJob::wake_at(Clock::time_point deadline) {
  timer_armed_ = true;
  std::weak_ptr<FaultyJob> weak = weak_from_this();
  timer_.at(deadline, [post = post_, weak] {
    post([weak] {
      auto self = weak.lock();
      if (!self || self->cancelled_) return;
      self->timer_armed_ = false;
      if (self->whole_pending_) {
        self->finished_ = true;
        self->progress_();
      } else {
        self->pump();
      }
    });
  });
}

void FaultyJob::pump() {
  if (timer_armed_ || cut_ || cancelled_) return;
  const Clock::time_point now = Clock::now();
  bool changed = false;
  while (!events_.empty()) {
    if (plan_.cut_after >= 0 && released_ >= plan_.cut_after) {
      cut_ = true;
      changed = true;
      break;
    }
    const Clock::time_point due =
        std::max(events_.front().produced + delay_of(released_), last_release_);
    if (due > now) {
      wake_at(due);
      break;
    }
    out_ += events_.front().bytes;
    events_.pop_front();
    ++released_;
    last_release_ = due;
    changed = true;
  }
  if (!cut_ && events_.empty() && inner_done_ && partial_.empty() && !finished_) {
    finished_ = true;
    changed = true;
  }
  if (changed) progress_();
}

}  // namespace llm
