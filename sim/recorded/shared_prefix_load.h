// inference-perf's `shared_prefix` data under a `constant` load, rebuilt as that generator sends
// it (../shared/gpu-truth/README.md, "How the BLIS runs were driven"): N = groups x users prompt
// slots, the users of a group sharing its system prompt; request k of a stage (numbered from 0 in
// each stage, as inference-perf's run_stage does) uses slot k mod N, so each slot's prompt repeats
// every N requests; every request asks for output_len tokens (ignore_eos). Each stage sends
// rate x duration requests at exponential gaps rescaled to span the stage (the first one gap in,
// the last at its end), and starts once the previous stage drained. Prompt lengths are 1.04 x
// (system + question) + 5 tokens, as measured in the runs that recorded them (random token text
// re-tokenized, plus BOS). Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/trace/trace.h"

namespace llm {

struct SharedPrefixData {
  int64_t groups = 0;           // num_unique_system_prompts
  int64_t users_per_group = 0;  // num_users_per_system_prompt
  int64_t system_prompt_len = 0;
  int64_t question_len = 0;
  int64_t output_len = 0;
};

struct ConstantStage {
  double rate = 0;        // requests per second
  double duration_s = 0;  // the stage sends rate x duration requests over this long
};

// The fields of a `shared_prefix` object and a `stages` array, as in profile.yaml and BLIS's
// trainval-exact-config.json. Throw TraceError "LABEL: FIELD: what is wrong".
SharedPrefixData parse_shared_prefix(const nlohmann::json& object, const std::string& label);
std::vector<ConstantStage> parse_constant_stages(const nlohmann::json& array,
                                                 const std::string& label);

// Prompt tokens of one request: 1.04 x (system + question) + 5, rounded.
int64_t shared_prefix_prompt_len(const SharedPrefixData& data);

// The requests of every stage, stage s starting drain_s[s - 1] after stage s - 1's end
// (drain_s may be shorter: 0 for the rest); ranges receives each stage's [first, end) requests.
// Request ids "s<stage>-<k>"; arrivals drawn from `seed`.
Trace shared_prefix_trace(const SharedPrefixData& data, const std::vector<ConstantStage>& stages,
                          const std::vector<double>& drain_s, uint64_t seed,
                          std::vector<std::pair<size_t, size_t>>* ranges);

}  // namespace llm
