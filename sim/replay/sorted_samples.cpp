#include "sim/replay/sorted_samples.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace llm {
namespace {

// Values read per run at a time by the merge (32 KiB).
constexpr size_t kReadChunk = 4096;
// Values written at a time by the merge (256 KiB).
constexpr size_t kWriteChunk = 32768;

// Reads one run of the file a chunk at a time.
class RunReader {
 public:
  RunReader(const SpillFile& file, uint64_t offset, size_t count)
      : file_(&file), next_(offset), left_(count) {
    refill();
  }
  bool done() const { return at_ == buf_.size(); }
  double front() const { return buf_[at_]; }
  void pop() {
    if (++at_ == buf_.size()) refill();
  }

 private:
  void refill() {
    const size_t n = std::min(left_, kReadChunk);
    buf_.resize(n);
    at_ = 0;
    if (n == 0) return;
    file_->read(next_, buf_.data(), n * sizeof(double));
    next_ += n * sizeof(double);
    left_ -= n;
  }

  const SpillFile* file_;
  uint64_t next_;
  size_t left_;
  std::vector<double> buf_;
  size_t at_ = 0;
};

}  // namespace

double SortedSamples::operator[](size_t i) const {
  if (!file_) return values_[i];
  double v = 0;
  file_->read(offset_ + i * sizeof(double), &v, sizeof v);
  return v;
}

SpillFile& SpillArea::file() {
  if (!file_) file_ = SpillFile::create(folder_);
  return *file_;
}

void SampleCollector::reserve(size_t n) { values_.reserve(std::min(n, area_->in_memory())); }

void SampleCollector::spill() {
  if (values_.empty()) return;
  std::sort(values_.begin(), values_.end());
  const uint64_t at = area_->file().append(values_.data(), values_.size() * sizeof(double));
  runs_.push_back({at, values_.size()});
  spilled_ += values_.size();
  values_.clear();
}

uint64_t SampleCollector::merge(double* sum) {
  SpillFile& file = area_->file();
  std::vector<RunReader> readers;
  readers.reserve(runs_.size());
  for (const Run& r : runs_) readers.emplace_back(file, r.offset, r.count);
  using Head = std::pair<double, size_t>;  // a run's smallest unread value, and the run
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (size_t i = 0; i < readers.size(); ++i) {
    if (!readers[i].done()) heads.emplace(readers[i].front(), i);
  }
  const uint64_t start = file.size();
  std::vector<double> out;
  out.reserve(kWriteChunk);
  double total = 0;
  while (!heads.empty()) {
    const size_t i = heads.top().second;
    const double v = heads.top().first;
    heads.pop();
    total += v;
    out.push_back(v);
    if (out.size() == kWriteChunk) {
      file.append(out.data(), out.size() * sizeof(double));
      out.clear();
    }
    readers[i].pop();
    if (!readers[i].done()) heads.emplace(readers[i].front(), i);
  }
  if (!out.empty()) file.append(out.data(), out.size() * sizeof(double));
  for (const Run& r : runs_) file.release(r.offset, r.count * sizeof(double));
  *sum = total;
  return start;
}

SortedSamples SampleCollector::finish(Distribution* summary) {
  if (runs_.empty()) {
    *summary = sort_and_summarize(values_);
    SortedSamples sorted(std::move(values_));
    values_ = {};
    return sorted;
  }
  spill();
  double sum = 0;
  const uint64_t at = merge(&sum);
  SortedSamples sorted(area_->shared_file(), at, spilled_);
  runs_.clear();
  spilled_ = 0;
  *summary = summarize_sorted(sorted, sum);
  return sorted;
}

}  // namespace llm
