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

// The trace's period (trace_period).
int64_t period_of(const Trace& t) {
  TraceRequestStream all(t);
  return trace_period(scan_stream(all));
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
  TraceRequestStream all(t);
  SampledStream sampled([&t] { return std::make_unique<TraceRequestStream>(t); }, scan_stream(all),
                        factor, seed);
  Trace out = collect_stream(sampled);
  out.source = t.source;
  out.format = t.format;
  *copies = sampled.copies();
  return out;
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

int64_t trace_period(const StreamFacts& f) {
  const int64_t span = f.last_arrival_ns - f.first_arrival_ns;
  if (f.requests < 2 || span <= 0) return 0;
  // One mean gap between arrival instants (requests that arrive together make no gap).
  return span + span / (f.instants - 1);
}

// One copy of the trace, in (arrival, trace order): shifted by `offset` within the period, the
// requests pushed past its end wrap around to its start and so come first (read from the first
// that wraps to the end), then the rest (read again from the start). A thinned copy draws one
// uniform per request in the trace's order, as scale_load did: the wrapped part's generator
// skips the draws of the requests before it.
class SampledStream::Copy {
 public:
  Copy(std::function<std::unique_ptr<RequestStream>()> open, int64_t copy, int64_t start,
       int64_t period, int64_t offset, double keep, uint64_t thin_seed)
      : open_(std::move(open)),
        wrap_at_(offset > 0 ? start + period - offset : INT64_MAX),
        period_(period),
        offset_(offset),
        keep_(keep),
        thin_seed_(thin_seed),
        suffix_(copy == 0 ? "" : "~c" + std::to_string(copy + 1)) {
    if (offset > 0) {  // the wrapped tail first
      pass_ = open_();
      thin_ = Rng(thin_seed_);
      wrapped_ = true;
    } else {
      start_head();
    }
  }

  // The copy's next request, renamed and shifted; null after its last.
  const TraceRequest* next() {
    while (pass_) {
      const TraceRequest* r = pass_->next();
      if (r == nullptr || (!wrapped_ && r->arrival_ns >= wrap_at_)) {
        if (wrapped_) {
          start_head();
          continue;
        }
        pass_.reset();
        break;
      }
      const bool kept = keep_ >= 1 || thin_.uniform() < keep_;
      if (wrapped_ && r->arrival_ns < wrap_at_) continue;  // the head: its turn comes second
      if (!kept) continue;
      current_ = *r;
      current_.arrival_ns =
          wrapped_ ? r->arrival_ns - (period_ - offset_) : r->arrival_ns + offset_;
      if (!suffix_.empty()) {
        current_.id += suffix_;
        current_.cache_salt += suffix_;
      }
      return &current_;
    }
    return nullptr;
  }
  TraceRequest& current() { return current_; }

 private:
  void start_head() {
    pass_ = open_();
    thin_ = Rng(thin_seed_);
    wrapped_ = false;
  }

  std::function<std::unique_ptr<RequestStream>()> open_;
  int64_t wrap_at_, period_, offset_;
  double keep_;  // the thinned copy's share; 1 for a whole copy
  uint64_t thin_seed_;
  std::string suffix_;
  std::unique_ptr<RequestStream> pass_;
  bool wrapped_ = false;
  Rng thin_{0};
  TraceRequest current_;
};

SampledStream::SampledStream(const std::function<std::unique_ptr<RequestStream>()>& open,
                             const StreamFacts& facts, double factor, uint64_t seed) {
  whole_ = static_cast<int64_t>(std::floor(factor));
  const double fraction = factor - static_cast<double>(whole_);
  const int64_t period = trace_period(facts);
  const int64_t start = facts.requests == 0 ? 0 : facts.first_arrival_ns;
  const int64_t num_copies = whole_ + (fraction > 0 ? 1 : 0);
  for (int64_t copy = 0; copy < num_copies; ++copy) {
    int64_t offset = 0;
    if (copy > 0 && period > 0) {
      Rng offsets(hash_combine(seed, kOffsetStream + static_cast<uint64_t>(copy)));
      offset = static_cast<int64_t>(offsets.below(static_cast<uint64_t>(period)));
    }
    const double keep = copy == whole_ ? fraction : 1.0;
    copies_.push_back(
        std::make_unique<Copy>(open, copy, start, period, offset, keep,
                               hash_combine(seed, kThinStream + static_cast<uint64_t>(copy))));
  }
  for (size_t i = 0; i < copies_.size(); ++i) {
    if (const TraceRequest* r = copies_[i]->next()) heap_.emplace_back(r->arrival_ns, i);
  }
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
}

SampledStream::~SampledStream() = default;

const TraceRequest* SampledStream::next() {
  if (heap_.empty()) return nullptr;
  std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
  const size_t i = heap_.back().second;
  heap_.pop_back();
  std::swap(current_, copies_[i]->current());
  if (const TraceRequest* r = copies_[i]->next()) {
    heap_.emplace_back(r->arrival_ns, i);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
  return &current_;
}

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
