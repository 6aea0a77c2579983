// The ways `--arrival-rate-scale F` can scale a trace's load, and how a bursty trace answers them:
//  - stretch (the default): every arrival time divided by F. The same requests in less or more
//    time, so requests that arrive together (a Mooncake trace sends up to 28 on one instant)
//    still arrive together at any F: the bursts, and the latencies they cause, do not scale.
//  - sample: below 1x, each request kept with probability F (thinning); above 1x, floor(F)
//    copies of the trace laid over each other, each copy after the first shifted by a random
//    offset within the trace's period (wrapping around), then one more shifted copy thinned to
//    F - floor(F). The trace's time span stays; the request rate and the bursts' spacing scale.
// And `--loop-to D`: after scaling, the trace repeated back to back (each pass one period, the
// span plus one mean gap, after the last) until D of arrival time, cut at D. Copies and passes
// are renamed (id~c2, id~l2) and salted (cache_salt id~c2...) so that they share no KV blocks
// with the original, as different users' conversations would not. Every draw comes from `seed`
// (llm::Rng), so the same flags give the same trace.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/trace/request_stream.h"
#include "sim/trace/trace.h"

namespace llm {

enum class LoadScalingMode { kStretch, kSample };

struct LoadScaling {
  double factor = 1.0;  // --arrival-rate-scale (> 0)
  LoadScalingMode mode = LoadScalingMode::kStretch;
  int64_t loop_to_ns = 0;  // --loop-to (0: no looping)
  uint64_t seed = 0;
};

// "stretch" or "sample"; parse_load_scaling_mode throws std::invalid_argument for another name.
const char* load_scaling_mode_name(LoadScalingMode mode);
LoadScalingMode parse_load_scaling_mode(const std::string& name);

// How often requests arrive together: a trace's arrival instants and its largest burst.
struct ArrivalBursts {
  int64_t requests = 0;
  int64_t instants = 0;   // distinct arrival times
  int64_t largest = 0;    // most requests on one instant
  int64_t in_bursts = 0;  // requests that share their instant with another
  bool bursty() const;    // more than a quarter of the requests arrive in bursts
};
ArrivalBursts arrival_bursts(const Trace& trace);

// What scale_load did, for the summary.
struct LoadScalingInfo {
  LoadScalingMode mode = LoadScalingMode::kStretch;
  double factor = 1.0;
  int64_t loop_to_ns = 0;
  int64_t trace_requests = 0;     // before
  int64_t replayed_requests = 0;  // after
  int64_t copies = 1;             // sample: whole copies of the trace (0 below 1x)
  int64_t loops = 1;              // passes of --loop-to (1: none)
  ArrivalBursts bursts;           // of the trace before scaling
  bool scaled() const;            // anything but stretch at 1x without looping
};

// The trace with its load scaled. Throws std::invalid_argument for a factor that is not finite
// and > 0, or --loop-to on a trace whose requests all arrive at one instant; std::out_of_range
// when a time does not fit in int64 nanoseconds.
Trace scale_load(const Trace& trace, const LoadScaling& scaling, LoadScalingInfo* info = nullptr);

// The period a shifted or repeated copy of a trace with these facts keeps (its span plus one mean
// gap between arrival instants); 0 when every request arrives at one instant.
int64_t trace_period(const StreamFacts& facts);

// --load-scaling sample streamed: the requests scale_load's sample gives, in its order (arrival,
// then copy, then the trace's order), from floor(F) + 1 passes over the trace at once (one per
// copy; a shifted copy reads the trace twice: its wrapped tail, then its head). `open` opens the
// trace (in arrival order) again, `facts` are its figures. Memory: the open passes.
class SampledStream final : public RequestStream {
 public:
  SampledStream(const std::function<std::unique_ptr<RequestStream>()>& open,
                const StreamFacts& facts, double factor, uint64_t seed);
  ~SampledStream() override;
  const TraceRequest* next() override;
  int64_t copies() const { return whole_; }  // whole copies (0 below 1x)

 private:
  class Copy;
  std::vector<std::unique_ptr<Copy>> copies_;
  std::vector<std::pair<int64_t, size_t>> heap_;  // (arrival, copy) of each copy's next request
  int64_t whole_ = 0;
  TraceRequest current_;
};

// "stretch 10x", "sample 2.5x (2 copies + one thinned to 50%)", "... looped 3 times to 1h".
std::string describe_load_scaling(const LoadScalingInfo& info);

// A warning for stretching a bursty trace (empty when there is nothing to warn about): stretching
// cannot change how many requests arrive together.
std::string stretch_warning(const LoadScalingInfo& info);
// The same for commands that replay a trace at several scales (llmsim sweep, capacity): `scaling`
// says what stretches time ("--arrival-rate-scale 2 stretches time"); empty when the trace is not
// bursty. The second form names the stretching factors among `factors` (those other than 1;
// empty when there are none).
std::string stretch_warning(const ArrivalBursts& bursts, const std::string& scaling);
std::string stretch_warning(const ArrivalBursts& bursts, const std::vector<double>& factors);

}  // namespace llm
