#include "server/kv_events/kv_events_config.h"

#include <gtest/gtest.h>

#include <string>

#include "core/flag_values.h"

namespace llm {
namespace {

KvEventsConfig parse(const std::string& json) {
  return parse_kv_events_config(json, "--kv-events-config");
}

TEST(KvEventsConfig, VllmsJsonIsAcceptedVerbatim) {
  const KvEventsConfig c = parse(
      R"({"enable_kv_cache_events": true, "publisher": "zmq", "endpoint": "tcp://*:6000",
          "replay_endpoint": "tcp://*:6001", "buffer_steps": 5, "hwm": 7, "max_queue_size": 9,
          "topic": "kv@pod:8000@m"})");
  EXPECT_TRUE(c.publishes());
  EXPECT_EQ(c.endpoint, "tcp://*:6000");
  EXPECT_EQ(c.replay_endpoint, "tcp://*:6001");
  EXPECT_EQ(c.buffer_steps, 5);
  EXPECT_EQ(c.hwm, 7);
  EXPECT_EQ(c.max_queue_size, 9);
  EXPECT_EQ(c.topic, "kv@pod:8000@m");
}

TEST(KvEventsConfig, ThePublisherDefaultsAsVllmsDo) {
  struct Case {
    const char* json;
    const char* publisher;
    bool publishes;
  };
  const Case cases[] = {
      {R"({"enable_kv_cache_events": true})", "zmq", true},
      {R"({"enable_kv_cache_events": true, "publisher": null})", "zmq", true},
      {R"({"enable_kv_cache_events": true, "publisher": "null"})", "null", false},
      {R"({"enable_kv_cache_events": false})", "null", false},
      {R"({"publisher": "zmq"})", "zmq", false},  // not enabled: vLLM's null publisher
      {R"({})", "null", false},
  };
  for (const Case& c : cases) {
    const KvEventsConfig got = parse(c.json);
    EXPECT_EQ(got.publisher, c.publisher) << c.json;
    EXPECT_EQ(got.publishes(), c.publishes) << c.json;
    EXPECT_EQ(got.endpoint, "tcp://*:5557") << c.json;
    EXPECT_FALSE(got.replay_endpoint.has_value()) << c.json;
    EXPECT_EQ(got.buffer_steps, 10000) << c.json;
    EXPECT_EQ(got.hwm, 100000) << c.json;
    EXPECT_EQ(got.max_queue_size, 100000) << c.json;
    EXPECT_EQ(got.event_format, KvEventFormat::kMap) << c.json;     // vLLM since PR #42892
    EXPECT_EQ(got.replay_layout, KvReplayLayout::kVllm) << c.json;  // [seq, payload]
  }
}

TEST(KvEventsConfig, TheOlderLayoutsAreChosenByLlmservesOwnKeys) {
  struct Case {
    const char* json;
    KvEventFormat format;
    KvReplayLayout layout;
  };
  const Case cases[] = {
      {R"({"event_format": "map"})", KvEventFormat::kMap, KvReplayLayout::kVllm},
      {R"({"event_format": "array"})", KvEventFormat::kArray, KvReplayLayout::kVllm},
      {R"({"replay_layout": "llm-d"})", KvEventFormat::kMap, KvReplayLayout::kTopicFirst},
      {R"({"event_format": "array", "replay_layout": "vllm"})", KvEventFormat::kArray,
       KvReplayLayout::kVllm},
  };
  for (const Case& c : cases) {
    const KvEventsConfig got = parse(c.json);
    EXPECT_EQ(got.event_format, c.format) << c.json;
    EXPECT_EQ(got.replay_layout, c.layout) << c.json;
  }
}

TEST(KvEventsConfig, BadInputNamesTheFlagAndTheKey) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {"{", "--kv-events-config: not valid JSON"},
      {"[1]", "--kv-events-config: must be a JSON object"},
      {R"({"enable_kv_cache_events": "yes"})", "\"enable_kv_cache_events\" must be true or false"},
      {R"({"enable_kv_cache_events": true, "publisher": "kafka"})",
       "\"publisher\" must be \"zmq\" or \"null\", not \"kafka\""},
      {R"({"endpoint": 5557})", "\"endpoint\" must be a string"},
      {R"({"buffer_steps": -1})", "\"buffer_steps\" must be at least 0"},
      {R"({"hwm": 1.5})", "\"hwm\" must be an integer"},
      {R"({"max_queue_size": 0})", "\"max_queue_size\" must be at least 1"},
      {R"({"topik": "x"})", "unknown key \"topik\""},
      {R"({"event_format": "positional"})",
       "\"event_format\" must be \"map\" (vLLM's current events) or \"array\""},
      {R"({"event_format": 1})", "\"event_format\" must be a string"},
      {R"({"replay_layout": "zmq"})", "\"replay_layout\" must be \"vllm\" ([seq, payload]) or"},
      {R"({"enable_kv_cache_events": true, "endpoint": "5557"})",
       "\"endpoint\" must be a tcp://HOST:PORT (PORT up to 65535 or *), ipc:// or inproc:// "
       "address, not \"5557\""},
      {R"({"enable_kv_cache_events": true, "endpoint": "tcp://*:99999"})", "not \"tcp://*:99999\""},
      {R"({"enable_kv_cache_events": true, "endpoint": "tcp://*"})", "not \"tcp://*\""},
      {R"({"enable_kv_cache_events": true, "replay_endpoint": "udp://x:1"})",
       "\"replay_endpoint\" must be a tcp://HOST:PORT"},
  };
  for (const Case& c : cases) {
    try {
      parse(c.json);
      ADD_FAILURE() << "accepted " << c.json;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.json << " -> " << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("--kv-events-config: ", 0), 0u) << e.what();
    }
  }
}

TEST(KvEventsConfig, EndpointsAreOffsetByTheDataParallelRankAsVllmDoes) {
  struct Case {
    const char* endpoint;
    int32_t rank;
    const char* want;
  };
  const Case cases[] = {
      {"tcp://*:5557", 0, "tcp://*:5557"},
      {"tcp://*:5557", 3, "tcp://*:5560"},
      {"tcp://10.0.0.1:6000", 1, "tcp://10.0.0.1:6001"},
      {"inproc://cache", 2, "inproc://cache_dp2"},
      {"ipc:///tmp/kv", 0, "ipc:///tmp/kv"},
      {"tcp://127.0.0.1:*", 2, "tcp://127.0.0.1:*"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(offset_endpoint_port(c.endpoint, c.rank), c.want) << c.endpoint << " " << c.rank;
  }
  EXPECT_THROW(offset_endpoint_port("ipc:///tmp/kv", 1), UsageError);
  EXPECT_THROW(offset_endpoint_port("tcp://host", 1), UsageError);
  EXPECT_THROW(offset_endpoint_port("tcp://*:65535", 1), UsageError);
}

TEST(KvEventsConfig, TheDefaultTopicIsTheOneLlmdParses) {
  EXPECT_EQ(default_kv_events_topic("10.1.2.3", 8000, "Qwen/Qwen3-0.6B"),
            "kv@10.1.2.3:8000@Qwen/Qwen3-0.6B");
}

}  // namespace
}  // namespace llm
