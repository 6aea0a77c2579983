// One engine request (one sequence): its prompt, sampling parameters, state machine and timeline.
// A client request with n > 1 becomes n of these (see fan_out). Owned by the EngineCore; the
// scheduler and KV cache manager hold raw pointers while it is alive.
// Thread-safety: none; touched only by the engine thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/logprobs.h"
#include "core/prefetch.h"

namespace llm {

enum class RequestState : uint8_t { kWaiting, kRunning, kFinished };

enum class FinishReason : uint8_t { kNone, kStop, kLength, kAbort, kError };

const char* finish_reason_name(FinishReason reason);  // "stop", "length", "abort", "error", ""

// vLLM's controls of the draw beyond temperature, top-k and top-p, as a request sets them; the
// cpu sampler applies them all (the cuda one none yet). Each defaults to its neutral value.
struct SamplingControls {
  double min_p = 0;  // drop tokens less probable than min_p times the likeliest (after temperature)
  // vLLM's penalties, on the logits before temperature: a token seen in the prompt or the output
  // has its logit divided by repetition_penalty (multiplied when negative); then each output
  // occurrence subtracts frequency_penalty, and having occurred at all presence_penalty.
  double repetition_penalty = 1.0;
  double frequency_penalty = 0;
  double presence_penalty = 0;
  // OpenAI's logit_bias: added to these tokens' logits (after min_tokens' mask, before the
  // penalties, as vLLM), each within [-100, 100]; sorted by token id.
  std::vector<std::pair<int32_t, float>> logit_bias;
  // vLLM's allowed_token_ids: only these may be drawn (sorted, unique); empty: any.
  std::vector<int32_t> allowed_token_ids;
  // vLLM's min_tokens: neither EOS nor a stop token id ends the sequence (nor may be sampled)
  // among its first min_tokens output tokens. (Last: next to SamplingParams' fields that every
  // step reads, see Request.)
  int64_t min_tokens = 0;

  // The request field of the first control set to other than its neutral value, or nullptr.
  const char* first_set() const;
};

// The fields every engine step reads come first (after SamplingControls' min_tokens).
struct SamplingParams : SamplingControls {
  int64_t max_tokens = -1;  // -1: not set by the client (the engine uses the context's room)
  uint64_t seed = 0;
  std::vector<int32_t> stop_token_ids;
  // Log-probabilities to return (core/logprobs.h): -1 none, else the number of most likely tokens
  // to list beside the chosen one, for each sampled token / each prompt token from position 1.
  int32_t logprobs = -1;
  int32_t prompt_logprobs = -1;
  bool ignore_eos = false;
  int32_t n = 1;
  int32_t top_k = 0;  // 0 or -1: no top-k cut
  double temperature = 1.0;
  double top_p = 1.0;
};

// Engine timestamps in integer nanoseconds of the engine's Clock; kNoTime until they happen.
struct Timeline {
  Nanos first_token = kNoTime;  // the step that produced the first output token completed
  Nanos last_token = kNoTime;   // the step that produced the latest output token completed
  int32_t num_preemptions = 0;
  Nanos arrival = kNoTime;    // the frontend had the whole request
  Nanos queued = kNoTime;     // entered the waiting queue (set once)
  Nanos scheduled = kNoTime;  // first picked from waiting (not reset by preemption)
  Nanos finished = kNoTime;   // left the engine
};

// The members are in an order for the cache, not for reading: a decode step reads, of each running
// sequence, the end of params (min_tokens to ignore_eos) and everything from id to the timeline's
// first fields, which therefore sit together (a few cache lines instead of ten); the rest, read
// at admission, at a block boundary or at the end, comes first.
struct Request {
  std::string external_id;  // the client's id ("<i>_<parent>" for a child of n > 1)
  std::string parent_id;    // the client request this sequence belongs to

  // Prompt: real token ids, or (simulated) only a length plus optional prefix identity.
  std::vector<int32_t> prompt_tokens;
  std::vector<uint64_t> prefix_hash_ids;  // see TraceRequest: ids of hash_block_size-token blocks
  int32_t hash_block_size = 0;
  int32_t priority = 0;
  // vLLM's extra block-hash keys: requests that differ only here share no KV blocks. cache_salt
  // (a request field) keys the first block; lora_name keys every block ("" for the base model).
  std::string cache_salt;
  std::string lora_name;

  std::vector<int32_t> output_tokens;  // only with keep_output_tokens
  int64_t num_cached_tokens = -1;      // prefix-cache hit at first admission
  // Log-probabilities, only when params ask (set by EngineCore from the backend's StepLogprobs):
  // of prompt positions 1, 2, ... as far as the prefill has scored them (a recomputed prompt is
  // not scored twice), and of the latest output token.
  std::vector<PositionLogprobs> prompt_logprobs;
  std::optional<PositionLogprobs> last_logprobs;

  SamplingParams params;  // its last fields are the ones a step reads

  uint64_t id = 0;  // engine-unique, assigned by EngineCore::add_request
  int64_t prompt_len = 0;
  uint64_t prompt_salt = 0;          // identity of prompt content not covered by tokens or hash ids
  int64_t scripted_output_len = -1;  // simulated backends: the model stops after this many tokens
  // A simulated backend's sampling identity of this sequence (SimBackend: a hash of its seed,
  // params.seed, prompt_salt and child_index, which every sampled token would hash again),
  // cached at its first sampled token: valid while sample_key_set and sample_key_seed is that
  // backend's seed.
  uint64_t sample_key = 0;
  uint64_t sample_key_seed = 0;

  // Mutable engine state.
  int64_t num_computed_tokens = 0;
  int64_t num_output_tokens = 0;
  uint64_t output_digest = 0xcbf29ce484222325ULL;  // FNV-1a over output ids: cheap identity
  int64_t num_hashed_blocks_cached = 0;            // leading blocks registered in the prefix cache
  std::vector<int32_t> block_ids;                  // KV blocks in sequence order
  std::vector<uint64_t> block_hashes;              // chained hashes of full blocks, grown lazily
  int32_t child_index = 0;                         // i in 0..n-1
  int32_t last_output_token = -1;
  int32_t stop_token = -1;  // the stop token id that ended it, if any
  // Of timeline.num_preemptions, those already reported with an output (EngineCore).
  int32_t num_preemptions_reported = 0;
  RequestState state = RequestState::kWaiting;
  FinishReason finish_reason = FinishReason::kNone;
  bool keep_output_tokens = false;  // store output ids (needed to hash their blocks, to detokenize)
  // Async scheduling: it finished on a sampled stop token after the next step was already
  // scheduled with it, so it holds its seat (budget, KV slot) through that one step and leaves
  // the running set after it. Set by EngineCore, cleared by the scheduler once it is scheduled.
  bool holds_seat = false;
  bool sample_key_set = false;  // see sample_key
  Timeline timeline;            // its first fields are the ones a step reads

  int64_t num_tokens() const { return prompt_len + num_output_tokens; }
  bool is_finished() const { return state == RequestState::kFinished; }
  // max_tokens with the default applied: the context's room after the prompt.
  int64_t effective_max_tokens(int64_t max_model_len) const;
  void append_output_token(int32_t token);
};

// Asks the CPU for the cache lines of `r` that a decode step reads (params.min_tokens to the
// timeline's first fields), some sequences ahead of a loop over a batch; changes no value.
inline void prefetch_step_fields(const Request& r) {
  const char* first = reinterpret_cast<const char*>(&r.params.min_tokens);
  const char* last = reinterpret_cast<const char*>(&r.timeline.num_preemptions);
  for (const char* p = first; p <= last; p += 64) prefetch_line(p);
  prefetch_line(last);
}

// Makes the n engine sequences of one client request: ids "<i>_<parent>", seeds seed + i, the same
// arrival and prompt identity (they share prompt blocks through the prefix cache). n == 1 returns
// one copy whose external id is the parent's.
std::vector<std::unique_ptr<Request>> fan_out(const Request& parent_template);

// The token id at absolute position pos of a request's sequence (prompt, then outputs), for real
// backends. Throws std::invalid_argument "WHO: request ID ..." when the request has no prompt ids
// or does not keep the output token asked for.
int32_t sequence_token_at(const Request& request, int64_t pos, const std::string& who);

}  // namespace llm
