// Histogram bucket bounds of vLLM's Prometheus metrics (upper bounds, inclusive; +Inf is implied).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace llm {

std::vector<double> ttft_buckets();  // seconds, time to first token
std::vector<double> itl_buckets();   // seconds, inter-token latency and TPOT
std::vector<double>
request_latency_buckets();  // seconds, e2e / queue / prefill / decode / inference
std::vector<double> iteration_token_buckets();  // tokens per engine step
std::vector<double> n_buckets();                // the request's n
std::vector<double> preemption_buckets();       // preemptions of one request
// seconds, vllm:kv_block_*_seconds (vLLM's kv_cache_residency_buckets, 1 ms to 30 min)
std::vector<double> kv_block_residency_buckets();
// 1, 2, 5, 10, 20, 50, ... while the bound <= max_value (token counts).
std::vector<double> one_two_five_buckets(int64_t max_value);

}  // namespace llm
