// The per-request samples behind a replay's latency figures, kept with its summary so that any
// percentile can be read after the run (`--sort ttft_p75`, `--slo e2e_p99.9=30s`,
// `--metric-percentiles 25,75`), and the two views an SLO needs:
//  - served: over the samples the replay recorded, as summary.json and vLLM's histograms report
//    them (a refused request has no latency);
//  - SLO view: over every sequence the deployment was asked to serve, each refused or errored one
//    counted as infinitely slow (it missed every latency target), so that a deployment cannot
//    meet a latency SLO by refusing the slow requests. The samples an errored request produced
//    before it failed stay in; for ITL a failed sequence counts as the gaps it would have made
//    (its scripted output length - 1, at least one).
// And the per-sequence outcomes that goodput and attainment (sim/replay/goodput.h) are read from.
// Memory: what the samples hold in memory is bounded when they were collected with a SpillArea
// (ReplayReport): the rest is on disk.
// Thread-safety: immutable once built; shared between copies of a summary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample_stats.h"
#include "sim/replay/goodput.h"
#include "sim/replay/sequence_outcomes.h"
#include "sim/replay/sorted_samples.h"

namespace llm {

struct LatencySamples {
  // Ascending samples of each per-request distribution, by the summary's name (ttft,
  // request_ttft, queue, prefill, decode, e2e, tpot; client_ttft, client_e2e with the API
  // server), in memory or on disk (sim/replay/sorted_samples.h).
  std::map<std::string, SortedSamples, std::less<>> sorted;
  LogSketch itl;              // every inter-token gap
  SequenceOutcomes outcomes;  // one per finished sequence, refused ones included
  int64_t failed = 0;         // refused (rejected) or errored sequences
  int64_t failed_gaps = 0;    // the inter-token gaps those would have made
};

// The `level`-th percentile (0-100) of distribution `name` ("itl" or a key of `sorted`), served
// view (count_failed false) or SLO view (true: infinity when the failed share reaches it). 0
// for a distribution without samples and no failures, as the summary's figures; NaN for an
// unknown name.
double latency_percentile(const LatencySamples& samples, std::string_view name, double level,
                          bool count_failed);

// The number of samples of `name`, with or without the failed sequences.
int64_t latency_count(const LatencySamples& samples, std::string_view name, bool count_failed);

// Sequences meeting every target (sim/replay/goodput.h), and their share of all finished ones
// (0 when there are none).
int64_t good_sequences(const LatencySamples& samples, const GoodputTargets& targets);
double attainment(const LatencySamples& samples, const GoodputTargets& targets);

}  // namespace llm
