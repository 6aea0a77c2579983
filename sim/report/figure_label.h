// An axis label for a summary figure named as in sim/replay/summary_figures.h: the key with its
// unit ("ttft_p99 (s)", "output_tokens_per_s (tokens/s)", "peak_kv_usage (fraction)",
// "preemptions").
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace llm {

std::string figure_axis_label(std::string_view key);

}  // namespace llm
