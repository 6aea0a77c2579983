// Log-probabilities as a backend computes them for the sequences whose request asks
// (SamplingParams::logprobs for sampled tokens, prompt_logprobs for prompt tokens): for one
// position, the token there, its log-probability and rank, and the most likely tokens. The values
// are the model's raw log-softmax, before temperature, top-k and top-p (vLLM's default
// --logprobs-mode raw_logprobs). A backend fills a StepLogprobs per execute(); the engine copies
// each sequence's entries into its Request (core/engine_core.h) and the server turns them into
// OpenAI's shapes.
// Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace llm {

struct TokenLogprob {
  int32_t token = -1;
  float logprob = 0;  // <= 0
};

// One position of a sequence.
struct PositionLogprobs {
  int32_t token = -1;  // the token at this position (sampled, or the prompt's)
  float logprob = 0;   // its log-probability (<= 0)
  int64_t rank = 1;    // tokens at least as likely as it, itself included (vLLM's rank: 1 = best)
  // The k most likely tokens, most likely first (ties: the lower id first); k as asked, or the
  // vocabulary when it is smaller. May or may not hold `token`.
  std::vector<TokenLogprob> top;
};

// One sequence's share of a step: index `seq` of the batch's seqs.
struct SeqLogprobs {
  size_t seq = 0;
  // Prompt positions this step scored (prompt_logprobs >= 0): positions first_prompt_position,
  // first_prompt_position + 1, ... (position 0 has no log-probability: nothing predicts it).
  int64_t first_prompt_position = 1;
  std::vector<PositionLogprobs> prompt;
  std::optional<PositionLogprobs> sampled;  // the sampled token's (logprobs >= 0 and it samples)
};

// Everything one execute() computed; empty when no sequence of the batch asked.
struct StepLogprobs {
  std::vector<SeqLogprobs> seqs;  // one per sequence that asked

  bool empty() const { return seqs.empty(); }
  void clear() { seqs.clear(); }
};

// Whether a request's sampling parameters ask for any log-probability (a cheap test for hot
// paths).
inline bool wants_logprobs(int32_t logprobs, int32_t prompt_logprobs) {
  return logprobs >= 0 || prompt_logprobs >= 0;
}

}  // namespace llm
