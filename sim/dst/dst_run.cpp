#include "sim/dst/dst_run.h"

#include <exception>

#include "sim/dst/invariants.h"

namespace llm {
namespace {

DstOutcome failed(uint64_t seed, std::string invariant, std::string detail) {
  DstOutcome o;
  o.seed = seed;
  o.ok = false;
  o.invariant = std::move(invariant);
  o.detail = std::move(detail);
  return o;
}

bool same_totals(const ReplayTotals& a, const ReplayTotals& b) {
  if (a.end_time != b.end_time || a.engines.size() != b.engines.size()) return false;
  for (size_t i = 0; i < a.engines.size(); ++i) {
    if (a.engines[i].num_steps != b.engines[i].num_steps ||
        a.engines[i].num_preemptions != b.engines[i].num_preemptions) {
      return false;
    }
  }
  return a.faults.failed_steps == b.faults.failed_steps && a.faults.aborts == b.faults.aborts;
}

}  // namespace

DstOutcome run_dst_case(const DstCase& c, bool check_determinism) {
  try {
    std::string first;
    DstOutcome o;
    o.seed = c.seed;
    o.totals = run_checked_replay(c.trace, c.config, true, &first);
    if (!check_determinism) return o;
    std::string second;
    const ReplayTotals again = run_checked_replay(c.trace, c.config, true, &second);
    if (first != second || !same_totals(o.totals, again)) {
      return failed(c.seed, "DETERMINISM", "a second run of the same case gave other results");
    }
    return o;
  } catch (const InvariantViolation& v) {
    return failed(c.seed, v.invariant(), v.detail());
  } catch (const std::exception& e) {
    return failed(c.seed, "EXCEPTION", e.what());
  }
}

DstOutcome run_dst_seed(uint64_t seed) {
  return run_dst_case(make_dst_case(seed), seed % kDeterminismEvery == 0);
}

}  // namespace llm
