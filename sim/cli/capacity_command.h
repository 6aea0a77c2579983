// `llmsim capacity TRACE --slo KEY=V,... [--search FLAG=V1,V2,...] [engine args]`: the fewest
// data-parallel engines (each with its own KV cache, behind --routing-policy) that meet every SLO
// over the trace, the largest arrival-rate scale one engine sustains, and the monitoring seed's
// capacity signals at the busiest hour with the fp8-KV and higher-gpu-memory-utilization
// what-ifs replayed. Both searches are sim/capacity/capacity_search.h's (a doubling ladder, then a
// 5-ary bisection, four replays per batch run on --jobs threads; the points replayed and so every
// figure printed do not depend on --jobs), with monotonicity checked at the points replayed.
// --search tries engine-argument candidates (every combination of the --search flags); the
// answer is the one needing the fewest engines, the first listed on a tie.
// Thread-safety: single-threaded command-line code that runs independent replays on worker
// threads; each replay owns its trace copy, engines and observers.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace llm {

// `args` excludes the "capacity" word. Exit codes: 0 (an answer, or none within --max-engines),
// 1 (--result-json could not be written), 2 (bad usage or input).
int run_capacity_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err);

std::string capacity_usage();

// `llmsim capacity-merge DIR... [--shards N] [--result-json F] [--report F]`: the shards of
// `llmsim capacity ... --shard I/N --out DIR` (each searches the candidates k with k mod N == I
// and records their answers) joined into the unsharded run's output, byte for byte; the answer's
// engine search, arrival-rate search and what-ifs are replayed here. Exit codes: 0, 1 (a shard
// missing or bad: nothing written; an output not written), 2 (bad usage).
int run_capacity_merge_command(const std::vector<std::string>& args, std::ostream& out,
                               std::ostream& err);
std::string capacity_merge_usage();

}  // namespace llm
