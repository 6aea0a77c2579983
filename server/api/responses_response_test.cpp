#include "server/api/responses_response.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace llm {
namespace {

using json = nlohmann::json;

struct Event {
  std::string name;  // the "event:" line
  json data;
};

// Splits "event: T\ndata: {...}\n\n" frames; fails the test on any other framing.
std::vector<Event> events(const std::string& sse) {
  std::vector<Event> out;
  size_t pos = 0;
  while (pos < sse.size()) {
    const size_t end = sse.find("\n\n", pos);
    EXPECT_NE(end, std::string::npos) << "unterminated frame";
    if (end == std::string::npos) break;
    const std::string frame = sse.substr(pos, end - pos);
    const size_t nl = frame.find('\n');
    EXPECT_EQ(frame.rfind("event: ", 0), 0u) << frame;
    EXPECT_EQ(frame.compare(nl + 1, 6, "data: "), 0) << frame;
    out.push_back({frame.substr(7, nl - 7), json::parse(frame.substr(nl + 7))});
    pos = end + 2;
  }
  return out;
}

CompletionRequest request_with(std::optional<int64_t> max_tokens) {
  CompletionRequest r;
  r.endpoint = Endpoint::kResponses;
  r.max_tokens = max_tokens;
  r.temperature = 0.5;
  r.responses.instructions = "Be brief.";
  r.responses.metadata_json = R"({"k":"v"})";
  return r;
}

TEST(ResponsesResponse, BodyHasOpenAisShapeUsageAndMetricsKey) {
  const CompletionRequest req = request_with(std::nullopt);
  const ResponsesHead head{"resp_1", "msg_1", 42, "m", &req};
  const json j = json::parse(
      build_responses_body(head, {"Hello.", false, 9, 4, 3, std::nullopt}, std::nullopt));
  EXPECT_EQ(j["id"], "resp_1");
  EXPECT_EQ(j["object"], "response");
  EXPECT_EQ(j["created_at"], 42);
  EXPECT_EQ(j["status"], "completed");
  EXPECT_TRUE(j["incomplete_details"].is_null());
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["instructions"], "Be brief.");
  EXPECT_TRUE(j["max_output_tokens"].is_null());
  EXPECT_EQ(j["temperature"], 0.5);
  EXPECT_EQ(j["metadata"], json::parse(R"({"k":"v"})"));
  ASSERT_EQ(j["output"].size(), 1u);
  const json& item = j["output"][0];
  EXPECT_EQ(item["type"], "message");
  EXPECT_EQ(item["id"], "msg_1");
  EXPECT_EQ(item["status"], "completed");
  EXPECT_EQ(item["role"], "assistant");
  EXPECT_EQ(item["content"], json::parse(R"([{"type":"output_text","text":"Hello.",
                                              "annotations":[],"logprobs":[]}])"));
  EXPECT_EQ(j["usage"], json::parse(R"({"input_tokens":9,"input_tokens_details":
      {"cached_tokens":4},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},
      "total_tokens":12})"));
  ASSERT_TRUE(j.contains("metrics"));
  EXPECT_TRUE(j["metrics"].is_null());
}

TEST(ResponsesResponse, CacheWriteTokensAppearOnlyWhenPromptTokensDetailsAreOn) {
  const CompletionRequest req = request_with(std::nullopt);
  const ResponsesHead head{"resp_1", "msg_1", 42, "m", &req};
  ResponsesOutcome outcome{"Hi.", false, 40, 16, 2, std::nullopt};
  EXPECT_FALSE(json::parse(build_responses_body(head, outcome,
                                                std::nullopt))["usage"]["input_tokens_details"]
                   .contains("cache_write_tokens"));
  outcome.cache_write_tokens = 16;
  const json j = json::parse(build_responses_body(head, outcome, std::nullopt));
  EXPECT_EQ(j["usage"]["input_tokens_details"],
            json::parse(R"({"cached_tokens":16,"cache_write_tokens":16})"));
}

TEST(ResponsesResponse, TheLengthLimitMakesItIncomplete) {
  const CompletionRequest req = request_with(5);
  const ResponsesHead head{"resp_1", "msg_1", 42, "m", &req};
  const json j =
      json::parse(build_responses_body(head, {"a b", true, 3, 0, 5, std::nullopt}, std::nullopt));
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["incomplete_details"], json::parse(R"({"reason":"max_output_tokens"})"));
  EXPECT_EQ(j["output"][0]["status"], "incomplete");
  EXPECT_EQ(j["max_output_tokens"], 5);
}

TEST(ResponsesResponse, StreamIsTheTypedEventSequenceWithSequenceNumbers) {
  const CompletionRequest req = request_with(std::nullopt);
  ResponsesEventWriter w({"resp_1", "msg_1", 42, "m", &req});
  std::string out;
  w.append_start(out);
  w.append_text_delta(out, "Hel");
  w.append_text_delta(out, "lo \"x\"");
  PerRequestMetrics m;
  m.time_to_first_token_ms = 1.5;  // the other fields null: dropped in the stream
  const std::optional<PerRequestMetrics> metrics = m;
  w.append_finish(out, {"Hello \"x\"", false, 9, 0, 2, std::nullopt}, &metrics);
  const std::vector<Event> e = events(out);
  const std::vector<std::string> expected = {
      "response.created",           "response.in_progress",
      "response.output_item.added", "response.content_part.added",
      "response.output_text.delta", "response.output_text.delta",
      "response.output_text.done",  "response.content_part.done",
      "response.output_item.done",  "response.completed"};
  ASSERT_EQ(e.size(), expected.size());
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].name, expected[i]);
    EXPECT_EQ(e[i].data["type"], expected[i]);
    EXPECT_EQ(e[i].data["sequence_number"], static_cast<int64_t>(i));
  }
  EXPECT_EQ(e[0].data["response"]["status"], "in_progress");
  EXPECT_TRUE(e[0].data["response"]["output"].empty());
  EXPECT_TRUE(e[0].data["response"]["usage"].is_null());
  EXPECT_EQ(e[2].data["item"]["status"], "in_progress");
  EXPECT_EQ(e[3].data["item_id"], "msg_1");
  EXPECT_EQ(e[3].data["part"]["text"], "");
  EXPECT_EQ(e[4].data["delta"].get<std::string>() + e[5].data["delta"].get<std::string>(),
            "Hello \"x\"");
  EXPECT_EQ(e[4].data["output_index"], 0);
  EXPECT_EQ(e[4].data["content_index"], 0);
  EXPECT_EQ(e[6].data["text"], "Hello \"x\"");
  EXPECT_EQ(e[7].data["part"]["text"], "Hello \"x\"");
  EXPECT_EQ(e[8].data["item"]["content"][0]["text"], "Hello \"x\"");
  const json& done = e[9].data["response"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["usage"]["output_tokens"], 2);
  EXPECT_EQ(done["metrics"], json::parse(R"({"time_to_first_token_ms":1.5})"));
}

TEST(ResponsesResponse, StreamEndsWithIncompleteOrAnErrorEvent) {
  const CompletionRequest req = request_with(2);
  ResponsesEventWriter w({"resp_1", "msg_1", 42, "m", &req});
  std::string out;
  w.append_start(out);
  w.append_finish(out, {"a b", true, 3, 0, 2, std::nullopt}, nullptr);
  const std::vector<Event> e = events(out);
  EXPECT_EQ(e.back().name, "response.incomplete");
  EXPECT_EQ(e.back().data["response"]["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_FALSE(e.back().data["response"].contains("metrics")) << "metrics off: no key";

  ResponsesEventWriter failing({"resp_2", "msg_2", 42, "m", &req});
  std::string err;
  failing.append_start(err);
  failing.append_error(err, ApiError{500, "engine failed", "", ""});
  const std::vector<Event> f = events(err);
  EXPECT_EQ(f.back().name, "error");
  EXPECT_EQ(f.back().data, json::parse(R"({"type":"error","sequence_number":4,
      "code":"server_error","message":"engine failed","param":null})"));
}

}  // namespace
}  // namespace llm
