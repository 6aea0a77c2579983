// One /v1/chat/completions, /v1/completions or /v1/responses request in flight: submits its
// prompts to the engine, turns the engine's sequence updates into text (the context's TextCodec,
// one streaming detokenizer per choice, stop strings on the detokenized text),
// and produces either the streaming SSE frames (the Responses API's typed events for
// /v1/responses, server/api/responses_response.h) or the final JSON response, the per-request
// metrics and the request-log line.
//
// Stop strings are applied here, on the detokenized text: when one matches, the choice finishes
// with finish_reason "stop" and stop_reason the string, and once every choice of that prompt is
// done the engine request is aborted so its KV blocks are freed (the engine then counts it as
// finished_reason="abort" in Prometheus: the engine has no stop-string notion yet).
// Seeds: a request without "seed" gets seed 0 unless the context says seed_unseeded_requests (the
// sim backend: its text is then a function of the prompt, as the tests rely on), and a fresh
// per-request value from a counter otherwise (real backends), so unseeded sampling differs between
// requests as in vLLM. Where a request stops by itself is the backend's (natural_output_len).
// Thread-safety: none, except that the engine thread pushes its updates onto a lock-free inbox;
// everything else, including applying those updates, runs on the owning session's strand.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/api/api_context.h"
#include "server/api/api_error.h"
#include "server/api/logprobs_json.h"
#include "server/api/openai_request.h"
#include "server/api/openai_response.h"
#include "server/api/responses_response.h"
#include "server/api/stop_matcher.h"
#include "server/api/structured_stream.h"
#include "server/engine/engine_set.h"
#include "server/http/http_handler.h"
#include "server/http/http_message.h"

namespace llm {

class CompletionJob final : public HttpJob, public std::enable_shared_from_this<CompletionJob> {
 public:
  CompletionJob(ApiContext& context, CompletionRequest request, const HttpRequest& http,
                std::string request_id, std::vector<std::pair<std::string, std::string>> headers);
  ~CompletionJob() override;

  // The job's place among the waiting (--max-waiting-requests), held until start() has submitted
  // its prompts: the engine takes the sequences out of it on the thread that reserved it, so call
  // start() on the routing thread.
  void hold_place(WaitingReservation place) { place_ = std::move(place); }

  // Submits the prompts. `progress` runs on the strand after one or more updates (those that
  // arrived while the strand was busy are applied together); then take_output() / done() /
  // response() tell what to write. False when the engine refused (shutting down).
  bool start(Post post, std::function<void()> progress) override;
  // The client went away: abort what still runs in the engine; no more output. The request-log
  // line is written now, with finish_reason "abort" for every choice not yet finished.
  void cancel() override;

  bool streaming() const override { return request_.stream; }
  const std::vector<std::pair<std::string, std::string>>& headers() const override {
    return headers_;
  }
  std::string take_output() override;  // streaming: SSE bytes produced since the last call
  bool done() const override { return done_; }
  HttpResponse response() const override;  // non-streaming: the response, once done()
  // Streaming, when the server fails the request after its head went out: the SSE bytes that end
  // the stream with the error (error_of_exception) in the endpoint's own shape (an error frame and
  // [DONE]; the Responses API's `error` event).
  std::string stream_error_tail(const std::exception_ptr& error) override;

 private:
  struct Choice {
    int32_t index = 0;
    size_t prompt = 0;
    StopMatcher stop{{}};
    std::unique_ptr<TextStream> detok;  // this sequence's streaming detokenizer
    std::string text;
    bool role_sent = false;
    bool done = false;
    ChoiceResult result;
    int64_t completion_tokens = 0;
    Timeline timeline;
    // Log-probabilities and echo (only when asked): every position shown (non-streaming), the
    // scored prompt positions (prompt_logprobs), and what the next streamed chunk carries.
    std::vector<ShownPosition> logprobs;
    std::vector<ShownPosition> prompt_logprobs;
    bool echoed = false;
    std::string pending_echo;  // the prompt's text, for the first chunk
    std::vector<ShownPosition> pending_logprobs;
    int64_t text_offset = 0;  // code points streamed so far (completions' text_offset)
    // A synthetic tool call or JSON answer in place of the sampled text (request_.structured).
    std::optional<StructuredStream> structured;
  };
  struct Prompt {
    std::string engine_id;
    EngineService* engine = nullptr;  // the data-parallel engine running it (once submitted)
    int64_t length = 0;
    int32_t engine_finished = 0;       // children the engine reported finished
    int32_t local_done = 0;            // choices finished here (engine finish or stop string)
    int64_t cached_tokens = 0;         // prompt tokens the prefix cache held (the engine's count)
    int64_t created_cache_tokens = 0;  // prompt tokens it wrote into the prefix cache
  };

  // One engine update waiting for the strand (an intrusive lock-free stack, newest first).
  struct Inbox {
    size_t prompt;
    SequenceUpdate update;
    Inbox* next;
  };

  bool enqueue(size_t prompt, const SequenceUpdate& update);  // engine thread
  void drain();                                               // strand
  void on_update(size_t prompt, const SequenceUpdate& update);
  // on_update for a choice with a structured answer: its tokens release the answer.
  void on_structured_update(Prompt& prompt, Choice& choice, const SequenceUpdate& update);
  // The engine failed the sequence: a 500 for the request, which ends.
  void fail_choice(Prompt& prompt, Choice& choice, const std::string& delta);
  void finish_choice(Choice& choice, const std::string& tail);
  // Echo and log-probabilities: take this update's positions (and, first, the prompt's), and put
  // what is pending into a streamed chunk.
  bool shows_logprobs() const {
    return request_.logprobs || request_.prompt_logprobs || request_.echo;
  }
  void take_logprobs(Choice& choice, const SequenceUpdate& update);
  bool has_pending(const Choice& choice) const;
  void attach_pending(Choice& choice, ChoiceResult& chunk);
  bool echo_only() const { return request_.echo && request_.max_tokens == 0; }
  std::string prompt_text(size_t prompt) const;
  void complete();
  Usage usage() const;
  // The usage of the final chunk or body: with prompt_tokens_details where enabled.
  Usage final_usage() const;
  bool attributable() const { return request_.n == 1 && request_.prompts.size() == 1; }
  std::optional<PerRequestMetrics> metrics() const;
  void abort_in_engine();  // cancelled_, and the engine aborts what still runs
  void write_log() const;
  void end_span(bool aborted) const;  // with tracing: the request's spans go to the exporter
  ResponsesOutcome responses_outcome() const;  // /v1/responses: its only choice, as a result

  ApiContext& context_;
  WaitingReservation place_;
  CompletionRequest request_;
  std::string endpoint_;
  std::string traceparent_;
  SpanIdentity span_;        // with tracing (context_.tracer): this request's llm_request span
  Nanos created_ = kNoTime;  // steady clock: the span's start if the engine never saw it
  std::vector<std::pair<std::string, std::string>> headers_;
  ResponseHead head_;
  std::string chunk_prefix_;  // render_chunk_prefix(head_)
  std::atomic<Inbox*> inbox_{nullptr};
  bool include_usage_ = false;
  bool continuous_usage_ = false;
  std::vector<Prompt> prompts_;
  std::vector<Choice> choices_;
  size_t choices_left_ = 0;
  std::string output_;
  bool done_ = false;
  bool cancelled_ = false;
  std::optional<ApiError> error_;
  // /v1/responses only: the response's ids and echoed parameters, and its event stream.
  ResponsesHead responses_head_;
  std::optional<ResponsesEventWriter> responses_;
};

}  // namespace llm
