// The search behind `llmsim capacity`: the first point of an integer range where a predicate
// turns true, for a predicate that is false and then true (the fewest engines that meet the SLOs;
// the lowest arrival-rate step at which one engine misses them). The points are evaluated in
// batches of kSearchBatch, each batch in parallel by the caller, and which points are evaluated
// depends only on the answers, never on how many run at once:
//  1. bracketing: from `start`, the ladder start + unit x (2^k - 1), k = 0, 1, 2, ..., upwards
//     while the predicate is false, or downwards (start - unit x (2^k - 1)) while it is true,
//     clamped to [min, max], until the answer lies between a false and a true point;
//  2. refinement: kSearchBatch evenly spaced points strictly inside the bracket, again and again,
//     until the bracket's ends are neighbours (a (kSearchBatch + 1)-ary bisection).
// The predicate is assumed monotone; every evaluated point is kept, and a true point below a
// false one is reported as a violation (the answer is then the search's, not necessarily the
// smallest true point).
// Thread-safety: pure; the evaluator is called from the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace llm {

inline constexpr int kSearchBatch = 4;

struct SearchSpace {
  int64_t min = 0;
  int64_t max = 0;
  int64_t start = 0;  // in [min, max]
  int64_t unit = 1;   // the first ladder step (> 0)
};

struct SearchPoint {
  int64_t x = 0;
  bool value = false;
};

// Evaluates the predicate at every point of a batch (in any order or in parallel); returns the
// values in the points' order.
using BatchPredicate = std::function<std::vector<bool>(const std::vector<int64_t>& points)>;

struct SearchOutcome {
  // The first true point: the smallest evaluated true point with a false point (or min - 1)
  // just below it. Empty when the predicate is false up to max.
  std::optional<int64_t> first_true;
  bool true_at_min = false;            // the predicate already holds at min (first_true == min)
  std::vector<SearchPoint> evaluated;  // every point, in increasing x
  // The first violation of monotonicity among the evaluated points: a true point below a false
  // one.
  std::optional<SearchPoint> violation_true, violation_false;
  int batches = 0;
};

SearchOutcome find_first_true(const SearchSpace& space, const BatchPredicate& predicate);

}  // namespace llm
