// `llmsim calibrate`: measures a real engine and writes the profile (backends/sim/engine_profile.h)
// that `llmsim replay --profile` and `llmserve --backend sim --profile` price steps with.
//   llmsim calibrate --backend cpu --model PATH [--cpu-threads N] [engine args] --out FILE.json
//     drives the real backend in-process through the Backend seam with designed probes
//     (calibrate/backend_probe.h), times each step on the steady clock (median of --repeats
//     runs) and fits the step-time model (calibrate/step_fit.h).
//   llmsim calibrate --url http://HOST:PORT [--model NAME] --out FILE.json
//     probes any running OpenAI-compatible server from outside (calibrate/http_probe.h).
// Prints the fitted terms and the fit's residuals. Exit codes: 0, 1 when the measurement fails
// (a server that is down or does not honour max_tokens), 2 for bad usage or an unusable model.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "calibrate/step_fit.h"

namespace llm {

// `args` excludes the "calibrate" word itself.
int run_calibrate_command(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err);

// The fit as the table the command prints: the terms with their units, and the residuals.
std::string describe_fit(const StepFit& fit);
// The scatter's quantiles and mean, one line.
std::string describe_step_noise(const StepTimeNoise& noise);

}  // namespace llm
