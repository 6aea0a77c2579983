// The outcome of each finished sequence of a replay (completed, ttft, tpot, e2e), that goodput
// and attainment are counted from after the run (sim/replay/latency_samples.h), within a memory
// bound: once `in_memory` are held they are appended to the report's SpillFile as a chunk and
// read back, in the order they were added, by for_each.
// Thread-safety: for_each and size may be called from several threads once nothing is added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/replay/sorted_samples.h"

namespace llm {

struct SequenceOutcome {
  bool completed = false;  // finished by stop or length (not refused, errored or aborted)
  double ttft_s = 0;       // arrival to first token
  double tpot_s = 0;       // 0 with one output token or none (vLLM's goodput rule)
  double e2e_s = 0;        // arrival to finish
};

class SequenceOutcomes {
 public:
  SequenceOutcomes() = default;  // in memory, unbounded (summaries built by hand, tests)
  explicit SequenceOutcomes(std::shared_ptr<SpillArea> area) : area_(std::move(area)) {}

  void push_back(const SequenceOutcome& o);
  void reserve(size_t n);
  size_t size() const { return spilled_ + held_.size(); }
  bool empty() const { return size() == 0; }
  // Calls fn(const SequenceOutcome&) on each, in the order they were added.
  template <typename Fn>
  void for_each(const Fn& fn) const;

 private:
  struct Chunk {
    uint64_t offset;
    size_t count;
  };
  std::shared_ptr<SpillArea> area_;  // null: never spills
  std::vector<SequenceOutcome> held_;
  std::vector<Chunk> chunks_;
  size_t spilled_ = 0;
};

template <typename Fn>
void SequenceOutcomes::for_each(const Fn& fn) const {
  std::vector<SequenceOutcome> buf;
  for (const Chunk& c : chunks_) {
    buf.resize(c.count);
    area_->shared_file()->read(c.offset, buf.data(), c.count * sizeof(SequenceOutcome));
    for (const SequenceOutcome& o : buf) fn(o);
  }
  for (const SequenceOutcome& o : held_) fn(o);
}

}  // namespace llm
