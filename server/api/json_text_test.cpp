// JSON text of bytes that may not be UTF-8: well-formedness (a table of the edge cases), safe
// dumps, and naming the request field that holds ill-formed text.
#include "server/api/json_text.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(JsonText, Utf8WellFormednessAtEveryEdge) {
  struct Case {
    std::string text;
    size_t first_invalid;
  };
  const size_t ok = std::string_view::npos;
  const Case cases[] = {
      {"", ok},
      {"plain ascii", ok},
      {"\xc3\xa9t\xc3\xa9", ok},     // é
      {"\xe6\xbc\xa2", ok},          // 漢
      {"\xf0\x9f\x98\x80", ok},      // U+1F600
      {"\xf4\x8f\xbf\xbf", ok},      // U+10FFFF, the last code point
      {"\xed\x9f\xbf", ok},          // U+D7FF, just below the surrogates
      {"a\xff", 1},                  // never a UTF-8 byte
      {"\xc3", 0},                   // truncated 2-byte sequence
      {"ab\xe6\xbc", 2},             // truncated 3-byte sequence
      {"\xc3\x28", 0},               // bad continuation byte
      {"\x80", 0},                   // lone continuation byte
      {"\xc0\xaf", 0},               // overlong '/'
      {"\xe0\x80\xaf", 0},           // overlong, 3 bytes
      {"\xf0\x80\x80\xaf", 0},       // overlong, 4 bytes
      {"\xed\xa0\x80", 0},           // U+D800, a surrogate
      {"\xf4\x90\x80\x80", 0},       // U+110000, past the last code point
      {"\xf8\x88\x80\x80\x80", 0},   // 5-byte form
      {std::string("a\0b", 3), ok},  // NUL is well-formed
  };
  for (const Case& c : cases) {
    EXPECT_EQ(first_invalid_utf8(c.text), c.first_invalid) << testing::PrintToString(c.text);
    EXPECT_EQ(is_valid_utf8(c.text), c.first_invalid == ok);
  }
}

TEST(JsonText, DumpsReplaceIllFormedBytesInsteadOfThrowing) {
  nlohmann::json j;
  j["text"] = std::string(
      "a\xff"
      "b\xc3");
  j["\xfe key"] = 1;
  const std::string out = dump_json(j);
  EXPECT_TRUE(is_valid_utf8(out));
  EXPECT_EQ(nlohmann::json::parse(out)["text"],
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd");
  EXPECT_EQ(json_string_literal("x\"\xff"), "\"x\\\"\xef\xbf\xbd\"");
  nlohmann::ordered_json o;
  o["m"] = std::string("\xed\xa0\x80");
  EXPECT_TRUE(is_valid_utf8(dump_json(o, 2)));
}

TEST(JsonText, TheFieldHoldingIllFormedTextIsNamedByItsPath) {
  EXPECT_EQ(invalid_utf8_field(R"({"prompt": "fine", "n": 1})"), std::nullopt);
  EXPECT_EQ(invalid_utf8_field("{\"prompt\": \"bad\xff\"}"), "prompt");
  EXPECT_EQ(invalid_utf8_field("{\"stop\": [\"ok\", \"\xc3\"]}"), "stop[1]");
  EXPECT_EQ(invalid_utf8_field("{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}, "
                               "{\"role\": \"user\", \"content\": \"\xed\xa0\x80\"}]}"),
            "messages[1].content");
  EXPECT_EQ(invalid_utf8_field("{\"a\": {\"k\xff\": 1}}"), "a.k\xef\xb7\x90");  // a key
  EXPECT_EQ(invalid_utf8_field("{\xff: 1}"), "");  // outside any string: not JSON either
}

}  // namespace
}  // namespace llm
