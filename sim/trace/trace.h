// A replayable request trace: what llmsim reads, whatever the source format (our JSON format,
// Azure CSV, Mooncake JSONL, or the synthetic generator). Plain data, times in integer nanoseconds
// relative to the trace's start. See traces/README.md for the JSON format.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {

struct TraceRequest {
  std::string id;                      // unique within the trace; readers make "<line>" when absent
  int64_t arrival_ns = 0;              // relative to the trace start, non-decreasing in a trace
  int64_t prompt_len = 0;              // tokens; equals prompt_tokens.size() when tokens are given
  std::vector<int32_t> prompt_tokens;  // optional real token ids
  int64_t output_len = 0;  // tokens the model produces before it stops on its own (>= 1)
  // Optional prefix identity: hash id i names tokens [i*hash_block_size, (i+1)*hash_block_size)
  // of the prompt (the last block may be partial). Equal leading ids mean a shared prefix.
  std::vector<uint64_t> prefix_hash_ids;
  int32_t hash_block_size = 0;  // tokens per hash id; 0 when prefix_hash_ids is empty
  int32_t n = 1;                // parallel sequences (OpenAI's n)
  int64_t max_tokens = -1;      // -1: the client did not set it
  int32_t priority = 0;         // smaller is served first under the priority policy
  // vLLM's cache_salt: requests with different salts share no KV blocks; "" for none.
  std::string cache_salt;
};

struct Trace {
  std::string source;  // file path or "synthetic:..." description
  std::string format;  // "json", "azure-csv", "mooncake-jsonl", "synthetic"
  std::vector<TraceRequest> requests;
};

// A problem with an input file: what() reads "FILE:LINE: FIELD: what is wrong".
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace llm
