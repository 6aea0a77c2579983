// The invariants of a replay, checked while it runs (after every engine step, and at every engine
// event) and at its end. Shared by the property tests (tests/replay_properties_test.cpp) and
// `llmsim dst` (sim/dst/dst_run.h). They hold with and without the faults of ReplayFaults
// (sim/replay/replay.h): failed steps, latency spikes, slow engines, client and engine-loop aborts,
// a KV cache squeezed to its minimum. The first violation throws InvariantViolation, named as
// below.
//
// Each sequence is one child of one trace request (ids as fan_out makes them); "expected" is what
// the mock GPU produces without faults: min(output_len, max_tokens, max_model_len - prompt) tokens,
// ending with `length` when max_tokens or the context ends it, else `stop`.
//
// CONSERVATION  every sequence is routed once, queued at most once, finishes exactly once, and is
//               in exactly one place: its engine's waiting queue, running set, or finished. After a
//               step: routed - finished = running + waiting on that engine. At the end: all done.
// REFUSAL       a sequence finishes without being queued only with `error`, when the engine must
//               refuse it (empty prompt, prompt >= max_model_len, max_tokens 0).
// OUTPUT        tokens reported = completion tokens; token i is the mock model's token i of that
//               sequence (SimBackend::token_for, eos where its scripted length ends it), whatever
//               preemptions came between; `stop` / `length` sequences produce exactly the
//               expected tokens and reason; aborted and errored ones fewer (a failed step applies
//               no token); tokens come only inside a step and never after a sequence finished.
// TIMING        arrival <= queued <= scheduled < first_token <= last_token <= finished (each that
//               is set); first_token set <=> tokens > 0; `stop` / `length`: last_token = finished;
//               never-queued `error`: only arrival and finished; `abort`: may end before being
//               scheduled (then no tokens); `error` from a failed step: scheduled, finished at that
//               step's end, after its last token. The API's five fields and the Prometheus
//               intervals follow from the timeline (queue_time = scheduled - queued, ...); the
//               first token's ITL is absent and every later one is positive and equals the gap
//               since the previous token.
// STEP_FAILURE  error finishes at a step's end happen only when the backend failed that step
//               (StepFailed) and then to every sequence of its batch, with no token applied.
// ABORT         `abort` finishes happen only when the faults abort something.
// BUDGET        per step: tokens <= max_num_batched_tokens, running <= max_num_seqs, each
//               sequence once with > 0 tokens, no position beyond max_model_len - 1, chunks within
//               --long-prefill-token-threshold; without chunked prefill (and no threshold) every
//               scheduled sequence reaches its last token.
// KV_BLOCKS     after every step: each block's reference count is the number of unfinished
//               sequences holding it, free blocks are those nobody holds, the null block is never
//               held, a running sequence holds exactly the blocks of its computed tokens and a
//               waiting one none; an engine with nothing unfinished has every block free.
// ADMISSION     a step that admitted nothing more while the waiting queue was not empty (nothing
//               preempted, budget and max_num_seqs left) stopped for a rule's reason: the head's
//               whole sequence does not fit in the free blocks or, without chunked prefill, its
//               uncached tokens exceed the budget left. Admissions come from the queue's head:
//               under FCFS preempted sequences before new ones and new ones in queueing order;
//               under the priority policy in (priority, arrival, id) order.
// WORK_CONSERVATION  an engine is never idle with an unfinished sequence; a step starts only at
//               the previous step's end or when a sequence is queued; steps never overlap; nothing
//               is queued or finished by an abort while a step is in flight.
// PREEMPTION    preemptions reported per sequence = its timeline's count; their sum = the
//               scheduler's counter; a preempted sequence is waiting with nothing computed.
// PREFIX_CACHE  the prefix-cache counters are the prompts (queries) and hits of the admitted
//               sequences, each counted once at its first admission; 0 with caching off. A hit is
//               whole blocks and never the last prompt token; exactly the scheduled sequences
//               have one.
// ROUTING       all children of a request go to one engine; round-robin sends the k-th request to
//               engine k mod N; least-outstanding to the first engine with the fewest unfinished
//               sequences (routed to it and not finished) at its arrival.
// METRICS       (at the end, with_metrics) vLLM's counters and histogram counts (finish reasons,
//               prompt and generation tokens, preemptions, prefix cache, TTFT, ITL, TPOT, e2e,
//               queue, prompt and generation lengths) equal the sums over the per-request file
//               (requests.jsonl as llmsim replay writes it), which has one line per sequence; the
//               gauges show idle engines (nothing running or waiting, KV usage 0).
// LIVENESS      no engine takes more than 2 million steps (far more than any case needs).
//
// The checks, a file per family (sim/dst/): checked_run.cpp (CONSERVATION over the run, ROUTING),
// engine_checker.cpp (at each event: WORK_CONSERVATION, the order of events, OUTPUT tokens,
// LIVENESS), admission_invariants.cpp (BUDGET, ADMISSION), finish_invariants.cpp (REFUSAL, OUTPUT,
// ABORT, STEP_FAILURE, TIMING and PREFIX_CACHE of a finished sequence), kv_invariants.cpp (after
// each step: the scheduler's sets, KV_BLOCKS, the PREEMPTION and PREFIX_CACHE counters) and
// metrics_tap.cpp (METRICS).
//
// Thread-safety: none; one checker observes one replay on one thread.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine_observer.h"
#include "sim/replay/replay.h"
#include "sim/trace/trace.h"

namespace llm {

class InvariantViolation : public std::logic_error {
 public:
  InvariantViolation(std::string invariant, std::string detail);
  const std::string& invariant() const { return invariant_; }  // e.g. "KV_BLOCKS"
  const std::string& detail() const { return detail_; }

 private:
  std::string invariant_;
  std::string detail_;
};

class EngineChecker;
struct CheckedRun;
struct MetricsTap;

class ReplayChecker {
 public:
  // `trace` and `config` must outlive the checker; trace ids must be unique. With `with_metrics`
  // each engine also feeds a ReplayReport (the per-request file, kept in memory) and vLLM's
  // metrics, compared by check_end.
  ReplayChecker(const Trace& trace, const ReplayConfig& config, bool with_metrics = true);
  ~ReplayChecker();
  ReplayChecker(const ReplayChecker&) = delete;
  ReplayChecker& operator=(const ReplayChecker&) = delete;

  // One per engine, for run_replay.
  const std::vector<EngineObserver*>& observers() const { return observers_; }
  // on_step (the after-step checks) and on_route; the caller may add a scrape.
  ReplayHooks hooks();
  // The end-of-run checks. Throws InvariantViolation.
  void check_end(const ReplayTotals& totals);
  // The per-request file of the run (with_metrics; empty otherwise).
  std::string requests_jsonl() const;

 private:
  std::unique_ptr<CheckedRun> run_;
  std::vector<std::unique_ptr<EngineChecker>> engines_;
  std::unique_ptr<MetricsTap> metrics_;
  std::vector<EngineObserver*> observers_;
};

// Runs the replay under a ReplayChecker and its end checks; returns the totals. Throws
// InvariantViolation, or whatever the replay throws.
ReplayTotals run_checked_replay(const Trace& trace, const ReplayConfig& config,
                                bool with_metrics = true, std::string* requests_jsonl = nullptr);

}  // namespace llm
