// --sort-arrivals within a memory bound: a trace's requests put in arrival order, ties in the
// order they were read (what std::stable_sort of the whole trace gives), holding at most
// `in_memory` requests. Up to that many are sorted in memory; beyond it each full batch is
// sorted and appended to a scratch file (sim/replay/spill_file.h: unlinked, nothing left behind)
// as a run, and finish() merges the runs there into one sorted range (a k-way merge on
// (arrival, run): stable), which each open() reads a buffer (64 KiB) at a time.
// Thread-safety: add and finish from one thread; once finished, each stream from open() is used
// by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/replay/spill_file.h"
#include "sim/trace/request_stream.h"

namespace llm {

inline constexpr size_t kDefaultSortInMemory = 65536;

class ArrivalSorter {
 public:
  // `folder`: where the scratch file goes (empty: $TMPDIR, else /tmp).
  explicit ArrivalSorter(size_t in_memory, std::string folder = "");

  void add(const TraceRequest& r);
  // Sorts what was added; add() is not called after it.
  void finish();
  // A pass over the sorted requests (after finish()).
  std::unique_ptr<RequestStream> open() const;

  size_t size() const { return count_; }
  size_t runs() const { return runs_.size(); }  // written to disk (0: sorted in memory)

 private:
  struct Run {
    uint64_t offset = 0, bytes = 0;
    size_t count = 0;
  };
  void spill();

  size_t in_memory_;
  std::string folder_;
  std::vector<TraceRequest> batch_;
  Trace sorted_;  // sorted in memory (no runs)
  std::shared_ptr<SpillFile> file_;
  std::vector<Run> runs_;
  Run merged_;
  size_t count_ = 0;
};

}  // namespace llm
