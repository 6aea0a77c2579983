// `llmsim sweep-merge DIR... --out DIR [--report FILE]`: joins the outputs of the shards of one
// sweep (`llmsim sweep ... --shard I/N --out DIR`, sim/sweep/sweep_shard.h) into what the same
// sweep run in one piece writes: sweep.csv, sweep.json, every point's POINT/summary.json and the
// --report page, byte for byte. The shards' DIRs may be one shared folder or one per shard.
// Every check comes before anything is written: a shard that is missing (failed, cancelled, not
// yet run: no shard-I-of-N.json), found twice, of another sweep or not whole (a point's
// summary.json missing) is named and nothing is merged.
// Exit codes: 0 merged, 1 a shard missing or bad (nothing written) or a point of the sweep failed
// (merged, as `llmsim sweep` reports it) or an output could not be written, 2 bad usage.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace llm {

std::string sweep_merge_usage();

// `llmsim sweep-merge ARGS` (args exclude "sweep-merge").
int run_sweep_merge_command(const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err);

}  // namespace llm
