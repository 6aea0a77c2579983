#include "sim/cli/price_steps_command.h"

#include <ostream>
#include <stdexcept>

#include "backends/sim/engine_profile.h"
#include "backends/sim/step_record.h"
#include "calibrate/step_pricing.h"
#include "core/flag_set.h"

namespace llm {

namespace {

constexpr const char* kPriceStepsUsage =
    R"(usage: llmsim price-steps STEPLOG --profile FILE.json [--engine N] [--gap-limit-ms MS]
                          [--no-step-noise]

Prices every step of STEPLOG (written by llmserve --step-log FILE: one JSON line per engine step
with the batch's shape and its measured time) with the profile's step model (times a draw from
its step_time_noise for each step, as a replay prices them, unless --no-step-noise), and prints
by kind of step the measured and predicted median step times, the median per-step error, and
the sums with their error; then decode-only steps by mean context; then the host time between
steps (gaps shorter than --gap-limit-ms, default 5), which a step model does not price. A
fidelity error of llmsim fidelity shows here as the kinds of step whose sums are off.

  --engine N          only engine N's steps (default: every engine)
  --no-step-noise     the model's times alone, without the profile's measured scatter
)";

}  // namespace

int run_price_steps_command(const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err) {
  if (wants_help(args)) {
    out << kPriceStepsUsage;
    return 0;
  }
  std::string log_path, profile_path;
  int64_t engine = -1;
  double gap_limit_ms = kStepGapLimitMs;
  bool no_step_noise = false;
  double noise_mean = 0;  // 0: priced without noise
  FlagSet flags("llmsim price-steps");
  flags.nonempty({"--profile"}, profile_path)
      .integer({"--engine"}, engine, 0)
      .number({"--gap-limit-ms"}, gap_limit_ms, 0.0)
      .boolean({"--no-step-noise"}, no_step_noise)
      .positional([&log_path](const std::string& arg) {
        if (!log_path.empty()) throw UsageError("expected one STEPLOG, got '" + arg + "' too");
        log_path = arg;
      });
  StepPricing pricing;
  try {
    flags.parse(args);
    if (log_path.empty()) throw UsageError("missing STEPLOG");
    if (profile_path.empty()) throw UsageError("--profile: required");
    EngineProfile profile;
    try {
      profile = load_engine_profile(profile_path);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--profile: ") + e.what());
    }
    std::vector<StepRecord> steps;
    try {
      steps = read_step_log(log_path);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (no_step_noise) profile.step_noise.reset();
    if (profile.step_noise) noise_mean = step_noise_mean(*profile.step_noise);
    pricing = price_steps(steps, profile.step, profile.step_noise ? &*profile.step_noise : nullptr,
                          engine, gap_limit_ms);
    if (pricing.all.steps == 0) {
      throw UsageError("--engine " + std::to_string(engine) + ": no steps of that engine in " +
                       log_path);
    }
  } catch (const UsageError& e) {
    return report_usage_error(err, "llmsim price-steps", e);
  }
  if (noise_mean > 0) {
    out << "Each step priced with a draw from the profile's step_time_noise (mean " << noise_mean
        << "), as a replay prices it.\n\n";
  }
  out << format_step_pricing(pricing);
  return 0;
}

}  // namespace llm
