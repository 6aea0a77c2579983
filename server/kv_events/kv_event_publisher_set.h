// The KV-event publishers of one llmserve (--kv-events-config): one KvEventPublisher per
// data-parallel engine, rank i on the endpoints offset by i (as vLLM), each with its engine's
// topic (with --data-parallel-separate-ports the topic names the engine's own HTTP port, which is
// how a router tells the endpoints apart), and the counter
// llmserve:kv_events_dropped_total{model_name, engine} of batches a full queue refused, in the
// registry of the /metrics that serves the engine (vLLM has no such metric: its publisher waits
// on a full queue instead).
// Thread-safety: publish(i, ...) from engine i's thread; the rest from the owning thread.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/kv_events/kv_event_publisher.h"
#include "server/kv_events/kv_events_config.h"

namespace llm {

// Where one engine's events go: its topic and the registry its drop counter is in.
struct KvEventEngine {
  std::string topic;
  prometheus::Registry* registry = nullptr;
};

class KvEventPublisherSet {
 public:
  // Starts one publisher per engine, rank i for engines[i]. Throws std::runtime_error when a
  // socket cannot be set up, UsageError when an endpoint cannot be offset for a rank.
  KvEventPublisherSet(const KvEventsConfig& config, const std::vector<KvEventEngine>& engines,
                      const std::string& model_name);

  void publish(size_t engine, std::vector<KvEvent> events) {
    publishers_[engine]->publish(std::move(events));
  }
  const KvEventPublisher& at(size_t engine) const { return *publishers_[engine]; }
  size_t size() const { return publishers_.size(); }

 private:
  // The drop counters' family in each registry.
  std::vector<std::pair<prometheus::Registry*, prometheus::Family<prometheus::Counter>*>> dropped_;
  std::vector<std::unique_ptr<KvEventPublisher>> publishers_;
};

// The topic for `config`: its own, else default_kv_events_topic with the pod from $POD_IP, else
// $POD_NAME, else "localhost".
std::string kv_events_topic(const KvEventsConfig& config, int port, const std::string& model);

}  // namespace llm
