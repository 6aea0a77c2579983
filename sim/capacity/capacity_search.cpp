#include "sim/capacity/capacity_search.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace llm {
namespace {

class Search {
 public:
  Search(const SearchSpace& space, const BatchPredicate& predicate)
      : space_(space), predicate_(predicate) {}

  // Evaluates the points not evaluated yet.
  void evaluate(std::vector<int64_t> points) {
    std::vector<int64_t> fresh;
    for (int64_t x : points) {
      if (!known_.count(x) && std::find(fresh.begin(), fresh.end(), x) == fresh.end()) {
        fresh.push_back(x);
      }
    }
    if (fresh.empty()) return;
    const std::vector<bool> values = predicate_(fresh);
    if (values.size() != fresh.size()) {
      throw std::logic_error("find_first_true: the predicate answered the wrong number of points");
    }
    for (size_t i = 0; i < fresh.size(); ++i) known_[fresh[i]] = values[i];
    ++batches_;
  }

  // The smallest known true point and the largest known false point below it.
  std::optional<int64_t> smallest_true() const {
    for (const auto& [x, v] : known_) {
      if (v) return x;
    }
    return std::nullopt;
  }
  std::optional<int64_t> largest_false_below(std::optional<int64_t> limit) const {
    std::optional<int64_t> best;
    for (const auto& [x, v] : known_) {
      if (limit && x >= *limit) break;
      if (!v) best = x;
    }
    return best;
  }

  SearchOutcome run() {
    bracket();
    refine();
    SearchOutcome o;
    o.first_true = smallest_true();
    o.true_at_min = o.first_true && *o.first_true == space_.min;
    o.batches = batches_;
    bool seen_true = false;
    SearchPoint first_true_point;
    for (const auto& [x, v] : known_) {
      o.evaluated.push_back({x, v});
      if (v && !seen_true) {
        seen_true = true;
        first_true_point = {x, v};
      } else if (!v && seen_true && !o.violation_false) {
        o.violation_true = first_true_point;
        o.violation_false = SearchPoint{x, v};
      }
    }
    return o;
  }

 private:
  void bracket() {
    evaluate({space_.start});
    const bool upwards = !known_.at(space_.start);
    for (int64_t k = 1;; k += kSearchBatch) {
      std::vector<int64_t> batch;
      for (int64_t j = k; j < k + kSearchBatch; ++j) {
        // Past the range's width the ladder only clamps (and cannot overflow).
        const int64_t width = space_.max - space_.min;
        const int64_t offset = j >= 40 || space_.unit > width
                                   ? width
                                   : std::min(width, space_.unit * ((int64_t{1} << j) - 1));
        const int64_t x = upwards ? std::min(space_.max, space_.start + offset)
                                  : std::max(space_.min, space_.start - offset);
        batch.push_back(x);
        if (x == space_.max || x == space_.min) break;
      }
      evaluate(batch);
      bool crossed = false;
      for (int64_t x : batch) crossed = crossed || known_.at(x) == upwards;
      const int64_t last = batch.back();
      if (crossed || last == (upwards ? space_.max : space_.min)) return;
    }
  }

  void refine() {
    for (;;) {
      const std::optional<int64_t> hi = smallest_true();
      if (!hi) return;  // false up to max
      const std::optional<int64_t> lo = largest_false_below(hi);
      const int64_t low = lo ? *lo : space_.min - 1;
      if (*hi - low <= 1) return;
      if (!lo && *hi == space_.min) return;
      std::vector<int64_t> batch;
      for (int j = 1; j <= kSearchBatch; ++j) {
        const int64_t x = low + (*hi - low) * j / (kSearchBatch + 1);
        if (x > low && x < *hi && x >= space_.min) batch.push_back(x);
      }
      if (batch.empty()) return;
      evaluate(batch);
    }
  }

  SearchSpace space_;
  const BatchPredicate& predicate_;
  std::map<int64_t, bool> known_;
  int batches_ = 0;
};

}  // namespace

SearchOutcome find_first_true(const SearchSpace& space, const BatchPredicate& predicate) {
  if (space.min > space.max || space.start < space.min || space.start > space.max ||
      space.unit <= 0) {
    throw std::invalid_argument("find_first_true: bad search space");
  }
  return Search(space, predicate).run();
}

}  // namespace llm
