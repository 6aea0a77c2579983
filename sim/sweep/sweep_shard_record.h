// The record a shard of `llmsim sweep --shard I/N --out DIR` writes last, as
// DIR/shard-I-of-N.json: its command line, the size of the grid and, for each of its points,
// everything the sweep's outputs show of it (sweep_results.h's SweepPointFigures, or why it
// failed). `llmsim sweep-merge` reads the records of all N shards back into one SweepOutcome and
// writes the same sweep.csv, sweep.json and report as one unsharded run. Numbers are written so
// that they read back to the same double (NaN and infinities as the strings "nan", "inf",
// "-inf").
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_shard.h"

namespace llm {

struct SweepShardRecord {
  SweepShard shard;
  std::vector<std::string> args;         // the shard's arguments after "sweep", as given
  size_t grid_points = 0;                // the points of the whole grid
  std::vector<size_t> indices;           // each point's index in the grid (points[i] is indices[i])
  std::vector<SweepPointResult> points;  // settings, dir_name, ok, error and figures; no summary
};

// The record as JSON text (one line per point is not promised; it is read by parse only).
std::string format_shard_record(const SweepShardRecord& record);

// Reads a record back. Throws std::runtime_error "WHERE: what is wrong" for text that is not a
// record of this format (`where` names the file).
SweepShardRecord parse_shard_record(const std::string& text, const std::string& where);

}  // namespace llm
