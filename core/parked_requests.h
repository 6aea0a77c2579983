// A first-in first-out store of waiting requests that no one has looked at yet, each as a compact
// record of its fields (a presence mask, then varints and raw floats for the fields that differ
// from a default Request): some 40 bytes for a simulated request instead of an engine Request's
// ~700. The FCFS waiting queue (core/waiting_queue.h) keeps the requests beyond its first few
// here, so that an overloaded engine holding most of a long trace waiting stays small; a request
// becomes a Request again, equal field for field, when it reaches the window the scheduler reads.
// Only a fresh request parks (parkable(): never scheduled, no engine state beyond its timeline's
// arrival and queued times).
// Thread-safety: none; owned by the engine thread's waiting queue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/request.h"

namespace llm {

class ParkedRequests {
 public:
  // Whether `request` carries nothing a record drops: no engine state (computed or output
  // tokens, blocks, logprobs, preemptions, a finish) and no timeline past `queued`.
  static bool parkable(const Request& request);

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t bytes() const { return buffer_.size() - read_; }  // of records held

  // REQUIRES: parkable(request).
  void push(const Request& request);
  // The oldest record as a Request equal to the one pushed. REQUIRES: !empty().
  std::unique_ptr<Request> pop();

  // Calls fn(const Request&) with each record, oldest first, decoded into a scratch Request
  // (valid during the call only).
  template <typename Fn>
  void for_each(Fn&& fn) const {
    size_t at = read_;
    Request scratch;
    for (size_t i = 0; i < count_; ++i) {
      scratch = Request{};
      at = decode(at, scratch);
      fn(static_cast<const Request&>(scratch));
    }
  }

 private:
  size_t decode(size_t at, Request& out) const;  // returns the offset after the record

  std::vector<uint8_t> buffer_;  // records [read_, size()); the consumed prefix is reclaimed
  size_t read_ = 0;
  size_t count_ = 0;
};

}  // namespace llm
