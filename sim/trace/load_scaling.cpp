#include "sim/trace/load_scaling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

// Stream identities of the draws, mixed with the seed.
constexpr uint64_t kOffsetStream = 0x6f6666736574ULL;  // "offset"
constexpr uint64_t kThinStream = 0x7468696eULL;        // "thin"

struct Placed {
  int64_t arrival_ns;
  int64_t copy;  // 0: the original
  size_t index;  // into the source trace
};

// The trace's period: its span plus one mean gap, so that a shifted or repeated copy keeps the
// request rate across the seam. 0 when every request arrives at one instant.
int64_t period_of(const Trace& t) {
  if (t.requests.size() < 2) return 0;
  const int64_t span = t.requests.back().arrival_ns - t.requests.front().arrival_ns;
  if (span <= 0) return 0;
  // One mean gap between arrival instants (requests that arrive together make no gap).
  int64_t instants = 1;
  for (size_t i = 1; i < t.requests.size(); ++i) {
    if (t.requests[i].arrival_ns != t.requests[i - 1].arrival_ns) ++instants;
  }
  return span + span / (instants - 1);
}

TraceRequest renamed(const TraceRequest& r, const std::string& suffix) {
  TraceRequest c = r;
  c.id += suffix;
  c.cache_salt = r.cache_salt + suffix;
  return c;
}

Trace assemble(const Trace& source, std::vector<Placed>& placed, const char* tag) {
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return std::tie(a.arrival_ns, a.copy, a.index) < std::tie(b.arrival_ns, b.copy, b.index);
  });
  Trace out;
  out.source = source.source;
  out.format = source.format;
  out.requests.reserve(placed.size());
  for (const Placed& p : placed) {
    const TraceRequest& r = source.requests[p.index];
    out.requests.push_back(
        p.copy == 0 ? r : renamed(r, std::string("~") + tag + std::to_string(p.copy + 1)));
    out.requests.back().arrival_ns = p.arrival_ns;
  }
  return out;
}

// sample: whole copies shifted within the period, then one more shifted copy thinned.
Trace sample_copies(const Trace& t, double factor, uint64_t seed, int64_t* copies) {
  const int64_t whole = static_cast<int64_t>(std::floor(factor));
  const double fraction = factor - static_cast<double>(whole);
  *copies = whole;
  const int64_t period = period_of(t);
  const int64_t start = t.requests.empty() ? 0 : t.requests.front().arrival_ns;
  std::vector<Placed> placed;
  const int64_t num_copies = whole + (fraction > 0 ? 1 : 0);
  for (int64_t copy = 0; copy < num_copies; ++copy) {
    int64_t offset = 0;
    if (copy > 0 && period > 0) {
      Rng offsets(hash_combine(seed, kOffsetStream + static_cast<uint64_t>(copy)));
      offset = static_cast<int64_t>(offsets.below(static_cast<uint64_t>(period)));
    }
    const bool thinned = copy == whole;
    Rng thin(hash_combine(seed, kThinStream + static_cast<uint64_t>(copy)));
    for (size_t i = 0; i < t.requests.size(); ++i) {
      if (thinned && !(thin.uniform() < fraction)) continue;
      int64_t at = t.requests[i].arrival_ns;
      if (offset > 0) at = start + (at - start + offset) % period;
      placed.push_back({at, copy, i});
    }
  }
  return assemble(t, placed, "c");
}

// --loop-to: passes one period apart until `until_ns`, cut there.
Trace loop_to(const Trace& t, int64_t until_ns, int64_t* loops) {
  const int64_t period = period_of(t);
  if (period <= 0) {
    throw std::invalid_argument(
        "--loop-to: the trace's requests all arrive at one instant; there is no period to "
        "repeat");
  }
  std::vector<Placed> placed;
  *loops = 0;
  for (int64_t pass = 0;; ++pass) {
    if (pass > 0 && period > (INT64_MAX - t.requests.front().arrival_ns) / pass) break;
    const int64_t shift = pass * period;
    if (t.requests.front().arrival_ns + shift >= until_ns) break;
    for (size_t i = 0; i < t.requests.size(); ++i) {
      const int64_t at = t.requests[i].arrival_ns + shift;
      if (at >= until_ns) break;
      placed.push_back({at, pass, i});
    }
    ++*loops;
  }
  return assemble(t, placed, "l");
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

const char* load_scaling_mode_name(LoadScalingMode mode) {
  return mode == LoadScalingMode::kSample ? "sample" : "stretch";
}

LoadScalingMode parse_load_scaling_mode(const std::string& name) {
  if (name == "stretch") return LoadScalingMode::kStretch;
  if (name == "sample") return LoadScalingMode::kSample;
  throw std::invalid_argument("expected stretch or sample, got '" + name + "'");
}

bool ArrivalBursts::bursty() const { return requests > 0 && in_bursts * 4 > requests; }

ArrivalBursts arrival_bursts(const Trace& t) {
  ArrivalBursts b;
  b.requests = static_cast<int64_t>(t.requests.size());
  size_t i = 0;
  while (i < t.requests.size()) {
    size_t j = i;
    while (j < t.requests.size() && t.requests[j].arrival_ns == t.requests[i].arrival_ns) ++j;
    const int64_t together = static_cast<int64_t>(j - i);
    ++b.instants;
    b.largest = std::max(b.largest, together);
    if (together > 1) b.in_bursts += together;
    i = j;
  }
  return b;
}

bool LoadScalingInfo::scaled() const {
  return factor != 1.0 || mode != LoadScalingMode::kStretch || loop_to_ns > 0;
}

Trace scale_load(const Trace& trace, const LoadScaling& s, LoadScalingInfo* info) {
  if (!std::isfinite(s.factor) || s.factor <= 0) {
    throw std::invalid_argument("--arrival-rate-scale: must be finite and > 0, got " +
                                number_text(s.factor));
  }
  LoadScalingInfo i;
  i.mode = s.mode;
  i.factor = s.factor;
  i.loop_to_ns = s.loop_to_ns;
  i.trace_requests = static_cast<int64_t>(trace.requests.size());
  i.bursts = arrival_bursts(trace);
  Trace out;
  if (s.mode == LoadScalingMode::kStretch) {
    out = trace;
    if (s.factor != 1.0) scale_arrivals(out, s.factor);
  } else {
    out = sample_copies(trace, s.factor, s.seed, &i.copies);
  }
  if (s.loop_to_ns > 0 && !out.requests.empty()) out = loop_to(out, s.loop_to_ns, &i.loops);
  i.replayed_requests = static_cast<int64_t>(out.requests.size());
  if (info) *info = i;
  return out;
}

std::string describe_load_scaling(const LoadScalingInfo& i) {
  std::string text =
      std::string(load_scaling_mode_name(i.mode)) + " " + number_text(i.factor) + "x";
  if (i.mode == LoadScalingMode::kSample) {
    const double fraction = i.factor - static_cast<double>(i.copies);
    std::string parts;
    if (i.copies > 0) parts = std::to_string(i.copies) + (i.copies == 1 ? " copy" : " copies");
    if (fraction > 0) {
      parts += (parts.empty() ? "thinned to " : " + one thinned to ") +
               number_text(fraction * 100) + "%";
    }
    text += " (" + parts + ")";
  }
  if (i.loop_to_ns > 0) {
    text += ", looped " + std::to_string(i.loops) + (i.loops == 1 ? " time" : " times") + " to " +
            number_text(static_cast<double>(i.loop_to_ns) * 1e-9) + " s";
  }
  return text + ": " + std::to_string(i.replayed_requests) + " requests from the trace's " +
         std::to_string(i.trace_requests);
}

std::string stretch_warning(const ArrivalBursts& b, const std::string& scaling) {
  if (!b.bursty()) return "";
  return scaling + ", and " + std::to_string(b.requests) + " requests arrive on " +
         std::to_string(b.instants) + " instants (up to " + std::to_string(b.largest) +
         " at once): stretched, they still arrive together at any scale, so the latency the "
         "bursts cause does not scale with it; --load-scaling sample thins the requests (below "
         "1x) or superposes shifted copies (above 1x) instead";
}

std::string stretch_warning(const LoadScalingInfo& i) {
  if (i.mode != LoadScalingMode::kStretch || i.factor == 1.0) return "";
  return stretch_warning(i.bursts,
                         "--arrival-rate-scale " + number_text(i.factor) + " stretches time");
}

std::string stretch_warning(const ArrivalBursts& b, const std::vector<double>& factors) {
  std::vector<double> scaled;
  for (double f : factors) {
    if (f != 1.0 && std::find(scaled.begin(), scaled.end(), f) == scaled.end()) scaled.push_back(f);
  }
  if (scaled.empty()) return "";
  std::sort(scaled.begin(), scaled.end());
  std::string list;
  for (double f : scaled) list += (list.empty() ? "" : ", ") + number_text(f);
  return stretch_warning(b, "--arrival-rate-scale " + list +
                                (scaled.size() == 1 ? " stretches time" : " stretch time"));
}

}  // namespace llm
