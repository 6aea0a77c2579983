#include "server/kv_events/kv_events_config.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "core/flag_values.h"

namespace llm {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& flag, const std::string& what) {
  throw UsageError(flag + ": " + what);
}

std::string text_field(const std::string& flag, const std::string& key, const json& v) {
  if (!v.is_string()) fail(flag, "\"" + key + "\" must be a string");
  return v.get<std::string>();
}

int64_t count_field(const std::string& flag, const std::string& key, const json& v, int64_t min) {
  if (!v.is_number_integer()) fail(flag, "\"" + key + "\" must be an integer");
  const int64_t n = v.get<int64_t>();
  if (n < min) fail(flag, "\"" + key + "\" must be at least " + std::to_string(min));
  return n;
}

// A tcp endpoint's port: "*" or a number up to 65535 (ZeroMQ would wrap a larger one).
bool valid_tcp_port(const std::string& e) {
  const size_t colon = e.rfind(':');
  if (colon < std::char_traits<char>::length("tcp://")) return false;
  const std::string port = e.substr(colon + 1);
  if (port == "*") return true;
  int n = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), n);
  return !port.empty() && error == std::errc() && end == port.data() + port.size() && n >= 0 &&
         n <= 65535;
}

bool is_zmq_endpoint(const std::string& e) {
  if (e.rfind("tcp://", 0) == 0) return valid_tcp_port(e);
  for (const char* scheme : {"ipc://", "inproc://"}) {
    if (e.rfind(scheme, 0) == 0 && e.size() > std::char_traits<char>::length(scheme)) return true;
  }
  return false;
}

}  // namespace

KvEventsConfig parse_kv_events_config(const std::string& json_text, const std::string& flag) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    fail(flag, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail(flag, "must be a JSON object");
  KvEventsConfig c;
  std::optional<std::string> publisher;
  for (const auto& [key, v] : j.items()) {
    if (key == "enable_kv_cache_events") {
      if (!v.is_boolean()) fail(flag, "\"enable_kv_cache_events\" must be true or false");
      c.enable_kv_cache_events = v.get<bool>();
    } else if (key == "publisher") {
      if (!v.is_null()) publisher = text_field(flag, key, v);
    } else if (key == "endpoint") {
      c.endpoint = text_field(flag, key, v);
    } else if (key == "replay_endpoint") {
      if (!v.is_null()) c.replay_endpoint = text_field(flag, key, v);
    } else if (key == "buffer_steps") {
      c.buffer_steps = count_field(flag, key, v, 0);
    } else if (key == "hwm") {
      c.hwm = count_field(flag, key, v, 0);
    } else if (key == "max_queue_size") {
      // vLLM's Queue(maxsize=0) is unbounded; llmserve's queue is always bounded.
      c.max_queue_size = count_field(flag, key, v, 1);
    } else if (key == "topic") {
      c.topic = text_field(flag, key, v);
    } else if (key == "event_format") {
      const std::string f = text_field(flag, key, v);
      if (f != "map" && f != "array") {
        fail(flag,
             "\"event_format\" must be \"map\" (vLLM's current events) or \"array\" "
             "(vLLM's positional events before PR #42892), not \"" +
                 f + "\"");
      }
      c.event_format = f == "map" ? KvEventFormat::kMap : KvEventFormat::kArray;
    } else if (key == "replay_layout") {
      const std::string l = text_field(flag, key, v);
      if (l != "vllm" && l != "llm-d") {
        fail(flag,
             "\"replay_layout\" must be \"vllm\" ([seq, payload]) or \"llm-d\" "
             "([topic, seq, payload]), not \"" +
                 l + "\"");
      }
      c.replay_layout = l == "vllm" ? KvReplayLayout::kVllm : KvReplayLayout::kTopicFirst;
    } else {
      fail(flag, "unknown key \"" + key +
                     "\" (known: enable_kv_cache_events, publisher, endpoint, replay_endpoint, "
                     "buffer_steps, hwm, max_queue_size, topic, event_format, replay_layout)");
    }
  }
  c.publisher = publisher.value_or(c.enable_kv_cache_events ? "zmq" : "null");
  if (c.publisher != "zmq" && c.publisher != "null") {
    fail(flag, "\"publisher\" must be \"zmq\" or \"null\", not \"" + c.publisher + "\"");
  }
  if (c.publishes()) {
    if (!is_zmq_endpoint(c.endpoint)) {
      fail(flag,
           "\"endpoint\" must be a tcp://HOST:PORT (PORT up to 65535 or *), ipc:// or "
           "inproc:// address, not \"" +
               c.endpoint + "\"");
    }
    if (c.replay_endpoint && !is_zmq_endpoint(*c.replay_endpoint)) {
      fail(flag,
           "\"replay_endpoint\" must be a tcp://HOST:PORT (PORT up to 65535 or *), "
           "ipc:// or inproc:// address, not \"" +
               *c.replay_endpoint + "\"");
    }
  }
  return c;
}

std::string offset_endpoint_port(const std::string& endpoint, int32_t rank) {
  if (rank == 0) return endpoint;
  if (endpoint.find("inproc") != std::string::npos) {
    return endpoint + "_dp" + std::to_string(rank);
  }
  if (endpoint.find("tcp") == std::string::npos) {
    throw UsageError("KV events endpoint " + endpoint +
                     ": with --data-parallel-size > 1 it must be tcp:// or inproc:// (each "
                     "engine offsets it by its rank)");
  }
  const size_t colon = endpoint.rfind(':');
  const std::string port_text = colon == std::string::npos ? "" : endpoint.substr(colon + 1);
  if (port_text == "*") return endpoint;  // ZeroMQ picks a free port for each rank
  int port = 0;
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (colon == std::string::npos || error != std::errc() ||
      end != port_text.data() + port_text.size() || port + rank > 65535) {
    throw UsageError("KV events endpoint " + endpoint +
                     ": needs a numeric port that each data-parallel rank can offset");
  }
  return endpoint.substr(0, colon + 1) + std::to_string(port + rank);
}

std::string default_kv_events_topic(const std::string& pod, int port, const std::string& model) {
  return "kv@" + pod + ":" + std::to_string(port) + "@" + model;
}

}  // namespace llm
