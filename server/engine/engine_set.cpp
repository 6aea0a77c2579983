#include "server/engine/engine_set.h"

#include <algorithm>
#include <stdexcept>

namespace llm {
namespace {

// The reservation this thread made last, for the submissions that follow it on this thread.
struct HandOffSlot {
  const EngineSet* set = nullptr;
  std::weak_ptr<std::atomic<int64_t>> left;
};
thread_local HandOffSlot t_hand_off;

}  // namespace

WaitingReservation& WaitingReservation::operator=(WaitingReservation&& other) noexcept {
  if (this != &other) {
    release();
    reserved_ = other.reserved_;
    left_ = std::move(other.left_);
  }
  return *this;
}

void WaitingReservation::release() {
  if (left_) reserved_->fetch_sub(left_->exchange(0));
  left_.reset();
}

void EngineSet::add(EngineService* engine, EngineMetrics* metrics) {
  if (engines_.size() == kMaxEngines) throw std::logic_error("EngineSet: too many engines");
  if (!publication_) publication_ = std::make_shared<MetricsPublication>(kMaxEngines);
  const size_t index = engines_.size();
  engines_.push_back(engine);
  metrics_.push_back(metrics);
  engine->set_submit_hook([this](int64_t sequences) { hand_off(sequences); });
  if (metrics) {
    // The hook shares the publication: the engine may outlive the set.
    std::shared_ptr<MetricsPublication> publication = publication_;
    engine->set_publish_hook([publication, index, metrics] {
      publication->publish(index, [metrics] { metrics->flush(); });
    });
  }
}

void EngineSet::hand_off(int64_t sequences) {
  if (t_hand_off.set != this) return;
  const std::shared_ptr<std::atomic<int64_t>> left = t_hand_off.left.lock();
  if (!left) return;
  int64_t have = left->load();
  int64_t moved = 0;
  do {
    moved = std::min(have, sequences);
  } while (moved > 0 && !left->compare_exchange_weak(have, have - moved));
  if (moved > 0) reserved_ -= moved;
}

EngineService& EngineSet::pick() {
  const size_t n = engines_.size();
  if (n == 1) return *engines_[0];
  const size_t start = turn_.fetch_add(1, std::memory_order_relaxed) % n;
  size_t best = start;
  size_t best_load = engines_[start]->num_unfinished();
  for (size_t k = 1; k < n; ++k) {
    const size_t i = (start + k) % n;
    const size_t load = engines_[i]->num_unfinished();
    if (load < best_load) {
      best = i;
      best_load = load;
    }
  }
  return *engines_[best];
}

bool EngineSet::failed() const {
  for (const EngineService* e : engines_) {
    if (e->failed()) return true;
  }
  return false;
}

size_t EngineSet::num_unfinished() const {
  size_t total = 0;
  for (const EngineService* e : engines_) total += e->num_unfinished();
  return total;
}

size_t EngineSet::num_waiting() const {
  int64_t total = reserved_.load();
  for (const EngineService* e : engines_) total += static_cast<int64_t>(e->num_waiting());
  return total > 0 ? static_cast<size_t>(total) : 0;
}

std::optional<WaitingReservation> EngineSet::reserve_waiting(int64_t sequences, int64_t limit) {
  return admit(sequences, AdmissionCaps{}, limit).place;
}

AdmissionLoad EngineSet::admission_load() const {
  AdmissionLoad load;
  load.unfinished_sequences = std::max<int64_t>(reserved_.load(), 0);
  for (const EngineService* e : engines_) {
    load.unfinished_sequences += e->num_unfinished_sequences();
    load.prefill_tokens += e->num_prefill_tokens();
  }
  return load;
}

EngineSet::Admission EngineSet::admit(int64_t sequences, const AdmissionCaps& caps,
                                      int64_t waiting_limit) {
  Admission a;
  // Reserve first, then count (as reserve_waiting): of two requests racing for the last place,
  // the later reservation sees both.
  reserved_ += sequences;
  AdmissionLoad load = admission_load();
  load.unfinished_sequences -= sequences;  // check_admission adds the request's own n
  a.refused = check_admission(caps, load, sequences);
  if (!a.refused && waiting_limit >= 0 && static_cast<int64_t>(num_waiting()) > waiting_limit) {
    a.refused = AdmissionRejection::kMaxNumQueuedReqs;
  }
  if (a.refused) {
    reserved_ -= sequences;
    return a;
  }
  auto left = std::make_shared<std::atomic<int64_t>>(sequences);
  t_hand_off.set = this;
  t_hand_off.left = left;
  a.place = WaitingReservation(&reserved_, std::move(left));
  return a;
}

void EngineSet::abort_all() {
  for (EngineService* e : engines_) e->abort_all();
}

void EngineSet::set_admission_paused(bool paused) {
  for (EngineService* e : engines_) e->set_admission_paused(paused);
}

void EngineSet::stop() {
  for (EngineService* e : engines_) e->stop();
}

std::vector<prometheus::MetricFamily> EngineSet::collect_metrics(
    const prometheus::Registry& registry) const {
  if (!publication_) return registry.Collect();
  return publication_->collect(registry);
}

}  // namespace llm
