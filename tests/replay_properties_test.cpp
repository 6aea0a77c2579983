// Property tests over random traces, random engine configurations and random faults (failed steps,
// latency spikes, slow engines, client and engine-loop aborts, a squeezed KV cache): every replay
// keeps the invariants of sim/dst/invariants.h (conservation, KV accounting, timing identities,
// preemption and prefix-cache accounting, budgets, admission, work conservation, routing, metrics
// against the per-request file), checked after every step and at the end; and replays are
// deterministic. `llmsim dst` runs the same checks over its own seeded cases.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "core/rng.h"
#include "sim/dst/dst_case.h"
#include "sim/dst/invariants.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_report.h"
#include "sim/routing/router.h"

namespace llm {
namespace {

constexpr int64_t kMaxModelLen = 512;

struct RandomCase {
  Trace trace;
  ReplayConfig config;
};

SchedulerConfig random_scheduler() {
  SchedulerConfig s;
  s.block_size = *rc::gen::element(4, 8, 16);
  s.max_model_len = kMaxModelLen;
  const int32_t min_blocks = min_gpu_blocks(s);
  // A third of the cases squeeze the KV cache to its minimum (one max_model_len request fits).
  s.num_gpu_blocks =
      *rc::gen::element(0, 1, 2) == 0 ? min_blocks : *rc::gen::inRange(min_blocks, 2 * min_blocks);
  // Chunked prefill off requires a budget of at least max_model_len (validate()).
  s.enable_chunked_prefill = *rc::gen::arbitrary<bool>();
  s.max_num_batched_tokens =
      *rc::gen::inRange<int64_t>(s.enable_chunked_prefill ? 16 : kMaxModelLen, 2048);
  s.max_num_seqs = *rc::gen::inRange(1, 64);
  s.enable_prefix_caching = *rc::gen::arbitrary<bool>();
  s.long_prefill_token_threshold = *rc::gen::element<int64_t>(0, 0, 32, 200);
  s.policy = *rc::gen::element(SchedulingPolicy::kFcfs, SchedulingPolicy::kFcfs,
                               SchedulingPolicy::kPriority);
  s.async_scheduling = *rc::gen::arbitrary<bool>();
  return s;
}

TraceRequest random_request(int i, Nanos arrival, int32_t hash_block) {
  TraceRequest r;
  r.id = "r" + std::to_string(i);
  r.arrival_ns = arrival;
  // Mostly short prompts; some close enough to the context that it ends their output, a few that
  // can never run (max_model_len or more) and are refused.
  r.prompt_len = *rc::gen::inRange(0, 8) == 0
                     ? *rc::gen::inRange<int64_t>(kMaxModelLen - 130, kMaxModelLen + 2)
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
  if (*rc::gen::inRange(0, 4) == 0) r.max_tokens = *rc::gen::inRange<int64_t>(0, 150);
  r.priority = *rc::gen::inRange(0, 3);
  return r;
}

rc::Gen<RandomCase> random_case() {
  return rc::gen::exec([] {
    RandomCase c;
    c.config.scheduler = random_scheduler();
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
      t += *rc::gen::element<int64_t>(0, 0, 1) == 0 ? 0 : *rc::gen::inRange<int64_t>(0, 50'000'000);
      c.trace.requests.push_back(random_request(i, t, hash_block));
    }
    // Half the cases run with faults, drawn as `llmsim dst` draws them.
    if (*rc::gen::arbitrary<bool>()) {
      Rng rng(*rc::gen::arbitrary<uint64_t>());
      c.config.faults = random_faults(rng, c.trace, c.config.data_parallel_size);
    }
    return c;
  });
}

RC_GTEST_PROP(ReplayProperties, EveryInvariantHoldsOnRandomTracesConfigsAndFaults, ()) {
  const RandomCase c = *random_case();
  RC_ASSERT(validate(c.config.scheduler).empty());
  ReplayTotals totals;
  try {
    totals = run_checked_replay(c.trace, c.config);
  } catch (const InvariantViolation& v) {
    RC_FAIL(v.what());
  }
  const FaultTotals& f = totals.faults;
  int64_t aborts = 0;
  for (int64_t n : f.aborts) aborts += n;
  RC_TAG(totals.sum().num_preemptions > 0 ? "preempted" : "no preemption",
         totals.sum().prefix_hits > 0 ? "prefix hits" : "no hits",
         c.config.scheduler.enable_chunked_prefill ? "chunked" : "unchunked",
         f.failed_steps > 0 ? "failed steps" : "no failed step",
         aborts > 0 ? "aborts" : "no abort");
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

// Whether some sequence of the per-request lines produced two tokens or more (the summary's total,
// printed with a space after the colon, does not count).
bool has_multi_token_sequence(const std::string& jsonl) {
  const std::string key = "\"completion_tokens\":";
  for (size_t at = jsonl.find(key); at != std::string::npos; at = jsonl.find(key, at + 1)) {
    const std::string value = jsonl.substr(at + key.size(), 20);
    if (std::isdigit(static_cast<unsigned char>(value[0])) && std::stoll(value) >= 2) return true;
  }
  return false;
}

RC_GTEST_PROP(ReplayProperties, SameInputsGiveIdenticalOutputsAndTheSeedOnlyChangesTokens, ()) {
  RandomCase c = *random_case();
  const std::string first = replay_jsonl(c.trace, c.config);
  RC_ASSERT(first == replay_jsonl(c.trace, c.config));
  c.config.seed += 1;
  const std::string reseeded = replay_jsonl(c.trace, c.config);
  RC_ASSERT(without_digests(first) == without_digests(reseeded));
  // With a sequence of two or more tokens, some digest must differ.
  if (has_multi_token_sequence(first)) RC_ASSERT(first != reseeded);
}

}  // namespace
}  // namespace llm
