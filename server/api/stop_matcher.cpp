#include "server/api/stop_matcher.h"

#include <algorithm>

namespace llm {

StopMatcher::StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {
  for (const std::string& s : stops_) hold_ = std::max(hold_, s.empty() ? 0 : s.size() - 1);
}

std::string StopMatcher::feed(std::string_view piece) {
  if (matched()) return {};
  if (stops_.empty()) return std::string(piece);
  pending_.append(piece);
  // The earliest stop string occurrence wins (ties: the listed order).
  size_t best = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    if (stops_[i].empty()) continue;
    const size_t pos = pending_.find(stops_[i]);
    if (pos != std::string::npos && pos < best) {
      best = pos;
      matched_ = static_cast<int>(i);
    }
  }
  std::string out;
  if (best != std::string::npos) {
    out = pending_.substr(0, best);
    pending_.clear();
    return out;
  }
  if (pending_.size() > hold_) {
    const size_t n = pending_.size() - hold_;
    out = pending_.substr(0, n);
    pending_.erase(0, n);
  }
  return out;
}

std::string StopMatcher::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace llm
