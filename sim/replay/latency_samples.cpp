#include "sim/replay/latency_samples.h"

#include <cmath>
#include <limits>

namespace llm {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The q-quantile of `n` ascending values followed by `extra` infinities, by sorted_quantile's rule
// (linear between closest ranks); `at(q)` is the quantile of the n values alone.
template <typename QuantileOfServed>
double with_infinities(int64_t n, int64_t extra, double q, const QuantileOfServed& at) {
  if (extra == 0) return n == 0 ? 0.0 : at(q);
  if (n == 0) return kInfinity;
  const double rank = q * static_cast<double>(n + extra - 1);
  if (std::ceil(rank) > static_cast<double>(n - 1)) return kInfinity;
  return at(n == 1 ? 0.0 : rank / static_cast<double>(n - 1));
}

}  // namespace

double latency_percentile(const LatencySamples& s, std::string_view name, double level,
                          bool count_failed) {
  const double q = level / 100.0;
  if (name == "itl") {
    return with_infinities(s.itl.count(), count_failed ? s.failed_gaps : 0, q,
                           [&s](double x) { return s.itl.quantile(x); });
  }
  const auto it = s.sorted.find(name);
  if (it == s.sorted.end()) return std::nan("");
  const SortedSamples& v = it->second;
  return with_infinities(static_cast<int64_t>(v.size()), count_failed ? s.failed : 0, q,
                         [&v](double x) { return sorted_quantile(v, x); });
}

int64_t latency_count(const LatencySamples& s, std::string_view name, bool count_failed) {
  if (name == "itl") return s.itl.count() + (count_failed ? s.failed_gaps : 0);
  const auto it = s.sorted.find(name);
  if (it == s.sorted.end()) return 0;
  return static_cast<int64_t>(it->second.size()) + (count_failed ? s.failed : 0);
}

int64_t good_sequences(const LatencySamples& s, const GoodputTargets& targets) {
  int64_t good = 0;
  s.outcomes.for_each([&](const SequenceOutcome& o) {
    if (o.completed && meets_goodput(targets, o.ttft_s, o.tpot_s, o.e2e_s)) ++good;
  });
  return good;
}

double attainment(const LatencySamples& s, const GoodputTargets& targets) {
  if (s.outcomes.empty()) return 0;
  return static_cast<double>(good_sequences(s, targets)) / static_cast<double>(s.outcomes.size());
}

}  // namespace llm
