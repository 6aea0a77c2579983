// Synthetic load generator: builds a Trace from a small spec (arrival process, length
// distributions, parallel sampling, shared system prompts), deterministically from a seed using
// llm::Rng only. Also parses/prints the CLI form "synthetic:key=value,...".
// Thread-safety: all functions are reentrant; they share no state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/trace/request_stream.h"
#include "sim/trace/trace.h"

namespace llm {

// A token-length distribution. Sampled lengths are integers clipped to [min, max].
struct LengthSpec {
  enum Kind { kFixed, kUniform, kLogNormal };
  Kind kind = kFixed;
  double median = 128;  // kFixed: the length; kLogNormal: exp(mu), the median before clipping
  double sigma = 1.0;   // kLogNormal: standard deviation of ln(length)
  int64_t min = 1;      // kUniform: inclusive range; kLogNormal: clip range; kFixed: unused
  int64_t max = 4096;
};

struct SyntheticSpec {
  enum Arrival { kPoisson, kGamma };

  uint64_t seed = 1;
  int64_t num_requests = 100;
  double rate_per_s = 1.0;     // mean arrival rate
  Arrival arrival = kPoisson;  // the first request arrives at 0, then i.i.d. gaps
  double gamma_cv = 1.0;       // kGamma: coefficient of variation of the gaps (1.0 = Poisson-like)
  LengthSpec prompt;           // the request's own prompt tokens (after any shared prefix)
  LengthSpec output{LengthSpec::kFixed, 128, 1.0, 1, 4096};
  int32_t n = 1;  // parallel sequences per request (OpenAI's n)

  // Prefix sharing: each request, with probability shared_prefix_fraction, starts with one of
  // num_shared_prefixes system prompts (chosen uniformly) of shared_prefix_len tokens, followed by
  // its own prompt. When the fraction is > 0 every request gets prefix_hash_ids (unique ids for
  // unshared blocks) with the given hash_block_size; otherwise none do.
  double shared_prefix_fraction = 0.0;
  int32_t num_shared_prefixes = 1;
  int64_t shared_prefix_len = 512;
  int32_t hash_block_size = 16;
};

// Throws std::invalid_argument naming the first bad field.
void validate_synthetic_spec(const SyntheticSpec& spec);

// Generates spec.num_requests requests; the same spec always gives the same trace.
// Trace::source is format_synthetic_spec(spec), Trace::format is "synthetic".
Trace generate_synthetic(const SyntheticSpec& spec);

// The same requests as generate_synthetic, one at a time (memory does not grow with n).
class SyntheticStream final : public RequestStream {
 public:
  explicit SyntheticStream(const SyntheticSpec& spec);  // throws as validate_synthetic_spec
  ~SyntheticStream() override;
  const TraceRequest* next() override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ShareGPT-like chat load with Poisson arrivals: prompt lengths lognormal(median 220, sigma 1.0)
// clipped to [4, 4096] (mean about 350), output lengths lognormal(median 200, sigma 1.0) clipped
// to [1, 2048]. Roughly the shape of the ShareGPT_V3 conversations used by vLLM's benchmarks.
SyntheticSpec sharegpt_like(int64_t num_requests, double rate_per_s, uint64_t seed);

// Parses the CLI form, with or without the "synthetic:" prefix, starting from sharegpt_like
// defaults (n=100, rate=1, seed=1). Keys (comma separated key=value):
//   n=INT (requests)  rate=REQ_PER_S  seed=UINT  arrival=poisson|gamma  cv=DOUBLE
//   prompt=LEN  output=LEN  where LEN is fixed:L | uniform:MIN:MAX |
//   lognormal:MEDIAN:SIGMA[:MIN:MAX] seqs=INT (parallel sequences)  prefix=FRACTION  prefixes=K
//   prefix_len=TOKENS  block=TOKENS
// Throws TraceError "synthetic: KEY: what is wrong" for unknown keys and bad values.
SyntheticSpec parse_synthetic_spec(const std::string& text);

// The canonical CLI form of a spec ("synthetic:n=...,..."); parse_synthetic_spec reads it back.
std::string format_synthetic_spec(const SyntheticSpec& spec);

}  // namespace llm
