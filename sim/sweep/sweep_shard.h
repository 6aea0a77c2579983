// Which grid points a shard of `llmsim sweep --shard I/N` runs: point k (its index in the grid,
// sim/sweep/sweep_grid.h) belongs to shard k mod N. The assignment depends on nothing but k and N,
// so every machine of a cluster agrees on it, and the N shards together run every point once.
// "auto/N" takes I from the environment a cluster engine sets for each task of an array:
// SLURM_ARRAY_TASK_ID (Slurm job arrays, --array=0-(N-1)), then JOB_COMPLETION_INDEX (Kubernetes
// Indexed Jobs).
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace llm {

struct SweepShard {
  int index = 0;  // I, 0 <= I < count
  int count = 1;  // N; 1: the whole grid
};

// Looks an environment variable up (nullptr when unset); std::getenv in the CLI, a table in tests.
using EnvLookup = std::function<const char*(const char*)>;

// The environment variables "auto" reads, in order.
const std::vector<std::string>& shard_index_variables();

// Parses "I/N" or "auto/N" (1 <= N <= 100000, 0 <= I < N). Throws UsageError starting with
// "FLAG: " for anything else, and for "auto" when no variable is set or its value is not an
// index below N (naming the variable and its value).
SweepShard parse_sweep_shard(const std::string& flag, const std::string& text,
                             const EnvLookup& env);

// Whether grid point `point` is the shard's: point mod count == index.
bool in_shard(size_t point, const SweepShard& shard);

// The shard's points of a grid of `num_points`, in grid order.
std::vector<size_t> shard_points(size_t num_points, const SweepShard& shard);

// "shard-I-of-N.json": the record a shard writes under --out when it is done.
std::string shard_record_name(const SweepShard& shard);

// "I/N", for messages.
std::string shard_label(const SweepShard& shard);

}  // namespace llm
