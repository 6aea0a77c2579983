// The facts that name a deployment at the head of every HTML report (issue 33's "every report
// names the deployment"): the GPU, the model, tensor parallelism, the engines and their routing,
// the KV blocks, and the engine arguments as they applied, defaults included, each marked
// "(default)" when the user did not give it; and the SLO verdict with its targets.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/sim/resolve_engine_args.h"
#include "sim/replay/slo.h"

namespace llm {

using ReportFacts = std::vector<std::pair<std::string, std::string>>;

// `given` is what the user passed (its unset fields are defaults); `resolved` what applied.
ReportFacts deployment_facts(const EngineArgs& given, const ResolvedEngine& resolved,
                             int32_t engines, const std::string& routing_policy);

// "met: ttft_p99 <= 2 s, tpot_p99 <= 100 ms" or "MISSED (tpot_p99 193 ms > 100 ms): ..."; empty
// facts without targets.
ReportFacts slo_facts(const std::vector<SloTarget>& targets, const std::vector<SloResult>& results);

}  // namespace llm
