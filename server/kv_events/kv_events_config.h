// --kv-events-config: vLLM's KVEventsConfig JSON, accepted verbatim (vllm/config/kv_events.py):
// enable_kv_cache_events, publisher ("zmq" or "null"; unset means "zmq" when enabled), endpoint,
// replay_endpoint, buffer_steps, hwm, max_queue_size, topic. As vLLM's config classes, unknown keys
// are refused. Two llmserve keys choose older layouts: event_format ("map", vLLM's tagged maps
// since PR #42892, the default; "array", the positional layout before it) and replay_layout
// ("vllm": [seq, payload] per batch, the default; "llm-d": [topic, seq, payload]). Also vLLM's
// per-data-parallel-rank endpoint offset. docs/kv-events.md.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "server/kv_events/kv_event_encoder.h"

namespace llm {

// What a replay reply carries after [identity, ""]: vLLM's [seq, payload] or, with a topic frame
// first, [topic, seq, payload] (the layout llmserve sent before).
enum class KvReplayLayout { kVllm, kTopicFirst };

struct KvEventsConfig {
  bool enable_kv_cache_events = false;
  std::string publisher = "null";  // after defaulting: "zmq" or "null"
  std::string endpoint = "tcp://*:5557";
  std::optional<std::string> replay_endpoint;
  int64_t buffer_steps = 10000;     // batches kept for replay
  int64_t hwm = 100000;             // the PUB socket's send high-water mark (messages)
  int64_t max_queue_size = 100000;  // batches waiting for the publisher thread; more are dropped
  std::string topic;                // "" = llmserve's default (default_kv_events_topic)
  KvEventFormat event_format = KvEventFormat::kMap;      // llmserve's key "event_format"
  KvReplayLayout replay_layout = KvReplayLayout::kVllm;  // llmserve's key "replay_layout"

  // Events are collected and published: enabled with the zmq publisher (vLLM's factory gives a
  // null publisher otherwise).
  bool publishes() const { return enable_kv_cache_events && publisher == "zmq"; }
};

// Parses the flag's JSON object. Throws UsageError naming `flag` and the offending key.
KvEventsConfig parse_kv_events_config(const std::string& json_text, const std::string& flag);

// vLLM's ZmqEventPublisher.offset_endpoint_port: rank 0 keeps the endpoint; a tcp endpoint's port
// grows by the rank, an inproc endpoint gets "_dp<rank>" appended. Ours: a wildcard tcp port
// ("tcp://127.0.0.1:*", ZeroMQ picks a free one) stays as it is. Throws UsageError for other
// transports with rank > 0 or a tcp endpoint without a numeric port.
std::string offset_endpoint_port(const std::string& endpoint, int32_t data_parallel_rank);

// The topic when the config sets none: "kv@<pod>:<port>@<model>", the form llm-d's subscriber
// parses (pod id, then model name, split on '@'). `pod` is $POD_IP, else $POD_NAME, else
// "localhost" (the caller reads the environment).
std::string default_kv_events_topic(const std::string& pod, int port, const std::string& model);

}  // namespace llm
