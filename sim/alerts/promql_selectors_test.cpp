// The vector selectors of PromQL expressions, with the window each evaluation reads: table tests
// over the expressions of monitoring/prometheus-rules.yml and the corners of the syntax (label
// lists, functions, keywords, offsets, subqueries, strings, comments).
#include "sim/alerts/promql_selectors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/alerts/promql_tokens.h"

namespace llm {
namespace {

constexpr int64_t kMin = 60'000'000'000;

struct SelectorWant {
  std::string text;
  int64_t window_ns;
  bool operator==(const SelectorWant&) const = default;
};

std::vector<SelectorWant> selectors_of(const std::string& expr) {
  std::vector<SelectorWant> out;
  for (const PromSelector& s : promql_selectors(expr)) out.push_back({s.text, s.window_ns});
  return out;
}

std::ostream& operator<<(std::ostream& os, const SelectorWant& w) {
  return os << w.text << " [" << w.window_ns / 1'000'000'000 << "s]";
}

TEST(PromqlSelectors, SelectorsAndTheirWindows) {
  struct Row {
    const char* expr;
    std::vector<SelectorWant> want;
  };
  const Row rows[] = {
      {"up{job=\"vllm\"} == 0", {{"up{job=\"vllm\"}", 0}}},
      {"vllm:num_requests_waiting > 10", {{"vllm:num_requests_waiting", 0}}},
      {"avg_over_time(vllm:kv_cache_usage_perc[5m]) > 0.9",
       {{"vllm:kv_cache_usage_perc", 5 * kMin}}},
      {"rate(vllm:num_preemptions[5m]) * 60 > 1", {{"vllm:num_preemptions", 5 * kMin}}},
      // Aggregations with label lists before or after, and a ratio of two selectors.
      {"sum by (model_name) (rate(vllm:time_to_first_token_seconds_bucket{le=\"1.0\"}[5m]))\n"
       "/\nsum(rate(vllm:time_to_first_token_seconds_count[30m])) by (model_name)",
       {{"vllm:time_to_first_token_seconds_bucket{le=\"1.0\"}", 5 * kMin},
        {"vllm:time_to_first_token_seconds_count", 30 * kMin}}},
      // Vector matching keywords with label lists; bool; and/or/unless.
      {"a > on(instance) group_left(model_name) b and c unless ignoring(x) d or e > bool 1",
       {{"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"e", 0}}},
      {"x * on (instance) group_left y", {{"x", 0}, {"y", 0}}},
      // Matchers only, regexes, strings with braces, the same selector twice (the longest window).
      {"{__name__=~\"vllm:.*\", engine!=\"}\"} + rate(z[1m]) + z[10m:1m]",
       {{"{__name__=~\"vllm:.*\", engine!=\"}\"}", 0}, {"z", 10 * kMin}}},
      // Subqueries add their range to every selector inside; offsets and @ are not selectors.
      {"max_over_time(rate(x[5m])[1h:1m]) > y offset 5m and w @ 1700000000 and v offset -1m",
       {{"x", 65 * kMin}, {"y", 0}, {"w", 0}, {"v", 0}}},
      {"(a + b[2m])[30m:]", {{"a", 30 * kMin}, {"b", 32 * kMin}}},
      // Functions with string and number arguments; absent; label_replace of an inlined rule.
      {"label_replace((sum(rate(http_requests_total{status=\"5xx\"}[5m]))), \"a\", \"b\", \"\", "
       "\"\") > 0.05 or absent(up{job=\"vllm\"}) or vector(1) or time() > 1e+3",
       {{"http_requests_total{status=\"5xx\"}", 5 * kMin}, {"up{job=\"vllm\"}", 0}}},
      {"topk(3, x) or quantile(0.9, y) or count_values(\"v\", z) or histogram_quantile(0.99, "
       "sum by (le) (rate(h_bucket[1h30m])))",
       {{"x", 0}, {"y", 0}, {"z", 0}, {"h_bucket", 90 * kMin}}},
      // Numbers spelled as words, comments, a keyword-named label in a matcher.
      {"x > Inf or y < NaN # z is a comment\n or w{by=\"on\"}",
       {{"x", 0}, {"y", 0}, {"w{by=\"on\"}", 0}}},
      {"1 + 2", {}},
  };
  for (const Row& r : rows) EXPECT_EQ(selectors_of(r.expr), r.want) << r.expr;
}

TEST(PromqlTokens, StringsNumbersAndIdentifiersAreWhole) {
  const std::string expr = "a:b_1{x=\"q\\\"}\"} 1e-3 0x1e-1 5m '\\'' `raw\\` # c\n.5";
  std::vector<std::string> texts;
  for (const PromToken& t : promql_tokens(expr)) {
    texts.push_back(expr.substr(t.begin, t.end - t.begin));
  }
  const std::vector<std::string> want = {"a:b_1", "{", "x", "=",  "\"q\\\"}\"", "}",       "1e-3",
                                         "0x1e",  "-", "1", "5m", "'\\''",      "`raw\\`", ".5"};
  EXPECT_EQ(texts, want);
}

}  // namespace
}  // namespace llm
