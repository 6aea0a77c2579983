// Property tests over random traces and random engine configurations: the invariants every replay
// must keep (conservation, KV accounting, timing identities, preemption accounting, budgets, work
// conservation, determinism).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "core/engine_core.h"
#include "core/request_metrics.h"
#include "sim/replay.h"
#include "sim/replay_report.h"
#include "sim/router.h"

namespace llm {
namespace {

constexpr int64_t kMaxModelLen = 512;

struct RandomCase {
  Trace trace;
  ReplayConfig config;
};

rc::Gen<RandomCase> random_case() {
  return rc::gen::exec([] {
    RandomCase c;
    SchedulerConfig& s = c.config.scheduler;
    s.block_size = *rc::gen::element(4, 8, 16);
    s.max_model_len = kMaxModelLen;
    const int32_t min_blocks = static_cast<int32_t>(kMaxModelLen / s.block_size) + 1;
    s.num_gpu_blocks = *rc::gen::inRange(min_blocks, 2 * min_blocks);
    // Chunked prefill off requires a budget of at least max_model_len (validate()).
    s.enable_chunked_prefill = *rc::gen::arbitrary<bool>();
    s.max_num_batched_tokens =
        *rc::gen::inRange<int64_t>(s.enable_chunked_prefill ? 16 : kMaxModelLen, 2048);
    s.max_num_seqs = *rc::gen::inRange(1, 64);
    s.enable_prefix_caching = *rc::gen::arbitrary<bool>();
    s.long_prefill_token_threshold = *rc::gen::element<int64_t>(0, 0, 32, 200);
    s.policy = *rc::gen::element(SchedulingPolicy::kFcfs, SchedulingPolicy::kFcfs,
                                 SchedulingPolicy::kPriority);
    c.config.deployment.gpu = *find_gpu_preset("H200");
    c.config.deployment.model = *find_model_preset("Llama-3.2-1B");
    c.config.seed = *rc::gen::inRange<uint64_t>(0, 1000);
    c.config.data_parallel_size = *rc::gen::element(1, 1, 2, 3);
    c.config.routing =
        *rc::gen::element(RoutingPolicy::kRoundRobin, RoutingPolicy::kLeastOutstanding,
                          RoutingPolicy::kPrefixAffinity);

    const int num_requests = *rc::gen::inRange(1, 40);
    const int32_t hash_block = *rc::gen::element(16, 32);
    Nanos t = 0;
    for (int i = 0; i < num_requests; ++i) {
      TraceRequest r;
      r.id = "r" + std::to_string(i);
      t += *rc::gen::inRange<int64_t>(0, 50'000'000);
      r.arrival_ns = t;
      // Mostly short prompts; some close enough to the context that it ends their output.
      r.prompt_len = *rc::gen::inRange(0, 8) == 0
                         ? *rc::gen::inRange<int64_t>(kMaxModelLen - 130, kMaxModelLen)
                         : *rc::gen::inRange<int64_t>(1, 300);
      r.output_len = *rc::gen::inRange<int64_t>(1, 120);
      if (*rc::gen::inRange(0, 3) == 0) {
        // A shared system prompt: the first hash ids come from a pool of two.
        const int64_t ids = (r.prompt_len + hash_block - 1) / hash_block;
        const uint64_t family = *rc::gen::inRange<uint64_t>(0, 2);
        for (int64_t k = 0; k < ids; ++k) {
          r.prefix_hash_ids.push_back(k < 3 ? family * 100 + k : 10'000 + i * 100 + k);
        }
        r.hash_block_size = hash_block;
      }
      r.n = *rc::gen::element(1, 1, 1, 2, 3);
      if (*rc::gen::inRange(0, 4) == 0) r.max_tokens = *rc::gen::inRange<int64_t>(1, 150);
      r.priority = *rc::gen::inRange(0, 3);
      c.trace.requests.push_back(r);
    }
    return c;
  });
}

struct SeqRecord {
  FinishReason reason = FinishReason::kNone;
  int64_t outputs = 0;
  int64_t prompt = 0;
  Timeline timeline;
  int64_t preempt_events = 0;
  int64_t tokens_seen = 0;
  int finishes = 0;
  int64_t cached = -1;  // prompt tokens hit in the prefix cache at its first admission
};

// Checks per-step invariants as the replay runs and records every sequence.
class InvariantChecker final : public EngineObserver {
 public:
  explicit InvariantChecker(const SchedulerConfig& config) : config_(config) {}

  void on_scheduled(const SchedulerOutput& b, const Scheduler& s) override {
    RC_ASSERT(b.total_tokens <= config_.max_num_batched_tokens);
    RC_ASSERT(s.num_running() <= static_cast<size_t>(config_.max_num_seqs));
    std::set<const Request*> distinct;
    for (const ScheduledSeq& q : b.seqs) {
      RC_ASSERT(q.num_new_tokens > 0);
      distinct.insert(q.request);
    }
    RC_ASSERT(distinct.size() == b.seqs.size());
    // Without chunked prefill (and no threshold cutting chunks), every prompt is computed in one
    // step: each scheduled sequence reaches its last token.
    if (!config_.enable_chunked_prefill && config_.long_prefill_token_threshold == 0) {
      for (const ScheduledSeq& q : b.seqs) RC_ASSERT(q.samples);
    }
    // Work conservation: the step stopped admitting only for a reason the rules allow: the head
    // does not fit in the free blocks or, without chunked prefill, its uncached tokens exceed
    // the budget left.
    if (!s.waiting().empty() && b.preempted.empty() &&
        b.total_tokens < config_.max_num_batched_tokens &&
        s.num_running() < static_cast<size_t>(config_.max_num_seqs)) {
      const Request* head = s.waiting().front();
      std::vector<int32_t> hits;
      const int64_t hit_tokens = s.kv().peek_cached_prefix(*head, hits);
      const int64_t uncached = head->num_tokens() - head->num_computed_tokens - hit_tokens;
      const bool over_budget = !config_.enable_chunked_prefill &&
                               uncached > config_.max_num_batched_tokens - b.total_tokens;
      RC_ASSERT(over_budget || !s.kv().can_admit(*head, hits));
    }
    const BlockPool& pool = s.kv().pool();
    RC_ASSERT(pool.num_free() >= 0);
    RC_ASSERT(pool.num_free() + pool.num_used() == pool.num_usable());
  }

  void on_token(const Request& r, Nanos time, Nanos itl) override {
    SeqRecord& rec = seqs[r.external_id];
    ++rec.tokens_seen;
    RC_ASSERT((itl == kNoTime) == (rec.tokens_seen == 1));
    if (itl != kNoTime) RC_ASSERT(itl > 0);
  }
  void on_preempted(const Request& r) override { ++seqs[r.external_id].preempt_events; }
  void on_queued(const Request& r) override {
    RC_ASSERT(seqs.count(r.external_id) == 0);
    seqs[r.external_id];
    queued_at.push_back(r.timeline.queued);
  }
  void on_finished(const Request& r) override {
    SeqRecord& rec = seqs[r.external_id];
    ++rec.finishes;
    rec.reason = r.finish_reason;
    rec.outputs = r.num_output_tokens;
    rec.prompt = r.prompt_len;
    rec.cached = r.num_cached_tokens;
    rec.timeline = r.timeline;
  }
  void on_step(const StepStats& st) override {
    RC_ASSERT(st.free_blocks >= 0);
    RC_ASSERT(st.free_blocks <= st.usable_blocks);
    RC_ASSERT(st.end > st.start);
    if (!steps.empty()) RC_ASSERT(st.start >= steps.back().end);
    steps.push_back(st);
  }

  std::map<std::string, SeqRecord> seqs;  // the sequences this engine served
  std::vector<StepStats> steps;
  std::vector<Nanos> queued_at;

 private:
  SchedulerConfig config_;
};

std::string child_id(const TraceRequest& r, int i) {
  return r.n > 1 ? std::to_string(i) + "_" + r.id : r.id;
}

RC_GTEST_PROP(ReplayProperties, EveryInvariantHoldsOnRandomTracesAndConfigs, ()) {
  const RandomCase c = *random_case();
  RC_ASSERT(validate(c.config.scheduler).empty());
  const size_t num_engines = static_cast<size_t>(c.config.data_parallel_size);
  std::vector<std::unique_ptr<InvariantChecker>> checkers;
  std::vector<EngineObserver*> observers;
  for (size_t i = 0; i < num_engines; ++i) {
    checkers.push_back(std::make_unique<InvariantChecker>(c.config.scheduler));
    observers.push_back(checkers.back().get());
  }
  std::vector<int64_t> idle_free(num_engines, -1);
  ReplayHooks hooks;
  hooks.on_step = [&](size_t i, const EngineCore& e) {
    if (!e.has_unfinished()) idle_free[i] = e.scheduler().kv().pool().num_free();
  };
  const ReplayTotals totals = run_replay(c.trace, c.config, observers, hooks);

  // 1. Conservation: each sequence was served by exactly one engine and finished exactly once.
  std::map<std::string, SeqRecord> seqs;
  for (const auto& checker : checkers) {
    for (const auto& [id, rec] : checker->seqs) RC_ASSERT(seqs.emplace(id, rec).second);
  }
  int64_t expected_seqs = 0;
  for (const auto& r : c.trace.requests) expected_seqs += r.n;
  RC_ASSERT(static_cast<int64_t>(seqs.size()) == expected_seqs);
  RC_ASSERT(totals.sum().num_sequences == expected_seqs);
  // 2. No block leaked once an engine is idle.
  for (size_t i = 0; i < num_engines; ++i) {
    if (totals.engines[i].num_steps > 0) {
      RC_ASSERT(idle_free[i] == c.config.scheduler.num_gpu_blocks - 1);
    }
  }

  int64_t preemptions = 0;
  for (const auto& r : c.trace.requests) {
    for (int i = 0; i < r.n; ++i) {
      const SeqRecord& s = seqs.at(child_id(r, i));
      RC_ASSERT(s.finishes == 1);
      // The sequence produces exactly its scripted output, cut by max_tokens or the context.
      const int64_t max_tokens = r.max_tokens >= 0 ? r.max_tokens : kMaxModelLen - r.prompt_len;
      const int64_t expected = std::min({r.output_len, max_tokens, kMaxModelLen - r.prompt_len});
      RC_ASSERT(s.outputs == expected);
      RC_ASSERT(s.tokens_seen == expected);
      const bool length = expected == max_tokens || r.prompt_len + expected >= kMaxModelLen;
      RC_ASSERT(s.reason == (length ? FinishReason::kLength : FinishReason::kStop));
      // 3. Timing identities.
      const Timeline& t = s.timeline;
      RC_ASSERT(t.arrival == r.arrival_ns);
      RC_ASSERT(t.arrival <= t.queued);
      RC_ASSERT(t.queued <= t.scheduled);
      RC_ASSERT(t.scheduled < t.first_token);
      RC_ASSERT(t.first_token <= t.last_token);
      RC_ASSERT(t.last_token == t.finished);
      const RequestIntervals iv = compute_intervals(t, s.outputs);
      RC_ASSERT(*iv.ttft_s >= *iv.queue_s);
      const PerRequestMetrics m = compute_per_request_metrics(t, s.outputs);
      RC_ASSERT(*m.time_to_first_token_ms == nanos_to_ms(t.first_token - t.scheduled));
      RC_ASSERT(*m.queue_time_ms == nanos_to_ms(t.scheduled - t.queued));
      RC_ASSERT(*m.generation_time_ms == nanos_to_ms(t.last_token - t.first_token));
      RC_ASSERT(m.mean_itl_ms.has_value() == (s.outputs > 1));
      // 4. Preemption accounting.
      RC_ASSERT(t.num_preemptions == s.preempt_events);
      preemptions += s.preempt_events;
    }
  }
  RC_ASSERT(preemptions == totals.sum().num_preemptions);
  RC_TAG(preemptions > 0 ? "preempted" : "no preemption",
         totals.sum().prefix_hits > 0 ? "prefix hits" : "no hits",
         c.config.scheduler.enable_chunked_prefill ? "chunked" : "unchunked");

  // 5. Prefix-cache counters: each sequence counted once, at its first admission, with its whole
  // prompt and the hit it was admitted with; resumptions after a preemption add nothing.
  for (size_t e = 0; e < num_engines; ++e) {
    int64_t prompts = 0;
    int64_t cached = 0;
    for (const auto& [id, rec] : checkers[e]->seqs) {
      prompts += rec.prompt;
      cached += rec.cached;
    }
    const bool caching = c.config.scheduler.enable_prefix_caching;
    RC_ASSERT(totals.engines[e].prefix_queries == (caching ? prompts : 0));
    RC_ASSERT(totals.engines[e].prefix_hits == (caching ? cached : 0));
  }

  // 6. Routing: round-robin sends the k-th request to engine k mod N; least-outstanding to the
  // first engine with the fewest unfinished sequences (routed to it minus finished) at arrival.
  if (num_engines > 1 && c.config.routing != RoutingPolicy::kPrefixAffinity) {
    std::vector<int64_t> routed(num_engines, 0);
    for (size_t k = 0; k < c.trace.requests.size(); ++k) {
      const TraceRequest& r = c.trace.requests[k];
      size_t expected = k % num_engines;
      if (c.config.routing == RoutingPolicy::kLeastOutstanding) {
        std::vector<int64_t> load = routed;
        for (size_t e = 0; e < num_engines; ++e) {
          for (const auto& [id, rec] : checkers[e]->seqs) {
            if (rec.timeline.finished <= r.arrival_ns) --load[e];
          }
        }
        expected = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      }
      RC_ASSERT(checkers[expected]->seqs.count(child_id(r, 0)) == 1);
      routed[expected] += r.n;
    }
  }

  // 7. Work conservation in time, per engine: it idles only when everything queued to it is
  // done, and its next step starts when a new request is queued.
  for (const auto& checker : checkers) {
    const auto& steps = checker->steps;
    for (size_t k = 1; k < steps.size(); ++k) {
      const Nanos gap_start = steps[k - 1].end;
      const Nanos next_start = steps[k].start;
      if (next_start == gap_start) continue;
      for (const auto& [id, rec] : checker->seqs) {
        if (rec.timeline.queued <= gap_start) RC_ASSERT(rec.timeline.finished <= gap_start);
      }
      const auto& q = checker->queued_at;
      RC_ASSERT(std::find(q.begin(), q.end(), next_start) != q.end());
    }
  }
}

std::string replay_jsonl(const Trace& trace, const ReplayConfig& config) {
  std::ostringstream out;
  ReplayReport report(&out);
  const std::vector<EngineObserver*> observers(static_cast<size_t>(config.data_parallel_size),
                                               &report);
  const ReplayTotals totals = run_replay(trace, config, observers);
  out << format_summary_json(
      report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size())));
  return out.str();
}

// Drops the output digests, leaving only the schedule-dependent fields.
std::string without_digests(std::string s) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t at = s.find(",\"output_digest\":\"", pos);
    if (at == std::string::npos) break;
    out += s.substr(pos, at - pos);
    pos = s.find('"', at + 18) + 1;
  }
  return out + s.substr(pos);
}

RC_GTEST_PROP(ReplayProperties, SameInputsGiveIdenticalOutputsAndTheSeedOnlyChangesTokens, ()) {
  RandomCase c = *random_case();
  const std::string first = replay_jsonl(c.trace, c.config);
  RC_ASSERT(first == replay_jsonl(c.trace, c.config));
  c.config.seed += 1;
  const std::string reseeded = replay_jsonl(c.trace, c.config);
  RC_ASSERT(without_digests(first) == without_digests(reseeded));
  // Some sequence with two or more tokens exists in most traces; then the digests must differ.
  bool multi_token = false;
  for (const auto& r : c.trace.requests) multi_token |= r.output_len > 1 && r.max_tokens != 1;
  if (multi_token) RC_ASSERT(first != reseeded);
}

}  // namespace
}  // namespace llm
