// A real run recorded by others, rebuilt for llmsim: the requests as the client sent them (a
// Trace), the engine's configuration (EngineArgs), and what was measured, for the whole run and
// per load stage. The readers (sim/recorded/*_reader.h) make these from the published files;
// sim/recorded/recorded_replay.h predicts the same figures.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/resolve_engine_args.h"
#include "sim/trace/trace.h"

namespace llm {

// Where the measured times start: at the client (it sent the request: inference-perf, vllm bench
// serve) or at the engine (vLLM's own per-request timestamps start when the engine queued it).
enum class MeasuredView : uint8_t { kClient, kEngine };
const char* measured_view_name(MeasuredView view);  // "client", "engine"

// The figures a recorded run reports, in milliseconds; each absent where the run did not record
// it. TPOT is (last - first) / (N - 1) per request.
struct RunFigures {
  std::optional<double> ttft_mean, ttft_p50, ttft_p90, ttft_p99;
  std::optional<double> e2e_mean, e2e_p50, e2e_p90, e2e_p99;
  std::optional<double> tpot_mean, tpot_p50, tpot_p90;
  std::optional<double> itl_mean;
};

// The figure names in table order ("ttft_mean", ...), and a figure by name.
const std::vector<std::string>& run_figure_names();
std::optional<double> run_figure(const RunFigures& figures, const std::string& name);
std::optional<double>& run_figure(RunFigures& figures, const std::string& name);

// One load stage: trace requests [first, end).
struct RecordedStage {
  std::string name;  // "stage 0"
  size_t first = 0, end = 0;
  RunFigures measured;
};

struct RecordedRun {
  std::string name;    // the run's own id ("17-llama-4-scout-...", "rtxpro6000-llama-3.1-8b")
  std::string kind;    // "inference-perf", "blis-trainval", "vllm-request-log", "vllm-bench"
  std::string source;  // the files it came from
  std::string model;   // the model's id as the run names it ("meta-llama/Llama-2-7b-hf")
  std::string gpu;     // the card as the run names it ("H100")
  EngineArgs engine;   // --gpu, --model and the engine arguments of the run
  Trace trace;
  MeasuredView view = MeasuredView::kClient;
  RunFigures measured;  // the whole run
  std::vector<RecordedStage> stages;
  // Clients that gave up: each request still unanswered this long after it was sent is aborted
  // (inference-perf's timeout); the measured figures count only the requests that succeeded.
  std::optional<int64_t> client_timeout_ns;
  int64_t failed = 0;              // requests the run counted as failed
  std::vector<std::string> notes;  // what was assumed in rebuilding it
};

}  // namespace llm
