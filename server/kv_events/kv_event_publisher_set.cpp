#include "server/kv_events/kv_event_publisher_set.h"

#include <cstdlib>

namespace llm {

KvEventPublisherSet::KvEventPublisherSet(const KvEventsConfig& config,
                                         const std::vector<KvEventEngine>& engines,
                                         const std::string& model_name) {
  auto family_in = [this](prometheus::Registry* registry) {
    for (auto& [r, family] : dropped_) {
      if (r == registry) return family;
    }
    auto* family = &prometheus::BuildCounter()
                        .Name("llmserve:kv_events_dropped")
                        .Help(
                            "KV-cache event batches (engine steps) dropped because the "
                            "publisher's queue was full (--kv-events-config max_queue_size).")
                        .Register(*registry);
    dropped_.emplace_back(registry, family);
    return family;
  };
  for (size_t i = 0; i < engines.size(); ++i) {
    prometheus::Counter& dropped =
        family_in(engines[i].registry)
            ->Add({{"model_name", model_name}, {"engine", std::to_string(i)}});
    publishers_.push_back(std::make_unique<KvEventPublisher>(config, static_cast<int32_t>(i),
                                                             engines[i].topic, &dropped));
  }
}

std::string kv_events_topic(const KvEventsConfig& config, int port, const std::string& model) {
  if (!config.topic.empty()) return config.topic;
  const auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  std::string pod = env("POD_IP");
  if (pod.empty()) pod = env("POD_NAME");
  if (pod.empty()) pod = "localhost";
  return default_kv_events_topic(pod, port, model);
}

}  // namespace llm
