// The data-parallel engines of one llmserve (--data-parallel-size; one by default), each an
// EngineService with its own backend, KV cache and Prometheus series (engine="i"). A new request
// goes to the engine with the fewest unfinished requests (ties in turn), as vLLM's data-parallel
// front end balances on queue lengths; all sequences of one prompt stay on one engine. The server
// is unhealthy as soon as any engine has failed.
// Admission control (--max-waiting-requests) counts the sequences waiting in all engines together,
// as vLLM's admission limits apply to the server as a whole, not per data-parallel rank: a request
// is admitted by reserving its sequences against the limit before it is routed (reserve_waiting).
// The reservation passes to the engine as the request is submitted on the thread that reserved it
// (the router and the job's start() run on one I/O thread): the engine's waiting count grows by
// the same sequences the reservation gives up, so requests admitted at the same moment on several
// I/O threads never exceed the limit together, and none is counted twice for longer than two
// atomic operations.
// Thread-safety: add() only before serving; everything else is safe from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/admission_rule.h"
#include "core/vllm_metrics.h"
#include "server/engine/engine_service.h"
#include "server/engine/metrics_publication.h"

namespace llm {

class EngineSet;

// The sequences an admitted request holds against the waiting limit until they are submitted to
// an engine (on the reserving thread) or the reservation is destroyed, whichever comes first.
// Empty when default-constructed. Move-only.
class WaitingReservation {
 public:
  WaitingReservation() = default;
  WaitingReservation(WaitingReservation&& other) noexcept = default;
  WaitingReservation& operator=(WaitingReservation&& other) noexcept;
  WaitingReservation(const WaitingReservation&) = delete;
  WaitingReservation& operator=(const WaitingReservation&) = delete;
  ~WaitingReservation() { release(); }

 private:
  friend class EngineSet;
  WaitingReservation(std::atomic<int64_t>* reserved, std::shared_ptr<std::atomic<int64_t>> left)
      : reserved_(reserved), left_(std::move(left)) {}
  void release();

  std::atomic<int64_t>* reserved_ = nullptr;    // the set's total of reserved sequences
  std::shared_ptr<std::atomic<int64_t>> left_;  // not yet handed to an engine (shared with the
                                                // reserving thread's hand-off slot)
};

class EngineSet {
 public:
  // `metrics` may be null (--disable-log-stats). Both must outlive the set's use. At most
  // kMaxEngines.
  static constexpr size_t kMaxEngines = 64;
  void add(EngineService* engine, EngineMetrics* metrics);

  size_t size() const { return engines_.size(); }
  EngineService& at(size_t i) const { return *engines_[i]; }
  EngineService& pick();

  bool failed() const;
  size_t num_unfinished() const;
  // Sequences waiting in all engines (EngineService::num_waiting) plus those reserved by admitted
  // requests not yet submitted.
  size_t num_waiting() const;
  // Admission: reserves `sequences` when, with them, at most `limit` sequences would be waiting;
  // nullopt otherwise. Never admits past the limit; two requests racing for the last place may
  // both be refused. The next submissions to any engine of this set from this thread take their
  // sequences out of the reservation.
  std::optional<WaitingReservation> reserve_waiting(int64_t sequences, int64_t limit);
  // vLLM's load for its admission caps, all engines together, reserved sequences included.
  AdmissionLoad admission_load() const;
  // Admission by vLLM's caps and, when `waiting_limit` >= 0, --max-waiting-requests (counted as
  // the request cap): reserves `sequences` as reserve_waiting does, or says which cap refused.
  // The request cap is race-free like the waiting limit; the token cap reads the load as it is
  // (two requests admitted at the same moment may both pass it, as in vLLM's check).
  struct Admission {
    std::optional<WaitingReservation> place;
    std::optional<AdmissionRejection> refused;
  };
  Admission admit(int64_t sequences, const AdmissionCaps& caps, int64_t waiting_limit);
  void abort_all();
  void set_admission_paused(bool paused);  // EngineService::set_admission_paused on each
  void stop();
  // The registry's families for a /metrics scrape: each engine publishes its metrics after every
  // step on its own thread (MetricsPublication), so this never waits for a step or an engine.
  std::vector<prometheus::MetricFamily> collect_metrics(const prometheus::Registry& registry) const;

 private:
  std::vector<EngineService*> engines_;
  std::vector<EngineMetrics*> metrics_;
  // Created by the first add() for kMaxEngines engines (add() runs before serving).
  std::shared_ptr<MetricsPublication> publication_;
  std::atomic<size_t> turn_{0};
  // An engine accepted `sequences` from this thread: they leave this thread's reservation.
  void hand_off(int64_t sequences);

  std::atomic<int64_t> reserved_{0};  // sequences held by WaitingReservations
};

}  // namespace llm
