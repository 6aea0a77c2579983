#include "server/api/stop_matcher.h"

#include <algorithm>

namespace llm {

StopMatcher::StopMatcher(std::vector<std::string> stops, bool include_stop)
    : stops_(std::move(stops)), include_stop_(include_stop) {
  for (const std::string& s : stops_) hold_ = std::max(hold_, s.empty() ? 0 : s.size() - 1);
}

std::string StopMatcher::feed(std::string_view piece, bool may_end_a_stop) {
  if (matched()) return {};
  if (stops_.empty()) return std::string(piece);
  pending_.append(piece);
  if (!may_end_a_stop) guarded_ = pending_.size();
  // The earliest stop string occurrence that ends past the guarded bytes wins (ties: the listed
  // order).
  size_t best = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    const size_t len = stops_[i].size();
    if (len == 0 || !may_end_a_stop) continue;
    const size_t pos = pending_.find(stops_[i], guarded_ >= len ? guarded_ - len + 1 : 0);
    if (pos != std::string::npos && pos < best) {
      best = pos;
      matched_ = static_cast<int>(i);
    }
  }
  std::string out;
  if (best != std::string::npos) {
    out = pending_.substr(0, best + (include_stop_ ? matched_stop().size() : 0));
    pending_.clear();
    return out;
  }
  if (pending_.size() > hold_) {
    const size_t n = pending_.size() - hold_;
    out = pending_.substr(0, n);
    pending_.erase(0, n);
    guarded_ = guarded_ > n ? guarded_ - n : 0;
  }
  return out;
}

std::string StopMatcher::flush() {
  std::string out;
  out.swap(pending_);
  guarded_ = 0;
  return out;
}

}  // namespace llm
