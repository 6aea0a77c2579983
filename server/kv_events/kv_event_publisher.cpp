#include "server/kv_events/kv_event_publisher.h"

#include <prometheus/counter.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <stdexcept>
#include <thread>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "server/kv_events/kv_event_encoder.h"
#include "server/kv_events/kv_event_queue.h"

namespace llm {
namespace {

// How long the publisher thread waits for a batch before it looks at the replay socket again.
constexpr std::chrono::milliseconds kPollInterval{20};

std::string big_endian(uint64_t value) {
  std::string bytes(8, '\0');
  for (int i = 7; i >= 0; --i) {
    bytes[static_cast<size_t>(i)] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return bytes;
}

uint64_t from_big_endian(const zmq::message_t& frame) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) value = value << 8 | static_cast<const uint8_t*>(frame.data())[i];
  return value;
}

bool binds(const std::string& endpoint) {
  return endpoint.find('*') != std::string::npos || endpoint.find("::") != std::string::npos ||
         endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0;
}

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

struct KvEventPublisher::Impl {
  Impl(const KvEventsConfig& config, int32_t rank, std::string topic_name,
       prometheus::Counter* dropped_counter)
      : dp_rank(rank),
        topic(std::move(topic_name)),
        buffer_steps(static_cast<size_t>(config.buffer_steps)),
        event_format(config.event_format),
        replay_layout(config.replay_layout),
        queue(static_cast<size_t>(config.max_queue_size)),
        dropped(dropped_counter),
        pub(context, zmq::socket_type::pub) {
    pub.set(zmq::sockopt::sndhwm, static_cast<int>(config.hwm));
    pub.set(zmq::sockopt::linger, 0);
    const std::string wanted = offset_endpoint_port(config.endpoint, rank);
    try {
      if (binds(wanted)) {
        pub.bind(wanted);
        endpoint = pub.get(zmq::sockopt::last_endpoint);
      } else {
        pub.connect(wanted);
        endpoint = wanted;
      }
    } catch (const zmq::error_t& e) {
      throw std::runtime_error(
          "--kv-events-config: cannot bind or connect the KV events "
          "endpoint " +
          wanted + ": " + e.what());
    }
    if (config.replay_endpoint) {
      const std::string wanted_replay = offset_endpoint_port(*config.replay_endpoint, rank);
      replay.emplace(context, zmq::socket_type::router);
      replay->set(zmq::sockopt::linger, 0);
      try {
        replay->bind(wanted_replay);
      } catch (const zmq::error_t& e) {
        throw std::runtime_error(
            "--kv-events-config: cannot bind the KV events replay "
            "endpoint " +
            wanted_replay + ": " + e.what());
      }
      replay_endpoint = replay->get(zmq::sockopt::last_endpoint);
    }
    thread = std::thread([this] { run(); });
  }

  ~Impl() {
    running = false;
    thread.join();
  }

  // The publisher thread: until stopped and the queue is empty, serve replays and send batches.
  // A ZeroMQ error is reported and the thread goes on (vLLM logs and backs off too): publishing
  // is never worth stopping the server for.
  void run() {
    while (true) {
      try {
        serve_replays();
        std::optional<KvEventBatch> batch = queue.pop(kPollInterval);
        if (!batch) {
          if (!running) return;
          continue;
        }
        send(*batch);
      } catch (const zmq::error_t& e) {
        std::fprintf(stderr, "llmserve: KV events publisher (engine %d): %s\n", dp_rank, e.what());
        std::this_thread::sleep_for(kPollInterval);
        if (!running && queue.size() == 0) return;
      }
    }
  }

  void send(const KvEventBatch& batch) {
    const uint64_t seq = next_seq++;
    std::string payload = encode_kv_event_batch(batch.ts, batch.events, dp_rank, event_format);
    pub.send(zmq::buffer(topic), zmq::send_flags::sndmore);
    pub.send(zmq::buffer(big_endian(seq)), zmq::send_flags::sndmore);
    pub.send(zmq::buffer(payload), zmq::send_flags::none);
    if (buffer_steps == 0) return;
    if (buffered.size() == buffer_steps) buffered.pop_front();
    buffered.emplace_back(seq, std::move(payload));
  }

  // Answers every waiting replay request: [identity, "", start seq] gets the buffered batches
  // from `start seq` on and the end marker. Malformed requests are ignored, as vLLM does.
  void serve_replays() {
    if (!replay) return;
    while (true) {
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(*replay, std::back_inserter(frames), zmq::recv_flags::dontwait)) {
        return;
      }
      if (frames.size() != 3 || frames[2].size() != 8) continue;
      const uint64_t start = from_big_endian(frames[2]);
      const std::string identity = frames[0].to_string();
      for (const auto& [seq, payload] : buffered) {
        if (seq >= start) reply(identity, big_endian(seq), payload);
      }
      reply(identity, big_endian(~uint64_t{0}), "");  // -1: the end of the replay
    }
  }

  void reply(const std::string& identity, const std::string& seq, const std::string& payload) {
    replay->send(zmq::buffer(identity), zmq::send_flags::sndmore);
    replay->send(zmq::message_t(), zmq::send_flags::sndmore);
    if (replay_layout == KvReplayLayout::kTopicFirst) {
      replay->send(zmq::buffer(topic), zmq::send_flags::sndmore);
    }
    replay->send(zmq::buffer(seq), zmq::send_flags::sndmore);
    replay->send(zmq::buffer(payload), zmq::send_flags::none);
  }

  // Constant after construction.
  const int32_t dp_rank;
  const std::string topic;
  const size_t buffer_steps;
  const KvEventFormat event_format;
  const KvReplayLayout replay_layout;
  std::string endpoint;
  std::string replay_endpoint;

  KvEventQueue queue;  // the engine thread's hand-off
  prometheus::Counter* dropped;
  std::atomic<bool> running{true};

  // Used by the publisher thread only, once it has started.
  zmq::context_t context;
  zmq::socket_t pub;
  std::optional<zmq::socket_t> replay;
  uint64_t next_seq = 0;
  std::deque<std::pair<uint64_t, std::string>> buffered;  // the last buffer_steps batches
  std::thread thread;
};

KvEventPublisher::KvEventPublisher(const KvEventsConfig& config, int32_t data_parallel_rank,
                                   std::string topic, prometheus::Counter* dropped)
    : impl_(std::make_unique<Impl>(config, data_parallel_rank, std::move(topic), dropped)) {}

KvEventPublisher::~KvEventPublisher() = default;

void KvEventPublisher::publish(std::vector<KvEvent> events) {
  if (events.empty()) return;
  KvEventBatch batch{unix_seconds(), std::move(events)};
  if (!impl_->queue.try_push(batch) && impl_->dropped) impl_->dropped->Increment();
}

const std::string& KvEventPublisher::endpoint() const { return impl_->endpoint; }
const std::string& KvEventPublisher::replay_endpoint() const { return impl_->replay_endpoint; }
const std::string& KvEventPublisher::topic() const { return impl_->topic; }

}  // namespace llm
