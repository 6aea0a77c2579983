// CONSERVATION over the run (every sequence routed once and finished exactly once) and ROUTING
// (children of a request go to one engine; round-robin and least-outstanding pick as their rules
// say), checked by the state the engines' checkers share.
#include "sim/dst/checked_run.h"

#include <algorithm>

#include "sim/dst/invariant_check.h"

namespace llm {

Expected expected_for(const TraceRequest& e, int64_t max_model_len) {
  Expected x;
  const int64_t room = std::max<int64_t>(max_model_len - e.prompt_len, 0);
  const int64_t max_tokens = e.max_tokens >= 0 ? e.max_tokens : room;
  x.refused = e.prompt_len < 1 || e.prompt_len >= max_model_len || max_tokens < 1;
  if (x.refused) return x;
  const int64_t cap = std::min(max_tokens, room);
  x.outputs = e.output_len > 0 ? std::min(e.output_len, cap) : cap;
  // The model's EOS is checked before the length limits (vLLM's order): a sequence whose natural
  // end falls on its last allowed token stops.
  const bool natural_end = e.output_len > 0 && e.output_len <= cap;
  x.reason = natural_end ? FinishReason::kStop : FinishReason::kLength;
  return x;
}

CheckedRun::CheckedRun(const Trace& t, const ReplayConfig& c)
    : trace(t),
      config(c),
      model(c.deployment, c.seed),
      num_engines(static_cast<size_t>(std::max(c.data_parallel_size, 1))),
      aborts_possible(!c.faults.aborts.empty() || c.faults.loop_abort_probability > 0),
      failures_possible(c.faults.backend.failure_probability > 0),
      outstanding(num_engines, 0),
      routed_seqs(num_engines, 0) {
  for (size_t k = 0; k < t.requests.size(); ++k) add_sequences(k);
}

void CheckedRun::add_sequences(size_t k) {
  const TraceRequest& e = trace.requests[k];
  const std::string parent = e.id.empty() ? std::to_string(k) : e.id;
  const int32_t n = std::max<int32_t>(e.n, 1);
  first_seq.push_back(seqs.size());
  for (int32_t child = 0; child < n; ++child) {
    SeqRecord rec;
    rec.id = n > 1 ? std::to_string(child) + "_" + parent : parent;
    rec.request = k;
    rec.expected = expected_for(e, config.scheduler.max_model_len);
    require_invariant(by_external_id.emplace(rec.id, seqs.size()).second, "CONSERVATION",
                      [&] { return cat("two sequences are named ", rec.id); });
    seqs.push_back(std::move(rec));
  }
}

size_t CheckedRun::expected_engine(size_t k) const {
  if (config.routing == RoutingPolicy::kRoundRobin) return k % num_engines;
  const auto least = std::min_element(outstanding.begin(), outstanding.end());
  return static_cast<size_t>(least - outstanding.begin());
}

void CheckedRun::on_route(size_t k, size_t engine) {
  require_invariant(k == routed && engine < num_engines, "ROUTING", [&] {
    return cat("request ", k, " routed to engine ", engine, " after ", routed);
  });
  if (num_engines > 1 && config.routing != RoutingPolicy::kPrefixAffinity) {
    const size_t want = expected_engine(k);
    require_invariant(engine == want, "ROUTING", [&] {
      return cat(routing_policy_name(config.routing), " sent request ", trace.requests[k].id,
                 " to engine ", engine, ", not ", want);
    });
  }
  const size_t end = k + 1 < first_seq.size() ? first_seq[k + 1] : seqs.size();
  for (size_t s = first_seq[k]; s < end; ++s) seqs[s].engine = engine;
  outstanding[engine] += static_cast<int64_t>(end - first_seq[k]);
  routed_seqs[engine] += static_cast<int64_t>(end - first_seq[k]);
  ++routed;
}

void CheckedRun::check_end(const ReplayTotals& totals) const {
  for (const SeqRecord& rec : seqs) {
    require_invariant(rec.finishes == 1 && rec.engine != SIZE_MAX, "CONSERVATION", [&] {
      return cat(rec.id, " was routed ", rec.engine != SIZE_MAX, " and finished ", rec.finishes,
                 " times by the end");
    });
  }
  require_invariant(totals.engines.size() == num_engines, "CONSERVATION",
                    [&] { return cat(totals.engines.size(), " engine totals for ", num_engines); });
  for (size_t e = 0; e < num_engines; ++e) {
    require_invariant(totals.engines[e].num_sequences == routed_seqs[e], "CONSERVATION", [&] {
      return cat("engine ", e, " counts ", totals.engines[e].num_sequences, " sequences, ",
                 routed_seqs[e], " were routed to it");
    });
  }
}

}  // namespace llm
