// Request planning and request bodies for llmbench (no networking here).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/rng.h"
#include "loadgen/bench.h"

namespace llm::loadgen {
namespace {

// Generated token ids stay in [kFirstToken, kFirstToken + kTokenRange): valid for any vocabulary of
// 32,000 or more and clear of the special tokens at the start of most vocabularies.
constexpr uint64_t kFirstToken = 1000;
constexpr uint64_t kTokenRange = 30000;

// Short common English words that simple and BPE tokenizers count as one token each.
constexpr const char* kWords[] = {
    "the",   "of",    "and",   "to",    "in",    "is",   "it",    "that", "for",   "on",   "was",
    "with",  "he",    "as",    "at",    "by",    "this", "had",   "not",  "are",   "but",  "from",
    "or",    "have",  "an",    "they",  "which", "one",  "you",   "were", "her",   "all",  "she",
    "there", "would", "their", "we",    "him",   "been", "has",   "when", "who",   "will", "more",
    "no",    "if",    "out",   "so",    "said",  "what", "up",    "its",  "about", "into", "than",
    "them",  "can",   "only",  "other", "new",   "some", "could", "time", "these"};
constexpr uint64_t kNumWords = sizeof(kWords) / sizeof(kWords[0]);

// A pseudo-random value for prompt position `pos` of the request: positions covered by a prefix
// hash id depend only on that id (and the run's salt), so requests that share a prefix in the
// trace share it here too.
uint64_t position_hash(const TraceRequest& r, uint64_t request_seed, uint64_t salt, int64_t pos) {
  if (r.hash_block_size > 0) {
    const size_t block = static_cast<size_t>(pos / r.hash_block_size);
    if (block < r.prefix_hash_ids.size()) {
      const uint64_t h = hash_combine(r.prefix_hash_ids[block], static_cast<uint64_t>(pos));
      return salt == 0 ? h : hash_combine(h, salt);
    }
  }
  return hash_combine(request_seed, static_cast<uint64_t>(pos));
}

void append_json_string(std::string& out, std::string_view s) {
  out += nlohmann::json(std::string(s)).dump();
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

}  // namespace

std::vector<PlannedRequest> plan_requests(const Trace& trace, const BenchConfig& config) {
  std::vector<PlannedRequest> plan;
  const size_t size = trace.requests.size();
  if (size == 0) return plan;
  using A = BenchConfig::Arrivals;
  if (config.arrivals == A::kTrace) {
    size_t n = size;
    if (config.num_requests) n = std::min<size_t>(n, static_cast<size_t>(*config.num_requests));
    plan.reserve(n);
    const int64_t t0 = trace.requests.front().arrival_ns;
    for (size_t i = 0; i < n; ++i) {
      const double t =
          static_cast<double>(trace.requests[i].arrival_ns - t0) / config.arrival_rate_scale;
      plan.push_back({i, static_cast<int64_t>(std::llround(t))});
    }
    return plan;
  }
  const size_t n = config.num_requests ? static_cast<size_t>(*config.num_requests) : size;
  plan.reserve(n);
  Rng rng(config.seed);
  double t_s = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t send_ns = 0;
    if (config.arrivals == A::kRate && std::isfinite(config.request_rate)) {
      if (i > 0) t_s += rng.exponential(1.0 / config.request_rate);
      send_ns = static_cast<int64_t>(std::llround(t_s * 1e9));
    }
    plan.push_back({i % size, send_ns});
  }
  return plan;
}

std::string build_request_body(const TraceRequest& r, const BenchConfig& config,
                               const std::string& model, uint64_t index) {
  const int64_t prompt_len = std::max<int64_t>(r.prompt_len, 1);
  const int64_t max_tokens = std::max<int64_t>(r.output_len, 1);
  uint64_t request_seed = hash_combine(config.seed, index + 1);
  if (config.prompt_salt != 0) request_seed = hash_combine(request_seed, config.prompt_salt);
  std::string body;
  body.reserve(static_cast<size_t>(prompt_len) * 7 + 256);
  body += "{\"model\":";
  append_json_string(body, model);
  if (config.chat || !config.token_ids) {
    std::string text;
    text.reserve(static_cast<size_t>(prompt_len) * 6);
    for (int64_t p = 0; p < prompt_len; ++p) {
      if (p > 0) text.push_back(' ');
      text += kWords[mix64(position_hash(r, request_seed, config.prompt_salt, p)) % kNumWords];
    }
    if (config.chat) {
      body += ",\"messages\":[{\"role\":\"user\",\"content\":\"";
    } else {
      body += ",\"prompt\":\"";
    }
    body += text;  // plain ASCII words: nothing to escape
    body += config.chat ? "\"}]" : "\"";
  } else {
    body += ",\"prompt\":[";
    const bool given =
        static_cast<int64_t>(r.prompt_tokens.size()) == r.prompt_len && r.prompt_len > 0;
    for (int64_t p = 0; p < prompt_len; ++p) {
      if (p > 0) body.push_back(',');
      const int64_t id =
          given ? r.prompt_tokens[static_cast<size_t>(p)]
                : static_cast<int64_t>(
                      kFirstToken +
                      mix64(position_hash(r, request_seed, config.prompt_salt, p)) % kTokenRange);
      append_int(body, id);
    }
    body += "]";
  }
  body += ",\"max_tokens\":";
  append_int(body, max_tokens);
  if (config.ignore_eos) body += ",\"ignore_eos\":true";
  if (config.stream) {
    body += ",\"stream\":true,\"stream_options\":{\"include_usage\":true}";
  } else {
    body += ",\"stream\":false";
  }
  body += "}";
  return body;
}

}  // namespace llm::loadgen
