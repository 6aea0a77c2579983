// Where trace and span ids come from: a fixed-algorithm generator (SplitMix64, core/rng.h) over a
// seed. llmserve seeds it from the OS once at start; llmsim from --seed, so its ids are the same
// on every run. Ids are never all zero (W3C and OTLP call such ids invalid).
// Thread-safety: none; llmserve guards its one source with a mutex (server/tracing/tracer.h).
#pragma once

#include <cstdint>

#include "core/rng.h"
#include "telemetry/span.h"

namespace llm {

class SpanIdSource {
 public:
  explicit SpanIdSource(uint64_t seed) : rng_(seed) {}

  TraceId next_trace_id() {
    TraceId id{};
    while (is_zero(id)) {
      fill(id.data(), 8, rng_.next_u64());
      fill(id.data() + 8, 8, rng_.next_u64());
    }
    return id;
  }
  SpanId next_span_id() {
    SpanId id{};
    while (is_zero(id)) fill(id.data(), 8, rng_.next_u64());
    return id;
  }

 private:
  static void fill(uint8_t* out, int n, uint64_t bits) {
    for (int i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(bits >> (8 * (n - 1 - i)));
  }
  Rng rng_;
};

}  // namespace llm
