#include "server/api/completion_job.h"

#include <algorithm>
#include <ctime>
#include <utility>

#include "core/rng.h"
#include "server/api/api_error.h"
#include "server/engine/steady_clock.h"

namespace llm {

CompletionJob::CompletionJob(ApiContext& context, CompletionRequest request,
                             const HttpRequest& http, std::string request_id,
                             std::vector<std::pair<std::string, std::string>> headers)
    : context_(context),
      request_(std::move(request)),
      endpoint_(http.path),
      traceparent_(valid_traceparent(http.traceparent) ? http.traceparent : ""),
      headers_(std::move(headers)) {
  head_.endpoint = request_.endpoint;
  const char* id_prefix = request_.endpoint == Endpoint::kChat        ? "chatcmpl-"
                          : request_.endpoint == Endpoint::kResponses ? "resp_"
                                                                      : "cmpl-";
  head_.id = id_prefix + request_id;
  head_.created = static_cast<int64_t>(std::time(nullptr));
  head_.model = context_.model.served_name;  // as vLLM: the first name, whichever was sent
  if (request_.endpoint == Endpoint::kResponses) {
    responses_head_ =
        ResponsesHead{head_.id, "msg_" + request_id, head_.created, head_.model, &request_};
    responses_.emplace(responses_head_);
  }
  chunk_prefix_ = render_chunk_prefix(head_);
  include_usage_ =
      request_.stream && (request_.include_usage || context_.options.enable_force_include_usage);
  continuous_usage_ = include_usage_ && request_.continuous_usage_stats;
  const size_t n = static_cast<size_t>(request_.n);
  prompts_.resize(request_.prompts.size());
  choices_.resize(request_.prompts.size() * n);
  for (size_t p = 0; p < prompts_.size(); ++p) {
    prompts_[p].length = static_cast<int64_t>(request_.prompts[p].size());
    prompts_[p].engine_id = head_.id + "-" + std::to_string(p) + "-" +
                            std::to_string(context_.next_sequence.fetch_add(1));
    for (size_t i = 0; i < n; ++i) {
      Choice& c = choices_[p * n + i];
      c.index = static_cast<int32_t>(p * n + i);
      c.prompt = p;
      c.stop = StopMatcher(request_.stop, request_.include_stop_str_in_output);
      c.detok = context_.codec->stream();
      c.result.index = c.index;
    }
  }
  choices_left_ = choices_.size();
  if (request_.structured) {
    // The answer follows the seed, or the prompt when the request sends none (as the sim's text).
    uint64_t seed = 0x5eed;
    if (request_.seed) {
      seed = static_cast<uint64_t>(*request_.seed);
    } else {
      for (const int32_t t : request_.prompts[0])
        seed = hash_combine(seed, static_cast<uint64_t>(t));
    }
    for (Choice& c : choices_) {
      c.structured.emplace(make_structured_answer(*request_.structured, seed, c.index));
    }
  }
  if (context_.tracer) {
    span_ = context_.tracer->start(http.traceparent, http.tracestate);
    created_ = SteadyClock().now();
    // The client can find its trace: our span's traceparent, beside X-Request-Id.
    if (context_.options.enable_request_id_headers) {
      headers_.emplace_back("traceparent",
                            format_traceparent(span_.trace_id, span_.span_id, span_.trace_flags));
    }
  }
}

CompletionJob::~CompletionJob() {
  Inbox* node = inbox_.exchange(nullptr, std::memory_order_acquire);
  while (node) delete std::exchange(node, node->next);
}

bool CompletionJob::start(Post post, std::function<void()> progress) {
  const WaitingReservation place = std::move(place_);  // given up when the prompts are submitted
  auto self = shared_from_this();
  if (responses_ && request_.stream) responses_->append_start(output_);
  for (size_t p = 0; p < prompts_.size(); ++p) {
    GenerateRequest g;
    g.request_id = prompts_[p].engine_id;
    g.prompt_tokens = request_.prompts[p];
    g.params.max_tokens = request_.max_tokens.value_or(-1);
    g.params.n = request_.n;
    g.params.stop_token_ids = request_.stop_token_ids;
    if (!request_.ignore_eos) {
      // vLLM adds the generation config's other eos ids (Llama 3's <|eot_id|>) the same way.
      for (int32_t id : context_.extra_stop_token_ids) {
        auto& stops = g.params.stop_token_ids;
        if (std::find(stops.begin(), stops.end(), id) == stops.end()) stops.push_back(id);
      }
    }
    g.params.ignore_eos = request_.ignore_eos;
    static_cast<SamplingControls&>(g.params) = request_.controls;
    if (request_.seed) {
      g.params.seed = static_cast<uint64_t>(*request_.seed);
    } else if (context_.seed_unseeded_requests) {
      g.params.seed = hash_combine(context_.options.seed, context_.next_seed.fetch_add(1) + 1);
    }
    g.params.temperature = request_.temperature;
    g.params.top_p = request_.top_p;
    g.params.top_k = request_.top_k;
    g.priority = request_.priority;
    g.cache_salt = request_.cache_salt;
    g.params.logprobs = request_.logprobs.value_or(-1);
    g.params.prompt_logprobs = request_.prompt_logprobs.value_or(-1);
    if (echo_only()) g.params.max_tokens = 1;  // vLLM generates one token and shows none
    auto sink = [self, p, post, progress](const SequenceUpdate& u) {
      if (self->enqueue(p, u)) {
        post([self, progress] {
          self->drain();
          progress();
        });
      }
    };
    EngineService& engine = context_.engines.pick();
    prompts_[p].engine = &engine;
    if (!engine.submit(std::move(g), std::move(sink))) {
      // Shutting down: drop what was already submitted.
      for (size_t q = 0; q < p; ++q) prompts_[q].engine->abort(prompts_[q].engine_id);
      cancelled_ = true;
      return false;
    }
  }
  return true;
}

// Engine thread: a lock-free push. True when the inbox was empty: only then does the caller post
// a drain, so a session that lags behind the engine gets one strand hop for many updates.
bool CompletionJob::enqueue(size_t prompt, const SequenceUpdate& update) {
  Inbox* node = new Inbox{prompt, update, nullptr};
  Inbox* head = inbox_.load(std::memory_order_relaxed);
  do {
    node->next = head;
  } while (!inbox_.compare_exchange_weak(head, node, std::memory_order_release,
                                         std::memory_order_relaxed));
  return head == nullptr;
}

// Strand: applies every queued update in arrival order.
void CompletionJob::drain() {
  Inbox* node = inbox_.exchange(nullptr, std::memory_order_acquire);
  if (!node) return;
  Inbox* ordered = nullptr;  // the stack is newest first
  while (node) {
    Inbox* next = node->next;
    node->next = ordered;
    ordered = node;
    node = next;
  }
  while (ordered) {
    Inbox* next = ordered->next;
    on_update(ordered->prompt, ordered->update);
    delete ordered;
    ordered = next;
  }
}

void CompletionJob::cancel() {
  if (done_ || cancelled_) return;
  abort_in_engine();
  for (Choice& c : choices_) {
    if (!c.done) c.result.finish_reason = "abort";
  }
  write_log();
  end_span(true);
}

void CompletionJob::abort_in_engine() {
  cancelled_ = true;
  for (const Prompt& p : prompts_) {
    if (p.engine && p.engine_finished < request_.n) p.engine->abort(p.engine_id);
  }
}

void CompletionJob::on_update(size_t p, const SequenceUpdate& u) {
  Prompt& prompt = prompts_[p];
  if (u.finished) ++prompt.engine_finished;
  prompt.cached_tokens = std::max(prompt.cached_tokens, u.cached_tokens);
  prompt.created_cache_tokens = std::max(prompt.created_cache_tokens, u.created_cache_tokens);
  if (cancelled_ || done_) return;
  Choice& c = choices_[p * static_cast<size_t>(request_.n) + static_cast<size_t>(u.child_index)];
  if (c.done) return;  // finished here by a stop string; the engine's finish arrives later
  if (c.structured) {
    on_structured_update(prompt, c, u);
    return;
  }

  std::string delta;
  for (size_t k = 0; k < u.new_tokens.size(); ++k) {
    const int32_t token = u.new_tokens[k];
    ++c.completion_tokens;
    // The EOS or stop token id that ended the sequence has no text, unless the request keeps it.
    const bool is_stop_token = !request_.include_stop_str_in_output && u.finished &&
                               u.stop_token >= 0 && token == u.stop_token &&
                               k + 1 == u.new_tokens.size();
    if (!is_stop_token) {
      delta +=
          c.stop.feed(c.detok->push(token), c.completion_tokens > request_.controls.min_tokens);
    }
    if (c.stop.matched()) break;
  }
  // At the end, the detokenizer's held-back bytes (an unfinished UTF-8 sequence) end the text; a
  // stop string may complete in them.
  if (u.finished && u.finish_reason != FinishReason::kError && !c.stop.matched()) {
    delta += c.stop.feed(c.detok->flush(), c.completion_tokens > request_.controls.min_tokens);
  }
  c.timeline = u.timeline;
  if (shows_logprobs()) take_logprobs(c, u);
  if (!c.role_sent && request_.endpoint == Endpoint::kChat && request_.stream) {
    c.role_sent = true;
    Usage cumulative = usage();
    append_role_chunk(output_, chunk_prefix_, c.index, continuous_usage_ ? &cumulative : nullptr);
  }

  if (c.stop.matched()) {
    c.result.finish_reason = "stop";
    c.result.stop_string = c.stop.matched_stop();
    // The engine ends this sequence as "stop" too, as vLLM's frontend reports stop strings; its
    // siblings (n > 1) run on.
    if (!u.finished) {
      prompt.engine->finish_sequence(prompt.engine_id, u.child_index, FinishReason::kStop);
    }
    finish_choice(c, delta);
    return;
  }
  if (u.finished) {
    if (u.finish_reason == FinishReason::kError) {
      fail_choice(prompt, c, delta);
      return;
    }
    c.result.finish_reason = finish_reason_name(u.finish_reason);
    if (u.stop_token >= 0) c.result.stop_token = u.stop_token;
    delta += c.stop.flush();
    finish_choice(c, delta);
    return;
  }
  c.text += delta;
  if (responses_ && request_.stream && !delta.empty()) {
    responses_->append_text_delta(output_, delta);
  } else if (request_.stream && (!delta.empty() || has_pending(c))) {
    ChoiceResult r;
    r.index = c.index;
    r.text = std::move(delta);
    attach_pending(c, r);
    Usage cumulative = usage();
    append_delta_chunk(output_, chunk_prefix_, request_.endpoint, r,
                       continuous_usage_ ? &cumulative : nullptr);
  }
}

void CompletionJob::fail_choice(Prompt& prompt, Choice& c, const std::string& delta) {
  error_ = ApiError{500, "The engine could not complete the request.", "", ""};
  c.result.finish_reason = "error";
  c.text += delta;
  c.done = true;
  --choices_left_;
  ++prompt.local_done;
  abort_in_engine();
  complete();
}

void CompletionJob::on_structured_update(Prompt& prompt, Choice& c, const SequenceUpdate& u) {
  c.completion_tokens += static_cast<int64_t>(u.new_tokens.size());
  c.timeline = u.timeline;
  if (u.finished && u.finish_reason == FinishReason::kError) {
    fail_choice(prompt, c, {});
    return;
  }
  const Usage cumulative = usage();
  const Usage* chunk_usage = continuous_usage_ ? &cumulative : nullptr;
  const bool chat_stream = request_.stream && !responses_;
  if (!c.role_sent && chat_stream) {
    c.role_sent = true;
    append_role_chunk(output_, chunk_prefix_, c.index, chunk_usage);
  }
  const std::string piece =
      c.structured->advance(static_cast<int64_t>(u.new_tokens.size()), u.finished);
  c.text += piece;
  ChoiceResult chunk;
  chunk.index = c.index;
  if (responses_ && request_.stream && !piece.empty()) {
    responses_->append_text_delta(output_, piece);  // JSON text (text.format)
  } else if (chat_stream && c.structured->fill_delta(piece, chunk)) {
    append_delta_chunk(output_, chunk_prefix_, request_.endpoint, chunk, chunk_usage);
  }
  if (!u.finished) return;
  // A whole answer whatever made the engine stop: its finish_reason is the answer's.
  c.result.finish_reason = c.structured->answer().finish_reason;
  c.done = true;
  --choices_left_;
  ++prompt.local_done;
  if (chat_stream) {
    ChoiceResult finish = c.result;
    c.structured->fill_finish_delta(finish);
    append_delta_chunk(output_, chunk_prefix_, request_.endpoint, finish, chunk_usage);
  }
  if (choices_left_ == 0) complete();
}

void CompletionJob::finish_choice(Choice& c, const std::string& tail) {
  c.text += tail;
  c.done = true;
  --choices_left_;
  Prompt& prompt = prompts_[c.prompt];
  ++prompt.local_done;
  if (responses_ && request_.stream) {
    if (!tail.empty()) responses_->append_text_delta(output_, tail);
  } else if (request_.stream) {
    ChoiceResult r = c.result;
    r.text = tail;
    attach_pending(c, r);
    Usage cumulative = usage();
    append_delta_chunk(output_, chunk_prefix_, request_.endpoint, r,
                       continuous_usage_ ? &cumulative : nullptr);
  }
  if (choices_left_ == 0) complete();
}

std::string CompletionJob::prompt_text(size_t p) const {
  const std::string& text = request_.prompt_texts[p];
  return text.empty() ? context_.codec->decode(request_.prompts[p]) : text;
}

void CompletionJob::take_logprobs(Choice& c, const SequenceUpdate& u) {
  const TextCodec& codec = *context_.codec;
  std::vector<ShownPosition> shown;
  if (request_.prompt_logprobs && c.prompt_logprobs.empty()) {
    for (const PositionLogprobs& p : u.prompt_logprobs) {
      c.prompt_logprobs.push_back(show_position(p, codec));
    }
  }
  if (request_.echo && !c.echoed) {
    c.echoed = true;
    if (request_.stream) c.pending_echo = prompt_text(c.prompt);
    if (request_.logprobs) {
      shown.push_back(show_unscored(request_.prompts[c.prompt][0], codec));
      shown.insert(shown.end(), c.prompt_logprobs.begin(), c.prompt_logprobs.end());
    }
  }
  if (request_.logprobs && !echo_only()) {
    for (const PositionLogprobs& p : u.logprobs) shown.push_back(show_position(p, codec));
  }
  auto& into = request_.stream ? c.pending_logprobs : c.logprobs;
  into.insert(into.end(), std::make_move_iterator(shown.begin()),
              std::make_move_iterator(shown.end()));
}

bool CompletionJob::has_pending(const Choice& c) const {
  return !c.pending_echo.empty() || !c.pending_logprobs.empty();
}

// A streamed chunk: the echoed prompt before its text (alone under max_tokens 0), its positions.
void CompletionJob::attach_pending(Choice& c, ChoiceResult& chunk) {
  if (!shows_logprobs()) return;
  if (echo_only()) chunk.text.clear();
  if (!c.pending_echo.empty()) chunk.text = std::exchange(c.pending_echo, {}) + chunk.text;
  if (request_.logprobs) {
    if (request_.endpoint == Endpoint::kChat) {
      append_chat_logprobs(chunk.logprobs, c.pending_logprobs, *request_.logprobs);
    } else {
      append_completion_logprobs(chunk.logprobs, c.pending_logprobs, c.text_offset);
    }
  }
  c.pending_logprobs.clear();
  c.text_offset += code_points(valid_utf8(chunk.text));
}

void CompletionJob::complete() {
  done_ = true;
  if (responses_ && request_.stream) {
    const std::optional<PerRequestMetrics> m = metrics();
    const bool with_metrics = context_.options.enable_per_request_metrics;
    if (error_) {
      responses_->append_error(output_, *error_);
    } else {
      responses_->append_finish(output_, responses_outcome(), with_metrics ? &m : nullptr);
    }
  } else if (request_.stream) {
    if (error_) {
      output_ += build_error_frame(*error_);
    } else if (include_usage_) {
      const std::optional<PerRequestMetrics> m = metrics();
      const bool with_metrics = context_.options.enable_per_request_metrics && attributable();
      append_usage_chunk(output_, chunk_prefix_, final_usage(), with_metrics ? &m : nullptr);
    }
    output_ += kDoneFrame;
  }
  write_log();
  end_span(false);
}

std::string CompletionJob::stream_error_tail(const std::exception_ptr& exception) {
  const ApiError error = error_of_exception(exception);
  std::string out;
  if (responses_) {
    responses_->append_error(out, error);
  } else {
    out = build_error_frame(error) + kDoneFrame;
  }
  return out;
}

Usage CompletionJob::usage() const {
  Usage u;
  for (const Prompt& p : prompts_) u.prompt_tokens += p.length;
  for (const Choice& c : choices_) u.completion_tokens += c.completion_tokens;
  return u;
}

Usage CompletionJob::final_usage() const {
  Usage u = usage();
  if (context_.options.enable_prompt_tokens_details) {
    // vLLM prints both counts, 0 included, for every request its engine prefilled.
    PromptTokensDetails d;
    for (const Prompt& p : prompts_) {
      d.cached_tokens += p.cached_tokens;
      d.created_cache_tokens += p.created_cache_tokens;
    }
    u.prompt_tokens_details = d;
  }
  return u;
}

std::optional<PerRequestMetrics> CompletionJob::metrics() const {
  if (!context_.options.enable_per_request_metrics || !attributable()) return std::nullopt;
  return compute_per_request_metrics(choices_[0].timeline, choices_[0].completion_tokens);
}

std::string CompletionJob::take_output() {
  std::string out;
  out.swap(output_);
  return out;
}

HttpResponse CompletionJob::response() const {
  HttpResponse r;
  r.headers = headers_;
  if (error_) {
    r.status = error_->status;
    r.body = error_body(*error_);
    return r;
  }
  if (responses_) {
    r.body = build_responses_body(responses_head_, responses_outcome(), metrics());
    return r;
  }
  std::vector<ChoiceResult> results;
  results.reserve(choices_.size());
  std::string chat_prompt_logprobs;
  for (const Choice& c : choices_) {
    results.push_back(c.result);
    ChoiceResult& out = results.back();
    out.text = c.text;
    if (c.structured) c.structured->fill_message(out);
    if (!shows_logprobs()) continue;
    if (request_.echo) out.text = prompt_text(c.prompt) + (echo_only() ? std::string() : c.text);
    if (request_.logprobs && request_.endpoint == Endpoint::kChat) {
      append_chat_logprobs(out.logprobs, c.logprobs, *request_.logprobs);
    } else if (request_.logprobs) {
      append_completion_logprobs(out.logprobs, c.logprobs, 0);
    }
    if (request_.prompt_logprobs && request_.endpoint == Endpoint::kCompletions) {
      append_prompt_logprobs(out.prompt_logprobs, c.prompt_logprobs);
    } else if (request_.prompt_logprobs && chat_prompt_logprobs.empty()) {
      append_prompt_logprobs(chat_prompt_logprobs, c.prompt_logprobs);
    }
  }
  r.body = build_completion_body(head_, results, final_usage(), metrics(), chat_prompt_logprobs);
  return r;
}

ResponsesOutcome CompletionJob::responses_outcome() const {
  ResponsesOutcome o;
  o.text = choices_[0].text;
  o.incomplete = choices_[0].result.finish_reason == "length";
  o.input_tokens = prompts_[0].length;
  o.cached_tokens = prompts_[0].cached_tokens;
  o.output_tokens = choices_[0].completion_tokens;
  if (context_.options.enable_prompt_tokens_details) {
    o.cache_write_tokens = prompts_[0].created_cache_tokens;
  }
  return o;
}

void CompletionJob::write_log() const {
  if (!context_.request_log) return;
  RequestLogEntry e;
  e.request_id = head_.id;
  e.traceparent = traceparent_;
  e.endpoint = endpoint_;
  e.model = head_.model;
  const Usage u = usage();
  e.prompt_tokens = u.prompt_tokens;
  e.completion_tokens = u.completion_tokens;
  for (const Choice& c : choices_) {
    e.finish_reasons.push_back(c.result.finish_reason);
    e.completions.push_back(c.text);
  }
  if (attributable()) {
    e.metrics = compute_per_request_metrics(choices_[0].timeline, choices_[0].completion_tokens);
  }
  e.prompts = request_.prompt_texts;
  context_.request_log->write(e);
}

}  // namespace llm

namespace llm {

void CompletionJob::end_span(bool aborted) const {
  if (!context_.tracer) return;
  RequestSpanInput in;
  in.identity = span_;
  in.operation = request_.endpoint == Endpoint::kCompletions ? "text_completion" : "chat";
  in.request_id = head_.id;
  in.request_model = request_.model;
  in.response_model = context_.model.served_name;
  in.max_tokens = request_.max_tokens;
  in.temperature = request_.temperature;
  in.top_p = request_.top_p;
  in.n = request_.n;
  in.num_sequences = static_cast<int32_t>(choices_.size());
  const Usage u = usage();
  in.prompt_tokens = u.prompt_tokens;
  in.completion_tokens = u.completion_tokens;
  for (const Prompt& p : prompts_) in.cached_tokens += p.cached_tokens;
  for (const Choice& c : choices_) in.finish_reasons.push_back(c.result.finish_reason);
  in.timeline = choices_[0].timeline;
  if (in.timeline.arrival == kNoTime) in.timeline.arrival = created_;
  in.end = SteadyClock().now();
  if (error_) {
    in.error = true;
    in.error_message = error_->message;
  }
  in.aborted = aborted;
  std::vector<std::string> prompts, completions;
  if (context_.tracer->include_content()) {
    for (size_t p = 0; p < prompts_.size(); ++p) prompts.push_back(prompt_text(p));
    for (const Choice& c : choices_) completions.push_back(c.text);
    in.prompts = &prompts;
    in.completions = &completions;
  }
  // The detailed events are the first sequence's, as the timings (core/request.cpp fan_out
  // names the children of n > 1 "<i>_<id>").
  const std::string& id = prompts_[0].engine_id;
  context_.tracer->finish(in, prompts_[0].engine, request_.n > 1 ? "0_" + id : id);
}

}  // namespace llm
