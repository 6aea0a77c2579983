// What llmserve as a test double injects (docs/test-double.md): the share of generation requests
// that fail and their types, the seed that decides which, the latency added to streams (first
// token, each token, a stall, a cut), and the /health schedule (not ready at first, flapping). Set
// by the command line, changed at run time through POST /admin/faults (its JSON fields below), and
// narrowed per request by the X-Fault-* headers. Durations are whole milliseconds.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/faults/failure_type.h"

namespace llm {

struct FaultConfig {
  double failure_rate = 0;                 // 0..1: the share of generation requests that fail
  std::vector<FailureType> failure_types;  // empty: all of them
  uint64_t seed = 0;                       // decides which requests fail, and with what
  int64_t ttft_ms = 0;                     // added before the first stream event
  int64_t itl_ms = 0;                      // added before each further event (cumulative)
  int64_t stall_after = -1;                // after this many events, the stream pauses ...
  int64_t stall_ms = 0;                    // ... this long (-1: no stall)
  int64_t cut_after = -1;                  // after this many events the connection closes
  int64_t startup_delay_ms = 0;            // /health answers 503 this long at first
  int64_t health_flap_period_ms = 0;       // then alternates: ready this long, 503 this long

  bool injects_latency() const {
    return ttft_ms > 0 || itl_ms > 0 || (stall_after >= 0 && stall_ms > 0) || cut_after >= 0;
  }
  bool any() const {
    return failure_rate > 0 || injects_latency() || startup_delay_ms > 0 ||
           health_flap_period_ms > 0;
  }
};

// "200ms", "1.5s", "2s" (a unit is required, so that 200 cannot be misread) as milliseconds, at
// least 0 and at most a day. UsageError "NAME: ..." otherwise; `name` is a flag, header or field.
int64_t parse_duration_ms(const std::string& name, const std::string& text);
// "0.05" (a fraction, 0..1) or "5%" (a percentage, 0..100%) as a fraction. UsageError otherwise.
double parse_failure_rate(const std::string& name, const std::string& text);

// Whether /health is ready `ms_since_epoch` ms after the health schedule began (the server's
// start, or the admin API's last change to the schedule).
bool health_ready(const FaultConfig& config, int64_t ms_since_epoch);

// The admin API's JSON (GET /admin/faults) of a configuration.
nlohmann::ordered_json fault_config_json(const FaultConfig& config);
// POST /admin/faults: `config` with the fields of the JSON object `body` replaced. Throws
// UsageError naming the field for an unknown field, a wrong type or a bad value (nothing is
// changed then). `*seed_changed` and `*health_changed` say whether those parts were given.
FaultConfig apply_fault_json(const FaultConfig& config, const std::string& body, bool* seed_changed,
                             bool* health_changed);

}  // namespace llm
