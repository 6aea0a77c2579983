#include "sim/faults/fault_schedule.h"

#include <algorithm>
#include <stdexcept>

#include "core/rng.h"

namespace llm {
namespace {

constexpr uint64_t kHttp5xxStream = 0x3578785f68747470ULL;

}  // namespace

FaultSchedule::FaultSchedule(const std::vector<FaultWindow>& faults, size_t num_engines,
                             uint64_t seed)
    : empty_(faults.empty()), seed_(hash_combine(seed, kHttp5xxStream)), down_(num_engines) {
  for (const FaultWindow& f : faults) {
    if (f.kind != FaultKind::kHttp5xx &&
        (f.engine < 0 || static_cast<size_t>(f.engine) >= num_engines)) {
      throw std::invalid_argument("fault " + fault_spec_text(f) + ": no such engine");
    }
    switch (f.kind) {
      case FaultKind::kEngineDown:
        down_[static_cast<size_t>(f.engine)].push_back({f.from_ns, f.to_ns});
        break;
      case FaultKind::kHttp5xx:
        http_5xx_.push_back(f);
        break;
      case FaultKind::kSlow:
        slow_.push_back(f);
        break;
    }
  }
  for (size_t e = 0; e < down_.size(); ++e) {
    std::vector<Window>& w = down_[e];
    std::sort(w.begin(), w.end(), [](const Window& a, const Window& b) { return a.from < b.from; });
    std::vector<Window> merged;
    for (const Window& x : w) {
      if (!merged.empty() && x.from <= merged.back().to) {
        merged.back().to = std::max(merged.back().to, x.to);
      } else {
        merged.push_back(x);
      }
    }
    w = merged;
    for (const Window& x : w) {
      transitions_.push_back({x.from, e, true});
      transitions_.push_back({x.to, e, false});
    }
  }
  std::sort(transitions_.begin(), transitions_.end(), [](const Transition& a, const Transition& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.engine != b.engine) return a.engine < b.engine;
    return !a.down && b.down;
  });
}

bool FaultSchedule::engine_down(size_t engine, int64_t t) const {
  if (engine >= down_.size()) return false;
  for (const Window& w : down_[engine]) {
    if (w.from <= t && t < w.to) return true;
  }
  return false;
}

bool FaultSchedule::any_down(int64_t t) const {
  for (size_t e = 0; e < down_.size(); ++e) {
    if (engine_down(e, t)) return true;
  }
  return false;
}

double FaultSchedule::slow_factor(size_t engine, int64_t t) const {
  double factor = 1;
  for (const FaultWindow& f : slow_) {
    if (static_cast<size_t>(f.engine) == engine && f.active_at(t)) factor *= f.factor;
  }
  return factor;
}

double FaultSchedule::http_5xx_percent(int64_t t) const {
  double percent = 0;
  for (const FaultWindow& f : http_5xx_) {
    if (f.active_at(t)) percent = std::max(percent, f.percent);
  }
  return percent;
}

bool FaultSchedule::answers_5xx(size_t request, int64_t t) const {
  const double percent = http_5xx_percent(t);
  if (percent <= 0) return false;
  Rng draw(hash_combine(seed_, request));
  return draw.uniform() * 100 < percent;
}

}  // namespace llm
