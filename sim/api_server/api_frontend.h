// The API server in front of a replay's engines: one or more API processes (vLLM's
// --api-server-count; `vllm serve --data-parallel-size N` starts N, sharing one listening socket)
// in front of all the engines. Request k (trace index) goes to process k mod P, the even spread
// the kernel's SO_REUSEPORT hashing gives many client connections. A process takes each request
// when it reaches the server, holds it for its HTTP and tokenization work (queued behind that
// process's earlier reads: sim/api_server/api_server_process.h), hands it to the engine after the
// hop, and delivers every output token of its requests once it has detokenized and streamed it. The
// engines report to observer(i), which passes every event on unchanged to engine i's own observer
// (their metrics stay engine-side, as vLLM's) and tells on_client_times what the client saw of each
// sequence as it finishes. Thread-safety: none; single-threaded like the replay that drives it.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "backends/sim/api_server_costs.h"
#include "core/engine_observer.h"
#include "sim/api_server/api_server_process.h"
#include "sim/api_server/client_times.h"

namespace llm {

class ApiFrontend {
 public:
  // engine_observers[i] (may be null) receives engine i's events; `processes` >= 1.
  ApiFrontend(const ApiServerCosts& costs, const std::vector<EngineObserver*>& engine_observers,
              ClientTimesFn on_client_times, size_t processes = 1);
  ~ApiFrontend();

  // A request (trace index `id`) reaching the server at `arrival`, the current time.
  void arrive(Nanos arrival, int64_t prompt_tokens, size_t id) {
    processes_[process_of(id)].arrive(arrival, prompt_tokens, id);
  }
  // Runs the API processes up to `now`; appends the requests they have read and handed over, by
  // the time they reach the engine (then by process).
  void advance(Nanos now, std::vector<Ingest>& finished);
  // The next instant a process needs to be advanced at (kNoTime: none).
  Nanos next_event() const;
  // The sequence that is added to an engine next belongs to trace request `id`, which reached the
  // server at `server_arrival`.
  void expect(Nanos server_arrival, size_t id = 0) {
    expected_arrival_ = server_arrival;
    expected_process_ = process_of(id);
  }
  // What engine i reports to.
  EngineObserver* observer(size_t engine);

  size_t processes() const { return processes_.size(); }
  const ApiServerProcess& process(size_t i = 0) const { return processes_.at(i); }

 private:
  class EngineTap;
  size_t process_of(size_t id) const { return id % processes_.size(); }

  std::vector<ApiServerProcess> processes_;
  ClientTimesFn on_client_times_;
  Nanos expected_arrival_ = 0;
  size_t expected_process_ = 0;
  std::vector<std::unique_ptr<EngineTap>> taps_;
};

}  // namespace llm
