// The API server in front of a replay's engines (vLLM runs one API process for them all): it
// takes each trace request when it reaches the server, holds it for the process's HTTP and
// tokenization work (queued behind earlier reads: sim/api_server/api_server_process.h), hands it
// to the engine after the hop, and delivers every output token the engines produce once the
// process has detokenized and streamed it. The engines report to observer(i), which passes every
// event on unchanged to engine i's own observer (their metrics stay engine-side, as vLLM's) and
// tells on_client_times what the client saw of each sequence as it finishes.
// Thread-safety: none; single-threaded like the replay that drives it.
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
  // engine_observers[i] (may be null) receives engine i's events.
  ApiFrontend(const ApiServerCosts& costs, const std::vector<EngineObserver*>& engine_observers,
              ClientTimesFn on_client_times);
  ~ApiFrontend();

  // A request (trace index `id`) reaching the server at `arrival`, the current time.
  void arrive(Nanos arrival, int64_t prompt_tokens, size_t id) {
    process_.arrive(arrival, prompt_tokens, id);
  }
  // Runs the API process up to `now`; appends the requests it has read and handed over.
  void advance(Nanos now, std::vector<Ingest>& finished) { process_.advance(now, finished); }
  // The next instant the process needs to be advanced at (kNoTime: none).
  Nanos next_event() const { return process_.next_event(); }
  // The sequence that is added to an engine next reached the server at `server_arrival`.
  void expect(Nanos server_arrival) { expected_arrival_ = server_arrival; }
  // What engine i reports to.
  EngineObserver* observer(size_t engine);

  const ApiServerProcess& process() const { return process_; }

 private:
  class EngineTap;

  ApiServerProcess process_;
  ClientTimesFn on_client_times_;
  Nanos expected_arrival_ = 0;
  std::vector<std::unique_ptr<EngineTap>> taps_;
};

}  // namespace llm
