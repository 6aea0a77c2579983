#include "server/api/logprobs_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "server/text/sim_text_codec.h"

namespace llm {
namespace {

using ordered_json = nlohmann::ordered_json;

ShownToken tok(int32_t id, std::string text, double logprob, int64_t rank) {
  return {id, std::move(text), logprob, rank};
}

// " a" (id 1, rank 2) chosen; the top-2 are "é" (id 2) and " a" itself.
ShownPosition scored() {
  ShownPosition p;
  p.token = " a";
  p.logprob = -1.25;
  p.entries = {tok(1, " a", -1.25, 2), tok(2, "\xC3\xA9", -0.5, 1)};
  return p;
}

TEST(LogprobsJson, CompletionsObjectHasOpenAIsFourListsWithNullForTheFirstPromptToken) {
  ShownPosition first;
  first.token = "Hi";
  const std::vector<ShownPosition> positions = {first, scored()};
  std::string out;
  append_completion_logprobs(out, positions, 3);
  const ordered_json j = ordered_json::parse(out);
  EXPECT_EQ(j.dump(), R"({"text_offset":[3,5],"token_logprobs":[null,-1.25],"tokens":["Hi"," a"],)"
                      R"("top_logprobs":[null,{" a":-1.25,"é":-0.5}]})");
}

TEST(LogprobsJson, CompletionsTopTokensThatDecodeAlikeShareOneKey) {
  ShownPosition p = scored();
  p.entries.push_back(tok(7, " a", -3.0, 2));  // another id with the same text
  std::string out;
  append_completion_logprobs(out, std::vector<ShownPosition>{p}, 0);
  const ordered_json top = ordered_json::parse(out)["top_logprobs"][0];
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top.begin().key(), " a");  // the first one's place, the last one's value
  EXPECT_EQ(top[" a"], -3.0);
}

TEST(LogprobsJson, TextOffsetCountsCodePointsNotBytes) {
  ShownPosition a = scored();
  a.token = "\xC3\xA9\xC3\xA9";  // two code points, four bytes
  std::string out;
  append_completion_logprobs(out, std::vector<ShownPosition>{a, scored()}, 0);
  EXPECT_EQ(ordered_json::parse(out)["text_offset"], ordered_json::parse("[0,2]"));
}

TEST(LogprobsJson, ChatContentListsTheFirstKEntriesWithBytes) {
  const std::vector<ShownPosition> positions = {scored()};
  struct Row {
    int32_t k;
    const char* top;
  };
  for (const Row& row :
       {Row{0, "[]"}, Row{1, R"([{"token":" a","logprob":-1.25,"bytes":[32,97]}])"},
        Row{5, R"([{"token":" a","logprob":-1.25,"bytes":[32,97]},)"
               R"({"token":"é","logprob":-0.5,"bytes":[195,169]}])"}}) {
    std::string out;
    append_chat_logprobs(out, positions, row.k);
    const ordered_json j = ordered_json::parse(out);
    EXPECT_EQ(j["content"][0]["token"], " a");
    EXPECT_EQ(j["content"][0]["logprob"], -1.25);
    EXPECT_EQ(j["content"][0]["bytes"], ordered_json::parse("[32,97]"));
    EXPECT_EQ(j["content"][0]["top_logprobs"], ordered_json::parse(row.top)) << "k " << row.k;
  }
}

TEST(LogprobsJson, MinusInfinityPrintsAsOpenAIsLowestValue) {
  ShownPosition p = scored();
  p.logprob = -INFINITY;
  p.entries[0].logprob = -INFINITY;
  std::string chat, completions;
  append_chat_logprobs(chat, std::vector<ShownPosition>{p}, 1);
  append_completion_logprobs(completions, std::vector<ShownPosition>{p}, 0);
  EXPECT_EQ(ordered_json::parse(chat)["content"][0]["logprob"], -9999.0);
  EXPECT_EQ(ordered_json::parse(completions)["token_logprobs"][0], -9999.0);
}

TEST(LogprobsJson, PromptLogprobsAreVllmsListOfDictsByTokenId) {
  std::string out;
  append_prompt_logprobs(out, std::vector<ShownPosition>{scored()});
  EXPECT_EQ(ordered_json::parse(out).dump(),
            R"([null,{"1":{"logprob":-1.25,"rank":2,"decoded_token":" a"},)"
            R"("2":{"logprob":-0.5,"rank":1,"decoded_token":"é"}}])");
}

TEST(LogprobsJson, ShowPositionListsTheTokenFirstThenTheOthersByRank) {
  const SimTextCodec codec(1000);
  PositionLogprobs p;
  p.token = 5;
  p.logprob = -2.0f;
  p.rank = 3;
  p.top = {{9, -0.5f}, {8, -1.0f}, {5, -2.0f}};
  const ShownPosition s = show_position(p, codec);
  EXPECT_EQ(s.token, codec.decode({5}));
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[0].id, 5);
  EXPECT_EQ(s.entries[0].rank, 3);
  EXPECT_EQ(s.entries[1].id, 9);
  EXPECT_EQ(s.entries[1].rank, 1);
  EXPECT_EQ(s.entries[2].id, 8);
  EXPECT_EQ(s.entries[2].rank, 2);
  EXPECT_FALSE(show_unscored(5, codec).logprob.has_value());
}

TEST(LogprobsJson, IllFormedUtf8BecomesTheReplacementCharacter) {
  EXPECT_EQ(valid_utf8("a\xC3"), "a\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("\xE2\x82\xAC"), "\xE2\x82\xAC");
  EXPECT_EQ(code_points("a\xEF\xBF\xBD\xE2\x82\xAC"), 3);
}

}  // namespace
}  // namespace llm
