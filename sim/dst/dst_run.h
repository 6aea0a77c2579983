// Runs one `llmsim dst` case to its end under the invariant checks of sim/dst/invariants.h and
// says whether it kept them. A seed whose number is a multiple of kDeterminismEvery also runs
// twice and must give byte-identical per-request files and the same totals (DETERMINISM).
// Nothing here reads a clock or unseeded randomness: a seed's outcome is the same on every run.
// Thread-safety: reentrant; runs share no state.
#pragma once

#include <cstdint>
#include <string>

#include "sim/dst/dst_case.h"
#include "sim/replay/replay.h"

namespace llm {

inline constexpr uint64_t kDeterminismEvery = 8;

struct DstOutcome {
  uint64_t seed = 0;
  bool ok = true;
  std::string invariant;  // when not ok: an invariant's name, DETERMINISM, or EXCEPTION
  std::string detail;
  ReplayTotals totals;  // when ok
};

// Runs `c` once (twice with check_determinism). Never throws for what the run does: a violation
// or an exception from the engine becomes a failed outcome.
DstOutcome run_dst_case(const DstCase& c, bool check_determinism);

// make_dst_case(seed), determinism checked for one seed in kDeterminismEvery.
DstOutcome run_dst_seed(uint64_t seed);

}  // namespace llm
