// One choice's synthetic structured answer (server/api/structured_output.h) released as its
// sequence generates: each sampled token releases kBytesPerToken more bytes of the answer and the
// sequence's end releases the rest, so a stream paces like text while the answer stays whole and
// well-formed whatever length the engine chose. Renders the pieces as chat deltas the way vLLM
// streams tool calls (a first delta with index, id, type and function name, then argument chunks
// at the same index) and the whole answer as a chat message's content or tool_calls.
// Thread-safety: none (one per choice, used on the job's strand).
#pragma once

#include <cstdint>
#include <string>

#include "server/api/openai_response.h"
#include "server/api/structured_output.h"

namespace llm {

class StructuredStream {
 public:
  static constexpr int64_t kBytesPerToken = 4;

  explicit StructuredStream(StructuredAnswer answer) : answer_(std::move(answer)) {}

  // The next piece of the answer after `tokens` more tokens; the rest when `finished`.
  std::string advance(int64_t tokens, bool finished);
  // Streaming: `piece` as the chunk's delta (a tool call's first delta names it; an empty content
  // piece leaves the chunk's text empty). False when there is nothing to send.
  bool fill_delta(const std::string& piece, ChoiceResult& chunk);
  // The finish chunk's delta: {} for a tool call, empty content otherwise.
  void fill_finish_delta(ChoiceResult& chunk) const;
  // Non-streaming: the whole answer as the message's content or tool_calls.
  void fill_message(ChoiceResult& result) const;
  // The answer as the request log and traces record it.
  const StructuredAnswer& answer() const { return answer_; }

 private:
  StructuredAnswer answer_;
  size_t released_ = 0;
  bool head_sent_ = false;
};

}  // namespace llm
