// `llmsim fidelity --recorded PATH`: replays real runs recorded by others (sim/recorded/: an
// inference-perf run, BLIS's trainval runs, a vLLM per-request log, a `vllm bench serve` result,
// or a folder of them such as ../shared/gpu-truth) and prints, per run, the measured figures, the
// prediction and the signed error, then the median error over runs per figure. Offline: no
// server, no clock. --result-json writes the same as JSON.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/recorded/recorded_replay.h"
#include "sim/recorded/recorded_run.h"

namespace llm {

// `args` excludes "fidelity". Exit codes: 0; 2 for bad usage, an unreadable run or a run llmsim
// cannot configure (after printing every run it could).
int run_fidelity_recorded(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err);

// True when args ask for the recorded mode (--recorded given).
bool wants_recorded_fidelity(const std::vector<std::string>& args);

// One figure of one run.
struct RecordedFigure {
  std::string figure;  // "ttft_mean"
  double measured = 0, predicted = 0;
  double error() const { return measured > 0 ? (predicted - measured) / measured : 0; }
};

// The figures both the run and its prediction have, in run_figure_names() order.
std::vector<RecordedFigure> compare_figures(const RunFigures& measured,
                                            const RunFigures& predicted);

// Per figure over runs: how many runs have it, the median |error| and the median signed error.
struct FigureMedian {
  std::string figure;
  int64_t runs = 0;
  double median_abs_error = 0, median_error = 0;
};
std::vector<FigureMedian> median_errors(const std::vector<std::vector<RecordedFigure>>& runs);

}  // namespace llm
