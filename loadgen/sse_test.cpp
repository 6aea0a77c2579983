#include "loadgen/sse.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace llm::loadgen {
namespace {

struct Event {
  std::string name;
  std::string data;
  bool operator==(const Event&) const = default;
};

std::vector<Event> feed_pieces(const std::vector<std::string>& pieces, bool finish = true) {
  SseParser parser;
  std::vector<Event> out;
  auto on = [&](std::string_view name, std::string_view data) {
    out.push_back({std::string(name), std::string(data)});
  };
  for (const auto& p : pieces) parser.feed(p, on);
  if (finish) parser.finish(on);
  return out;
}

RC_GTEST_PROP(SseParserProperty, AnySplitGivesTheSameEvents, ()) {
  // Payloads without line breaks, like the JSON chunks of OpenAI servers, and [DONE].
  const auto payloads = *rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
      rc::gen::just(std::string("[DONE]")),
      rc::gen::map(rc::gen::container<std::string>(rc::gen::elementOf(std::string(
                       "abc {}\":,\\data: xyz0123456789\r"))),
                   [](std::string s) {
                     // A bare CR inside a line would end it for a strict SSE parser; keep it out.
                     std::erase(s, '\r');
                     return s;
                   })));
  const bool crlf = *rc::gen::arbitrary<bool>();
  const bool comments = *rc::gen::arbitrary<bool>();
  const std::string eol = crlf ? "\r\n" : "\n";
  std::string stream;
  std::vector<Event> expected;
  for (size_t i = 0; i < payloads.size(); ++i) {
    if (comments && i % 2 == 0) stream += ": keep-alive" + eol;
    const bool named = i % 3 == 2;
    if (named) stream += "event: error" + eol;
    stream += "data: " + payloads[i] + eol + eol;
    expected.push_back({named ? "error" : "", payloads[i]});
  }
  // Split at random points, including inside "\r\n" and "data:".
  std::vector<std::string> pieces;
  size_t pos = 0;
  while (pos < stream.size()) {
    const size_t len = *rc::gen::inRange<size_t>(1, std::min<size_t>(stream.size() - pos, 40) + 1);
    pieces.push_back(stream.substr(pos, len));
    pos += len;
  }
  RC_ASSERT(feed_pieces(pieces) == expected);
  RC_ASSERT(feed_pieces({stream}) == expected);  // every event in one read
}

TEST(SseParser, MultipleDataLinesAreJoined) {
  EXPECT_EQ(feed_pieces({"data: a\ndata:b\n\n"}), (std::vector<Event>{{"", "a\nb"}}));
}

TEST(SseParser, CommentsAndUnknownFieldsAreIgnored) {
  EXPECT_EQ(feed_pieces({": hi\nid: 3\nretry: 10\n\ndata: x\n\n"}), (std::vector<Event>{{"", "x"}}));
}

TEST(SseParser, FinishFlushesAnUnterminatedEvent) {
  EXPECT_EQ(feed_pieces({"data: [DO", "NE]"}), (std::vector<Event>{{"", "[DONE]"}}));
  EXPECT_TRUE(feed_pieces({"data: [DO", "NE]"}, /*finish=*/false).empty());
}

TEST(SseParser, ManyEventsInOneRead) {
  std::string s;
  for (int i = 0; i < 100; ++i) s += "data: {\"i\":" + std::to_string(i) + "}\n\n";
  const auto events = feed_pieces({s});
  ASSERT_EQ(events.size(), 100u);
  EXPECT_EQ(events[42].data, "{\"i\":42}");
}

struct ScanCase {
  const char* json;
  bool content;
  bool usage;
  int64_t prompt;
  int64_t completion;
  bool error;
};

TEST(ScanChunk, Table) {
  const ScanCase cases[] = {
      {R"({"choices":[{"index":0,"text":" hi","finish_reason":null}]})", true, false, -1, -1, false},
      {R"({"choices":[{"index":0,"text":"","finish_reason":"length"}]})", false, false, -1, -1, false},
      {R"({"choices":[{"delta":{"role":"assistant","content":""}}]})", false, false, -1, -1, false},
      {R"({"choices":[{"delta":{"content":null}}]})", false, false, -1, -1, false},
      {R"({"choices":[{"delta":{"content":"x"}}]})", true, false, -1, -1, false},
      {R"({"choices": [{"text" : "a"}], "usage": null})", true, false, -1, -1, false},
      {R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}})", false, true, 12, 34, false},
      {R"({ "usage" : { "completion_tokens" : 7 , "prompt_tokens" : 3 } })", false, true, 3, 7, false},
      // key names inside a string value do not count
      {R"({"choices":[{"text":"\"usage\":{\"completion_tokens\":9} \"error\":1"}]})", true, false, -1, -1, false},
      {R"({"error":{"message":"boom","code":500}})", false, false, -1, -1, true},
      {R"({"object":"error","message":"bad","type":"BadRequestError","code":400})", false, false, -1, -1, true},
      {R"({"choices":[{"text":"a"}],"error":null})", true, false, -1, -1, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    const ChunkInfo info = scan_chunk(c.json);
    EXPECT_EQ(info.has_content, c.content);
    EXPECT_EQ(info.has_usage, c.usage);
    EXPECT_EQ(info.prompt_tokens, c.prompt);
    EXPECT_EQ(info.completion_tokens, c.completion);
    EXPECT_EQ(info.is_error, c.error);
  }
}

TEST(ErrorMessage, PicksTheMessage) {
  EXPECT_EQ(error_message(R"({"error":{"message":"boom"}})"), "boom");
  EXPECT_EQ(error_message(R"({"object":"error","message":"bad"})"), "bad");
  EXPECT_EQ(error_message(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(error_message("plain text"), "plain text");
}

}  // namespace
}  // namespace llm::loadgen
