// One distribution's per-sequence samples in ascending order, for exact percentiles after a
// replay: held in memory, or (a long replay) as a sorted range of a SpillFile read a value at a
// time. SampleCollector gathers them during the replay within a memory bound: once it holds
// `in_memory` values it sorts them and appends them to the report's SpillFile as a run; at the
// end it merges the runs into one sorted range there (a k-way merge), so every percentile, the
// mean (summed in ascending order) and the maximum are the same doubles as sorting them all in
// memory would give.
// Thread-safety: a finished SortedSamples is immutable and may be read from several threads; a
// SampleCollector belongs to one replay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "core/sample_stats.h"
#include "sim/replay/spill_file.h"

namespace llm {

class SortedSamples {
 public:
  SortedSamples() = default;
  SortedSamples(std::vector<double> ascending) : values_(std::move(ascending)) {}  // NOLINT
  SortedSamples(std::initializer_list<double> ascending) : values_(ascending) {}
  // `count` doubles at `offset` of `file`, ascending.
  SortedSamples(std::shared_ptr<const SpillFile> file, uint64_t offset, size_t count)
      : file_(std::move(file)), offset_(offset), count_(count) {}

  size_t size() const { return file_ ? count_ : values_.size(); }
  bool empty() const { return size() == 0; }
  double operator[](size_t i) const;
  double back() const { return (*this)[size() - 1]; }
  // Appends a value (in memory only: summaries built by hand, tests); it must not be below back().
  void push_back(double v) { values_.push_back(v); }
  bool on_disk() const { return file_ != nullptr; }

 private:
  std::vector<double> values_;
  std::shared_ptr<const SpillFile> file_;
  uint64_t offset_ = 0;
  size_t count_ = 0;
};

// The q-quantile (0 <= q <= 1) of non-empty `sorted`, as sorted_quantile (core/sample_stats.h).
inline double sorted_quantile(const SortedSamples& sorted, double q) {
  return sorted_quantile_of(sorted, q);
}

// Where a report's collectors spill: the bound (values each collector holds before it writes a
// run) and one SpillFile, made on the first spill.
class SpillArea {
 public:
  explicit SpillArea(size_t in_memory, std::string folder = "")
      : in_memory_(in_memory < 1 ? 1 : in_memory), folder_(std::move(folder)) {}
  size_t in_memory() const { return in_memory_; }
  SpillFile& file();
  std::shared_ptr<const SpillFile> shared_file() const { return file_; }

 private:
  size_t in_memory_;
  std::string folder_;
  std::shared_ptr<SpillFile> file_;
};

class SampleCollector {
 public:
  explicit SampleCollector(std::shared_ptr<SpillArea> area) : area_(std::move(area)) {}

  void add(double v) {
    values_.push_back(v);
    if (values_.size() >= area_->in_memory()) spill();
  }
  // Room for `n` values up front, at most the bound.
  void reserve(size_t n);
  size_t size() const { return spilled_ + values_.size(); }
  bool empty() const { return size() == 0; }
  // Sorts every value added (merging the runs on disk into one sorted range there) and sets
  // `summary` to their count, mean, percentiles and maximum as ExactSamples::summarize would.
  // Leaves the collector empty.
  SortedSamples finish(Distribution* summary);

 private:
  struct Run {
    uint64_t offset;
    size_t count;
  };
  void spill();
  // Merges runs_ into one ascending range appended to the file; returns its offset and sets
  // *sum to the values' sum in ascending order.
  uint64_t merge(double* sum);

  std::shared_ptr<SpillArea> area_;
  std::vector<double> values_;
  std::vector<Run> runs_;
  size_t spilled_ = 0;
};

}  // namespace llm
