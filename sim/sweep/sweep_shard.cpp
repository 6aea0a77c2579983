#include "sim/sweep/sweep_shard.h"

#include <charconv>

#include "core/flag_set.h"

namespace llm {
namespace {

constexpr int kMaxShards = 100000;

// The whole of `text` as a decimal integer in [lo, hi], or -1.
int whole_number(const std::string& text, int lo, int hi) {
  int value = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) return -1;
  return value;
}

}  // namespace

const std::vector<std::string>& shard_index_variables() {
  static const std::vector<std::string> names = {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"};
  return names;
}

SweepShard parse_sweep_shard(const std::string& flag, const std::string& text,
                             const EnvLookup& env) {
  const size_t slash = text.find('/');
  const std::string usage = flag + ": expected I/N or auto/N (0 <= I < N, the shard's index and " +
                            "the number of shards), got '" + text + "'";
  if (slash == std::string::npos) throw UsageError(usage);
  SweepShard shard;
  shard.count = whole_number(text.substr(slash + 1), 1, kMaxShards);
  if (shard.count < 0) throw UsageError(usage);
  const std::string index = text.substr(0, slash);
  if (index != "auto") {
    shard.index = whole_number(index, 0, shard.count - 1);
    if (shard.index < 0) throw UsageError(usage);
    return shard;
  }
  std::string names;
  for (const std::string& name : shard_index_variables()) {
    const char* value = env ? env(name.c_str()) : nullptr;
    if (value == nullptr) {
      names += (names.empty() ? "" : " or ") + name;
      continue;
    }
    shard.index = whole_number(value, 0, shard.count - 1);
    if (shard.index < 0) {
      throw UsageError(flag + " " + text + ": " + name + "='" + value +
                       "' is not a shard index below " + std::to_string(shard.count));
    }
    return shard;
  }
  throw UsageError(flag + " " + text + ": no shard index in the environment (" + names +
                   " unset; outside a job array give I/N)");
}

bool in_shard(size_t point, const SweepShard& shard) {
  return point % static_cast<size_t>(shard.count) == static_cast<size_t>(shard.index);
}

std::vector<size_t> shard_points(size_t num_points, const SweepShard& shard) {
  std::vector<size_t> points;
  for (size_t k = static_cast<size_t>(shard.index); k < num_points;
       k += static_cast<size_t>(shard.count)) {
    points.push_back(k);
  }
  return points;
}

std::string shard_record_name(const SweepShard& shard) {
  return "shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) + ".json";
}

std::string shard_label(const SweepShard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

}  // namespace llm
