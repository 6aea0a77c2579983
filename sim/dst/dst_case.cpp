#include "sim/dst/dst_case.h"

#include <algorithm>
#include <initializer_list>
#include <sstream>

#include "backends/sim/presets.h"
#include "core/ceil_div.h"
#include "core/rng.h"

namespace llm {
namespace {

constexpr uint64_t kCaseStream = 0x6473742d63617365ULL;  // "dst-case"
constexpr Nanos kMs = 1'000'000;

bool chance(Rng& rng, double p) { return rng.uniform() < p; }

// Uniform in [lo, hi].
int64_t between(Rng& rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng.below(static_cast<uint64_t>(hi - lo + 1)));
}

template <typename T>
T pick(Rng& rng, std::initializer_list<T> values) {
  return *(values.begin() + rng.below(values.size()));
}

SchedulerConfig random_scheduler(Rng& rng, bool squeezed) {
  SchedulerConfig s;
  s.block_size = pick(rng, {1, 2, 4, 8, 16, 32});
  s.max_model_len = pick<int64_t>(rng, {16, 32, 64, 128, 256, 512});
  const int32_t min_blocks = min_gpu_blocks(s);
  s.num_gpu_blocks =
      squeezed ? min_blocks : static_cast<int32_t>(between(rng, min_blocks, 3 * min_blocks));
  s.enable_chunked_prefill = chance(rng, 0.5);
  const int64_t low = s.enable_chunked_prefill ? (chance(rng, 0.2) ? 1 : 8) : s.max_model_len;
  s.max_num_batched_tokens = between(rng, low, std::max(low, 2 * s.max_model_len));
  s.max_num_seqs = static_cast<int32_t>(pick<int64_t>(rng, {1, between(rng, 1, 16), 64, 256}));
  s.enable_prefix_caching = chance(rng, 0.5);
  s.long_prefill_token_threshold = pick<int64_t>(rng, {0, 0, 0, 1, 4, 16, 64});
  s.policy = chance(rng, 0.3) ? SchedulingPolicy::kPriority : SchedulingPolicy::kFcfs;
  s.async_scheduling = chance(rng, 0.5);
  // vLLM's admission knobs, derived from what was drawn rather than drawn themselves (so each
  // seed's other draws stay as they were): a cap below max_num_seqs in one case in four, the
  // whole-sequence gate off in one in five.
  const uint64_t knobs = mix64(static_cast<uint64_t>(s.num_gpu_blocks) * 1000003u +
                               static_cast<uint64_t>(s.max_num_batched_tokens));
  if (knobs % 4 == 0) {
    s.max_num_active_seqs = static_cast<int32_t>(1 + (knobs >> 8) % s.max_num_seqs);
  }
  // Under the priority policy too: seeds 1046, 1156, 1307 and 1744 found a livelock there, now
  // fixed (core/scheduler.cpp's victim rule; docs/scheduler.md) and kept as regression seeds.
  s.scheduler_reserve_full_isl = (knobs >> 32) % 5 != 0;
  return s;
}

int64_t random_prompt(Rng& rng, int64_t max_model_len) {
  const uint64_t kind = rng.below(40);
  if (kind == 0) return 0;  // refused: empty
  if (kind < 5) return between(rng, max_model_len - max_model_len / 4, max_model_len + 2);
  return between(rng, 1, max_model_len / 2);
}

// Prompt identity shared between requests: leading blocks (or whole prompts) from one of two
// families, as trace hash ids or as real token ids, sometimes behind a cache_salt.
void share_prefix(Rng& rng, size_t k, TraceRequest& r) {
  // One in four carries one of two tenants' cache_salt, so that equal prefixes sometimes must not
  // share blocks. Derived from k rather than drawn, which leaves the seeds' other draws as they
  // were.
  const uint64_t tenant = mix64(k) % 8;
  if (tenant < 2) r.cache_salt = "tenant-" + std::to_string(tenant);
  const uint64_t family = rng.below(2);
  const bool whole = chance(rng, 0.3);
  if (chance(rng, 0.3)) {
    for (int64_t i = 0; i < r.prompt_len; ++i) {
      const bool shared = whole || i < 24;
      r.prompt_tokens.push_back(
          static_cast<int32_t>(shared ? (family * 7 + i) % 50 : rng.below(50)));
    }
    return;
  }
  r.hash_block_size = pick(rng, {4, 16});
  const int64_t ids = ceil_div(r.prompt_len, r.hash_block_size);
  for (int64_t i = 0; i < ids; ++i) {
    const bool shared = whole || i < 4;
    r.prefix_hash_ids.push_back(shared ? family * 100 + i : 10'000 + k * 1000 + i);
  }
}

TraceRequest random_request(Rng& rng, size_t k, Nanos arrival, int64_t max_model_len) {
  TraceRequest r;
  r.id = "r" + std::to_string(k);
  r.arrival_ns = arrival;
  r.prompt_len = random_prompt(rng, max_model_len);
  r.output_len = between(rng, 1, std::min<int64_t>(100, max_model_len));
  if (chance(rng, 0.25)) r.max_tokens = between(rng, 0, max_model_len / 2);
  r.n = pick(rng, {1, 1, 1, 1, 2, 3, 4, 8});
  r.priority = static_cast<int32_t>(rng.below(4));
  if (chance(rng, 0.4)) share_prefix(rng, k, r);
  return r;
}

Trace random_trace(Rng& rng, int64_t max_model_len) {
  Trace trace;
  trace.source = "dst";
  trace.format = "synthetic";
  const int64_t most = chance(rng, 0.1) ? 150 : 40;
  const size_t num_requests = static_cast<size_t>(between(rng, 1, most));
  const Nanos max_gap = pick<Nanos>(rng, {0, 1 * kMs, 10 * kMs, 30 * kMs});
  Nanos t = 0;
  int64_t burst = 0;  // requests left in the current burst (all at one instant)
  for (size_t k = 0; k < num_requests; ++k) {
    if (burst > 0) {
      --burst;
    } else {
      t += between(rng, 0, max_gap);
      if (chance(rng, 0.1)) burst = between(rng, 1, 9);
    }
    trace.requests.push_back(random_request(rng, k, t, max_model_len));
  }
  return trace;
}

Nanos abort_delay(Rng& rng) {
  return pick<Nanos>(
      rng, {0, between(rng, 0, 2 * kMs), between(rng, 0, 20 * kMs), between(rng, 0, 200 * kMs)});
}

// Some clients give up: a whole request, or the children of an n > 1 request one by one.
void random_aborts(Rng& rng, const Trace& trace, std::vector<ClientAbort>& out) {
  const double p = 0.1 + 0.5 * rng.uniform();
  for (size_t k = 0; k < trace.requests.size(); ++k) {
    const TraceRequest& r = trace.requests[k];
    if (!chance(rng, p)) continue;
    if (r.n <= 1 || chance(rng, 0.5)) {
      out.push_back({r.arrival_ns + abort_delay(rng), k, -1});
      continue;
    }
    for (int32_t child = 0; child < r.n; ++child) {
      if (chance(rng, 0.7)) out.push_back({r.arrival_ns + abort_delay(rng), k, child});
    }
  }
}

}  // namespace

int32_t min_gpu_blocks(const SchedulerConfig& s) {
  return static_cast<int32_t>(ceil_div(s.max_model_len, s.block_size)) + 1;
}

ReplayFaults random_faults(Rng& rng, const Trace& trace, int32_t num_engines) {
  ReplayFaults f;
  f.seed = rng.next_u64();
  if (chance(rng, 0.5)) {
    f.backend.spike_probability = 0.01 + 0.2 * rng.uniform();
    f.backend.spike_factor = 2 + 48 * rng.uniform();
  }
  if (chance(rng, 0.5)) {
    // Now and then a device that fails most steps.
    f.backend.failure_probability =
        chance(rng, 0.05) ? 0.5 + 0.5 * rng.uniform() : 0.005 + 0.1 * rng.uniform();
  }
  if (num_engines > 1 && chance(rng, 0.5)) {
    for (int32_t i = 0; i < num_engines; ++i) f.engine_slowdown.push_back(1 + 4 * rng.uniform());
  }
  if (chance(rng, 0.5)) random_aborts(rng, trace, f.aborts);
  if (chance(rng, 0.3)) f.loop_abort_probability = 0.02 + 0.2 * rng.uniform();
  return f;
}

DstCase make_dst_case(uint64_t seed) {
  DstCase c;
  c.seed = seed;
  Rng rng(hash_combine(kCaseStream, seed));
  c.squeezed = chance(rng, 0.3);
  c.config.scheduler = random_scheduler(rng, c.squeezed);
  c.config.deployment.gpu = *find_gpu_preset("H200");
  c.config.deployment.model = *find_model_preset("Llama-3.2-1B");
  c.config.seed = rng.below(1000);
  c.config.data_parallel_size = static_cast<int32_t>(pick(rng, {1, 1, 2, 3, 4}));
  c.config.routing = pick(rng, {RoutingPolicy::kRoundRobin, RoutingPolicy::kLeastOutstanding,
                                RoutingPolicy::kPrefixAffinity});
  c.trace = random_trace(rng, c.config.scheduler.max_model_len);
  c.config.faults = random_faults(rng, c.trace, c.config.data_parallel_size);
  return c;
}

std::string describe_dst_case(const DstCase& c) {
  const SchedulerConfig& s = c.config.scheduler;
  const ReplayFaults& f = c.config.faults;
  std::ostringstream out;
  out << c.trace.requests.size() << " requests; " << c.config.data_parallel_size << " engine(s) "
      << routing_policy_name(c.config.routing) << ", block " << s.block_size << ", "
      << s.num_gpu_blocks << " blocks" << (c.squeezed ? " (squeezed)" : "") << ", max_model_len "
      << s.max_model_len << ", budget " << s.max_num_batched_tokens << ", max_num_seqs "
      << s.max_num_seqs << (s.enable_chunked_prefill ? ", chunked" : ", unchunked")
      << (s.enable_prefix_caching ? ", caching" : "")
      << (s.policy == SchedulingPolicy::kPriority ? ", priority" : ", fcfs")
      << (s.async_scheduling ? ", async" : "")
      << (s.scheduler_reserve_full_isl ? "" : ", no full-isl gate");
  if (s.max_num_active_seqs > 0) out << ", max_num_active_seqs " << s.max_num_active_seqs;
  if (s.long_prefill_token_threshold > 0) out << ", threshold " << s.long_prefill_token_threshold;
  out << "; faults: spikes p=" << f.backend.spike_probability
      << " failures p=" << f.backend.failure_probability << " slow engines "
      << f.engine_slowdown.size() << " client aborts " << f.aborts.size()
      << " loop aborts p=" << f.loop_abort_probability;
  return out.str();
}

}  // namespace llm
