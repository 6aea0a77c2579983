#include "server/api/sleep_state.h"

namespace llm {

SleepState::SleepState(const std::vector<prometheus::Family<prometheus::Gauge>*>& families,
                       const std::string& model_name) {
  for (size_t i = 0; i < families.size(); ++i) {
    if (!families[i]) continue;
    auto gauge = [&](const char* state) {
      return &families[i]->Add(
          {{"model_name", model_name}, {"engine", std::to_string(i)}, {"sleep_state", state}});
    };
    gauges_.push_back({gauge("awake"), gauge("weights_offloaded"), gauge("discard_all")});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  publish();
}

bool SleepState::sleeping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return level_ > 0;
}

int SleepState::level() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return level_;
}

void SleepState::sleep(int level) {
  std::lock_guard<std::mutex> lock(mutex_);
  level_ = level;
  sleeping_tags_ = {"weights", "kv_cache"};
  publish();
}

void SleepState::wake_up(const std::vector<std::string>& tags) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tags.empty()) {
    sleeping_tags_.clear();
  } else {
    for (const std::string& t : tags) sleeping_tags_.erase(t);
  }
  if (sleeping_tags_.empty()) level_ = 0;
  publish();
}

void SleepState::publish() {
  for (const EngineGauges& g : gauges_) {
    g.awake->Set(level_ == 0 ? 1 : 0);
    g.weights_offloaded->Set(level_ == 1 ? 1 : 0);
    g.discard_all->Set(level_ == 2 ? 1 : 0);
  }
}

}  // namespace llm
