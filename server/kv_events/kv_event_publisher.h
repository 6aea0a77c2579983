// Publishes one engine's KV-cache events over ZeroMQ as vLLM's ZmqEventPublisher does: a PUB
// socket sends each batch as three frames (the topic, an 8-byte big-endian sequence number
// counting from 0, the msgpack payload of server/kv_events/kv_event_encoder.h), and an optional
// ROUTER socket answers a replay request ([identity, "", 8-byte big-endian start sequence number])
// with the buffered batches from there on, then an end marker: by default in vLLM's layout,
// [identity, "", seq, payload] ... [identity, "", -1 as 8 bytes, ""]; with
// KvReplayLayout::kTopicFirst the topic comes before seq in each reply.
//
// publish() runs on the engine thread and never blocks: it stamps the batch with the wall clock
// and moves it into a bounded queue (KvEventsConfig::max_queue_size batches); a batch that finds
// the queue full is dropped and counted. A thread of its own encodes, sends, keeps the last
// buffer_steps batches for replay and serves replay requests. The endpoints follow vLLM's rules:
// the PUB endpoint is bound when it has a wildcard ('*' or "::") or is ipc:// or inproc://, else
// connected; the replay endpoint is bound; both are offset by the data-parallel rank.
// Thread-safety: publish() from one thread (the engine's); the rest from the owning thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/kv_events.h"
#include "server/kv_events/kv_events_config.h"

namespace prometheus {
class Counter;
}

namespace llm {

class KvEventPublisher {
 public:
  // `dropped` (may be null) counts the batches the full queue refused. Throws std::runtime_error
  // naming the endpoint when a socket cannot be bound or connected.
  KvEventPublisher(const KvEventsConfig& config, int32_t data_parallel_rank, std::string topic,
                   prometheus::Counter* dropped);
  // Sends what is still queued, then stops the thread and closes the sockets.
  ~KvEventPublisher();
  KvEventPublisher(const KvEventPublisher&) = delete;
  KvEventPublisher& operator=(const KvEventPublisher&) = delete;

  // One engine step's events (an empty vector publishes nothing).
  void publish(std::vector<KvEvent> events);

  // The endpoints as bound or connected (a wildcard port resolved), for the startup log line.
  const std::string& endpoint() const;
  const std::string& replay_endpoint() const;  // "" without replay
  const std::string& topic() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm
