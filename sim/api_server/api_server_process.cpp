#include "sim/api_server/api_server_process.h"

#include <algorithm>
#include <cmath>

namespace llm {
namespace {

Nanos round_to_ns(double ns) { return static_cast<Nanos>(std::llround(ns)); }

}  // namespace

ApiServerProcess::ApiServerProcess(const ApiServerCosts& costs)
    : request_ns_(round_to_ns(costs.request_ns)),
      hop_ns_(round_to_ns(costs.hop_ns)),
      per_output_token_ns_(round_to_ns(costs.per_output_token_ns)),
      response_ns_(round_to_ns(costs.response_ns)),
      per_prompt_token_ns_(costs.per_prompt_token_ns) {}

void ApiServerProcess::arrive(Nanos arrival, int64_t prompt_tokens, size_t id) {
  const Nanos work =
      request_ns_ + round_to_ns(per_prompt_token_ns_ * static_cast<double>(prompt_tokens));
  waiting_.push_back({arrival, work, id});
  busy_total_ += work;
}

Nanos ApiServerProcess::next_start() const {
  return std::max({waiting_.front().arrival, reads_free_at_, outputs_free_at_});
}

Nanos ApiServerProcess::next_event() const {
  if (reading_) return reading_->end;
  return waiting_.empty() ? kNoTime : next_start();
}

void ApiServerProcess::advance(Nanos now, std::vector<Ingest>& finished) {
  for (;;) {
    if (reading_) {
      if (reading_->end > now) return;
      // The body is read request_ns into the read; the tokenized request then takes the hop.
      finished.push_back({reading_->id, reading_->start + request_ns_, reading_->end + hop_ns_});
      reads_free_at_ = reading_->end;
      reading_.reset();
    }
    if (waiting_.empty() || next_start() > now) return;
    const Nanos start = next_start();
    const Waiting w = waiting_.front();
    waiting_.pop_front();
    reading_ = Reading{start, start + w.work, w.id};
  }
}

Nanos ApiServerProcess::deliver(Nanos time) {
  Nanos start = std::max(time, outputs_free_at_);
  if (reading_ && reading_->start <= start && start < reading_->end) start = reading_->end;
  outputs_free_at_ = start + per_output_token_ns_;
  busy_total_ += per_output_token_ns_;
  return outputs_free_at_ + response_ns_;
}

Nanos ApiServerProcess::close(Nanos time) const { return time + response_ns_; }

}  // namespace llm
