#include "telemetry/trace_context.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

struct TraceParentCase {
  const char* header;
  bool valid;
  const char* why;
};

TEST(TraceParent, FollowsTheW3CRules) {
  const TraceParentCase cases[] = {
      {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", true, "the spec's example"},
      {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", true, "not sampled"},
      {"00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01", false, "uppercase hex"},
      {"00-00000000000000000000000000000000-b7ad6b7169203331-01", false, "zero trace id"},
      {"00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", false, "zero parent id"},
      {"ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false, "version ff"},
      {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x", false, "00 with more"},
      {"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what", true, "future, more"},
      {"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", true, "future, exact"},
      {"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x", false, "future, no dash"},
      {"0g-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false, "bad version hex"},
      {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0", false, "short"},
      {"00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false, "bad separator"},
      {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333z-01", false, "bad parent hex"},
      {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0g", false, "bad flags hex"},
      {"", false, "absent"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(parse_traceparent(c.header).has_value(), c.valid) << c.why << ": " << c.header;
  }
}

TEST(TraceParent, ParsesTheIdsAndFlags) {
  auto t = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03");
  ASSERT_TRUE(t);
  EXPECT_EQ(to_hex(t->trace_id), "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(to_hex(t->parent_id), "b7ad6b7169203331");
  EXPECT_EQ(t->flags, 3);
  EXPECT_TRUE(t->sampled());
  EXPECT_FALSE(
      parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-02")->sampled());
}

TEST(TraceParent, FormatRoundTrips) {
  const std::string h = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  auto t = parse_traceparent(h);
  ASSERT_TRUE(t);
  EXPECT_EQ(format_traceparent(t->trace_id, t->parent_id, t->flags), h);
}

TEST(TraceState, KeepsValidListsAndDropsInvalidOnes) {
  const std::pair<const char*, const char*> cases[] = {
      {"congo=t61rcWkgMzE", "congo=t61rcWkgMzE"},
      {"  rojo=00f067aa0ba902b7,congo=t61rcWkgMzE ", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"},
      {"rojo=1, ,congo=2", "rojo=1, ,congo=2"},
      {"tenant@system=v", "tenant@system=v"},
      {"1tenant@sys=v", "1tenant@sys=v"},
      {"Upper=v", ""},
      {"novalue", ""},
      {"k=", ""},
      {"k=a=b", ""},
      {"k=trailing ", "k=trailing"},  // the trailing blank is OWS around the list, trimmed
      {"k=v\x01", ""},
      {"t@Sys=v", ""},
      {"", ""},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(valid_tracestate(in), want) << in;
  std::string many;
  for (int i = 0; i < 33; ++i) many += (i ? ",k" : "k") + std::to_string(i) + "=v";
  EXPECT_EQ(valid_tracestate(many), "") << "33 members";
  const std::string member(200, 'v');
  EXPECT_NE(valid_tracestate("a=" + member + ",b=" + member), "") << "402 characters";
  EXPECT_EQ(valid_tracestate("a=" + member + ",b=" + member + ",c=" + member), "") << "over 512";
}

}  // namespace
}  // namespace llm
