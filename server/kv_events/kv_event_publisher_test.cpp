// The publisher on real ZeroMQ sockets (loopback, a wildcard port): the three frames, sequence
// numbers from 0, and a replay in vLLM's layout and in the topic-first one.
#include "server/kv_events/kv_event_publisher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "server/kv_events/kv_event_encoder.h"

namespace llm {
namespace {

uint64_t from_big_endian(const zmq::message_t& frame) {
  uint64_t value = 0;
  for (size_t i = 0; i < frame.size(); ++i) {
    value = value << 8 | static_cast<const uint8_t*>(frame.data())[i];
  }
  return value;
}

std::string big_endian(uint64_t value) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i, value >>= 8) s[static_cast<size_t>(i)] = static_cast<char>(value);
  return s;
}

std::vector<zmq::message_t> receive(zmq::socket_t& socket) {
  std::vector<zmq::message_t> frames;
  socket.set(zmq::sockopt::rcvtimeo, 5000);
  if (!zmq::recv_multipart(socket, std::back_inserter(frames))) ADD_FAILURE() << "timed out";
  return frames;
}

KvEventsConfig loopback_config(bool replay) {
  KvEventsConfig c;
  c.enable_kv_cache_events = true;
  c.publisher = "zmq";
  c.endpoint = "tcp://127.0.0.1:*";
  if (replay) c.replay_endpoint = "tcp://127.0.0.1:*";
  return c;
}

TEST(KvEventPublisher, SendsTopicSequenceAndPayloadFramesFromZero) {
  KvEventPublisher publisher(loopback_config(false), 2, "kv@pod:8000@m", nullptr);
  zmq::context_t context;
  zmq::socket_t sub(context, zmq::socket_type::sub);
  sub.set(zmq::sockopt::subscribe, "kv@");
  sub.connect(publisher.endpoint());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ZeroMQ's slow joiner

  publisher.publish({});  // nothing to say: nothing sent
  publisher.publish({KvBlockRemoved{{5}}});
  publisher.publish({KvAllBlocksCleared{}});
  for (uint64_t seq : {0u, 1u}) {
    const std::vector<zmq::message_t> frames = receive(sub);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0].to_string(), "kv@pod:8000@m");
    ASSERT_EQ(frames[1].size(), 8u);
    EXPECT_EQ(from_big_endian(frames[1]), seq);
    // The payload is the encoder's, with this publisher's rank; only the timestamp varies.
    const std::vector<KvEvent> events = seq == 0 ? std::vector<KvEvent>{KvBlockRemoved{{5}}}
                                                 : std::vector<KvEvent>{KvAllBlocksCleared{}};
    const std::string want = encode_kv_event_batch(0, events, 2);
    ASSERT_EQ(frames[2].size(), want.size()) << "sequence " << seq;
    EXPECT_EQ(frames[2].to_string().substr(10), want.substr(10)) << "after [array, float64 ts]";
  }
}

// Publishes three batches, asks the replay socket for those from sequence 1 on, and returns
// what was sent live and the replies (each without the DEALER's empty delimiter frame).
struct Replay {
  std::vector<std::string> live;
  std::vector<std::vector<std::string>> replies;
};

Replay replay_from_one(KvReplayLayout layout) {
  KvEventsConfig config = loopback_config(true);
  config.replay_layout = layout;
  KvEventPublisher publisher(config, 0, "kv@p:1@m", nullptr);
  zmq::context_t context;
  zmq::socket_t sub(context, zmq::socket_type::sub);
  sub.set(zmq::sockopt::subscribe, "");
  sub.connect(publisher.endpoint());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (uint64_t h : {1u, 2u, 3u}) publisher.publish({KvBlockRemoved{{h}}});
  Replay out;
  for (int i = 0; i < 3; ++i) out.live.push_back(receive(sub)[2].to_string());

  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.connect(publisher.replay_endpoint());
  const std::string start = big_endian(1);  // outlives the buffers that point into it
  std::vector<zmq::const_buffer> request = {zmq::const_buffer(nullptr, 0), zmq::buffer(start)};
  EXPECT_TRUE(zmq::send_multipart(dealer, request));
  for (int i = 0; i < 3; ++i) {
    const std::vector<zmq::message_t> frames = receive(dealer);
    if (frames.empty()) break;
    EXPECT_EQ(frames[0].size(), 0u) << "the empty delimiter";
    std::vector<std::string> reply;
    for (size_t f = 1; f < frames.size(); ++f) reply.push_back(frames[f].to_string());
    out.replies.push_back(reply);
  }
  return out;
}

TEST(KvEventPublisher, ReplayAnswersAsVllmDoesFromTheStartSequenceThenAnEndMarker) {
  const Replay r = replay_from_one(KvReplayLayout::kVllm);
  ASSERT_EQ(r.replies.size(), 3u);
  for (uint64_t seq : {1u, 2u}) {
    const std::vector<std::string>& reply = r.replies[seq - 1];
    ASSERT_EQ(reply.size(), 2u);  // seq, payload
    EXPECT_EQ(reply[0], big_endian(seq));
    EXPECT_EQ(reply[1], r.live[seq]) << "the same bytes as sent live";
  }
  EXPECT_EQ(r.replies[2], (std::vector<std::string>{std::string(8, '\xff'), ""}));
}

TEST(KvEventPublisher, ReplayInTheTopicFirstLayoutCarriesTheTopic) {
  const Replay r = replay_from_one(KvReplayLayout::kTopicFirst);
  ASSERT_EQ(r.replies.size(), 3u);
  for (uint64_t seq : {1u, 2u}) {
    const std::vector<std::string>& reply = r.replies[seq - 1];
    ASSERT_EQ(reply.size(), 3u);  // topic, seq, payload
    EXPECT_EQ(reply[0], "kv@p:1@m");
    EXPECT_EQ(reply[1], big_endian(seq));
    EXPECT_EQ(reply[2], r.live[seq]) << "the same bytes as sent live";
  }
  EXPECT_EQ(r.replies[2], (std::vector<std::string>{"kv@p:1@m", std::string(8, '\xff'), ""}));
}

TEST(KvEventPublisher, AnEndpointThatCannotBeBoundIsAClearError) {
  KvEventsConfig c = loopback_config(false);
  c.endpoint = "tcp://*:notaport";
  try {
    KvEventPublisher publisher(c, 0, "t", nullptr);
    ADD_FAILURE() << "bound " << c.endpoint;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tcp://*:notaport"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace llm
