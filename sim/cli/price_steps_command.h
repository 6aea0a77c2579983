// `llmsim price-steps STEPLOG --profile FILE.json [--engine N] [--gap-limit-ms MS]`: prices every
// step of a real engine's step log (llmserve --step-log) with the profile's step model and prints,
// by kind of step (decode by batch size and by context, prefill, mixed), the measured and
// predicted medians and sums and their errors, and the host time between steps: where a fidelity
// error comes from. Exit codes: 0, 2 (bad usage, an unreadable or malformed log or profile,
// naming FILE:LINE and the field).
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace llm {

// `args` excludes the "price-steps" word itself.
int run_price_steps_command(const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err);

}  // namespace llm
