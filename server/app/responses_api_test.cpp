// POST /v1/responses over loopback: the response object, the typed event stream, usage and the
// per-request metrics, the length limit, and the same text as the chat endpoint.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::request;
using testing::start_server;
using testing::test_options;

// The "data:" payloads of an event stream, in order, each checked against its "event:" line.
std::vector<json> stream_events(const std::string& sse) {
  std::vector<json> out;
  size_t pos = 0;
  while ((pos = sse.find("event: ", pos)) != std::string::npos) {
    const size_t nl = sse.find('\n', pos);
    const std::string name = sse.substr(pos + 7, nl - pos - 7);
    const size_t end = sse.find("\n\n", nl);
    out.push_back(json::parse(sse.substr(nl + 7, end - nl - 7)));
    EXPECT_EQ(out.back()["type"], name);
    pos = end;
  }
  return out;
}

TEST(ResponsesApi, NonStreamingGivesTheResponseObjectWithTheChatText) {
  ServerOptions o = test_options();
  o.enable_per_request_metrics = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  const testing::Response r = request(port, "POST", "/v1/responses",
                                      R"({"input":"Hello there","max_output_tokens":4,
                  "instructions":"Be brief."})",
                                      {{"X-Request-Id", "r1"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["id"], "resp_r1");
  EXPECT_EQ(j["object"], "response");
  EXPECT_EQ(j["status"], "incomplete");  // the sim model talks on; 4 tokens cut it
  EXPECT_EQ(j["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(j["usage"]["output_tokens"], 4);
  EXPECT_EQ(j["usage"]["total_tokens"], j["usage"]["input_tokens"].get<int64_t>() + 4);
  EXPECT_TRUE(j["metrics"].is_object());
  EXPECT_EQ(j["metrics"].size(), 5u);
  const std::string text = j["output"][0]["content"][0]["text"];
  // The same prompt through the chat endpoint gives the same tokens.
  const json chat = json::parse(request(port, "POST", "/v1/chat/completions",
                                        R"({"messages":[{"role":"system","content":"Be brief."},
                              {"role":"user","content":"Hello there"}],"max_tokens":4})")
                                    .body);
  EXPECT_EQ(chat["choices"][0]["message"]["content"], text);
  EXPECT_EQ(chat["usage"]["prompt_tokens"], j["usage"]["input_tokens"]);
}

TEST(ResponsesApi, AShortAnswerIsCompleted) {
  auto server = start_server(test_options());
  const json j =
      json::parse(request(server->port(), "POST", "/v1/responses", R"({"input":"x"})").body);
  EXPECT_EQ(j["status"], "completed");
  EXPECT_TRUE(j["incomplete_details"].is_null());
  EXPECT_EQ(j["output"][0]["status"], "completed");
  EXPECT_TRUE(j["metrics"].is_null());  // the flag is off
}

TEST(ResponsesApi, StreamingSendsTheTypedEventsWhoseDeltasMakeTheText) {
  ServerOptions o = test_options();
  o.enable_per_request_metrics = true;
  auto server = start_server(o);
  const testing::Response r =
      request(server->port(), "POST", "/v1/responses",
              R"({"input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]}],
                  "max_output_tokens":5,"stream":true})");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/event-stream; charset=utf-8");
  EXPECT_EQ(r.body.find("[DONE]"), std::string::npos);
  const std::vector<json> e = stream_events(r.body);
  ASSERT_GE(e.size(), 9u);  // eight lifecycle events and the deltas
  std::string deltas;
  size_t n_deltas = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i]["sequence_number"], static_cast<int64_t>(i));
    if (e[i]["type"] == "response.output_text.delta") {
      deltas += e[i]["delta"].get<std::string>();
      ++n_deltas;
    }
  }
  EXPECT_EQ(n_deltas, e.size() - 8);
  EXPECT_EQ(e[0]["type"], "response.created");
  EXPECT_EQ(e[1]["type"], "response.in_progress");
  EXPECT_EQ(e[2]["type"], "response.output_item.added");
  EXPECT_EQ(e[3]["type"], "response.content_part.added");
  const json& last = e.back();
  EXPECT_EQ(last["type"], "response.incomplete");
  EXPECT_EQ(e[e.size() - 4]["text"], deltas);
  EXPECT_EQ(last["response"]["output"][0]["content"][0]["text"], deltas);
  EXPECT_EQ(last["response"]["usage"]["output_tokens"], 5);
  EXPECT_TRUE(last["response"]["metrics"].is_object());
}

TEST(ResponsesApi, TheOpeningEventsGoOutBeforeTheFirstToken) {
  ServerOptions o = test_options();
  o.step_time_scale = 200;  // the first step takes about a second of wall time
  auto server = start_server(o);
  testing::Connection c(server->port());
  c.send_request("POST", "/v1/responses", R"({"input":"Hi","max_output_tokens":2,"stream":true})");
  ASSERT_TRUE(c.read_until("response.in_progress")) << c.raw();
  // A client timing the stream sees the response begin at once, as vLLM's does.
  EXPECT_EQ(c.raw().find("response.output_text.delta"), std::string::npos) << c.raw();
  ASSERT_TRUE(c.read_until("response.incomplete")) << c.raw();
}

TEST(ResponsesApi, UnsupportedPartsAre400s) {
  auto server = start_server(test_options());
  const testing::Response r = request(server->port(), "POST", "/v1/responses",
                                      R"({"input":"a","tools":[{"type":"web_search"}]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "tools");
  EXPECT_EQ(request(server->port(), "GET", "/v1/responses").status, 405);
}

}  // namespace
}  // namespace llm
