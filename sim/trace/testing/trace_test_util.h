// Helpers for the trace reader tests (sim/trace/trace_*_test.cpp): parse a string as each format,
// catch a TraceError's message, compare traces request by request, and round-trip through the
// writer. Header-only (sim/trace/testing/ is not built into a library). Thread-safety: functions
// share no state.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/trace/trace_io.h"

namespace llm::testing {

// The Azure CSV header line.
inline const std::string kHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

inline Trace csv(const std::string& text) {
  std::istringstream in(text);
  return parse_azure_csv(in, "t.csv");
}

inline Trace json_trace(const std::string& text, TraceMetadata* metadata = nullptr) {
  std::istringstream in(text);
  return parse_trace_json(in, "t.json", metadata);
}

// The TraceError message of f(), or a failure when f does not throw one.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no TraceError thrown";
  return "";
}

// One row of an error table: `input` must fail with a message containing `expected`.
struct ErrorCase {
  const char* label;
  std::string input;
  std::string expected;  // a substring of the message
};

// For each case, expects parse(c.input) to throw a TraceError whose message contains c.expected.
inline void expect_errors(const std::vector<ErrorCase>& cases,
                          const std::function<void(const std::string&)>& parse) {
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.label);
    std::string message = error_of([&] { parse(c.input); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

inline bool same_request(const TraceRequest& a, const TraceRequest& b) {
  return a.id == b.id && a.arrival_ns == b.arrival_ns && a.prompt_len == b.prompt_len &&
         a.prompt_tokens == b.prompt_tokens && a.output_len == b.output_len &&
         a.prefix_hash_ids == b.prefix_hash_ids && a.hash_block_size == b.hash_block_size &&
         a.n == b.n && a.max_tokens == b.max_tokens && a.priority == b.priority &&
         a.cache_salt == b.cache_salt;
}

inline void expect_same_requests(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i) {
    ASSERT_TRUE(same_request(a.requests[i], b.requests[i])) << "request " << i;
  }
}

// t written with write_trace_json(t, out, written) and read back with parse_trace_json.
inline Trace round_trip(const Trace& t, TraceMetadata* metadata = nullptr,
                        const TraceMetadata& written = {}) {
  std::ostringstream out;
  write_trace_json(t, out, written);
  return json_trace(out.str(), metadata);
}

}  // namespace llm::testing
