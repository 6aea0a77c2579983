// What every invariant check of sim/dst/ uses: the text of a violation built from pieces, the
// throw of an InvariantViolation when a check fails, and a timeline as text. Internal to the
// checkers of sim/dst/ (invariants.h is the public side).
// Thread-safety: pure functions.
#pragma once

#include <sstream>
#include <string>

#include "core/clock.h"
#include "core/request.h"
#include "sim/dst/invariants.h"

namespace llm {

// Text from pieces: cat("engine ", 2, " at ", t).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// Throws the violation when `ok` is false; `detail` builds its text only then.
template <typename Detail>
void require_invariant(bool ok, const char* invariant, Detail&& detail) {
  if (!ok) throw InvariantViolation(invariant, detail());
}

inline bool known(Nanos t) { return t != kNoTime; }

inline std::string timeline_text(const Timeline& t) {
  return cat("arrival ", t.arrival, " queued ", t.queued, " scheduled ", t.scheduled, " first ",
             t.first_token, " last ", t.last_token, " finished ", t.finished, " ns");
}

}  // namespace llm
