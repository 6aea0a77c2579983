#include "sim/replay/sequence_outcomes.h"

#include <algorithm>

namespace llm {

void SequenceOutcomes::push_back(const SequenceOutcome& o) {
  held_.push_back(o);
  if (!area_ || held_.size() < area_->in_memory()) return;
  const uint64_t at = area_->file().append(held_.data(), held_.size() * sizeof(SequenceOutcome));
  chunks_.push_back({at, held_.size()});
  spilled_ += held_.size();
  held_.clear();
}

void SequenceOutcomes::reserve(size_t n) {
  held_.reserve(area_ ? std::min(n, area_->in_memory()) : n);
}

}  // namespace llm
