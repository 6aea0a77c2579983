// Tests for SampledStream (sim/trace/load_scaling.h), --load-scaling sample streamed: against a
// reference model of the definition (every copy's requests placed at their shifted times, thinned
// by per-request draws in the trace's order, then all sorted by arrival, copy and index), for
// random traces with ties, factors below and above 1, and seeds (RapidCheck).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/rng.h"
#include "sim/trace/load_scaling.h"

namespace llm {
namespace {

// The draws' stream identities ("offset", "thin"), as load_scaling.cpp mixes them with the seed.
constexpr uint64_t kOffset = 0x6f6666736574ULL;
constexpr uint64_t kThin = 0x7468696eULL;

std::vector<TraceRequest> reference(const Trace& t, double factor, uint64_t seed) {
  struct Placed {
    int64_t at, copy;
    size_t index;
  };
  TraceRequestStream all(t);
  const int64_t period = trace_period(scan_stream(all));
  const int64_t start = t.requests.empty() ? 0 : t.requests.front().arrival_ns;
  const int64_t whole = static_cast<int64_t>(std::floor(factor));
  const double fraction = factor - static_cast<double>(whole);
  std::vector<Placed> placed;
  for (int64_t copy = 0; copy < whole + (fraction > 0 ? 1 : 0); ++copy) {
    int64_t offset = 0;
    if (copy > 0 && period > 0) {
      offset = static_cast<int64_t>(Rng(hash_combine(seed, kOffset + static_cast<uint64_t>(copy)))
                                        .below(static_cast<uint64_t>(period)));
    }
    Rng thin(hash_combine(seed, kThin + static_cast<uint64_t>(copy)));
    for (size_t i = 0; i < t.requests.size(); ++i) {
      if (copy == whole && !(thin.uniform() < fraction)) continue;
      const int64_t at = t.requests[i].arrival_ns;
      placed.push_back({offset > 0 ? start + (at - start + offset) % period : at, copy, i});
    }
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return std::tie(a.at, a.copy, a.index) < std::tie(b.at, b.copy, b.index);
  });
  std::vector<TraceRequest> out;
  for (const Placed& p : placed) {
    TraceRequest r = t.requests[p.index];
    if (p.copy > 0) {
      r.id += "~c" + std::to_string(p.copy + 1);
      r.cache_salt += "~c" + std::to_string(p.copy + 1);
    }
    r.arrival_ns = p.at;
    out.push_back(r);
  }
  return out;
}

RC_GTEST_PROP(SampledStream, GivesTheDefinitionsRequestsInItsOrder, ()) {
  Trace t;
  int64_t at = *rc::gen::inRange<int64_t>(0, 1000);
  const int count = *rc::gen::inRange(1, 60);
  for (int i = 0; i < count; ++i) {
    at += *rc::gen::element<int64_t>(0, 0, 1, 7, 500);  // ties are common
    TraceRequest r;
    r.id = std::to_string(i);
    r.arrival_ns = at;
    r.prompt_len = 1;
    r.output_len = 1;
    t.requests.push_back(r);
  }
  const double factor = *rc::gen::element(0.3, 0.999, 1.0, 1.5, 2.0, 3.7);
  const uint64_t seed = *rc::gen::inRange<uint64_t>(0, 50);
  TraceRequestStream all(t);
  SampledStream sampled([&t] { return std::make_unique<TraceRequestStream>(t); }, scan_stream(all),
                        factor, seed);
  const std::vector<TraceRequest> got = collect_stream(sampled).requests;
  const std::vector<TraceRequest> want = reference(t, factor, seed);
  RC_ASSERT(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    RC_ASSERT(got[i].id == want[i].id);
    RC_ASSERT(got[i].arrival_ns == want[i].arrival_ns);
    RC_ASSERT(got[i].cache_salt == want[i].cache_salt);
  }
  RC_ASSERT(sampled.copies() == static_cast<int64_t>(std::floor(factor)));
}

}  // namespace
}  // namespace llm
